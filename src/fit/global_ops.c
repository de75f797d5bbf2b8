/* fit/global_ops.c: the fit's side of the global stage (global.h): the costs of a
 * design's points and the short refinements of its best ones, which the stage asks for
 * through fl_global_ops, and the stage's result handed to the local fit. */
#include <config.h>

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>

#include "evaluate.h"
#include "fl_defs.h"
#include "global.h"
#include "global_ops.h"
#include "param.h"
#include "result.h"
#include "starts.h"
#include "trust.h"

/* fl_global_ops.costs: fl_cal_point_costs, the design's first point the start. */
static int global_costs(void *ctx, int npoints, const double *u, double *cost)
{
  return fl_cal_point_costs(ctx, npoints, u, cost, 1);
}

/* fl_global_ops.refine: a trust-region solver of its own for the slot, a few
 * iterations from u; the winner's goes on as the local fit. */
static int global_refine(void *ctx, int slot, const double *u, int iterations, double *u_out, double *cost)
{
  fl_cal_state *st = ctx;
  int p = st->p;
  gsl_vector *u0 = gsl_vector_alloc((size_t)p);
  gsl_multifit_nlinear_workspace *w =
      gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, st->gparams, (size_t)st->n, (size_t)p);
  if (!u0 || !w) {
    if (u0)
      gsl_vector_free(u0);
    if (w)
      gsl_multifit_nlinear_free(w);
    snprintf(st->err, sizeof st->err, "out of memory for the solver");
    return FL_ENOMEM;
  }
  st->gw[slot] = w;
  for (int j = 0; j < p; j++)
    gsl_vector_set(u0, (size_t)j, u[j]);
  if (st->drop_item >= 0) {
    /* the candidate's drop first lands where the measured one is, as the start's does:
     * a drop in the wrong place is a step the trust region cannot cross */
    double theta[FL_FIT_MAX_FREE];
    fl_param_values(st->fit, u0, theta);
    if (fl_cal_align_drop(st, st->drop_item, st->drop_jb, st->drop_want, theta) == FL_OK)
      for (int j = 0; j < p; j++)
        gsl_vector_set(u0, (size_t)j, fl_param_to_u(&st->fit->free[j], theta[j]));
    else if (fl_cal_stopped(st)) {
      gsl_vector_free(u0);
      return FL_EINTERRUPT;
    }
  }
  st->rc = 0;
  int status = gsl_multifit_nlinear_init(u0, st->gfdf, w);
  for (int j = 0; j < p; j++)
    u_out[j] = gsl_vector_get(u0, (size_t)j);
  gsl_vector_free(u0);
  if (status && (st->rc == FL_ENOMEM || fl_cal_stopped(st)))
    return st->rc ? st->rc : FL_EINTERRUPT;
  if (status) {
    /* a candidate whose residuals or Jacobian do not run is left out */
    fl_cal_note(st, "note: global: candidate %d cannot be refined: %s", slot + 1,
                st->rc ? st->err : gsl_strerror(status));
    gsl_multifit_nlinear_free(w);
    st->gw[slot] = NULL;
    *cost = HUGE_VAL;
    return FL_OK;
  }
  for (int iter = 1; iter <= iterations && iter <= st->fit->solver.max_iterations; iter++) {
    st->rc = 0;
    status = gsl_multifit_nlinear_iterate(w);
    if (status == GSL_ENOPROG) {
      st->genoprog[slot] = 1;
      break;
    }
    if (status && st->rc == FL_ENOMEM)
      return st->rc;
    if (status) {
      /* a run that failed: this refinement ends where it stands */
      fl_cal_note(st, "note: global: the refinement of candidate %d stopped: %s", slot + 1,
                  st->rc ? st->err : gsl_strerror(status));
      break;
    }
    st->giter[slot] = iter;
    if (fl_trust_converged(st->fit, w)) {
      st->gconv[slot] = 1;
      break;
    }
    if (fl_cal_stopped(st))
      break;
  }
  gsl_vector *x = gsl_multifit_nlinear_position(w);
  for (int j = 0; j < p; j++)
    u_out[j] = gsl_vector_get(x, (size_t)j);
  *cost = fl_cal_cost(gsl_multifit_nlinear_residual(w));
  return FL_OK;
}

int fl_cal_global(fl_cal_state *st, const gsl_multifit_nlinear_parameters *params, gsl_multifit_nlinear_fdf *fdf,
                  const gsl_vector *u0, fl_calibration *cal, gsl_multifit_nlinear_workspace **w, int *enoprog,
                  char *err, size_t errlen)
{
  const fl_fit *fit = st->fit;
  int p = st->p;
  st->gparams = params;
  st->gfdf = fdf;
  fl_global_ops ops = {global_costs, global_refine, st, st->opts->log, st->opts->prog};
  fl_global_result gr;
  double ustart[FL_FIT_MAX_FREE];
  long sim0 = st->simulations;
  for (int j = 0; j < p; j++)
    ustart[j] = gsl_vector_get(u0, (size_t)j);
  int rc = fl_global_run(p, ustart, fit->solver.global_points, fit->solver.global_refine, &ops, &gr);
  if (rc) {
    if (fl_cal_stopped(st))
      snprintf(err, errlen, "interrupted in the global stage");
    else if (rc == FL_EUNSTABLE && gr.refined > 0)
      snprintf(err, errlen, "global: none of the %d candidates could be refined (%s)", gr.refined, st->err);
    else if (rc == FL_EUNSTABLE && gr.points > 0)
      snprintf(err, errlen, "global: none of the %d points of the design and the start ran (%s)", gr.points,
               st->err);
    else
      snprintf(err, errlen, "%s", st->err[0] ? st->err : "global stage failed");
    return rc;
  }
  int win = gr.winner;
  *w = st->gw[win];
  st->gw[win] = NULL;
  cal->global.used = 1;
  cal->global.points = gr.points;
  cal->global.failed = gr.failed;
  cal->global.refined = gr.refined;
  cal->global.winner = win;
  cal->global.simulations = st->simulations - sim0;
  for (int r = 0; r < gr.refined; r++) {
    cal->global.design_index[r] = gr.design_index[r];
    cal->global.cost_start[r] = gr.cost_start[r];
    cal->global.cost_refined[r] = gr.cost_refined[r];
    for (int j = 0; j < p; j++) {
      cal->global.start[r][j] = fl_param_from_u(&fit->free[j], gr.u_start[r][j], NULL);
      cal->global.refined_value[r][j] = fl_param_from_u(&fit->free[j], gr.u_refined[r][j], NULL);
    }
  }
  /* where the winner's simulated features land */
  fl_cal_features_at(st, gsl_multifit_nlinear_residual(*w), &cal->features, 0);
  if (st->gconv[win])
    cal->status = FL_CAL_CONVERGED;
  *enoprog = st->genoprog[win];
  cal->iterations = st->giter[win];
  return FL_OK;
}
