/* fit/param.h: the transform of a calibration's bounded parameters.
 *
 * The solver works in an unbounded u: theta = min + (max - min) s(u) with the logistic
 * s(u) = 1 / (1 + e^-u); when min > 0 the same is done on log(theta), so that a range
 * over decades is searched evenly (fiber-calibrate(1)). */
#ifndef FL_FIT_PARAM_H
#define FL_FIT_PARAM_H

#include <gsl/gsl_vector.h>

#include "fit.h"

#define FL_PARAM_BOUND_FRAC 1e-3 /* a value this close to a bound (fraction of the range) is at it */

/* The fraction of p's range at theta (in the transform's scale). */
double fl_param_frac(const fl_fit_param *p, double theta);
/* Whether theta is at one of p's bounds (within FL_PARAM_BOUND_FRAC of the range). */
int fl_param_at_bound(const fl_fit_param *p, double theta);
/* u(theta), theta kept 1e-12 of the range off the bounds. */
double fl_param_to_u(const fl_fit_param *p, double theta);
/* theta(u), and d theta / d u in *deriv (may be NULL). */
double fl_param_from_u(const fl_fit_param *p, double u, double *deriv);
/* The point a fraction f of the way through the bounds (in the transform's scale). */
double fl_param_at(const fl_fit_param *p, double f);
/* theta, or the point 1 % of the range inside the bound it is beyond. */
double fl_param_inside(const fl_fit_param *p, double theta);
/* A curve's difference step in u (solver.difference_step, relative, at least of 1e-2). */
double fl_param_step(const fl_fit *fit, double u);
/* The values theta of the fit's free parameters at u. */
void fl_param_values(const fl_fit *fit, const gsl_vector *u, double *theta);

#endif
