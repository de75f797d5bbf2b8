/* fit/result.h: what a finished calibration reports besides its values (fl_calibration
 * in fit.h): each item's rows, the standard errors and correlations, the drop's
 * features. */
#ifndef FL_FIT_RESULT_H
#define FL_FIT_RESULT_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "state.h"

/* The report rows of each item at the best point u, with residuals f (cal->curve,
 * cal->r_squared): FL_OK, FL_ENOMEM, or the status of a run that failed (st->err). */
int fl_cal_curves(fl_cal_state *st, const gsl_vector *u, const gsl_vector *f, fl_calibration *cal);
/* Standard errors and correlations at the best point from J (covariance of u scaled
 * by chi^2 / (n - p - q) when curves are fitted, q the rows' linear parameters, mapped
 * through d theta / d u), the scaled covariance of u into st->cov_u; no correlations
 * where the scale cannot be estimated.  Returns the index of a parameter that is not
 * determined, or -1. */
int fl_cal_uncertainties(fl_cal_state *st, const gsl_vector *u, const gsl_matrix *J, const gsl_vector *f,
                         fl_calibration *cal);
/* The measured drop's features (fl_calibration_features): item -1 when no 3-point curve
 * with buckling bonds has a drop. */
void fl_cal_features_measured(const fl_fit *fit, fl_calibration_features *ft);
/* The same features of the simulated curve whose residuals are f: at the global stage's
 * winner (fitted 0) or at the fitted values (fitted 1). */
void fl_cal_features_at(const fl_cal_state *st, const gsl_vector *f, fl_calibration_features *ft, int fitted);

#endif
