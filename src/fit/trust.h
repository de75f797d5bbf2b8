/* fit/trust.h: a calibration's rules beyond GSL's trust region (fiber-calibrate(1)):
 * when it has converged, what follows a stall or a crawl along a valley, and the
 * verdict on the point reached. */
#ifndef FL_FIT_TRUST_H
#define FL_FIT_TRUST_H

#include <gsl/gsl_multifit_nlinear.h>

#include "state.h"

#define FL_TRUST_MAX_RESTARTS 10 /* trust regions started again after a stall (fl_trust_after_stall) */
#define FL_TRUST_MAX_LEAPS 10    /* leaps along a valley tried a fit (fl_trust_leap) */
#define FL_CRAWL_STEPS 4         /* accepted iterations over which a crawl along a valley is judged */
#define FL_FLAT_S 0.1            /* standard errors: steps that together change the cost less than a step this
                                  * long would have converged (fl_crawl_flat) */

/* The last accepted points of a trust region, for fl_trust_leap: u (transformed) and
 * cost, the latest last. */
typedef struct {
  double u[FL_CRAWL_STEPS + 1][FL_FIT_MAX_FREE];
  double cost[FL_CRAWL_STEPS + 1];
  int n; /* points held, up to FL_CRAWL_STEPS + 1 */
} fl_crawl_track;

/* The stopping tests after an accepted iteration: GSL's step and gradient tests, and
 * solver.ftol on the gain of the Gauss-Newton step. */
int fl_trust_converged(const fl_fit *fit, gsl_multifit_nlinear_workspace *w);

/* Whether the last FL_CRAWL_STEPS accepted steps of track t, on n residuals and p
 * parameters, together lowered the cost by less than FL_FLAT_S^2 / (n - p) of it. */
int fl_crawl_flat(const fl_crawl_track *t, int n, int p);

/* Start a track at w's point. */
void fl_crawl_start(fl_crawl_track *t, gsl_multifit_nlinear_workspace *w, int p);
/* Add w's point; returns 1 when the last FL_CRAWL_STEPS accepted steps crawl along a
 * valley. */
int fl_crawl_push(fl_crawl_track *t, gsl_multifit_nlinear_workspace *w, int p);

/* After a stall (GSL_ENOPROG) at *w's point: 1 with *w a fresh trust region at a
 * cheaper difference point, else 0 (*at_resolution 1 when the point is a minimum to
 * the resolution of the differences; cal's status set where a run or an interrupt
 * ended the fit).  *rc: an error that ends the calibration (err set), else FL_OK. */
int fl_trust_after_stall(fl_cal_state *st, const gsl_multifit_nlinear_parameters *params,
                         gsl_multifit_nlinear_fdf *fdf, gsl_multifit_nlinear_workspace **w, fl_calibration *cal,
                         int *at_resolution, int *rc, char *err, size_t errlen);
/* After a crawl along a valley (track t): 1 with *w a fresh trust region further along
 * it, else 0; *rc, err and cal as fl_trust_after_stall. */
int fl_trust_leap(fl_cal_state *st, const gsl_multifit_nlinear_parameters *params, gsl_multifit_nlinear_fdf *fdf,
                  gsl_multifit_nlinear_workspace **w, const fl_crawl_track *t, fl_calibration *cal, int *rc,
                  char *err, size_t errlen);

/* The verdict on w's point, where the iterations ended: the best values (cal->value,
 * cost), their standard errors, and the status and message (a value at its bound, one
 * without influence, no progress while the local model still asks to move); enoprog:
 * no trial step lowered the cost there, at_resolution: nor did any difference point
 * around it. */
void fl_trust_verdict(fl_cal_state *st, gsl_multifit_nlinear_workspace *w, fl_calibration *cal, int enoprog,
                      int at_resolution);

#endif
