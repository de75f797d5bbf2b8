/* fit/model.h: the model of a calibration: each data item's experiment at parameter
 * values theta, its runs (as one batch where the runs allow), and its residual rows. */
#ifndef FL_FIT_MODEL_H
#define FL_FIT_MODEL_H

#include "run.h"
#include "state.h"

/* The residual rows of each item and their scales (st->item), and the scratch buffers:
 * FL_OK, FL_EINPUT when the rows are not the loader's count, FL_ENOMEM (err set). */
int fl_cal_model_init(fl_cal_state *st, char *err, size_t errlen);
/* Which parameters a batch of each curve item may vary (st->item[d].batchable), from
 * the experiments at start and one Jacobian step (u0: start transformed) away. */
int fl_cal_batchable(fl_cal_state *st, const double *start, const gsl_vector *u0, char *err, size_t errlen);

/* Item d's experiment at parameter values theta, its maximum covering the curve. */
int fl_cal_experiment(fl_cal_state *st, int d, const double *theta, fl_experiment *e);
/* Whether item d's experiment admits the values theta (fl_fit_apply's checks: a
 * buckling envelope's min_force at most its max_force, ...). */
int fl_cal_admissible(fl_cal_state *st, int d, const double *theta);
/* Whether curve item d at theta runs on the static solver (fl_solver_resolve: the
 * experiment's solver, auto resolved, the explicit engine on the GPU). */
int fl_cal_on_static(fl_cal_state *st, int d, const double *theta);

/* Run curve item d once for each of nset parameter vectors, as one batch; y gets the
 * simulated loads at the measured abscissae, row k * npoints + i, and kink (NULL: not
 * wanted) each run's simulated kink, where the item has a kink residual. */
int fl_cal_run_curve(fl_cal_state *st, int d, int nset, const double *const *theta, double *y, double *kink);
/* Run experiment e (item d's, at some parameters) for nspec specimens with the fit's
 * hooks and run options (fl_run_hooks.options), counted; c and r are to be freed
 * whatever it returns; on failure st->err names item d's experiment. */
int fl_cal_run_exp(fl_cal_state *st, int d, const fl_experiment *e, int nspec, int options, fl_curve *c,
                   fl_result *r);
/* Run peaks item d at theta: mean and standard deviation of the simulated peaks, and
 * the peaks sorted into sorted (NULL: not wanted). */
int fl_cal_run_peaks(fl_cal_state *st, int d, const double *theta, double *mean, double *sd, double *sorted);
/* Run item d alone at theta, with failure_off its failure criterion off and the static
 * path ended at its first event: specimen 0's figures. */
int fl_cal_run_one(fl_cal_state *st, int d, const double *theta, int failure_off, fl_specimen_result *sr);

/* Row i's weight by its region (fiberlab-fit(5), weights). */
double fl_cal_row_weight(const fl_fit_data *it, int i);
/* A curve item's residual rows from its simulated y at the measured abscissae and its
 * simulated kink (fl_cal_run_curve). */
void fl_cal_curve_residuals(const fl_cal_state *st, int d, const double *y, double kink, double *f);
/* Run item d at theta: its residual rows into f (from the item's first row). */
int fl_cal_item_residuals(fl_cal_state *st, int d, const double *theta, double *f);
/* n values in ascending order. */
void fl_cal_sort(double *v, int n);

#endif
