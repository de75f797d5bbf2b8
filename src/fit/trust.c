/* fit/trust.c: a calibration's rules beyond GSL's trust region: the stopping tests,
 * a stall (no trial step lowers the cost) probed by the difference points around it, a
 * crawl along a valley ended by a leap, a fresh trust region after either, and the
 * verdict on the point reached. */
#include <config.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evaluate.h"
#include "fl_defs.h"
#include "param.h"
#include "result.h"
#include "trust.h"

#define CRAWL_GAIN 0.01 /* a crawl (FL_CRAWL_STEPS steps) lowers the cost by less than this fraction of it, */
#define CRAWL_COS 0.9   /* ... each step within this cosine of their sum */

/* The Gauss-Newton step of the local model at the present point, (J^T J) du = -J^T f,
 * into du, and the cost it would remove, 1/2 du^T J^T J du (the linear model's gain,
 * at most the cost 1/2 f^T f), into *gain.  Returns 0 when J^T J is not positive
 * definite. */
static int gauss_newton_step(const gsl_matrix *J, const gsl_vector *f, gsl_vector *du, double *gain)
{
  size_t p = J->size2;
  gsl_matrix *A = gsl_matrix_alloc(p, p);
  gsl_vector *g = gsl_vector_alloc(p);
  int ok = 0;
  if (A && g) {
    gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1.0, J, J, 0.0, A);
    gsl_blas_dgemv(CblasTrans, -1.0, J, f, 0.0, g);
    if (!gsl_linalg_cholesky_decomp1(A) && !gsl_linalg_cholesky_solve(A, g, du)) {
      gsl_blas_ddot(du, g, gain);
      *gain *= 0.5;
      ok = 1;
    }
  }
  if (A)
    gsl_matrix_free(A);
  if (g)
    gsl_vector_free(g);
  return ok;
}

/* The stopping tests after an accepted iteration: GSL's step and gradient tests
 * (xtol, gtol; GSL leaves its residual test out), and fiberlab's ftol, converged
 * when the Gauss-Newton step from here would remove at most ftol of the cost: the
 * minimum of the local model is as good as reached.  On n curve residuals that step
 * is s standard errors long (in the metric of the covariance) when its gain is
 * s^2 / (n - p) of the cost, whatever the parameters' scales. */
int fl_trust_converged(const fl_fit *fit, gsl_multifit_nlinear_workspace *w)
{
  int info;
  if (gsl_multifit_nlinear_test(fit->solver.xtol, fit->solver.gtol, fit->solver.ftol, &info, w) == GSL_SUCCESS)
    return 1;
  const gsl_matrix *J = gsl_multifit_nlinear_jac(w);
  const gsl_vector *f = gsl_multifit_nlinear_residual(w);
  gsl_vector *du = gsl_vector_alloc(J->size2);
  double cost, gain;
  gsl_blas_ddot(f, f, &cost);
  cost *= 0.5;
  int small = du && gauss_newton_step(J, f, du, &gain) && gain <= fit->solver.ftol * cost;
  if (du)
    gsl_vector_free(du);
  return small;
}

/* At a point where no trial step lowers the cost (GSL_ENOPROG): the fit has converged
 * to the resolution of the runs when the Gauss-Newton step (gauss_newton_step) moves no
 * parameter by more than a fifth of its standard error, 0.1 % of its value, or its own
 * difference step (the finest change the differences of the Jacobian resolve).
 * Returns -1 then, else the index of a parameter that would move (p when the step
 * cannot be computed). */
static int gauss_newton_small(fl_cal_state *st, const gsl_vector *u, const gsl_matrix *J, const gsl_vector *f,
                              const fl_calibration *cal)
{
  size_t p = (size_t)st->p;
  gsl_vector *du = gsl_vector_alloc(p);
  double gain;
  int moved = (int)p;
  if (!du || !gauss_newton_step(J, f, du, &gain))
    goto out;
  moved = -1;
  for (size_t j = 0; j < p && moved < 0; j++) {
    double deriv, theta = fl_param_from_u(&st->fit->free[j], gsl_vector_get(u, j), &deriv);
    double step = fabs(deriv * gsl_vector_get(du, j));
    double uj = gsl_vector_get(u, j), h = fl_param_step(st->fit, uj);
    double tol = fmax(isfinite(cal->std_error[j]) ? 0.2 * cal->std_error[j] : 0.0, 1e-3 * fabs(theta));
    tol = fmax(tol, fabs(deriv) * h);
    if (!(step <= tol))
      moved = (int)j;
  }
out:
  if (du)
    gsl_vector_free(du);
  return moved;
}

/* At a point where no trial step lowers the cost while the Gauss-Newton step is not
 * small (gauss_newton_small): a corner of the cost, where two of the curve's events
 * change places, or a valley narrower than the differences see.  Runs the 2 p points
 * one difference step either way along each parameter (a curve's difference step,
 * solver.difference_step) through fl_cal_point_costs, and writes the cheapest into best, its
 * cost into *best_cost; *unrun: the points that did not run.  Returns its index (2 j
 * forward, 2 j + 1 backward along parameter j), -1 when none costs less than cost0
 * (the point is then a minimum to the resolution of the differences), or -2 when a
 * batch fell back to the explicit engine, whose costs do not compare with cost0's run;
 * *rc an error of the runs (FL_OK). */
static int stall_probe(fl_cal_state *st, const gsl_vector *u, double cost0, gsl_vector *best, double *best_cost,
                       int *unrun, int *rc)
{
  int p = st->p, k_best = -1, fell = st->fallbacks;
  double pts[2 * FL_FIT_MAX_FREE * FL_FIT_MAX_FREE], cost[2 * FL_FIT_MAX_FREE];
  for (int k = 0; k < 2 * p; k++) {
    int j = k / 2;
    double uj = gsl_vector_get(u, (size_t)j), h = fl_param_step(st->fit, uj);
    for (int i = 0; i < p; i++)
      pts[k * p + i] = gsl_vector_get(u, (size_t)i);
    pts[k * p + j] = k % 2 ? uj - h : uj + h;
  }
  if ((*rc = fl_cal_point_costs(st, 2 * p, pts, cost, 0)))
    return -1;
  if (st->fallbacks != fell)
    return -2;
  *best_cost = cost0;
  *unrun = 0;
  for (int k = 0; k < 2 * p; k++)
    *unrun += !(cost[k] < HUGE_VAL);
  for (int k = 0; k < 2 * p; k++)
    if (cost[k] < *best_cost) {
      *best_cost = cost[k];
      k_best = k;
    }
  for (int i = 0; i < p && k_best >= 0; i++)
    gsl_vector_set(best, (size_t)i, pts[k_best * p + i]);
  return k_best;
}

/* An interrupt while a stall is handled: the report of the point reached, as inside an
 * iteration. */
static void stall_interrupted(fl_calibration *cal)
{
  cal->status = FL_CAL_FAILED;
  cal->interrupted = 1;
  snprintf(cal->message, sizeof cal->message, "interrupted after iteration %d", cal->iterations);
}

/* After the runs of a stall's probe or of a leap, which returned *rc: an interrupt
 * (stall_interrupted, *rc cleared) or an error (left in *rc, err set) ends the
 * handling, returning 1; else 0. */
static int probe_ended(const fl_cal_state *st, fl_calibration *cal, int *rc, char *err, size_t errlen)
{
  if (*rc == FL_EINTERRUPT || fl_cal_stopped(st)) {
    *rc = FL_OK;
    stall_interrupted(cal);
    return 1;
  }
  if (*rc)
    snprintf(err, errlen, "%s", *rc == FL_ENOMEM ? "out of memory" : st->err);
  return *rc != FL_OK;
}

/* A trust region of its own from point ub (a fresh workspace, so that a start that fails,
 * a run of its Jacobian say, leaves the point reached as it was).  Returns 1 with *w
 * the new one (the old one freed), else 0: the fit goes on from the point reached (a
 * note says why), or cal's status is set by an interrupt, or *rc holds an error that
 * ends the calibration (err set). */
static int restart_at(fl_cal_state *st, const gsl_multifit_nlinear_parameters *params, gsl_multifit_nlinear_fdf *fdf,
                      gsl_multifit_nlinear_workspace **w, const gsl_vector *ub, fl_calibration *cal, int *rc,
                      char *err, size_t errlen)
{
  gsl_multifit_nlinear_workspace *w2 =
      gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, params, (size_t)st->n, (size_t)st->p);
  if (!w2) {
    snprintf(err, errlen, "out of memory for the solver (%d residuals, %d parameters)", st->n, st->p);
    *rc = FL_ENOMEM;
    return 0;
  }
  st->iterating = 0;
  int status = gsl_multifit_nlinear_init(ub, fdf, w2);
  st->iterating = 1;
  if (status) {
    gsl_multifit_nlinear_free(w2);
    if (st->rc == FL_EINTERRUPT || fl_cal_stopped(st)) {
      stall_interrupted(cal);
    } else if (st->rc == FL_ENOMEM) {
      *rc = FL_ENOMEM;
      snprintf(err, errlen, "out of memory");
    } else { /* the trust region where it was */
      fl_cal_note(st, "note: the start again did not run (%s); going on from the point reached",
                  st->rc ? st->err : gsl_strerror(status));
    }
    return 0;
  }
  gsl_multifit_nlinear_free(*w);
  *w = w2;
  if (st->opts->progress && st->opts->log)
    fl_cal_progress(st, cal->iterations, gsl_multifit_nlinear_position(*w), gsl_multifit_nlinear_residual(*w));
  return 1;
}

/* No trial step lowered the cost at *w's point.  Where the Gauss-Newton step is not
 * small (gauss_newton_small), the difference points around it are run (stall_probe):
 * returns 1 with *w a fresh trust region at the cheapest of them (the old one freed; a
 * note says so), 0 where the fit stops here (*at_resolution 1 when none was cheaper: a
 * minimum to the resolution of the differences; cal's status and message set where a
 * run or an interrupt ended it).  *rc: an error that ends the calibration (err set),
 * else FL_OK. */
int fl_trust_after_stall(fl_cal_state *st, const gsl_multifit_nlinear_parameters *params,
                         gsl_multifit_nlinear_fdf *fdf, gsl_multifit_nlinear_workspace **w, fl_calibration *cal,
                         int *at_resolution, int *rc, char *err, size_t errlen)
{
  const fl_fit *fit = st->fit;
  gsl_vector *uc = gsl_multifit_nlinear_position(*w), *fc = gsl_multifit_nlinear_residual(*w);
  gsl_matrix *J = gsl_multifit_nlinear_jac(*w);
  double c0 = fl_cal_cost(fc), cb = 0.0;
  if (fl_cal_uncertainties(st, uc, J, fc, cal) >= 0)
    return 0; /* a parameter without influence: the fit fails as it is */
  for (int j = 0; j < st->p; j++)
    if (fl_param_at_bound(&fit->free[j], fl_param_from_u(&fit->free[j], gsl_vector_get(uc, (size_t)j), NULL)))
      return 0; /* at a bound: the same */
  if (gauss_newton_small(st, uc, J, fc, cal) < 0)
    return 0; /* converged as it is */
  gsl_vector *ub = gsl_vector_alloc(uc->size);
  if (!ub) {
    snprintf(err, errlen, "out of memory");
    *rc = FL_ENOMEM;
    return 0;
  }
  int again = 0, unrun = 0;
  st->rc = 0;
  int k = stall_probe(st, uc, c0, ub, &cb, &unrun, rc);
  if (probe_ended(st, cal, rc, err, errlen)) {
    /* interrupted, or an error */
  } else if (k == -2) {
    fl_cal_note(st, "note: no trial step lowered the cost after iteration %d, and the points around it ran on the "
                "explicit engine (no static equilibrium at one of them): their costs do not compare", cal->iterations);
  } else if (k < 0) {
    *at_resolution = unrun < 2 * st->p; /* some ran, none cheaper */
    if (unrun > 0)
      fl_cal_note(st, "note: %d of the %d difference points around iteration %d did not run", unrun, 2 * st->p,
                  cal->iterations);
  } else {
    fl_cal_note(st, "note: no trial step lowered the cost after iteration %d; going on from %s %s by its difference "
                "step (cost %.6g, was %.6g)", cal->iterations, fit->free[k / 2].path, k % 2 ? "lowered" : "raised",
                cb, c0);
    again = restart_at(st, params, fdf, w, ub, cal, rc, err, errlen);
  }
  gsl_vector_free(ub);
  return again;
}

/* Add w's point to the track, dropping the oldest when it is full. */
static void crawl_add(fl_crawl_track *t, gsl_multifit_nlinear_workspace *w, int p)
{
  if (t->n == FL_CRAWL_STEPS + 1) {
    memmove(t->u[0], t->u[1], FL_CRAWL_STEPS * sizeof t->u[0]);
    memmove(t->cost, t->cost + 1, FL_CRAWL_STEPS * sizeof t->cost[0]);
    t->n--;
  }
  gsl_vector *u = gsl_multifit_nlinear_position(w);
  for (int j = 0; j < p; j++)
    t->u[t->n][j] = gsl_vector_get(u, (size_t)j);
  t->cost[t->n++] = fl_cal_cost(gsl_multifit_nlinear_residual(w));
}

void fl_crawl_start(fl_crawl_track *t, gsl_multifit_nlinear_workspace *w, int p)
{
  t->n = 0;
  crawl_add(t, w, p);
}

/* On n residuals a step of s standard errors (in the metric of the covariance) changes
 * the cost by about s^2 / (n - p) of it (fl_trust_converged): FL_CRAWL_STEPS accepted
 * steps that together lowered it by less than a step of FL_FLAT_S would have moved
 * nothing the fit can tell apart.  On a cost whose floor is cornered (a kink moving by
 * a row of the simulated curve) the local model may still ask for a step that no trial
 * realises, and the trust region would inch on for dozens of iterations. */
int fl_crawl_flat(const fl_crawl_track *t, int n, int p)
{
  if (t->n < FL_CRAWL_STEPS + 1 || n <= p)
    return 0;
  double c = t->cost[FL_CRAWL_STEPS];
  return t->cost[0] - c < FL_FLAT_S * FL_FLAT_S / (double)(n - p) * c;
}

/* Add w's point; returns 1 when the last FL_CRAWL_STEPS accepted steps crawl along a
 * valley: together they lowered the cost by less than CRAWL_GAIN of it, each in nearly
 * the direction of their sum (CRAWL_COS). */
int fl_crawl_push(fl_crawl_track *t, gsl_multifit_nlinear_workspace *w, int p)
{
  crawl_add(t, w, p);
  if (t->n < FL_CRAWL_STEPS + 1 || !(t->cost[0] - t->cost[FL_CRAWL_STEPS] < CRAWL_GAIN * t->cost[FL_CRAWL_STEPS]))
    return 0;
  double d[FL_FIT_MAX_FREE], dd = 0.0;
  for (int j = 0; j < p; j++) {
    d[j] = t->u[FL_CRAWL_STEPS][j] - t->u[0][j];
    dd += d[j] * d[j];
  }
  for (int k = 0; k < FL_CRAWL_STEPS; k++) {
    double sd = 0.0, ss = 0.0;
    for (int j = 0; j < p; j++) {
      double sj = t->u[k + 1][j] - t->u[k][j];
      sd += sj * d[j];
      ss += sj * sj;
    }
    if (!(sd > CRAWL_COS * sqrt(ss * dd)))
      return 0;
  }
  return 1;
}

/* The trust region crawls along a valley (fl_crawl_push): steps of nearly one direction,
 * each held short by a local model that the valley's curved or cornered floor leaves
 * behind.  Leaps along the crawl's last FL_CRAWL_STEPS steps, d: the points u + a d for a =
 * 1, 2, 4 ... 64, one run each, while the cost keeps falling; from the cheapest, below
 * the present cost, the trust region starts again (restart_at).  Returns 1 then, else 0
 * (*rc an error that ends the calibration, err set; cal's status set where a run or an
 * interrupt ended it). */
int fl_trust_leap(fl_cal_state *st, const gsl_multifit_nlinear_parameters *params, gsl_multifit_nlinear_fdf *fdf,
                  gsl_multifit_nlinear_workspace **w, const fl_crawl_track *t, fl_calibration *cal, int *rc,
                  char *err, size_t errlen)
{
  int p = st->p, n = st->n, fell = st->fallbacks, kept = 0;
  double best = t->cost[FL_CRAWL_STEPS], a_best = 0.0, pt[FL_FIT_MAX_FREE];
  double *fbest = malloc((size_t)n * sizeof *fbest); /* the cheapest point's residuals */
  if (!fbest) {
    snprintf(err, errlen, "out of memory");
    *rc = FL_ENOMEM;
    return 0;
  }
  for (double a = 1.0; a <= 64.0; a *= 2.0) {
    double c;
    for (int j = 0; j < p; j++)
      pt[j] = t->u[FL_CRAWL_STEPS][j] + a * (t->u[FL_CRAWL_STEPS][j] - t->u[0][j]);
    *rc = fl_cal_point_costs(st, 1, pt, &c, 0);
    if (probe_ended(st, cal, rc, err, errlen)) {
      free(fbest);
      return 0;
    }
    if (st->fallbacks != fell) {
      a_best = 0.0; /* an explicit run's cost does not compare with the static ones */
      break;
    }
    if (!(c < best))
      break;
    best = c;
    a_best = a;
    memcpy(fbest, st->design_f, (size_t)n * sizeof *fbest);
    kept = 1;
  }
  if (a_best == 0.0) {
    free(fbest);
    return 0;
  }
  gsl_vector *ub = gsl_vector_alloc((size_t)p);
  if (!ub) {
    free(fbest);
    snprintf(err, errlen, "out of memory");
    *rc = FL_ENOMEM;
    return 0;
  }
  /* the design holds the last point tried: make it the cheapest, whose residuals the
   * restart's evaluation then takes without running it again */
  for (int j = 0; j < p; j++)
    st->design_u[j] = t->u[FL_CRAWL_STEPS][j] + a_best * (t->u[FL_CRAWL_STEPS][j] - t->u[0][j]);
  if (kept)
    memcpy(st->design_f, fbest, (size_t)n * sizeof *fbest);
  st->ndesign = 1;
  free(fbest);
  for (int j = 0; j < p; j++)
    gsl_vector_set(ub, (size_t)j, t->u[FL_CRAWL_STEPS][j] + a_best * (t->u[FL_CRAWL_STEPS][j] - t->u[0][j]));
  fl_cal_note(st, "note: after iteration %d the trust region crawled along a valley (%d steps of one direction, the "
              "cost %.3g %% lower); leapt %g times their length along it (cost %.6g, was %.6g)", cal->iterations,
              FL_CRAWL_STEPS, 100.0 * (t->cost[0] - t->cost[FL_CRAWL_STEPS]) / t->cost[FL_CRAWL_STEPS], a_best, best,
              t->cost[FL_CRAWL_STEPS]);
  int again = restart_at(st, params, fdf, w, ub, cal, rc, err, errlen);
  gsl_vector_free(ub);
  return again;
}

void fl_trust_verdict(fl_cal_state *st, gsl_multifit_nlinear_workspace *w, fl_calibration *cal, int enoprog,
                      int at_resolution)
{
  const fl_fit *fit = st->fit;
  int p = st->p;
  if (cal->status == FL_CAL_MAX_ITERATIONS && !enoprog) /* no progress: decided below */
    snprintf(cal->message, sizeof cal->message, "no convergence in solver.max_iterations = %d iterations",
             fit->solver.max_iterations);
  /* the best point: the solver's current one */
  gsl_vector *u = gsl_multifit_nlinear_position(w), *f = gsl_multifit_nlinear_residual(w);
  gsl_matrix *J = gsl_multifit_nlinear_jac(w);
  cal->cost = fl_cal_cost(f);
  for (int j = 0; j < p; j++)
    cal->value[j] = fl_param_from_u(&fit->free[j], gsl_vector_get(u, (size_t)j), NULL);
  int und = fl_cal_uncertainties(st, u, J, f, cal), bound = -1;
  cal->undetermined = -1;
  /* a value pinned at a bound: the data ask for more than the bounds allow */
  for (int j = 0; j < p && bound < 0; j++)
    if (fl_param_at_bound(&fit->free[j], cal->value[j]))
      bound = j;
  if (cal->status == FL_CAL_FAILED) {
    /* a run that failed, or an interrupt: its message stands */
  } else if (bound >= 0) {
    double fr = fl_param_frac(&fit->free[bound], cal->value[bound]);
    cal->status = FL_CAL_FAILED;
    snprintf(cal->message, sizeof cal->message,
             "%s ran to its bound %s = %g: the data cannot be matched within the bounds (data from another "
             "specimen or test, a wrong experiment, or bounds too narrow)", fit->free[bound].path,
             fr < 0.5 ? "min" : "max", fr < 0.5 ? fit->free[bound].min : fit->free[bound].max);
  } else if (und >= 0) {
    cal->status = FL_CAL_FAILED;
    cal->undetermined = und;
    snprintf(cal->message, sizeof cal->message,
             "%s has no influence on the residuals (singular covariance): these data cannot determine it; fix it, "
             "or add data it changes", fit->free[und].path);
  } else if (enoprog) {
    int j = gauss_newton_small(st, u, J, f, cal);
    if (j < 0) {
      cal->status = FL_CAL_CONVERGED;
    } else if (at_resolution) {
      cal->status = FL_CAL_CONVERGED;
      fl_cal_note(st, "note: converged to the resolution of the differences after iteration %d: no trial step "
                  "lowered the cost, nor does any parameter moved by its difference step either way (the local "
                  "model still asks to move %s: a corner of the cost, which the differences do not resolve)",
                  cal->iterations, j < p ? fit->free[j].path : "the parameters");
    } else {
      cal->status = FL_CAL_FAILED;
      snprintf(cal->message, sizeof cal->message,
               "no progress after iteration %d: no trial step lowered the cost, yet the local model asks to move %s "
               "further (the simulated curves may be too coarse for the differences of the Jacobian)",
               cal->iterations, j < p ? fit->free[j].path : "the parameters");
    }
  }
}
