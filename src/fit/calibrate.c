/* fit/calibrate.c: fl_calibrate, the driver of a calibration (fit.h): the model set up,
 * the starting values (and a ring-down's fast start), the global stage or the start,
 * GSL's trust-region iterations under the rules of trust.h, the verdict and the
 * report's rows. */
#include <config.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluate.h"
#include "fl_defs.h"
#include "global.h"
#include "global_ops.h"
#include "model.h"
#include "param.h"
#include "result.h"
#include "ring.h"
#include "starts.h"
#include "trust.h"

/* Whether the fit stops after iteration iter, asked to by a signal or --stop-after: 1
 * with cal's status and message saying so. */
static int stopped_after(const fl_cal_state *st, fl_calibration *cal, int iter)
{
  if (!fl_cal_stopped(st) && !(st->opts->stop_after > 0 && iter >= st->opts->stop_after))
    return 0;
  cal->status = FL_CAL_FAILED;
  cal->interrupted = 1;
  snprintf(cal->message, sizeof cal->message, "interrupted after iteration %d%s", iter,
           fl_cal_stopped(st) ? "" : " (--stop-after)");
  return 1;
}

/* The trust region's parameters (solver.method, solver.scale) and its functions, the
 * model's residuals and Jacobian (fl_cal_fdf). */
static void solver_setup(fl_cal_state *st, gsl_multifit_nlinear_parameters *params, gsl_multifit_nlinear_fdf *fdf)
{
  const fl_fit_solver *s = &st->fit->solver;
  *params = gsl_multifit_nlinear_default_parameters();
  params->trs = *fl_fit_methods[s->method].trs;
  params->scale = s->scale == FL_SCALE_LEVENBERG   ? gsl_multifit_nlinear_scale_levenberg
                  : s->scale == FL_SCALE_MARQUARDT ? gsl_multifit_nlinear_scale_marquardt
                                                   : gsl_multifit_nlinear_scale_more;
  fl_cal_fdf(st, fdf);
}

/* The local fit's first point without the global stage: the start u0 evaluated in a
 * trust region of its own, *w. */
static int first_point(fl_cal_state *st, const gsl_multifit_nlinear_parameters *params,
                       gsl_multifit_nlinear_fdf *fdf, const gsl_vector *u0, gsl_multifit_nlinear_workspace **w,
                       char *err, size_t errlen)
{
  *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, params, (size_t)st->n, (size_t)st->p);
  if (!*w) {
    snprintf(err, errlen, "out of memory for the solver (%d residuals, %d parameters)", st->n, st->p);
    return FL_ENOMEM;
  }
  st->iterating = 0;
  int status = gsl_multifit_nlinear_init(u0, fdf, *w);
  st->iterating = 1;
  if (status) {
    snprintf(err, errlen, "%s", st->rc ? st->err : gsl_strerror(status));
    return st->rc ? st->rc : FL_EUNSTABLE;
  }
  return FL_OK;
}

/* A Jacobian by differences (fl_cal_fresh_jacobian) whose runs failed ends the fit. */
static void jacobian_failed(const fl_cal_state *st, fl_calibration *cal)
{
  cal->status = FL_CAL_FAILED;
  snprintf(cal->message, sizeof cal->message, "%.2000s", st->err);
}

/* The trust region's iterations from *w's point, until a convergence test passes, a run
 * fails, the fit is stopped, no trial step lowers the cost (*enoprog) or
 * solver.max_iterations is reached.  After a crawl along a valley a leap may start a
 * fresh trust region (FL_TRUST_MAX_LEAPS a fit, counted in *leaps): returns 1 then,
 * else 0; *rc an error that ends the calibration (err set). */
static int iterate(fl_cal_state *st, const gsl_multifit_nlinear_parameters *params, gsl_multifit_nlinear_fdf *fdf,
                   gsl_multifit_nlinear_workspace **w, fl_calibration *cal, int *enoprog, int *leaps, int *rc,
                   char *err, size_t errlen)
{
  int max = st->fit->solver.max_iterations, fresh;
  fl_crawl_track track;
  fl_crawl_start(&track, *w, st->p);
  for (int iter = cal->iterations + 1; iter <= max && cal->status == FL_CAL_MAX_ITERATIONS && !*enoprog; iter++) {
    st->rc = 0;
    int status = gsl_multifit_nlinear_iterate(*w);
    if (status == GSL_ENOPROG || st->bj_abort) {
      st->bj_abort = 0;
      if ((fresh = fl_cal_fresh_jacobian(st, *w)) < 0)
        goto failed;
      if (fresh) {
        iter--; /* a Broyden update misled the step: again with the Jacobian by differences */
        continue;
      }
    }
    if (status == GSL_ENOPROG) {
      *enoprog = 1; /* no trial step lowered the cost: fl_trust_after_stall, fl_trust_verdict */
      break;
    }
    if (status) {
      cal->status = FL_CAL_FAILED;
      snprintf(cal->message, sizeof cal->message, "%.2000s", st->rc ? st->err : gsl_strerror(status));
      break;
    }
    cal->iterations = iter;
    if (st->opts->progress && st->opts->log)
      fl_cal_progress(st, iter, gsl_multifit_nlinear_position(*w), gsl_multifit_nlinear_residual(*w));
    if (fl_trust_converged(st->fit, *w)) {
      if ((fresh = fl_cal_fresh_jacobian(st, *w)) < 0)
        goto failed;
      if (fresh == 0 || fl_trust_converged(st->fit, *w)) {
        cal->status = FL_CAL_CONVERGED;
        break;
      }
    }
    if (stopped_after(st, cal, iter))
      break;
    int crawl = fl_crawl_push(&track, *w, st->p);
    if (fl_crawl_flat(&track, st->n, st->p)) {
      if ((fresh = fl_cal_fresh_jacobian(st, *w)) < 0)
        goto failed;
      if (fresh) {
        fl_crawl_start(&track, *w, st->p); /* flat on a Broyden update: judged again by differences */
        continue;
      }
      cal->status = FL_CAL_CONVERGED;
      fl_cal_note(st, "note: converged after iteration %d: the last %d iterations lowered the cost by %.3g of it "
                  "together, less than a step of %g standard errors would", iter, FL_CRAWL_STEPS,
                  (track.cost[0] - track.cost[FL_CRAWL_STEPS]) / track.cost[FL_CRAWL_STEPS], FL_FLAT_S);
      break;
    }
    if (crawl && *leaps < FL_TRUST_MAX_LEAPS && iter < max) {
      (*leaps)++;
      int again = fl_trust_leap(st, params, fdf, w, &track, cal, rc, err, errlen);
      if (*rc || again)
        return !*rc;
      if (cal->status != FL_CAL_MAX_ITERATIONS)
        break;
      fl_crawl_start(&track, *w, st->p); /* no leap: the next judged over as many steps again */
    }
  }
  return 0;
failed:
  jacobian_failed(st, cal);
  return 0;
}

/* One calibration of fit's free parameters as they are (fl_calibrate, which holds the
 * ones without influence and calls this again). */
static int calibrate_free(fl_fit *fit, const fl_calibrate_opts *opts, fl_calibration *cal, char *err,
                          size_t errlen)
{
  static const fl_calibrate_opts quiet = {1, 0, 0, NULL, NULL, NULL, NULL, 0, 0, 0};
  fl_cal_state st;
  int p = fit->nfree, rc = FL_OK;
  double t0 = fl_cal_now(), start[FL_FIT_MAX_FREE];
  gsl_multifit_nlinear_workspace *w = NULL;
  memset(cal, 0, sizeof *cal);
  cal->undetermined = -1;
  fl_cal_features_measured(fit, &cal->features);
  int init = fl_cal_state_init(&st, fit, opts ? opts : &quiet, t0);
  cal->nfree = p;
  gsl_vector *u0 = gsl_vector_alloc((size_t)p);
  if (init || !u0) {
    snprintf(err, errlen, "out of memory");
    rc = FL_ENOMEM;
    goto out;
  }
  if ((rc = fl_cal_model_init(&st, err, errlen)))
    goto out;
  if ((rc = fl_cal_starts(&st, start, err, errlen)))
    goto out;
  if ((rc = fl_cal_ring_fast_start(&st, start, err, errlen)))
    goto out;
  for (int j = 0; j < p; j++) {
    fit->free[j].start = start[j];
    cal->start[j] = start[j];
    gsl_vector_set(u0, (size_t)j, fl_param_to_u(&fit->free[j], start[j]));
  }
  if ((rc = fl_cal_batchable(&st, start, u0, err, errlen)))
    goto out;
  /* the global stage, whose winner's solver goes on as the local fit, or the start */
  gsl_multifit_nlinear_parameters params;
  gsl_multifit_nlinear_fdf fdf;
  solver_setup(&st, &params, &fdf);
  int enoprog = 0, restarts = 0, at_resolution = 0, leaps = 0;
  st.iterating = 1;
  cal->status = FL_CAL_MAX_ITERATIONS;
  rc = fl_global_wanted(fit) ? fl_cal_global(&st, &params, &fdf, u0, cal, &w, &enoprog, err, errlen)
                             : first_point(&st, &params, &fdf, u0, &w, err, errlen);
  if (rc)
    goto out;
  st.t_iter0 = fl_cal_now();
  st.iter0 = cal->iterations;
  st.bj_local = 1;
  if (st.opts->progress && st.opts->log)
    fl_cal_progress(&st, st.iter0, gsl_multifit_nlinear_position(w), gsl_multifit_nlinear_residual(w));
  if (st.iter0 > 0)
    stopped_after(&st, cal, st.iter0);
  /* the trust region's iterations; after a stall, a fresh trust region from a cheaper
   * difference point around it, up to FL_TRUST_MAX_RESTARTS times */
  for (;;) {
    int again = iterate(&st, &params, &fdf, &w, cal, &enoprog, &leaps, &rc, err, errlen);
    if (rc)
      goto out;
    if (again)
      continue;
    if (!enoprog || cal->status != FL_CAL_MAX_ITERATIONS || restarts >= FL_TRUST_MAX_RESTARTS ||
        cal->iterations >= fit->solver.max_iterations)
      break;
    again = fl_trust_after_stall(&st, &params, &fdf, &w, cal, &at_resolution, &rc, err, errlen);
    if (rc)
      goto out;
    if (!again)
      break;
    restarts++;
    enoprog = 0;
  }
  if (cal->status != FL_CAL_FAILED && fl_cal_fresh_jacobian(&st, w) < 0) /* the verdict's errors by differences */
    jacobian_failed(&st, cal);
  fl_trust_verdict(&st, w, cal, enoprog, at_resolution);
  cal->calibrated = fit->exp;
  if ((rc = fl_fit_apply(fit, cal->value, &cal->calibrated, fit->exp_path, err, errlen)))
    goto out;
  gsl_vector *u = gsl_multifit_nlinear_position(w), *f = gsl_multifit_nlinear_residual(w);
  fl_cal_features_at(&st, f, &cal->features, 1);
  st.rc = 0;
  if (!fit->inner && (rc = fl_cal_curves(&st, u, f, cal)))
    snprintf(err, errlen, "%s", rc == FL_ENOMEM ? "out of memory" : st.err);
out: /* the counts, also of a calibration that failed */
  cal->simulations = st.simulations;
  cal->fallbacks = st.fallbacks;
  cal->batches = st.batches;
  cal->wall_time = fl_cal_now() - t0;
  if (rc)
    fl_calibration_free(cal);
  if (w)
    gsl_multifit_nlinear_free(w);
  if (u0)
    gsl_vector_free(u0);
  fl_cal_state_free(&st);
  return rc;
}

/* ---- parameters held ------------------------------------------------------------------ */

/* What a fit is before parameters are held, to be given back after. */
typedef struct {
  int nfree;
  fl_fit_param free[FL_FIT_MAX_FREE];
  fl_fit_solver solver;
  fl_experiment exp;
  fl_experiment *item; /* ndata */
} fit_saved;

/* Put the key path = v into fit's experiment and every item's: the held parameter's value,
 * which the free parameters' trial values are then applied over. */
static int set_everywhere(fl_fit *fit, const char *path, double v, char *err, size_t errlen)
{
  char assignment[FL_FIT_KEY + 40];
  snprintf(assignment, sizeof assignment, "%s=%.17g", path, v);
  int rc = fl_experiment_set(&fit->exp, assignment, err, errlen);
  for (int i = 0; i < fit->ndata && !rc; i++)
    rc = fl_experiment_set(&fit->data[i].exp, assignment, err, errlen);
  return rc;
}

/* The last calibration's figures, of the free parameters left (index map: the original
 * index of each), spread over all of fit's original ones: a held one has its value and
 * no standard error or correlation; the starts stay the first calibration's. */
static void spread_values(fl_calibration *cal, const int *map, int p_now, int p_all, const double *held_value,
                          const int *held)
{
  double v[FL_FIT_MAX_FREE], se[FL_FIT_MAX_FREE], cor[FL_FIT_MAX_FREE * FL_FIT_MAX_FREE];
  for (int j = 0; j < p_all; j++) {
    v[j] = held[j] ? held_value[j] : NAN;
    se[j] = NAN;
  }
  for (int j = 0; j < p_all * p_all; j++)
    cor[j] = NAN;
  for (int a = 0; a < p_now; a++) {
    v[map[a]] = cal->value[a];
    se[map[a]] = cal->std_error[a];
    for (int b = 0; b < p_now; b++)
      cor[map[a] * p_all + map[b]] = cal->correlation[a * p_now + b];
  }
  memcpy(cal->value, v, sizeof v);
  memcpy(cal->std_error, se, sizeof se);
  memcpy(cal->correlation, cor, sizeof cor);
  memcpy(cal->held, held, p_all * sizeof *held);
  cal->nfree = p_all;
  cal->nheld = 0;
  for (int j = 0; j < p_all; j++)
    cal->nheld += held[j];
}

int fl_calibrate(fl_fit *fit, const fl_calibrate_opts *opts, fl_calibration *cal, char *err, size_t errlen)
{
  static const fl_calibrate_opts quiet = {1, 0, 0, NULL, NULL, NULL, NULL, 0, 0, 0};
  if (!opts)
    opts = &quiet;
  int rc = calibrate_free(fit, opts, cal, err, errlen);
  if (rc || fit->inner || opts->no_hold || cal->undetermined < 0 || cal->interrupted || fit->nfree < 2)
    return rc;
  /* A parameter without influence at the point reached: hold it at its value there and
   * fit the others on from theirs, as often as one is left to fit; the held one is
   * reported undetermined.  The held fits run without the checkpoint (its records are
   * of the whole vector): a resumed campaign replays the first fit and runs these again. */
  int p_all = fit->nfree, held[FL_FIT_MAX_FREE] = {0}, map[FL_FIT_MAX_FREE];
  double held_value[FL_FIT_MAX_FREE], start[FL_FIT_MAX_FREE];
  fit_saved sv;
  sv.nfree = fit->nfree;
  sv.solver = fit->solver;
  sv.exp = fit->exp;
  sv.item = malloc((size_t)(fit->ndata > 0 ? fit->ndata : 1) * sizeof *sv.item);
  if (!sv.item)
    return rc; /* the failed calibration stands */
  memcpy(sv.free, fit->free, sizeof sv.free);
  for (int i = 0; i < fit->ndata; i++)
    sv.item[i] = fit->data[i].exp;
  memcpy(start, cal->start, sizeof start);
  for (int j = 0; j < p_all; j++)
    map[j] = j;
  fl_calibrate_opts o = *opts;
  o.checkpoint = NULL;
  long sims = 0, batches = 0;
  int iterations = 0, fallbacks = 0;
  double wall = 0.0;
  while (!rc && cal->status == FL_CAL_FAILED && cal->undetermined >= 0 && !cal->interrupted && fit->nfree >= 2) {
    int k = cal->undetermined, orig = map[k];
    held[orig] = 1;
    held_value[orig] = cal->value[k];
    if (opts->log)
      fprintf(opts->log, "%s: note: %s has no influence on the residuals at iteration %d (singular covariance): "
              "held at %.6g, reported as undetermined; the fit goes on with the %d others\n",
              opts->prog ? opts->prog : "fiber-calibrate", fit->free[k].path, cal->iterations, cal->value[k],
              fit->nfree - 1);
    if ((rc = set_everywhere(fit, fit->free[k].path, cal->value[k], err, errlen)))
      break;
    int q = 0;
    for (int j = 0; j < fit->nfree; j++)
      if (j != k) {
        fit->free[q] = fit->free[j];
        fit->free[q].start = cal->value[j];
        fit->free[q].start_auto = 0;
        map[q++] = map[j];
      }
    fit->nfree = q;
    fit->solver.global = FL_GLOBAL_OFF; /* from the point reached, not a fresh search */
    iterations += cal->iterations;
    sims += cal->simulations;
    batches += cal->batches;
    fallbacks += cal->fallbacks;
    wall += cal->wall_time;
    fl_calibration_free(cal);
    rc = calibrate_free(fit, &o, cal, err, errlen);
  }
  if (!rc) {
    spread_values(cal, map, fit->nfree, p_all, held_value, held);
    memcpy(cal->start, start, sizeof start);
    cal->iterations += iterations;
    cal->simulations += sims;
    cal->batches += batches;
    cal->fallbacks += fallbacks;
    cal->wall_time += wall;
  }
  fit->nfree = sv.nfree;
  memcpy(fit->free, sv.free, sizeof sv.free);
  fit->solver = sv.solver;
  fit->exp = sv.exp;
  for (int i = 0; i < fit->ndata; i++)
    fit->data[i].exp = sv.item[i];
  free(sv.item);
  return rc;
}
