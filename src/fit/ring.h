/* fit/ring.h: a calibration's ring-down items (fiberlab-fit(5), ring-downs): their runs
 * for as long as the record, the simulated signal at the measured times, the residuals
 * of a series or of the two figures, the fast start from the figures, and the figures
 * the report gives at the fitted values. */
#ifndef FL_FIT_RING_H
#define FL_FIT_RING_H

#include <gsl/gsl_vector.h>

#include "state.h"

/* Ring-down item d's residual scale (st->item[d]: the record's largest swing about its
 * mean, and weight over it and the square root of the rows). */
void fl_cal_ring_init(fl_cal_state *st, int d);
/* Run ring-down item d at theta: its residual rows into f, a series' (every row: the
 * record against the simulated signal, its offset, amplitude and phase fitted) or the
 * two figures' (the logarithms of the simulated first frequency and decrement over the
 * measured ones).  FL_OK, or a run's status with st->err. */
int fl_cal_ring_residuals(fl_cal_state *st, int d, const double *theta, double *f);
/* Before the fit's own iterations: where a ring-down item is fitted as a series, the
 * fit with those items' figures in place of their rows, from start, whose result
 * becomes start (a series misfits by whole periods from a start a few per cent off in
 * frequency; the figures do not).  FL_OK, or an error status with err. */
int fl_cal_ring_fast_start(fl_cal_state *st, double *start, char *err, size_t errlen);
/* At the best point u: ring-down item d's fitted rows at the measured times into
 * fitted, and its figures into ring, their standard errors from st->cov_u (a run more a
 * free parameter, for the differences). */
int fl_cal_ring_fitted(fl_cal_state *st, int d, const gsl_vector *u, double *fitted, fl_calibration_ring *ring);

#endif
