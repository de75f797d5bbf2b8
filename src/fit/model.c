/* fit/model.c: the model of a calibration (model.h): each data item's experiment at the
 * parameter values, its runs on the engines (curves as one batch), what a curve and a
 * set of peaks read off them, and the residual rows (a ring-down's: ring.c). */
#include <config.h>

#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fl_defs.h"
#include "model.h"
#include "param.h"
#include "ring.h"
#include "series.h" /* fl_series_bracket, fl_series_start_bend */
#include "solver.h" /* fl_solver_resolve */
#include "test_kind.h"

#define X_MARGIN 1.05 /* simulated maximum over the largest measured abscissa */

/* A batch that simulation.solver auto ran on the explicit engine after the static
 * solver found no equilibrium: said once, since the fit then mixes the two engines'
 * curves, which differ a little. */
static void note_fallback(fl_cal_state *st, const fl_result *r)
{
  if (!r->static_fallback[0] || st->fallbacks++ > 0)
    return;
  fl_cal_note(st, "note: a run found no static equilibrium (%s); simulation.solver auto ran its batch on the explicit "
              "engine, whose curves differ a little from the static solver's, so the fit mixes the two (set "
              "simulation.solver or --solver to fit on one throughout)",
              r->static_fallback);
}

/* Item d's experiment at parameter values theta, its maximum covering the curve. */
int fl_cal_experiment(fl_cal_state *st, int d, const double *theta, fl_experiment *e)
{
  const fl_fit_data *it = &st->fit->data[d];
  *e = it->exp;
  int rc = fl_fit_apply(st->fit, theta, e, it->exp_path, st->err, sizeof st->err);
  if (rc)
    return rc;
  if (it->kind == FL_FIT_CURVE) {
    /* a path that ends at a load (a cantilever under load control) keeps its end */
    fl_test_type_of(it->test)->reach(&e->test, X_MARGIN * it->x_max);
  }
  return FL_OK;
}

/* The hooks of the fit's runs: its stop flag, threads and device, and the static
 * solver's shared beginnings (fiberlab-model(7), Shared beginnings). */
static fl_run_hooks hooks_of(const fl_cal_state *st)
{
  fl_run_hooks h;
  memset(&h, 0, sizeof h);
  h.stop = st->opts->stop;
  h.threads = st->opts->threads;
  h.gpu = st->opts->gpu;
  h.prefix = st->prefix;
  return h;
}

/* Linear interpolation of the nondecreasing rows (xs, ys) at x; 0 beyond them. */
static int interpolate(const double *xs, const double *ys, int n, double x, double *y)
{
  double tol = 1e-9 * fabs(xs[n - 1]);
  if (n < 2 || x < xs[0] - tol || x > xs[n - 1] + tol)
    return 0;
  int lo = fl_series_bracket(xs, n, x), hi = lo + 1;
  double dx = xs[hi] - xs[lo];
  *y = dx > 0.0 ? ys[lo] + (ys[hi] - ys[lo]) * (x - xs[lo]) / dx : ys[lo];
  if (x >= xs[n - 1])
    *y = ys[n - 1];
  return 1;
}

/* Whether item d's experiment admits the values theta (fl_fit_apply's checks: a
 * buckling envelope's min_force at most its max_force, ...). */
int fl_cal_admissible(fl_cal_state *st, int d, const double *theta)
{
  fl_experiment e;
  char keep[sizeof st->err];
  memcpy(keep, st->err, sizeof keep);
  int ok = fl_cal_experiment(st, d, theta, &e) == FL_OK;
  memcpy(st->err, keep, sizeof keep);
  return ok;
}

/* The kink of a simulated quasi-static curve (qx, qy, nq rows) as item it's kink
 * residual reads it: the peak before its deepest fall within the measured range, from
 * the simulated rows themselves (the static solver's located buckling point, which
 * moves smoothly with the parameters, not the nearest measured abscissa); where it
 * has no drop there, its highest row in the range (where a drop would have to come). */
static double simulated_kink(const fl_fit_data *it, const double *qx, const double *qy, int nq)
{
  double out[5], lo = it->data.x[0], hi = it->data.x[it->data.n - 1];
  int i0 = 0, i1 = nq;
  while (i0 < nq && qx[i0] < lo)
    i0++;
  while (i1 > i0 && qx[i1 - 1] > hi)
    i1--;
  if (i1 - i0 < 3)
    return hi;
  if (fl_drop_features(qx + i0, qy + i0, i1 - i0, 1, out))
    return out[4];
  int top = i0;
  for (int i = i0 + 1; i < i1; i++)
    if (qy[i] > qy[top])
      top = i;
  return qx[top];
}

/* Run curve item d once for each of nset parameter vectors, as one batch; y gets the
 * simulated loads at the measured abscissae, row k * npoints + i, and kink (NULL: not
 * wanted) each run's simulated kink (simulated_kink), where the item has a kink
 * residual. */
int fl_cal_run_curve(fl_cal_state *st, int d, int nset, const double *const *theta, double *y, double *kink)
{
  const fl_fit_data *it = &st->fit->data[d];
  fl_experiment *exps = malloc((size_t)nset * sizeof *exps);
  const fl_experiment **ptr = malloc((size_t)nset * sizeof *ptr);
  double *qx = NULL, *qy = NULL;
  int rc = FL_ENOMEM;
  fl_curve c;
  fl_result r;
  memset(&c, 0, sizeof c);
  memset(&r, 0, sizeof r);
  if (!exps || !ptr) {
    snprintf(st->err, sizeof st->err, "out of memory");
    goto out;
  }
  for (int k = 0; k < nset; k++) {
    if ((rc = fl_cal_experiment(st, d, theta[k], &exps[k])))
      goto out;
    ptr[k] = &exps[k];
  }
  fl_run_hooks h = hooks_of(st);
  char msg[1536];
  /* each run's tag for the shared beginnings: the item and the parameters, the buckling
   * envelope's zeroed */
  double *tags = st->prefix ? malloc((size_t)nset * (size_t)(st->p + 1) * sizeof *tags) : NULL;
  for (int k = 0; tags && k < nset; k++) {
    double *tg = tags + (size_t)k * (size_t)(st->p + 1);
    tg[0] = d;
    for (int j = 0; j < st->p; j++)
      tg[1 + j] = st->envelope[j] ? 0.0 : theta[k][j];
  }
  if (tags)
    fl_prefix_cache_tags(st->prefix, nset, st->p + 1, tags);
  rc = fl_run_many(ptr, nset, &h, &c, &r, msg, sizeof msg);
  if (tags)
    fl_prefix_cache_tags(st->prefix, 0, 0, NULL);
  free(tags);
  st->simulations += nset;
  st->batches++;
  note_fallback(st, &r);
  if (rc) {
    snprintf(st->err, sizeof st->err, "%s: %s", it->exp_path, msg);
    goto out;
  }
  qx = malloc((size_t)(c.npoints + 2 * (FL_MAX_SNAPS + 1)) * sizeof *qx);
  qy = malloc((size_t)(c.npoints + 2 * (FL_MAX_SNAPS + 1)) * sizeof *qy);
  if (!qx || !qy) {
    snprintf(st->err, sizeof st->err, "out of memory");
    rc = FL_ENOMEM;
    goto out;
  }
  for (int k = 0; k < nset; k++) {
    int nq = fl_curve_quasi_static(&c, &r.spec[k], it->test, k, qx, qy);
    const double *xs = qx, *ys = qy;
    if (kink && st->item[d].kink)
      kink[k] = simulated_kink(it, qx, qy, nq);
    for (int i = 0; i < it->data.n; i++)
      if (!interpolate(xs, ys, nq, it->data.x[i], &y[(size_t)k * it->data.n + i])) {
        snprintf(st->err, sizeof st->err,
                 "%.2000s: the simulated curve of data[%d] ends at x = %.6g, before the measured x = %.6g "
                 "(%.2000s line %d)",
                 it->exp_path, d + 1, nq ? xs[nq - 1] : 0.0, it->data.x[i], it->file, it->data.line[i]);
        rc = FL_EUNSTABLE;
        goto out;
      }
  }
out:
  fl_curve_free(&c);
  fl_result_free(&r);
  free(exps);
  free(ptr);
  free(qx);
  free(qy);
  return rc;
}

int fl_cal_run_exp(fl_cal_state *st, int d, const fl_experiment *e, int nspec, int options, fl_curve *c,
                   fl_result *r)
{
  fl_run_hooks h = hooks_of(st);
  h.options = options;
  char msg[1536];
  memset(c, 0, sizeof *c);
  memset(r, 0, sizeof *r);
  int rc = fl_run(e, nspec, &h, c, r, msg, sizeof msg);
  st->simulations += nspec;
  st->batches++;
  note_fallback(st, r);
  if (rc)
    snprintf(st->err, sizeof st->err, "%s: %s", st->fit->data[d].exp_path, msg);
  return rc;
}

/* Run item d at theta, nspec specimens (counted), with a message naming the experiment
 * on failure; c and r are to be freed whatever it returns.  failure_off: the failure
 * criterion off and the static path ended at its first event (the stiffness start: its
 * first slope alone).  (A ring-down runs in ring.c, for as long as its record.) */
static int run_item(fl_cal_state *st, int d, const double *theta, int nspec, int failure_off, fl_curve *c,
                    fl_result *r)
{
  fl_experiment e;
  memset(c, 0, sizeof *c);
  memset(r, 0, sizeof *r);
  int rc = fl_cal_experiment(st, d, theta, &e);
  if (rc)
    return rc;
  if (failure_off)
    e.bond.failure.criterion = FL_CRIT_NONE;
  /* the stiffness start: its first slope alone */
  return fl_cal_run_exp(st, d, &e, nspec, failure_off ? FL_RUN_UNTIL_EVENT : 0, c, r);
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void fl_cal_sort(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
}

/* Run peaks item d at theta: mean and standard deviation of the simulated peaks, and
 * the peaks sorted into sorted (NULL: not wanted). */
int fl_cal_run_peaks(fl_cal_state *st, int d, const double *theta, double *mean, double *sd, double *sorted)
{
  const fl_fit_data *it = &st->fit->data[d];
  fl_curve c;
  fl_result r;
  int rc = run_item(st, d, theta, it->specimens, 0, &c, &r);
  if (rc == FL_OK) {
    double s = 0, s2 = 0;
    int n = it->specimens;
    for (int k = 0; k < n; k++)
      s += r.spec[k].peak;
    *mean = s / n;
    for (int k = 0; k < n; k++)
      s2 += (r.spec[k].peak - *mean) * (r.spec[k].peak - *mean);
    *sd = sqrt(s2 / (n - 1));
    if (sorted) {
      for (int k = 0; k < n; k++)
        sorted[k] = r.spec[k].peak;
      fl_cal_sort(sorted, n);
    }
  }
  fl_curve_free(&c);
  fl_result_free(&r);
  return rc;
}

/* Row i's weight by its region (fiberlab-fit(5), weights). */
double fl_cal_row_weight(const fl_fit_data *it, int i)
{
  return it->row_weight ? it->row_weight[i] : 1.0;
}

#define START_BEND_MAX 1e3 /* the largest start's bend a residual takes */

/* A curve item's residual rows from its simulated y at the measured abscissae: each
 * row's misfit, weighted; with kink_weight the simulated kink's misfit (kink, from
 * fl_cal_run_curve) over the fitted range's length (fiberlab-fit(5), kink_weight); with
 * start_weight the simulated start's bend less the measured one, at the same rows
 * (start_weight). */
void fl_cal_curve_residuals(const fl_cal_state *st, int d, const double *y, double kink, double *f)
{
  const fl_fit_data *it = &st->fit->data[d];
  const fl_cal_item *ii = &st->item[d];
  const fl_measured *m = &it->data;
  for (int i = 0; i < m->n; i++)
    f[i] = ii->norm * fl_cal_row_weight(it, i) * (y[i] - m->y[i]);
  if (ii->kink)
    f[m->n] = ii->kink_norm * (kink - ii->kink_x);
  if (ii->start) { /* a simulated start flat in its first part bends without bound */
    double bend = fl_series_start_bend(m->x, m->y, y, m->n, ii->ymax);
    bend = isnan(bend) ? START_BEND_MAX : fmin(fmax(bend, -START_BEND_MAX), START_BEND_MAX);
    f[m->n + ii->kink] = it->start_weight * (bend - ii->start_bend);
  }
}

int fl_cal_item_residuals(fl_cal_state *st, int d, const double *theta, double *f)
{
  const fl_fit_data *it = &st->fit->data[d];
  const fl_cal_item *ii = &st->item[d];
  if (it->kind == FL_FIT_PEAKS) {
    double m, s;
    int rc = fl_cal_run_peaks(st, d, theta, &m, &s, NULL);
    if (rc)
      return rc;
    f[0] = it->weight * (m - ii->mean) / ii->se_mean;
    f[1] = it->weight * (s / m - ii->sd / ii->mean) / ii->se_cv;
    return FL_OK;
  }
  if (it->kind == FL_FIT_RINGDOWN)
    return fl_cal_ring_residuals(st, d, theta, f);
  const double *t[1] = {theta};
  double kink = 0.0;
  int rc = fl_cal_run_curve(st, d, 1, t, st->ybuf, &kink);
  if (rc)
    return rc;
  fl_cal_curve_residuals(st, d, st->ybuf, kink, f);
  return FL_OK;
}

/* Whether curve item d at theta runs on the static solver (fl_solver_resolve: the
 * experiment's solver, auto resolved, the explicit engine on the GPU). */
int fl_cal_on_static(fl_cal_state *st, int d, const double *theta)
{
  fl_experiment e;
  return fl_cal_experiment(st, d, theta, &e) == FL_OK && fl_solver_resolve(&e, st->opts->gpu) == FL_SOLVER_STATIC;
}

/* Run item d alone at theta: specimen 0's figures. */
int fl_cal_run_one(fl_cal_state *st, int d, const double *theta, int failure_off, fl_specimen_result *sr)
{
  fl_curve c;
  fl_result r;
  int rc = run_item(st, d, theta, 1, failure_off, &c, &r);
  if (rc == FL_OK)
    *sr = r.spec[0];
  fl_curve_free(&c);
  fl_result_free(&r);
  return rc;
}

int fl_cal_model_init(fl_cal_state *st, char *err, size_t errlen)
{
  const fl_fit *fit = st->fit;
  int row = 0, maxrows = 0;
  for (int d = 0; d < fit->ndata; d++) {
    const fl_fit_data *it = &fit->data[d];
    fl_cal_item *ii = &st->item[d];
    const fl_measured *m = &it->data;
    ii->row0 = row;
    if (it->kind == FL_FIT_RINGDOWN) {
      fl_cal_ring_init(st, d);
      row += fl_fit_residual_rows(it);
    } else if (it->kind == FL_FIT_CURVE) {
      for (int i = 0; i < m->n; i++)
        if (fabs(m->y[i]) > ii->ymax)
          ii->ymax = fabs(m->y[i]);
      ii->norm = it->weight / (ii->ymax * sqrt((double)m->n));
      row += m->n;
      double feat[5]; /* a kink row where the loader counted one (fl_fit_has_kink) */
      if (it->kink_weight > 0.0 && fl_drop_features(m->x, m->y, m->n, 0, feat)) {
        ii->kink = 1;
        ii->kink_x = feat[4];
        ii->kink_norm = it->kink_weight / (m->x[m->n - 1] - m->x[0]);
        row++;
      }
      if (fl_fit_has_start(it)) { /* a start row where the loader counted one */
        ii->start = 1;
        ii->start_bend = fl_series_start_bend(m->x, m->y, m->y, m->n, ii->ymax);
        row++;
      }
      if (m->n > maxrows)
        maxrows = m->n;
    } else {
      double s = 0, s2 = 0;
      for (int i = 0; i < m->n; i++)
        s += m->y[i];
      ii->mean = s / m->n;
      for (int i = 0; i < m->n; i++)
        s2 += (m->y[i] - ii->mean) * (m->y[i] - ii->mean);
      ii->sd = sqrt(s2 / (m->n - 1));
      /* sampling errors of the measured and of the simulated moments (normal
       * samples: var(mean) = sd^2 / n, var(cv) = cv^2 (1 / (2 (n - 1)) + cv^2 / n)) */
      double cv = ii->sd / ii->mean;
      int ns = it->specimens;
      ii->se_mean = ii->sd * sqrt(1.0 / m->n + 1.0 / ns);
      ii->se_cv = cv * sqrt(1.0 / (2.0 * (m->n - 1)) + cv * cv / m->n + 1.0 / (2.0 * (ns - 1)) + cv * cv / ns);
      row += 2;
    }
  }
  st->ybuf = malloc((size_t)(2 * st->p + 1) * (size_t)(maxrows > 0 ? maxrows : 1) * sizeof *st->ybuf);
  st->fbuf = malloc(2 * (size_t)(maxrows + 1) * sizeof *st->fbuf);
  if (row != st->n) {
    snprintf(err, errlen, "%s: %d residual rows where the loader counted %d", fit->file, row, st->n);
    return FL_EINPUT;
  }
  if (!st->ybuf || !st->fbuf) {
    snprintf(err, errlen, "out of memory");
    return FL_ENOMEM;
  }
  return FL_OK;
}

int fl_cal_batchable(fl_cal_state *st, const double *start, const gsl_vector *u0, char *err, size_t errlen)
{
  const fl_fit *fit = st->fit;
  int rc;
  for (int d = 0; d < fit->ndata; d++) {
    fl_experiment e0, e1;
    double th[FL_FIT_MAX_FREE];
    memcpy(th, start, sizeof th);
    if ((rc = fl_cal_experiment(st, d, th, &e0))) {
      snprintf(err, errlen, "%s", st->err);
      return rc;
    }
    for (int j = 0; j < st->p; j++) {
      memcpy(th, start, sizeof th);
      double uj = gsl_vector_get(u0, (size_t)j);
      th[j] = fl_param_from_u(&fit->free[j], uj + 1e-3 * fmax(fabs(uj), 1e-2), NULL); /* a Jacobian step */
      if (!fl_cal_admissible(st, d, th)) /* refused there: the step the other way, as the Jacobian takes it */
        th[j] = fl_param_from_u(&fit->free[j], uj - 1e-3 * fmax(fabs(uj), 1e-2), NULL);
      if ((rc = fl_cal_experiment(st, d, th, &e1))) {
        snprintf(err, errlen, "%s", st->err);
        return rc;
      }
      st->item[d].batchable[j] = fl_experiment_batchable(&e0, &e1);
      if (st->opts->separate_runs) {
        st->item[d].batchable[j] = 0;
      } else if (!st->item[d].batchable[j] && fit->data[d].kind == FL_FIT_CURVE && !st->noted[j]) {
        fl_cal_note(st, "note: %s changes what the specimens of a batch share (geometry, density, test or simulation): "
                    "its Jacobian column comes from separate runs", fit->free[j].path);
        st->noted[j] = 1;
      }
    }
  }
  return FL_OK;
}
