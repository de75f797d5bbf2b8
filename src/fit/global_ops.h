/* fit/global_ops.h: the global stage run for a calibration (global.h), its costs and
 * refinements lent by the fit's evaluations. */
#ifndef FL_FIT_GLOBAL_OPS_H
#define FL_FIT_GLOBAL_OPS_H

#include <gsl/gsl_multifit_nlinear.h>

#include "state.h"

/* Run the global stage from u0 with the trust region's params and fdf: *w the winner's
 * solver, which the local fit goes on with, cal->global its account, cal->iterations
 * its iterations, cal->status converged where its test passed, *enoprog 1 where it
 * stopped with no trial step lowering the cost.  An error status with err set when
 * the stage failed or was interrupted. */
int fl_cal_global(fl_cal_state *st, const gsl_multifit_nlinear_parameters *params, gsl_multifit_nlinear_fdf *fdf,
                  const gsl_vector *u0, fl_calibration *cal, gsl_multifit_nlinear_workspace **w, int *enoprog,
                  char *err, size_t errlen);

#endif
