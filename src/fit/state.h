/* fit/state.h: the working state of one calibration, shared by the pieces of src/fit/:
 * the fit and its options, each data item's residual rows and scales, the counts of
 * runs, the scratch buffers, the global stage's design and refinements, and the
 * static solver's shared beginnings; with the notes and progress lines it logs. */
#ifndef FL_FIT_STATE_H
#define FL_FIT_STATE_H

#include <gsl/gsl_multifit_nlinear.h>

#include "fit.h"

/* The numbers of the buckling envelope a fit may free, in fl_drop_features' order (the
 * peak, the plateau, its end, the slope beyond it). */
extern const char *const fl_cal_buckling_keys[4];

/* One data item's residual rows and their scales (fl_cal_model_init). */
typedef struct {
  double ymax;      /* curves: largest |measured y|; ring-downs: largest |y - mean| */
  double norm;      /* curves, ring-downs: weight / (ymax sqrt(n)) */
  double mean, sd;  /* peaks: measured */
  double se_mean;   /* peaks: standard error of the mean, measured and simulated */
  double se_cv;     /* peaks: of the coefficient of variation sd / mean */
  int row0;         /* first residual row */
  int kink;         /* curves: 1 when a kink residual follows the rows (kink_weight > 0) */
  double kink_x;    /* its measured kink's displacement, m */
  double kink_norm; /* kink_weight / the fitted range's length, 1/m */
  int start;        /* curves: 1 when a start residual follows (start_weight > 0, fl_fit_has_start) */
  double start_bend; /* the measured start's bend (fl_series_start_bend) */
  int batchable[FL_FIT_MAX_FREE]; /* param j may vary inside a batch of this item */
} fl_cal_item;

typedef struct {
  fl_fit *fit;
  const fl_calibrate_opts *opts;
  int n, p;            /* residuals, free parameters */
  fl_cal_item *item;   /* fit->ndata items */
  long simulations, batches;
  double *ybuf;        /* scratch, (1 + p) * largest curve */
  double *fbuf;        /* scratch, 2 * (largest curve + 1) residual rows */
  gsl_vector *last_u;  /* the last point f was evaluated at */
  gsl_vector *last_f;  /* its residuals */
  int have_last;
  /* Broyden's updates of the Jacobian (solver.jacobian: broyden, fiberlab-fit(5)) */
  gsl_matrix *bj;      /* the last Jacobian handed to the solver */
  gsl_vector *bu, *bf; /* its point and the residuals there */
  int bj_local;        /* 1: the local trust region iterates (after any global stage), where updates serve */
  int bj_have;         /* 1: bj, bu, bf are set */
  int bj_updates;      /* updates since bj was last taken by differences */
  int f_evals;         /* evaluations of the residuals since the last Jacobian */
  int bj_force;        /* 1: the next Jacobian by differences */
  int bj_abort;        /* 1: an iteration stopped at a second trial of a Broyden update's step */
  int iterating;       /* past the starting point: a failed trial run rejects its step */
  int failed_trials;   /* trial points the engine could not run */
  int fallbacks;       /* batches the explicit engine ran after the static solver failed */
  int noted[FL_FIT_MAX_FREE];
  double cov_u[FL_FIT_MAX_FREE * FL_FIT_MAX_FREE]; /* the covariance of u at the best point, scaled */
  int have_cov;        /* 1: cov_u is set (fl_cal_uncertainties, with the noise determined) */
  char err[8192];      /* why an evaluation failed */
  int rc;              /* its status */
  double t0;           /* s, monotonic clock at the start */
  double t_iter0;      /* s, when iteration iter0 + 1 began (the starting point evaluated) */
  int iter0;           /* iterations before the local fit's own (the global stage's winner's) */
  int drop_item;       /* the curve whose drop aligns the buckling numbers (-1: none) */
  int drop_jb[4];      /* the free buckling numbers, indices into fit->free (-1: fixed) */
  int drop_js;         /* free max_stress of bonds that yield before they buckle (-1: none) */
  double drop_want[5]; /* its measured features (fl_drop_features) */
  /* the global stage (global.h) */
  int ndesign;         /* points whose residuals it keeps, so a refinement starts without a run */
  double *design_u;    /* ndesign rows of p */
  double *design_f;    /* ndesign rows of n; a row of HUGE_VAL for a point that did not run */
  gsl_multifit_nlinear_workspace *gw[FL_GLOBAL_MAX_REFINE]; /* each refinement's solver */
  int giter[FL_GLOBAL_MAX_REFINE];     /* its iterations */
  int gconv[FL_GLOBAL_MAX_REFINE];     /* 1: its convergence test passed */
  int genoprog[FL_GLOBAL_MAX_REFINE];  /* 1: it stopped with no trial step lowering the cost */
  const gsl_multifit_nlinear_parameters *gparams; /* the solver's parameters */
  gsl_multifit_nlinear_fdf *gfdf;      /* its functions */
  /* shared beginnings (fiberlab-model(7), Shared beginnings): runs of an item that
   * differ only in the free numbers of the buckling envelope start from each other's
   * states */
  struct fl_prefix_cache *prefix;
  int envelope[FL_FIT_MAX_FREE]; /* 1: free parameter j is such a number (fl_cal_buckling_keys) */
} fl_cal_state;

/* Zero st and set it up for fit with opts, t0 the clock at the start (fl_cal_now):
 * 0, or -1 when out of memory (fl_cal_state_free all the same). */
int fl_cal_state_init(fl_cal_state *st, fl_fit *fit, const fl_calibrate_opts *opts, double t0);
/* Free what the state holds (not st itself). */
void fl_cal_state_free(fl_cal_state *st);

/* A line "PROG: ..." on the log, when there is one. */
void fl_cal_note(const fl_cal_state *st, const char *fmt, ...);
/* The progress line of iteration iter at u with residuals f: cost, values, time. */
void fl_cal_progress(const fl_cal_state *st, int iter, const gsl_vector *u, const gsl_vector *f);
/* Whether the run was asked to stop (opts->stop set by a signal). */
int fl_cal_stopped(const fl_cal_state *st);
/* The least-squares cost of residuals f: half their sum of squares. */
double fl_cal_cost(const gsl_vector *f);
/* The monotonic clock, s. */
double fl_cal_now(void);

#endif
