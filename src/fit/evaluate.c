/* fit/evaluate.c: the evaluations a calibration's solvers ask of the model: the
 * residuals at a point, the Jacobian by differences (its columns run as one batch where
 * the runs allow), and the costs of many points at once; each looked up in the
 * checkpoint first and appended to it after. */
#include <config.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "evaluate.h"
#include "fl_defs.h"
#include "model.h"
#include "param.h"

/* The residuals f at u are known: the last evaluation (eval_df's base). */
static void remember(fl_cal_state *st, const gsl_vector *u, const gsl_vector *f)
{
  gsl_vector_memcpy(st->last_u, u);
  gsl_vector_memcpy(st->last_f, f);
  st->have_last = 1;
}

/* Residuals f at u for GSL (fdf.f): from the global stage's design or the checkpoint
 * where they hold u, else run; a trial point that does not run gets residuals so large
 * that the trust region rejects its step. */
static int eval_f(const gsl_vector *u, void *params, gsl_vector *f)
{
  fl_cal_state *st = params;
  if (st->iterating && st->bj_updates > 0 && st->f_evals >= 1) {
    /* a step of a Broyden update rejected: its next trial waits for the Jacobian by
     * differences (fl_cal_fresh_jacobian) */
    st->bj_abort = 1;
    return GSL_EBADFUNC;
  }
  st->f_evals++;
  double theta[FL_FIT_MAX_FREE];
  double key[FL_FIT_MAX_FREE];
  for (int j = 0; j < st->p; j++)
    key[j] = gsl_vector_get(u, (size_t)j);
  for (int k = 0; k < st->ndesign; k++)
    if (memcmp(st->design_u + (size_t)k * (size_t)st->p, key, (size_t)st->p * sizeof(double)) == 0 &&
        isfinite(st->design_f[(size_t)k * (size_t)st->n])) {
      /* a point of the global stage's design: its residuals are known (and counted,
       * also in the checkpoint, where a replay must not count them again) */
      for (int i = 0; i < st->n; i++)
        gsl_vector_set(f, (size_t)i, st->design_f[(size_t)k * (size_t)st->n + (size_t)i]);
      remember(st, u, f);
      return GSL_SUCCESS;
    }
  const fl_ck_record *r = fl_checkpoint_lookup(st->opts->checkpoint, FL_CK_TAG_F, u);
  if (r) {
    /* replayed from the checkpoint: the stored bytes and simulation counts */
    for (size_t i = 0; i < f->size; i++)
      gsl_vector_set(f, i, r->v[i]);
    st->simulations += r->dsim;
    st->batches += r->dbatch;
    if (r->flags & FL_CK_FAILED_TRIAL) {
      if (st->failed_trials++ == 0)
        fl_cal_note(st, "note: a trial point did not run (replayed from the checkpoint); its step is rejected");
      return GSL_SUCCESS;
    }
    remember(st, u, f);
    return GSL_SUCCESS;
  }
  long sim0 = st->simulations, batch0 = st->batches;
  fl_param_values(st->fit, u, theta);
  for (int d = 0; d < st->fit->ndata; d++) {
    int rc = fl_cal_item_residuals(st, d, theta, f->data + st->item[d].row0);
    if (rc && st->iterating && (rc == FL_EUNSTABLE || rc == FL_ETIMESTEP || rc == FL_EINPUT)) {
      /* a trial point the engine cannot run, or one that breaks a check across keys
       * (bond.buckling.min_force above max_force): a residual so large that the trust
       * region rejects the step and shrinks */
      if (st->failed_trials++ == 0)
        fl_cal_note(st, "note: a trial point did not run (%s); its step is rejected", st->err);
      gsl_vector_set_all(f, 1e10);
      if (!fl_cal_stopped(st))
        fl_checkpoint_append(st->opts->checkpoint, st->opts->log, st->opts->prog, FL_CK_TAG_F, FL_CK_FAILED_TRIAL,
                             st->simulations - sim0, st->batches - batch0, u, f->data, f->size);
      return GSL_SUCCESS;
    }
    if (rc) {
      st->rc = rc;
      return GSL_EBADFUNC;
    }
  }
  remember(st, u, f);
  if (!fl_cal_stopped(st) && st->opts->checkpoint) {
    double *tmp = malloc(f->size * sizeof *tmp);
    if (tmp) {
      for (size_t i = 0; i < f->size; i++)
        tmp[i] = gsl_vector_get(f, i);
      fl_checkpoint_append(st->opts->checkpoint, st->opts->log, st->opts->prog, FL_CK_TAG_F, 0,
                           st->simulations - sim0, st->batches - batch0, u, tmp, f->size);
      free(tmp);
    }
  }
  return GSL_SUCCESS;
}

/* The points of one item's differences at theta0: per parameter j its forward point
 * thetas[j] and backward point thetam[j] (central differences), and the divisor den[j]
 * of its difference. */
typedef struct {
  int central; /* 1: central differences, 0: forward */
  double theta0[FL_FIT_MAX_FREE];
  double thetas[FL_FIT_MAX_FREE][FL_FIT_MAX_FREE];
  double thetam[FL_FIT_MAX_FREE][FL_FIT_MAX_FREE];
  double den[FL_FIT_MAX_FREE];
} diff_points;

/* The difference points of item d at u (step h_j, eval_df); a point the experiment
 * refuses gives way to the other side's. */
static void difference_points(fl_cal_state *st, int d, const gsl_vector *u, diff_points *dp)
{
  const fl_fit *fit = st->fit;
  int p = st->p, central = dp->central;
  for (int j = 0; j < p; j++) {
    double uj = gsl_vector_get(u, (size_t)j);
    double h = fit->data[d].kind == FL_FIT_PEAKS ? 0.05 : fl_param_step(fit, uj);
    memcpy(dp->thetas[j], dp->theta0, (size_t)p * sizeof(double));
    dp->thetas[j][j] = fl_param_from_u(&fit->free[j], uj + h, NULL);
    memcpy(dp->thetam[j], dp->theta0, (size_t)p * sizeof(double));
    dp->thetam[j][j] = fl_param_from_u(&fit->free[j], uj - h, NULL);
    dp->den[j] = central ? 2.0 * h : h;
    if (!fl_cal_admissible(st, d, dp->thetas[j])) {
      /* a difference point the experiment refuses (min_force above max_force just
       * past a point where they nearly meet): the other side's difference instead */
      if (central) {
        memcpy(dp->thetas[j], dp->theta0, (size_t)p * sizeof(double));
        dp->den[j] = h;
      } else {
        dp->thetas[j][j] = dp->thetam[j][j];
        dp->den[j] = -h;
      }
    } else if (central && !fl_cal_admissible(st, d, dp->thetam[j])) {
      memcpy(dp->thetam[j], dp->theta0, (size_t)p * sizeof(double));
      dp->den[j] = h;
    }
  }
}

/* The columns of curve item d that a batch may vary, into J: the base, then per
 * batchable parameter its forward run (and, for central differences, its backward run
 * right after), as one batch.  On the static solver, whose runs share nothing inside a
 * batch, the base is left out where its residuals are known (have_base: forward
 * differences at the point just evaluated, base) or not wanted (central); a batch that
 * falls back to the explicit engine runs again with it, so that its differences are
 * taken on one engine and one time step.  *alone: 1 when a column is left to
 * alone_columns. */
static int batch_columns(fl_cal_state *st, int d, const diff_points *dp, int have_base, const double *base,
                         gsl_matrix *J, int *alone)
{
  const fl_fit_data *it = &st->fit->data[d];
  const fl_cal_item *ii = &st->item[d];
  int central = dp->central, rows = it->data.n + ii->kink + ii->start, rc;
  const double *set[2 * FL_FIT_MAX_FREE + 1];
  int col[2 * FL_FIT_MAX_FREE + 1], nset = 0;
  int skip = (central || have_base) && fl_cal_on_static(st, d, dp->theta0);
  *alone = 0;
  set[nset] = dp->theta0;
  col[nset++] = -1;
  for (int j = 0; j < st->p; j++)
    if (ii->batchable[j]) {
      set[nset] = dp->thetas[j];
      col[nset++] = j;
      if (central) {
        set[nset] = dp->thetam[j];
        col[nset++] = j;
      }
    } else {
      *alone = 1;
    }
  if (nset <= 1)
    return FL_OK;
  double kink[2 * FL_FIT_MAX_FREE + 1] = {0};
  size_t ny = (size_t)it->data.n;
  int fell = st->fallbacks;
  if (skip && (rc = fl_cal_run_curve(st, d, nset - 1, set + 1, st->ybuf + ny, kink + 1)))
    return rc;
  if ((!skip || st->fallbacks != fell) && (rc = fl_cal_run_curve(st, d, nset, set, st->ybuf, kink)))
    return rc;
  skip = skip && st->fallbacks == fell;
  double *fp = st->fbuf, *fm = st->fbuf + rows;
  for (int k = 1; k < nset; k += central ? 2 : 1) {
    int km = central ? k + 1 : 0;
    fl_cal_curve_residuals(st, d, st->ybuf + (size_t)k * ny, kink[k], fp);
    if (km == 0 && skip) /* the base's residuals, known */
      memcpy(fm, base + ii->row0, (size_t)rows * sizeof *fm);
    else
      fl_cal_curve_residuals(st, d, st->ybuf + (size_t)km * ny, kink[km], fm);
    for (int i = 0; i < rows; i++)
      gsl_matrix_set(J, (size_t)(ii->row0 + i), (size_t)col[k], (fp[i] - fm[i]) / dp->den[col[k]]);
  }
  return FL_OK;
}

/* The columns of item d that run alone (all of a ring-down's or a peaks item's), into J:
 * each perturbed run against the base run alone (base, run here unless have_base), or
 * for central differences against its backward run, which takes the base's buffer. */
static int alone_columns(fl_cal_state *st, int d, const diff_points *dp, int have_base, double *base, double *pert,
                         gsl_matrix *J)
{
  const fl_fit_data *it = &st->fit->data[d];
  const fl_cal_item *ii = &st->item[d];
  int central = dp->central, rows = it->kind != FL_FIT_CURVE ? fl_fit_residual_rows(it) : it->data.n + ii->kink + ii->start, rc;
  if (!central && !have_base && (rc = fl_cal_item_residuals(st, d, dp->theta0, base + ii->row0)))
    return rc;
  for (int j = 0; j < st->p; j++) {
    if (it->kind == FL_FIT_CURVE && ii->batchable[j])
      continue;
    if ((rc = fl_cal_item_residuals(st, d, dp->thetas[j], pert + ii->row0)))
      return rc;
    if (central && (rc = fl_cal_item_residuals(st, d, dp->thetam[j], base + ii->row0)))
      return rc;
    for (int i = 0; i < rows; i++)
      gsl_matrix_set(J, (size_t)(ii->row0 + i), (size_t)j, (pert[ii->row0 + i] - base[ii->row0 + i]) / dp->den[j]);
  }
  return FL_OK;
}

/* Keep J, the Jacobian at u handed to the solver, with the residuals there (the last
 * evaluation's), for Broyden's update at the next point; updated: whether it is one. */
static void broyden_keep(fl_cal_state *st, const gsl_vector *u, const gsl_matrix *J, int updated)
{
  st->bj_have = st->have_last && gsl_vector_equal(st->last_u, u);
  if (st->bj_have) {
    gsl_matrix_memcpy(st->bj, J);
    gsl_vector_memcpy(st->bu, u);
    gsl_vector_memcpy(st->bf, st->last_f);
  }
  st->bj_updates = updated ? st->bj_updates + 1 : 0;
  st->f_evals = 0;
}

/* Broyden's update of the last Jacobian to the point u just accepted (fiberlab-fit(5),
 * solver.jacobian): J = J0 + (df - J0 du) du^T / du^T du, the secant of the step taken,
 * with no run.  Taken while the trust region iterates, the step from the last Jacobian's
 * point was accepted at its first trial (the local model served), and fewer than p
 * updates have followed the last Jacobian by differences; else 0 (by differences). */
static int broyden_update(fl_cal_state *st, const gsl_vector *u, gsl_matrix *J)
{
  int p = st->p, n = st->n;
  if (!st->fit->solver.broyden || st->bj_force || !st->iterating || !st->bj_local || !st->bj_have ||
      st->bj_updates >= p || st->f_evals != 1 || !st->have_last || !gsl_vector_equal(st->last_u, u))
    return 0;
  double du[FL_FIT_MAX_FREE], dd = 0.0;
  for (int j = 0; j < p; j++) {
    du[j] = gsl_vector_get(u, (size_t)j) - gsl_vector_get(st->bu, (size_t)j);
    dd += du[j] * du[j];
  }
  if (!(dd > 0.0))
    return 0;
  for (int i = 0; i < n; i++) {
    double r = gsl_vector_get(st->last_f, (size_t)i) - gsl_vector_get(st->bf, (size_t)i);
    for (int j = 0; j < p; j++)
      r -= gsl_matrix_get(st->bj, (size_t)i, (size_t)j) * du[j];
    for (int j = 0; j < p; j++)
      gsl_matrix_set(J, (size_t)i, (size_t)j, gsl_matrix_get(st->bj, (size_t)i, (size_t)j) + r * du[j] / dd);
  }
  broyden_keep(st, u, J, 1);
  return 1;
}

/* The Jacobian at u for GSL (fdf.df), by forward (or, with solver.differences:
 * central, central) differences in u, step h_j = s max(|u_j|, 1e-2), s the solver's
 * difference_step, 1e-3 unless the fit file says otherwise (peaks items: 0.05, their
 * peaks being known to a time step only).  For a curve, the base and every perturbed
 * parameter that a batch may vary run as one batch, and the differences are taken
 * inside it (one time step, one loading path); the others run alone, against the base
 * run alone.  From the checkpoint where it holds u. */
static int eval_df(const gsl_vector *u, void *params, gsl_matrix *J)
{
  fl_cal_state *st = params;
  int p = st->p, n = st->n, rc = FL_OK;
  if (broyden_update(st, u, J))
    return GSL_SUCCESS;
  const fl_ck_record *r = fl_checkpoint_lookup(st->opts->checkpoint, FL_CK_TAG_DF, u);
  if (r) {
    /* replayed from the checkpoint: the stored bytes and simulation counts */
    for (int i = 0; i < n; i++)
      for (int j = 0; j < p; j++)
        gsl_matrix_set(J, (size_t)i, (size_t)j, r->v[(size_t)i * (size_t)p + (size_t)j]);
    st->simulations += r->dsim;
    st->batches += r->dbatch;
    broyden_keep(st, u, J, 0);
    return GSL_SUCCESS;
  }
  long sim0 = st->simulations, batch0 = st->batches;
  diff_points dp;
  dp.central = st->fit->solver.central;
  fl_param_values(st->fit, u, dp.theta0);
  gsl_matrix_set_zero(J);
  double *base = malloc((size_t)n * sizeof *base), *pert = malloc((size_t)n * sizeof *pert);
  if (!base || !pert) {
    snprintf(st->err, sizeof st->err, "out of memory");
    rc = FL_ENOMEM;
  }
  int have_base = st->have_last && gsl_vector_equal(st->last_u, u);
  if (have_base && !rc)
    memcpy(base, st->last_f->data, (size_t)n * sizeof *base);
  for (int d = 0; d < st->fit->ndata && rc == FL_OK; d++) {
    int alone = 1;
    difference_points(st, d, u, &dp);
    if (st->fit->data[d].kind == FL_FIT_CURVE && (rc = batch_columns(st, d, &dp, have_base, base, J, &alone)))
      break;
    if (alone)
      rc = alone_columns(st, d, &dp, have_base, base, pert, J);
  }
  free(base);
  free(pert);
  if (rc) {
    st->rc = rc;
    return GSL_EBADFUNC;
  }
  broyden_keep(st, u, J, 0);
  if (!fl_cal_stopped(st) && st->opts->checkpoint) {
    double *tmp = malloc((size_t)n * (size_t)p * sizeof *tmp);
    if (tmp) {
      for (int i = 0; i < n; i++)
        for (int j = 0; j < p; j++)
          tmp[(size_t)i * (size_t)p + (size_t)j] = gsl_matrix_get(J, (size_t)i, (size_t)j);
      fl_checkpoint_append(st->opts->checkpoint, st->opts->log, st->opts->prog, FL_CK_TAG_DF, 0,
                           st->simulations - sim0, st->batches - batch0, u, tmp, (size_t)n * (size_t)p);
      free(tmp);
    }
  }
  return GSL_SUCCESS;
}

int fl_cal_fresh_jacobian(fl_cal_state *st, gsl_multifit_nlinear_workspace *w)
{
  if (st->bj_updates == 0)
    return 0;
  gsl_vector *u = gsl_multifit_nlinear_position(w), *f = gsl_multifit_nlinear_residual(w);
  gsl_matrix *J = gsl_multifit_nlinear_jac(w);
  if (!(st->have_last && gsl_vector_equal(st->last_u, u))) /* the base of the differences */
    remember(st, u, f);
  st->bj_force = 1;
  int status = eval_df(u, st, J);
  st->bj_force = 0;
  if (status)
    return -1;
  gsl_blas_dgemv(CblasTrans, 1.0, J, f, 0.0, w->g); /* the solver's gradient J^T f */
  return 1;
}

void fl_cal_fdf(fl_cal_state *st, gsl_multifit_nlinear_fdf *fdf)
{
  memset(fdf, 0, sizeof *fdf);
  fdf->f = eval_f;
  fdf->df = eval_df;
  fdf->n = (size_t)st->n;
  fdf->p = (size_t)st->p;
  fdf->params = st;
}

/* Residuals of the points rows of theta that the checkpoint does not hold, into rows of
 * f (n each); ok[k] 0 for a point that did not run.  Per curve item the points whose
 * experiments a batch may share run as one batch, as the Jacobian's columns do; a batch
 * that fails runs again point by point, so that one bad point fails alone.  A start
 * (row 0 when has_start) that the experiment's checks refuse ends the calibration, as
 * it does without the stage. */
static int design_residuals(fl_cal_state *st, int m, const int *rows, double (*theta)[FL_FIT_MAX_FREE], int has_start,
                            double *f, int *ok)
{
  const fl_fit *fit = st->fit;
  int rc = FL_OK;
  fl_experiment *e = malloc((size_t)(m > 0 ? m : 1) * sizeof *e);
  const double **set = malloc((size_t)(m > 0 ? m : 1) * sizeof *set);
  int *idx = malloc((size_t)(m > 0 ? m : 1) * sizeof *idx);
  int maxrows = 0;
  for (int d = 0; d < fit->ndata; d++)
    if (fit->data[d].data.n > maxrows)
      maxrows = fit->data[d].data.n;
  double *y = malloc((size_t)(m > 0 ? m : 1) * (size_t)(maxrows > 0 ? maxrows : 1) * sizeof *y);
  double *kinks = calloc((size_t)(m > 0 ? m : 1), sizeof *kinks);
  if (!e || !set || !idx || !y || !kinks) {
    snprintf(st->err, sizeof st->err, "out of memory");
    rc = FL_ENOMEM;
    goto out;
  }
  for (int k = 0; k < m; k++)
    ok[k] = 1;
  for (int d = 0; d < fit->ndata && rc == FL_OK; d++) {
    const fl_fit_data *it = &fit->data[d];
    const fl_cal_item *ii = &st->item[d];
    /* the points the checks accept, and of them the ones that share the first's batch */
    int nb = 0, first = -1;
    for (int k = 0; k < m; k++) {
      if (!ok[k])
        continue;
      int erc = fl_cal_experiment(st, d, theta[rows[k]], &e[k]);
      if (erc && has_start && k == 0) {
        rc = erc;
        goto out;
      }
      if (erc) {
        ok[k] = 0;
        continue;
      }
      if (it->kind == FL_FIT_CURVE && !st->opts->separate_runs &&
          (first < 0 || fl_experiment_batchable(&e[first], &e[k]))) {
        if (first < 0)
          first = k;
        set[nb] = theta[rows[k]];
        idx[nb++] = k;
      }
    }
    int batched = 0;
    if (nb > 1) {
      int brc = fl_cal_run_curve(st, d, nb, set, y, kinks);
      if (brc == FL_ENOMEM || fl_cal_stopped(st)) {
        rc = brc ? brc : FL_EINTERRUPT;
        goto out;
      }
      if (!brc) {
        batched = 1;
        for (int b = 0; b < nb; b++)
          fl_cal_curve_residuals(st, d, y + (size_t)b * (size_t)it->data.n, kinks[b],
                                 f + (size_t)idx[b] * (size_t)st->n + ii->row0);
      }
    }
    /* the others one by one (and all of a batch that failed) */
    for (int k = 0; k < m; k++) {
      if (!ok[k])
        continue;
      int in_batch = 0;
      for (int b = 0; b < nb && batched; b++)
        in_batch |= idx[b] == k;
      if (in_batch)
        continue;
      int prc = fl_cal_item_residuals(st, d, theta[rows[k]], f + (size_t)k * (size_t)st->n + (size_t)ii->row0);
      if (prc == FL_ENOMEM || fl_cal_stopped(st)) {
        rc = prc ? prc : FL_EINTERRUPT;
        goto out;
      }
      if (prc && has_start && k == 0 && prc == FL_EINPUT) {
        rc = prc;
        goto out;
      }
      if (prc)
        ok[k] = 0;
    }
  }
out:
  free(e);
  free(set);
  free(idx);
  free(y);
  free(kinks);
  return rc;
}

/* The costs of npoints points (evaluate.h), the ones the checkpoint does not hold run
 * by design_residuals. */
int fl_cal_point_costs(fl_cal_state *st, int npoints, const double *u, double *cost, int first_is_start)
{
  int p = st->p, n = st->n, rc = FL_OK, m = 0;
  free(st->design_u);
  free(st->design_f);
  st->ndesign = 0;
  st->design_u = malloc((size_t)npoints * (size_t)p * sizeof(double));
  st->design_f = malloc((size_t)npoints * (size_t)n * sizeof(double));
  double(*theta)[FL_FIT_MAX_FREE] = malloc((size_t)npoints * sizeof *theta);
  int *rows = malloc((size_t)npoints * sizeof *rows), *ok = malloc((size_t)npoints * sizeof *ok);
  double *fnew = malloc((size_t)npoints * (size_t)n * sizeof *fnew);
  gsl_vector *uk = gsl_vector_alloc((size_t)p);
  if (!st->design_u || !st->design_f || !theta || !rows || !ok || !fnew || !uk) {
    snprintf(st->err, sizeof st->err, "out of memory");
    rc = FL_ENOMEM;
    goto out;
  }
  memcpy(st->design_u, u, (size_t)npoints * (size_t)p * sizeof(double));
  for (int k = 0; k < npoints; k++) {
    double *fk = st->design_f + (size_t)k * (size_t)n;
    for (int j = 0; j < p; j++)
      gsl_vector_set(uk, (size_t)j, u[(size_t)k * (size_t)p + (size_t)j]);
    fl_param_values(st->fit, uk, theta[k]);
    const fl_ck_record *r = fl_checkpoint_lookup(st->opts->checkpoint, FL_CK_TAG_F, uk);
    if (r) {
      st->simulations += r->dsim;
      st->batches += r->dbatch;
      for (int i = 0; i < n; i++)
        fk[i] = r->flags & FL_CK_FAILED_TRIAL ? HUGE_VAL : r->v[i];
      continue;
    }
    rows[m++] = k;
  }
  long sim0 = st->simulations, batch0 = st->batches;
  if ((rc = design_residuals(st, m, rows, theta, first_is_start && m > 0 && rows[0] == 0, fnew, ok)))
    goto out;
  for (int b = 0; b < m; b++) {
    int k = rows[b];
    double *fk = st->design_f + (size_t)k * (size_t)n;
    for (int i = 0; i < n; i++)
      fk[i] = ok[b] ? fnew[(size_t)b * (size_t)n + (size_t)i] : HUGE_VAL;
    for (int j = 0; j < p; j++)
      gsl_vector_set(uk, (size_t)j, u[(size_t)k * (size_t)p + (size_t)j]);
    /* the batch's simulations go with its first record, so that a replay counts them once */
    if (ok[b])
      fl_checkpoint_append(st->opts->checkpoint, st->opts->log, st->opts->prog, FL_CK_TAG_F, 0,
                           b ? 0 : st->simulations - sim0, b ? 0 : st->batches - batch0, uk, fk, (size_t)n);
    else {
      for (int i = 0; i < n; i++)
        fnew[(size_t)b * (size_t)n + (size_t)i] = 1e10;
      fl_checkpoint_append(st->opts->checkpoint, st->opts->log, st->opts->prog, FL_CK_TAG_F, FL_CK_FAILED_TRIAL,
                           b ? 0 : st->simulations - sim0, b ? 0 : st->batches - batch0, uk,
                           fnew + (size_t)b * (size_t)n, (size_t)n);
    }
  }
  st->ndesign = npoints;
  for (int k = 0; k < npoints; k++) {
    const double *fk = st->design_f + (size_t)k * (size_t)n;
    double c = 0.0;
    for (int i = 0; i < n; i++)
      c += fk[i] * fk[i];
    cost[k] = isfinite(c) ? 0.5 * c : HUGE_VAL;
  }
out:
  free(theta);
  free(rows);
  free(ok);
  free(fnew);
  if (uk)
    gsl_vector_free(uk);
  return rc;
}
