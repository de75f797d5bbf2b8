/* fit.h: calibration of an experiment's parameters against measured curves.
 *
 * A fit definition (fl_fit) is read from a Fit YAML by fl_fit_load (yaml_fit.c), which
 * also loads every experiment and measured table it names, so that all input errors
 * come out before any simulation.  fl_calibrate (fit/calibrate.c, its pieces beside it
 * in src/fit/) then runs a bounded nonlinear least-squares fit with GSL's
 * gsl_multifit_nlinear (trust region), after a global stage over the bounds where the
 * fit asks for one (fit/global.h), and fl_calibration_write / fl_calibration_summary
 * (fit/report.c) report it.  See fiberlab-fit(5) and fiber-calibrate(1). */
#ifndef FL_FIT_H
#define FL_FIT_H

#include <gsl/gsl_multifit_nlinear.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "experiment.h"
#include "measured.h"
#include "output.h" /* enum fl_plot */

#define FL_FIT_MAX_FREE 16   /* free parameters */
#define FL_FIT_MAX_DATA 64   /* data items */
#define FL_FIT_PATH 4096     /* file names */
#define FL_FIT_KEY 128       /* dotted paths */
#define FL_RING_MIN_ROWS 10  /* a ring-down's rows a period below which its extremes are misread */
#define FL_GLOBAL_MIN_POINTS 4    /* solver.global_points */
#define FL_GLOBAL_MAX_POINTS 4096
#define FL_GLOBAL_MAX_REFINE 16   /* solver.global_refine */

/* What a data item holds. */
enum fl_fit_data_kind {
  FL_FIT_CURVE = 0, /* a load-displacement (or torque-twist) curve */
  FL_FIT_PEAKS = 1, /* the peak loads of several specimens (strength statistics) */
  FL_FIT_RINGDOWN = 2 /* a cantilever's tip displacement in time after a release */
};

/* A ring-down item's signal: what of the simulated ring-down its record is compared
 * with (fiberlab-fit(5), signal). */
enum fl_ring_signal {
  FL_RING_FIRST_MODE = 0, /* the first mode's tip displacement: the higher modes left out */
  FL_RING_TIP = 1         /* the tip displacement, the higher modes in it */
};

/* A ring-down item's residuals (fiberlab-fit(5), residuals). */
enum fl_ring_residuals {
  FL_RING_SERIES = 0, /* every row, the record's offset, amplitude and phase fitted alongside */
  FL_RING_FIGURES = 1 /* two: the first frequency and the logarithmic decrement */
};

/* One measured curve, or one set of peak loads, and the experiment that simulates it. */
typedef struct {
  enum fl_fit_data_kind kind;
  enum fl_test_kind test;       /* the test it comes from */
  char file[FL_FIT_PATH];       /* as the fit file wrote it */
  char path[FL_FIT_PATH];       /* opened: relative to the fit file's folder */
  char exp_path[FL_FIT_PATH];   /* its experiment file */
  fl_experiment exp;            /* loaded, with --set and the item's set: applied */
  fl_measured data;             /* SI rows kept (curves: x_min <= x <= x_max after the toe shift) */
  int rows_read;                /* curves: data rows in the file */
  double weight;                /* > 0 */
  double x_max;                 /* m or rad: the largest abscissa fitted */
  double x_min;                 /* m or rad: the smallest abscissa fitted (0: from the origin) */
  int x_max_auto;               /* 1: x_max: auto, the range set from the first drop (fiberlab-fit(5)) */
  double x_max_drop;            /* x_max: auto: the share of its peak a load must fall to make a drop */
  double x_max_past;            /* x_max: auto: the range past the peak, a share of the peak's abscissa */
  int auto_dropped;             /* x_max: auto: 1 a drop was found, 0 none (the range ends at the peak) */
  double auto_peak_x;           /* x_max: auto: the peak before the drop (or the highest load), m or rad */
  double auto_peak_y;           /* x_max: auto: its load, N or N m */
  int toe_auto;                 /* 1: toe: auto (ASTM D790 toe compensation) */
  double toe_shift;             /* m or rad: subtracted from every abscissa (0: none) */
  double x_unit_si;             /* SI value of the file's x unit (for reports) */
  char x_unit[16];              /* its name: "mm", "deg" ... */
  double *row_weight;           /* curves: weight of each kept row by its region (NULL: all 1) */
  double kink_weight;           /* curves: weight of the kink's residual (0: none; fiberlab-fit(5)) */
  double start_weight;          /* curves: weight of the start's bend's residual (0: none; fiberlab-fit(5)) */
  int specimens;                /* peaks: specimens simulated per evaluation */
  double ring_frequency;        /* ring-down: measured first frequency, Hz */
  double ring_decrement;        /* ring-down: measured logarithmic decrement */
  double ring_decrement_se;     /* ring-down: its standard error, from the extremes' scatter */
  int ring_extremes;            /* ring-down: extremes they came from */
  int ring_signal;              /* ring-down: enum fl_ring_signal */
  int ring_residuals;           /* ring-down: enum fl_ring_residuals */
} fl_fit_data;

/* One free parameter, in the experiment file's units (degrees for angles). */
typedef struct {
  char path[FL_FIT_KEY]; /* dotted path of a numeric experiment key */
  double start;          /* starting value (set by fl_calibrate when start_auto) */
  int start_auto;        /* 1: start: auto */
  double min, max;       /* bounds, min < max */
  unsigned line, col;    /* where the key stands in the fit file, 1-based */
} fl_fit_param;

/* The trust-region method: a name and GSL's table of functions. */
typedef struct {
  const char *name;                          /* as in YAML */
  const gsl_multifit_nlinear_trs *const *trs; /* GSL's gsl_multifit_nlinear_trs_* */
} fl_fit_method;

/* The methods, in order, ending with a NULL name. */
extern const fl_fit_method fl_fit_methods[];

typedef struct {
  int method;          /* index into fl_fit_methods */
  int scale;           /* the trust region's scaling: enum fl_fit_scale */
  int max_iterations;  /* trust-region iterations */
  double xtol;         /* step test of gsl_multifit_nlinear_test */
  double gtol;         /* gradient test */
  double ftol;         /* residual-change test */
  double fd_step;      /* difference step of the Jacobian, relative in u */
  int central;         /* 1: central differences, 0: forward */
  int broyden;         /* 1: Broyden's updates of the Jacobian between ones by differences */
  int global;          /* the global stage before the trust region: enum fl_global_mode */
  int global_points;   /* its design points (the start not counted) */
  int global_refine;   /* its best points refined by a few trust-region iterations */
} fl_fit_solver;

/* solver.scale: the trust region's scaling matrix D (GSL's
 * gsl_multifit_nlinear_scale_*). */
enum fl_fit_scale {
  FL_SCALE_MORE = 0,      /* D from the largest column norms of J seen so far */
  FL_SCALE_LEVENBERG = 1, /* D = I, in the transformed parameters */
  FL_SCALE_MARQUARDT = 2  /* D from the present column norms of J */
};

/* solver.global: when the global stage runs (fit/global.h). */
enum fl_global_mode {
  FL_GLOBAL_AUTO = 0, /* when a bond.buckling key is free */
  FL_GLOBAL_ON = 1,
  FL_GLOBAL_OFF = 2
};

/* The defaults: lm with more scaling, 100 iterations, xtol 1e-6, gtol 1e-8, ftol 1e-10, forward
 * differences with step 1e-3; global stage auto with 16 points, 3 of them refined. */
fl_fit_solver fl_fit_solver_default(void);

typedef struct {
  char file[FL_FIT_PATH];     /* the fit file */
  char exp_path[FL_FIT_PATH]; /* its experiment: */
  fl_experiment exp;          /* loaded, with --set applied: what the fit calibrates */
  int ndata;
  fl_fit_data *data;          /* ndata items */
  int nfree;
  fl_fit_param free[FL_FIT_MAX_FREE];
  fl_fit_solver solver;
  int npoints;                /* residuals: fl_fit_residual_rows of every item */
  char notes[8192];           /* lines "warning: file:line:col: ..." or "note: ...", for stderr */
  int inner;                  /* 1: a fast start's inner fit, whose calibration has no rows or
                               * figures at the best point (cal->curve NULL) */
} fl_fit;

/* Read a Fit YAML, the experiments and the measured tables it names; sets (nsets
 * KEY=VALUE strings, as -s) apply to every experiment after its file.  Errors:
 * "file:line:col: key: 'value' is ...; allowed: ..." in err, FL_EINPUT or FL_EIO. */
int fl_fit_load(const char *path, const char *const *sets, int nsets, fl_fit *fit, char *err, size_t errlen);
/* The same, for one specimen of a campaign (fiberlab-campaign(5)): data_file (opened as
 * given, not relative to the fit file; NULL: none) replaces the file of every curve item,
 * range[0] (m or rad; < 0: none) its x_min and range[1] (<= 0: none) its x_max; range
 * NULL: neither. */
int fl_fit_load_specimen(const char *path, const char *const *sets, int nsets, const char *data_file,
                         const double range[2], fl_fit *fit, char *err, size_t errlen);
/* Free what fl_fit_load allocated. */
void fl_fit_free(fl_fit *fit);

/* Apply parameter values (in the YAML's units) to an experiment read from exp_path and
 * finish it; a check that fails on a free key points at that key in the fit file. */
int fl_fit_apply(const fl_fit *fit, const double *value, fl_experiment *exp, const char *exp_path, char *err,
                 size_t errlen);

/* ---- the calibration ------------------------------------------------------------- */

enum fl_calibration_status {
  FL_CAL_CONVERGED = 0,      /* a convergence test passed and the result is determined */
  FL_CAL_MAX_ITERATIONS = 1, /* solver.max_iterations reached first */
  FL_CAL_FAILED = 2          /* no progress, a parameter at its bound or without influence, a failed run */
};

typedef struct {
  int threads;                  /* threads over the specimens of a batch (0, 1: serial) */
  int gpu;                      /* 1: run the batches on the CUDA engine */
  int progress;                 /* 1: one line per iteration on log */
  FILE *log;                    /* progress and notes (stderr); NULL: none */
  const char *prog;             /* program name for log lines */
  volatile sig_atomic_t *stop;  /* set asynchronously to interrupt */
  struct fl_checkpoint *checkpoint; /* memo log of the evaluations (NULL: none) */
  int stop_after;               /* stop as if interrupted after this accepted iteration (0: never):
                                 * --stop-after, a calibration run in slices */
  int separate_runs;            /* benchmark: every Jacobian column from a run of its own, no batch */
  int no_hold;                  /* 1: a parameter without influence fails the fit instead of being held
                                 * (a campaign's first fits and retries, which come before holding) */
} fl_calibrate_opts;

/* The checkpoint of a calibration: a memo log of its model evaluations.  Every
 * evaluation of the residuals (f) or of the Jacobian (df) is deterministic, so each is
 * appended, with fsync, as a record keyed by the exact bytes of the transformed
 * parameter vector u and its kind, holding the exact bytes of the residual vector or
 * Jacobian and the simulations it counted.  A resumed calibration runs again from the
 * start; each evaluation found in the log returns its stored bytes without a
 * simulation, so the solver takes exactly the same path, and once the log runs out
 * the evaluations simulate and append again.  The header holds the fit file's name,
 * length and hash, and a hash of everything else the evaluations depend on (the
 * experiment and data files, settings, solver, sizes). */
typedef struct fl_checkpoint fl_checkpoint;

/* Open the checkpoint path for fit; settings names what the files do not (--set,
 * --seed, device, threads).  resume 0: create or replace it.  resume 1: load its
 * records (a truncated or damaged last record is dropped and cut off the file); a
 * missing file starts an empty log.  Returns FL_EINPUT when the file is not a
 * checkpoint or was written for another fit file or other settings, FL_EIO when it
 * cannot be read or written; err says which. */
int fl_checkpoint_open(const char *path, const fl_fit *fit, const char *settings, int resume, fl_checkpoint **ck,
                       char *err, size_t errlen);
/* Records loaded at open, and evaluations answered from them so far. */
long fl_checkpoint_loaded(const fl_checkpoint *ck);
long fl_checkpoint_replayed(const fl_checkpoint *ck);
/* 1 when the file existed at a resume. */
int fl_checkpoint_found(const fl_checkpoint *ck);
/* Close; remove_file 1 deletes the file (a calibration that finished). */
void fl_checkpoint_close(fl_checkpoint *ck, int remove_file);

/* A figure with its standard error (NAN: not determined). */
typedef struct {
  double value;
  double std_error;
} fl_figure;

/* A ring-down item's figures at the fitted values (fiber-calibrate(1), RING-DOWNS): the
 * first mode's, read off the simulated rows over the record's time, with their
 * standard errors from the parameters' covariance. */
typedef struct {
  int used;                 /* 1: the item is a ring-down */
  double measured_frequency; /* Hz: the record's, from its extremes */
  double measured_decrement; /* the record's logarithmic decrement, from its extremes */
  fl_figure frequency;      /* Hz: the first mode's damped frequency */
  fl_figure decrement;      /* its logarithmic decrement delta */
  fl_figure decay_rate;     /* 1/s: b = delta f, the amplitude going as exp(-b t) */
  fl_figure damping_ratio;  /* zeta = delta / sqrt(4 pi^2 + delta^2) */
  double tip_decrement;     /* the simulated tip displacement's decrement over the record's time */
  double higher_modes;      /* the share of the simulated tip's higher modes the record holds: 1
                             * a raw tip record, 0 its first mode alone (NAN: not measured) */
  double higher_modes_se;   /* its standard error */
  double noise;             /* m: the record's noise, the residuals' RMS over their degrees of
                             * freedom (residuals: series; NAN otherwise) */
  double amplitude_ratio;   /* series: the record's amplitude over the simulated one */
  double time_shift;        /* s, series: where the record's time 0 falls after the release */
  double offset;            /* m, series: the record's rest position */
  double rows_per_period;   /* the record's rows a fitted period */
  double periods;           /* its length in fitted periods */
} fl_calibration_ring;

/* One data item's fit. */
typedef struct {
  int points;        /* residual rows: curve points, or the specimens of a peaks item */
  double *x;         /* curves: measured abscissae (SI); peaks: plotting positions (i - 0.5) / n */
  double *measured;  /* measured y (SI); peaks: sorted */
  double *fitted;    /* simulated y at x; peaks: quantiles of the simulated peaks */
  double rms;        /* RMS of fitted - measured over the largest |measured| */
  double r_squared;  /* 1 - SS_res / SS_tot of the rows */
  fl_calibration_ring ring; /* a ring-down's figures (ring.used 0: not a ring-down) */
} fl_calibration_curve;

/* The global stage as it ran (fit/global.h), values in YAML units. */
typedef struct {
  int used;                 /* 1: the stage ran */
  int points;               /* costed: the design and the start */
  int failed;               /* of them, points that did not run */
  int refined;              /* candidates refined */
  int winner;               /* the candidate the local fit went on from */
  long simulations;         /* of the stage, the refinements included */
  int design_index[FL_GLOBAL_MAX_REFINE];                 /* each candidate: 0 the start, k design point k */
  double start[FL_GLOBAL_MAX_REFINE][FL_FIT_MAX_FREE];    /* its values */
  double cost_start[FL_GLOBAL_MAX_REFINE];                /* its cost */
  double refined_value[FL_GLOBAL_MAX_REFINE][FL_FIT_MAX_FREE]; /* after its refinement */
  double cost_refined[FL_GLOBAL_MAX_REFINE];              /* its cost then */
} fl_calibration_global;

/* Where the kink lands: the features of a drop (fiber-calibrate(1), STARTING VALUES)
 * read off the first 3-point curve with buckling bonds whose measured curve has a drop,
 * in the order peak displacement (m), peak force (N), plateau level (N), plateau end (m). */
#define FL_FEATURES 4
typedef struct {
  int item;                        /* its data item, from 0; -1: no such curve */
  double measured[FL_FEATURES];
  int global_found;                /* 1: the global stage's winner has a drop */
  double global[FL_FEATURES];      /* simulated at it */
  int fitted_found;                /* 1: the fitted curve has a drop */
  double fitted[FL_FEATURES];      /* simulated at the fitted values */
} fl_calibration_features;

typedef struct {
  enum fl_calibration_status status;
  char message[2048];          /* why it failed or stopped (empty when converged) */
  int interrupted;             /* 1: stopped by opts->stop or opts->stop_after; the checkpoint holds the rest */
  int iterations;              /* trust-region iterations */
  long simulations;            /* specimens simulated, batches counted by their specimens */
  long batches;                /* engine runs */
  int fallbacks;               /* batches the explicit engine ran after the static solver found no equilibrium */
  double wall_time;            /* s */
  int nfree;
  double value[FL_FIT_MAX_FREE];     /* best point, YAML units */
  double std_error[FL_FIT_MAX_FREE]; /* NAN when not determined */
  double start[FL_FIT_MAX_FREE];     /* as used (auto resolved) */
  double correlation[FL_FIT_MAX_FREE * FL_FIT_MAX_FREE]; /* row-major, NAN when not determined */
  double cost;                 /* half the sum of squared residuals at the best point */
  int ncurves;
  fl_calibration_curve *curve; /* ncurves */
  double r_squared;            /* all curve rows together, each relative to its largest |measured| */
  fl_experiment calibrated;    /* fit->exp with the best values */
  fl_calibration_global global; /* the global stage (global.used 0: it did not run) */
  fl_calibration_features features; /* the drop's features, measured and simulated */
  int undetermined;            /* the free parameter without influence at the point reached (-1: none) */
  int nheld;                   /* parameters held (fiber-calibrate(1), HELD PARAMETERS): */
  int held[FL_FIT_MAX_FREE];   /* 1: no influence at the point reached; held at its value there while the
                                * fit went on with the others; its standard error NAN */
} fl_calibration;

/* Fit.  Returns FL_OK with cal->status set (a report exists: write it even when the
 * status is not converged), or an error status with err set when no point could be
 * evaluated (then there is nothing to report). */
int fl_calibrate(fl_fit *fit, const fl_calibrate_opts *opts, fl_calibration *cal, char *err, size_t errlen);
/* 1 when curve item d carries a start residual: start_weight > 0 and its measured
 * start has a bend (fl_series_start_bend: 3 rows or more below 15 % of its largest load
 * and from 15 to 30 %). */
int fl_fit_has_start(const fl_fit_data *d);

/* 1 when curve item d carries a kink residual: kink_weight > 0 and its measured curve
 * drops (fl_fit_curve_drops); its residual rows are then data.n + 1. */
int fl_fit_has_kink(const fl_fit_data *d);
/* Item d's residual rows: a curve's points (and its kink), a ring-down's rows
 * (residuals: series) or 2 (figures), a peaks item's 2. */
int fl_fit_residual_rows(const fl_fit_data *d);
/* The linear parameters item d's residuals are minimised over at every evaluation,
 * which its rows lose as degrees of freedom: a ring-down series' offset, amplitude and
 * phase (3); 0 otherwise. */
int fl_fit_profiled(const fl_fit_data *d);
void fl_calibration_free(fl_calibration *cal);
/* The warnings a finished calibration calls for, one line each ("file:line:col: ..."):
 * a fitted value at one of its bounds; a measured drop (cal->features) that the fitted
 * curve does not have.  Returns the number of lines. */
int fl_calibration_warnings(const fl_fit *fit, const fl_calibration *cal, char *buf, size_t len);

/* What fl_calibration_write writes. */
typedef struct {
  const char *prefix;  /* PREFIX.yaml, .csv, .gp and the plot */
  const char *command; /* the command line, for the CSV comment */
  enum fl_plot plot;   /* png, svg or none */
  int plot_required;   /* 1: a missing gnuplot is an error */
} fl_calibration_output;

/* Paths written, for the summary (plot empty when none). */
typedef struct {
  char yaml[FL_FIT_PATH];
  char csv[FL_FIT_PATH];
  char gp[FL_FIT_PATH];
  char plot[FL_FIT_PATH];
  char dem_txt[FL_FIT_PATH + 16]; /* PREFIX-dem.txt: the parameter sheet for the DEM package (dem_sheet.h) */
  char dem_csv[FL_FIT_PATH + 16]; /* PREFIX-dem.csv: the same as CSV */
} fl_calibration_paths;

/* Before a calibration: FL_OK when every file of its report and its checkpoint
 * (PREFIX.checkpoint) is free to write, or FL_EINPUT with err when the prefix is too
 * long or one of them is an input (files.h).  Temporaries a killed run left are removed. */
int fl_calibration_prepare(const char *prefix, enum fl_plot plot, char *err, size_t errlen);
/* Write the calibrated experiment, the curves CSV, the gnuplot script, the plot and the
 * parameter sheet for the DEM package, each to a temporary name first, all renamed once
 * all succeeded. */
int fl_calibration_write(const fl_fit *fit, const fl_calibration *cal, const fl_calibration_output *o,
                         fl_calibration_paths *paths, char *err, size_t errlen);
/* The summary, one YAML document (fiber-calibrate(1)), written through the libyaml
 * emitter so that any path reads back as it is; FL_OK, or FL_EIO / FL_ENOMEM. */
int fl_calibration_summary(FILE *out, const fl_fit *fit, const fl_calibration *cal, const fl_calibration_paths *p);

#endif
