/* fit/evaluate.h: the evaluations a calibration's solvers ask of the model: residuals,
 * Jacobian and the costs of many points, each through the checkpoint (checkpoint.h). */
#ifndef FL_FIT_EVALUATE_H
#define FL_FIT_EVALUATE_H

#include <gsl/gsl_multifit_nlinear.h>

#include "state.h"

/* The model's functions for GSL's trust region: fdf->f the residuals and fdf->df the
 * Jacobian at a point, from st.  Each returns GSL_SUCCESS, or GSL_EBADFUNC with st->rc
 * and st->err set when a run fails (at a trial point while st->iterating, the residuals
 * are made so large that the step is rejected instead). */
void fl_cal_fdf(fl_cal_state *st, gsl_multifit_nlinear_fdf *fdf);

/* Where w's Jacobian is a Broyden update (solver.jacobian: broyden), take it afresh by
 * differences at w's point, and the solver's gradient with it: 1 then, 0 when it was
 * already by differences, -1 when a run failed (st->rc, st->err). */
int fl_cal_fresh_jacobian(fl_cal_state *st, gsl_multifit_nlinear_workspace *w);

/* The costs of npoints points u (p each, in the transformed parameters): every point's
 * residuals from the checkpoint where it holds them, else simulated (per curve item the
 * points a batch may share as one batch) and appended to it; kept in the design
 * (st->design_u, st->design_f), so that the residuals at one of them run nothing.  A point
 * that does not run costs HUGE_VAL; first_is_start: point 0 is the fit's start, and a
 * start the experiment's checks refuse ends the calibration. */
int fl_cal_point_costs(fl_cal_state *st, int npoints, const double *u, double *cost, int first_is_start);

#endif
