/* fit/global.h: the global stage of a calibration (fiber-calibrate(1), GLOBAL STAGE).
 *
 * Before the trust region, the stage spreads a Sobol design of starting points over
 * the bounds, in the transformed parameters u of the fit (u = logit of the fraction of
 * each range, on a log scale for a positive range; param.h), takes the cost of
 * each with the start of the fit as one more point, refines the best few with a few
 * trust-region iterations each, and hands the refined point of lowest cost to the local
 * fit.  The design has no random scrambling: the same fit gives the same points, so a
 * resumed calibration replays every evaluation from its checkpoint.  The stage knows
 * nothing of simulations: the fit lends it a batch cost and a refinement
 * (fl_global_ops, global_ops.h), which go through the same evaluations as the trust
 * region. */
#ifndef FL_FIT_GLOBAL_H
#define FL_FIT_GLOBAL_H

#include <stdio.h>

#include "fit.h"

#define FL_GLOBAL_REFINE_ITERATIONS 5 /* trust-region iterations of each refinement */
#define FL_GLOBAL_MARGIN 0.01         /* design points keep this fraction of each range off its bounds */

/* What the stage asks of the fit. */
typedef struct {
  /* The costs (half the sum of squared residuals) of npoints points, rows of p values
   * of u, evaluated as one batch where the runs allow; a point that does not run gets
   * HUGE_VAL.  Returns FL_OK, or an error status that ends the calibration. */
  int (*costs)(void *ctx, int npoints, const double *u, double *cost);
  /* Refine candidate slot from u by at most iterations trust-region iterations: its
   * point and cost after them in u_out and cost (HUGE_VAL: it could not be refined).
   * Returns FL_OK or an error status that ends the calibration. */
  int (*refine)(void *ctx, int slot, const double *u, int iterations, double *u_out, double *cost);
  void *ctx;
  FILE *log;        /* the stage's lines; NULL: none */
  const char *prog; /* program name for them */
} fl_global_ops;

/* What the stage did, in u. */
typedef struct {
  int points;                                      /* costed: the design and the start */
  int failed;                                      /* of them, points that did not run */
  int refined;                                     /* candidates refined */
  int winner;                                      /* the candidate whose refinement ended lowest */
  int design_index[FL_GLOBAL_MAX_REFINE];          /* each candidate: 0 the start, k design point k */
  double u_start[FL_GLOBAL_MAX_REFINE][FL_FIT_MAX_FREE];   /* each candidate's point */
  double cost_start[FL_GLOBAL_MAX_REFINE];                  /* and its cost */
  double u_refined[FL_GLOBAL_MAX_REFINE][FL_FIT_MAX_FREE]; /* after its refinement */
  double cost_refined[FL_GLOBAL_MAX_REFINE];                /* and its cost */
} fl_global_result;

/* 1 when the stage runs for fit: solver.global on, or auto with a bond.buckling key free. */
int fl_global_wanted(const fl_fit *fit);

/* The design: npoints points of p (at most FL_FIT_MAX_FREE) values of u, row-major, the
 * Sobol points 1 to npoints (point 0, a corner of the cube, left out) with each
 * coordinate s taken to the fraction m + (1 - 2 m) s of its range, m FL_GLOBAL_MARGIN.
 * Returns FL_OK, or FL_ENOMEM. */
int fl_global_design(int p, int npoints, double *u);

/* Run the stage from u_start (p values): the cost of the start and of npoints design
 * points, then a refinement of the best nrefine of them that ran (the start among them
 * when its cost ranks).  Returns FL_OK with res filled, FL_EUNSTABLE when no point ran
 * or no candidate could be refined, or the first error of ops (then res holds what
 * was done). */
int fl_global_run(int p, const double *u_start, int npoints, int nrefine, const fl_global_ops *ops,
                  fl_global_result *res);

#endif
