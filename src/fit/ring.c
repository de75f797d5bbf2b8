/* fit/ring.c: a calibration's ring-down items (ring.h; fiberlab-fit(5), ring-downs):
 * each run for as long as its record, the simulated signal (the first mode's or the
 * tip's displacement) at the measured times, the residuals of a series or of the two
 * figures, the fast start from the figures, and the figures at the fitted values with
 * their standard errors. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fl_defs.h"
#include "model.h"
#include "param.h"
#include "ring.h"
#include "cantilever.h" /* FL_RING_MIN_EXTREMES */
#include "series.h"

#define RING_ROWS 200   /* simulated rows a period of the Euler-Bernoulli first mode */
#define RING_COVER 1.25 /* simulated periods over the record's, at least: the chain rings slower */
#define RING_MAX_ROWS 1000000

/* One simulated ring-down of an item. */
typedef struct {
  fl_curve c;
  fl_result r;
  const double *sig; /* c.support (the first mode's tip displacement) or c.x (the tip's) */
} ring_sim;

static void sim_free(ring_sim *s)
{
  fl_curve_free(&s->c);
  fl_result_free(&s->r);
}

/* Run ring-down item d at theta for its record's time and more, at RING_ROWS rows a
 * period (a row a step on the static solver), so that the cubic through four rows
 * (cubic_at, off by at most 0.023 (omega h)^4 of a mode's amplitude) follows the first
 * mode to 2e-8, the second (6.3 times as fast) to 4e-5 and the third (17.5 times) to
 * 2e-3: a raw tip's ring-down fitted to itself comes back to 5e-6 in a_damp, where 50
 * rows a period left 4e-4.  The periods and rows come from the measured frequency, not
 * from theta, so that neighbouring parameters take the same steps; a run that ends
 * before the record does runs again, longer.  s to be freed whatever it returns. */
static int ring_run(fl_cal_state *st, int d, const double *theta, ring_sim *s)
{
  const fl_fit_data *it = &st->fit->data[d];
  double tmax = it->data.x[it->data.n - 1];
  fl_experiment e;
  memset(s, 0, sizeof *s);
  int rc = fl_cal_experiment(st, d, theta, &e);
  if (rc)
    return rc;
  double periods = fmax(e.test.ring_periods, RING_COVER * tmax * it->ring_frequency), tend = 0.0;
  for (int tries = 0; tries < 3; tries++) {
    if (tries)
      sim_free(s);
    e.test.ring_periods = periods;
    e.sim.output_points = (int)fmin(ceil(RING_ROWS * periods) + 1, RING_MAX_ROWS);
    if ((rc = fl_cal_run_exp(st, d, &e, 1, 0, &s->c, &s->r)))
      return rc;
    tend = s->c.npoints >= 4 ? s->c.time[s->c.npoints - 1] : 0.0;
    if (tend >= tmax * (1.0 - 1e-9))
      break;
    periods *= 1.2 * tmax / fmax(tend, 0.1 * tmax);
  }
  if (!(tend >= tmax * (1.0 - 1e-9))) {
    snprintf(st->err, sizeof st->err, "%s: the simulated ring-down ends at %.6g s, before the record's end at %.6g s",
             it->exp_path, tend, tmax);
    return FL_EUNSTABLE;
  }
  s->sig = it->ring_signal == FL_RING_TIP ? s->c.x : s->c.support;
  return FL_OK;
}

/* The cubic through the four rows of (t, x) around tq (one-sided at the ends, n >= 4):
 * its value and its rate at tq, by Lagrange's formula and its derivative. */
static void cubic_at(const double *t, const double *x, int n, double tq, double *v, double *dv)
{
  int lo = fl_series_bracket(t, n, tq);
  int i0 = lo - 1 < 0 ? 0 : lo - 1 > n - 4 ? n - 4 : lo - 1;
  *v = 0.0;
  *dv = 0.0;
  for (int a = 0; a < 4; a++) {
    double l = 1.0, dl = 0.0;
    for (int b = 0; b < 4; b++) {
      if (b == a)
        continue;
      double den = t[i0 + a] - t[i0 + b];
      dl = (dl * (tq - t[i0 + b]) + l) / den;
      l *= (tq - t[i0 + b]) / den;
    }
    *v += l * x[i0 + a];
    *dv += dl * x[i0 + a];
  }
}

/* The figures of the rows (t, x) with t0 <= t <= t1, read as a record's are
 * (fl_ringdown_extremes, fl_ringdown_fit): FL_OK, or FL_EINPUT with too few extremes
 * or none that decay, FL_ENOMEM. */
static int figures(const double *t, const double *x, int n, double t0, double t1, fl_ringdown *rd)
{
  int i0 = 0, i1 = n;
  while (i0 < n && t[i0] < t0 * (1.0 + 1e-12) - 1e-15)
    i0++;
  while (i1 > i0 && t[i1 - 1] > t1 * (1.0 + 1e-12))
    i1--;
  memset(rd, 0, sizeof *rd);
  double *te = malloc((size_t)(i1 - i0 + 1) * sizeof *te), *xe = malloc((size_t)(i1 - i0 + 1) * sizeof *xe);
  int rc = FL_ENOMEM;
  if (te && xe) {
    int ne = fl_ringdown_extremes(t + i0, x + i0, i1 - i0, te, xe);
    rc = ne >= FL_RING_MIN_EXTREMES ? fl_ringdown_fit(te, xe, ne, rd) : FL_EINPUT;
    if (rc == FL_OK && !(rd->frequency > 0.0))
      rc = FL_EINPUT;
  }
  free(te);
  free(xe);
  return rc;
}

/* y's least-squares fit by the columns 1, a and b (n rows), into yhat, and its
 * coefficients into c (yhat = c[0] + c[1] a + c[2] b): modified Gram-Schmidt, a column
 * the ones before it span (to 1e-12 of its norm) left out with coefficient 0. */
static int project(const double *y, const double *a, const double *b, int n, double *yhat, double c[3])
{
  double *q = malloc(3 * (size_t)n * sizeof *q), r[3][3] = {{0.0}}, g[3] = {0.0};
  int keep[3] = {0, 0, 0};
  if (!q)
    return FL_ENOMEM;
  for (int i = 0; i < n; i++) {
    q[i] = 1.0;
    q[n + i] = a[i];
    q[2 * n + i] = b[i];
  }
  for (int k = 0; k < 3; k++) {
    double *qk = q + (size_t)k * n, n0 = 0.0, nk = 0.0;
    for (int i = 0; i < n; i++)
      n0 += qk[i] * qk[i];
    for (int j = 0; j < k; j++) {
      if (!keep[j])
        continue;
      const double *qj = q + (size_t)j * n;
      double dot = 0.0;
      for (int i = 0; i < n; i++)
        dot += qj[i] * qk[i];
      r[j][k] = dot;
      for (int i = 0; i < n; i++)
        qk[i] -= dot * qj[i];
    }
    for (int i = 0; i < n; i++)
      nk += qk[i] * qk[i];
    if (!(nk > 1e-24 * n0) || !(nk > 0.0))
      continue;
    keep[k] = 1;
    r[k][k] = sqrt(nk);
    for (int i = 0; i < n; i++)
      qk[i] /= r[k][k];
  }
  for (int i = 0; i < n; i++)
    yhat[i] = 0.0;
  for (int k = 0; k < 3; k++) {
    if (!keep[k])
      continue;
    const double *qk = q + (size_t)k * n;
    for (int i = 0; i < n; i++)
      g[k] += qk[i] * y[i];
    for (int i = 0; i < n; i++)
      yhat[i] += g[k] * qk[i];
  }
  for (int k = 2; k >= 0; k--) {
    c[k] = 0.0;
    if (!keep[k])
      continue;
    double v = g[k];
    for (int m = k + 1; m < 3; m++)
      v -= r[k][m] * c[m];
    c[k] = v / r[k][k];
  }
  free(q);
  return FL_OK;
}

void fl_cal_ring_init(fl_cal_state *st, int d)
{
  const fl_fit_data *it = &st->fit->data[d];
  fl_cal_item *ii = &st->item[d];
  const fl_measured *m = &it->data;
  double mean = 0.0;
  for (int i = 0; i < m->n; i++)
    mean += m->y[i] / m->n;
  for (int i = 0; i < m->n; i++)
    ii->ymax = fmax(ii->ymax, fabs(m->y[i] - mean));
  ii->norm = it->weight / (ii->ymax * sqrt((double)m->n));
}

/* The misfit of a positive figure r = simulated / measured: log r, which the bonds'
 * parameters move nearly linearly on their log scale (a frequency as the square root of
 * a stiffness, a decrement as the damping), so Gauss-Newton steps land near the answer
 * from a start several times off; the same as r - 1 to first order near the fit.  Below
 * r = 0.1 (a simulated decrement of zero or less) the line tangent at 0.1 continues it. */
static double log_ratio(double r)
{
  return r >= 0.1 ? log(r) : log(0.1) + (r - 0.1) / 0.1;
}

/* What one run of item d gives at the measured times: the signal sv and its rate dv,
 * and, where yhat is not NULL, a series' fitted rows and coefficients (project). */
static int at_record(fl_cal_state *st, int d, const ring_sim *s, double *sv, double *dv, double *yhat, double c[3])
{
  const fl_measured *m = &st->fit->data[d].data;
  for (int i = 0; i < m->n; i++)
    cubic_at(s->c.time, s->sig, s->c.npoints, m->x[i], &sv[i], &dv[i]);
  if (!yhat)
    return FL_OK;
  int rc = project(m->y, sv, dv, m->n, yhat, c);
  if (rc)
    snprintf(st->err, sizeof st->err, "out of memory");
  return rc;
}

/* The figures of the simulated rows (t, x), n of them, over item d's record: as figures
 * reads them, a ring-down without them a run that failed (st->err set). */
static int item_figures(fl_cal_state *st, int d, const double *t, const double *x, int n, fl_ringdown *rd)
{
  const fl_fit_data *it = &st->fit->data[d];
  int rc = figures(t, x, n, it->data.x[0], it->data.x[it->data.n - 1], rd);
  if (rc == FL_EINPUT) {
    snprintf(st->err, sizeof st->err, "%s: the simulated ring-down has no first frequency over the record's time",
             it->exp_path);
    rc = FL_EUNSTABLE;
  } else if (rc) {
    snprintf(st->err, sizeof st->err, "out of memory");
  }
  return rc;
}

/* The figures of the signal sv at the measured times, read as the record's are. */
static int record_figures(fl_cal_state *st, int d, const double *sv, fl_ringdown *rd)
{
  const fl_measured *m = &st->fit->data[d].data;
  return item_figures(st, d, m->x, sv, m->n, rd);
}

/* The figures of a run's signal x (its rows, c.support or c.x) over the record's time,
 * read off the simulated rows. */
static int rows_figures(fl_cal_state *st, int d, const ring_sim *s, const double *x, fl_ringdown *rd)
{
  return item_figures(st, d, s->c.time, x, s->c.npoints, rd);
}

/* The first mode's figures of a run over the record's time (the summary's reading, off
 * the simulated rows), and the tip's decrement beside them (NULL: not wanted). */
static int run_figures(fl_cal_state *st, int d, const ring_sim *s, fl_ringdown *first, double *tip_decrement)
{
  fl_ringdown tip;
  if (tip_decrement)
    *tip_decrement = rows_figures(st, d, s, s->c.x, &tip) == FL_OK ? tip.log_decrement : NAN;
  return rows_figures(st, d, s, s->c.support, first);
}

/* Run item d at theta: its first mode's figures over the record's time. */
static int first_figures_at(fl_cal_state *st, int d, const double *theta, fl_ringdown *first)
{
  ring_sim s;
  int rc = ring_run(st, d, theta, &s);
  if (rc == FL_OK)
    rc = run_figures(st, d, &s, first, NULL);
  sim_free(&s);
  return rc;
}

/* Whether item d's record has too few rows a period for its extremes
 * (FL_RING_MIN_ROWS): they misread it, by amounts that jump as the parameters move
 * the ring past the rows. */
static int coarse(const fl_fit_data *it)
{
  const fl_measured *m = &it->data;
  return m->n - 1 < FL_RING_MIN_ROWS * (m->x[m->n - 1] - m->x[0]) * it->ring_frequency;
}

int fl_cal_ring_residuals(fl_cal_state *st, int d, const double *theta, double *f)
{
  const fl_fit_data *it = &st->fit->data[d];
  const fl_cal_item *ii = &st->item[d];
  int n = it->data.n;
  ring_sim s;
  int rc = ring_run(st, d, theta, &s);
  double *sv = malloc((size_t)n * sizeof *sv), *dv = malloc((size_t)n * sizeof *dv), c[3];
  double *yhat = it->ring_residuals == FL_RING_SERIES ? malloc((size_t)n * sizeof *yhat) : NULL;
  if (rc == FL_OK && (!sv || !dv || (it->ring_residuals == FL_RING_SERIES && !yhat))) {
    snprintf(st->err, sizeof st->err, "out of memory");
    rc = FL_ENOMEM;
  }
  if (rc == FL_OK)
    rc = at_record(st, d, &s, sv, dv, yhat, c);
  if (rc == FL_OK && yhat) {
    for (int i = 0; i < n; i++)
      f[i] = ii->norm * (yhat[i] - it->data.y[i]);
  } else if (rc == FL_OK) {
    /* read as the record is, at its times, unless the record is too coarse for that:
     * then off the simulated rows, which move smoothly with the parameters */
    fl_ringdown rd;
    rc = coarse(it) ? rows_figures(st, d, &s, s.sig, &rd) : record_figures(st, d, sv, &rd);
    if (rc == FL_OK) {
      f[0] = it->weight * log_ratio(rd.frequency / it->ring_frequency);
      f[1] = it->weight * log_ratio(rd.log_decrement / it->ring_decrement);
    }
  }
  free(sv);
  free(dv);
  free(yhat);
  sim_free(&s);
  return rc;
}

int fl_cal_ring_fast_start(fl_cal_state *st, double *start, char *err, size_t errlen)
{
  const fl_fit *fit = st->fit;
  int series = -1;
  for (int d = 0; d < fit->ndata && series < 0; d++)
    if (fit->data[d].kind == FL_FIT_RINGDOWN && fit->data[d].ring_residuals == FL_RING_SERIES)
      series = d;
  if (series < 0)
    return FL_OK;
  fl_fit *q = malloc(sizeof *q);
  fl_fit_data *data = malloc((size_t)fit->ndata * sizeof *data);
  if (!q || !data) {
    free(q);
    free(data);
    snprintf(err, errlen, "out of memory");
    return FL_ENOMEM;
  }
  /* the same fit with figures for series; its own checkpoint-free run, quiet but for
   * its notes, with differences wide enough for figures read off extremes, to the
   * steps of 1e-3 in u that leave a series well inside its reach (the frequency to a
   * few 1e-4: a phase error of a tenth of a period after 30 periods) */
  *q = *fit;
  memcpy(data, fit->data, (size_t)fit->ndata * sizeof *data);
  q->data = data;
  q->npoints = 0;
  for (int d = 0; d < fit->ndata; d++) {
    if (data[d].kind == FL_FIT_RINGDOWN)
      data[d].ring_residuals = FL_RING_FIGURES;
    q->npoints += fl_fit_residual_rows(&data[d]);
  }
  for (int j = 0; j < fit->nfree; j++) {
    q->free[j].start = start[j];
    q->free[j].start_auto = 0;
  }
  /* a record whose extremes do not show the decay: the start's own decrement as the
   * target, so that the figures set the frequency and leave the damping to the series */
  for (int d = 0; d < fit->ndata; d++) {
    fl_fit_data *it = &data[d];
    if (it->kind != FL_FIT_RINGDOWN || it->ring_decrement > 2.0 * it->ring_decrement_se)
      continue;
    fl_ringdown rd;
    int rc = first_figures_at(st, d, start, &rd);
    if (rc) {
      snprintf(err, errlen, "%s", st->err);
      free(data);
      free(q);
      return rc;
    }
    it->ring_decrement = rd.log_decrement;
  }
  q->solver.fd_step = fmax(q->solver.fd_step, 0.1);
  q->solver.gtol = fmax(q->solver.gtol, 1e-6);
  q->solver.xtol = fmax(q->solver.xtol, 1e-3);
  q->solver.max_iterations = 30;
  q->solver.global = FL_GLOBAL_OFF;
  q->solver.central = 0;
  fl_calibrate_opts o = *st->opts;
  o.checkpoint = NULL;
  o.stop_after = 0;
  o.progress = 0;
  q->inner = 1;
  fl_calibration cal;
  int rc = q->npoints >= q->nfree ? fl_calibrate(q, &o, &cal, err, errlen) : FL_OK;
  if (q->npoints >= q->nfree) {
    st->simulations += cal.simulations;
    st->batches += cal.batches;
  }
  if (q->npoints < q->nfree) {
    fl_cal_note(st, "note: no fast start from the ring-down's figures: %d free parameters for %d figures",
                q->nfree, q->npoints);
  } else if (rc == FL_OK && cal.interrupted) {
    snprintf(err, errlen, "interrupted in the fast start from the ring-down's figures");
    rc = FL_EINTERRUPT;
  } else if (rc == FL_OK && cal.status == FL_CAL_FAILED) {
    fl_cal_note(st, "note: the fast start from the ring-down's figures failed (%s): the series starts where the "
                "fit file says", cal.message);
  } else if (rc == FL_OK) {
    char moved[1024];
    size_t used = 0;
    moved[0] = '\0';
    for (int j = 0; j < fit->nfree && used < sizeof moved; j++)
      used += (size_t)snprintf(moved + used, sizeof moved - used, "%s%s %.6g", j ? ", " : "", fit->free[j].path,
                               cal.value[j]);
    fl_cal_note(st, "note: data[%d]: the fast start from the ring-down's first frequency and decrement gives %s "
                "(%d iterations, %ld simulations); the series from there", series + 1, moved, cal.iterations,
                cal.simulations);
    memcpy(start, cal.value, (size_t)fit->nfree * sizeof *start);
  }
  if (q->npoints >= q->nfree)
    fl_calibration_free(&cal);
  free(data);
  free(q);
  return rc;
}

/* The standard errors of the first mode's figures (f, delta) at u from st->cov_u: each
 * parameter moved by its difference step in u, a run each, and the figures' gradients
 * carried through the covariance.  se_b and se_z: the decay rate's and the damping
 * ratio's. */
static int figure_errors(fl_cal_state *st, int d, const gsl_vector *u, const fl_ringdown *at, fl_calibration_ring *ring)
{
  const fl_fit *fit = st->fit;
  int p = st->p;
  double theta0[FL_FIT_MAX_FREE], gf[FL_FIT_MAX_FREE], gd[FL_FIT_MAX_FREE];
  fl_param_values(fit, u, theta0);
  for (int j = 0; j < p; j++) {
    double th[FL_FIT_MAX_FREE], uj = gsl_vector_get(u, (size_t)j), h = fl_param_step(fit, uj);
    memcpy(th, theta0, sizeof th);
    th[j] = fl_param_from_u(&fit->free[j], uj + h, NULL);
    fl_ringdown rd;
    int rc = first_figures_at(st, d, th, &rd);
    if (rc)
      return rc;
    gf[j] = (rd.frequency - at->frequency) / h;
    gd[j] = (rd.log_decrement - at->log_decrement) / h;
  }
  double f = at->frequency, dl = at->log_decrement, w = 4.0 * FL_PI * FL_PI + dl * dl;
  double dz = 4.0 * FL_PI * FL_PI / (w * sqrt(w)); /* d zeta / d delta */
  double vf = 0.0, vd = 0.0, vb = 0.0;
  for (int a = 0; a < p; a++)
    for (int b = 0; b < p; b++) {
      double c = st->cov_u[a * p + b];
      vf += gf[a] * c * gf[b];
      vd += gd[a] * c * gd[b];
      vb += (f * gd[a] + dl * gf[a]) * c * (f * gd[b] + dl * gf[b]);
    }
  ring->frequency.std_error = sqrt(fmax(vf, 0.0));
  ring->decrement.std_error = sqrt(fmax(vd, 0.0));
  ring->decay_rate.std_error = sqrt(fmax(vb, 0.0));
  ring->damping_ratio.std_error = dz * ring->decrement.std_error;
  return FL_OK;
}

/* The share of the simulated tip's higher modes that the record holds: 1 for a raw tip
 * record, 0 for its first mode alone.  The record's misfit y - fitted is regressed on
 * h = tip - first mode at the record's times, less h's part in the fitted columns (1,
 * the signal, its rate); a fit of the first mode leaves a raw record's higher modes in
 * the misfit (a slope of 1), a fit of the tip leaves minus them in a first mode's
 * record (-1).  Its standard error from the scatter about that line. */
static int higher_modes(fl_cal_state *st, int d, const ring_sim *s, const double *fitted, fl_calibration_ring *ring)
{
  const fl_fit_data *it = &st->fit->data[d];
  const fl_measured *m = &it->data;
  int n = m->n, tip = it->ring_signal == FL_RING_TIP;
  double *w = calloc(6 * (size_t)n, sizeof *w), c[3];
  ring->higher_modes = ring->higher_modes_se = NAN;
  if (!w) {
    snprintf(st->err, sizeof st->err, "out of memory");
    return FL_ENOMEM;
  }
  double *a = w, *da = w + n, *b = w + 2 * n, *db = w + 3 * n, *h = w + 4 * n, *hp = w + 5 * n;
  for (int i = 0; i < n; i++) {
    cubic_at(s->c.time, s->c.support, s->c.npoints, m->x[i], &a[i], &da[i]);
    cubic_at(s->c.time, s->c.x, s->c.npoints, m->x[i], &b[i], &db[i]);
    h[i] = b[i] - a[i];
  }
  int rc = project(h, tip ? b : a, tip ? db : da, n, hp, c);
  double num = 0.0, den = 0.0, ss = 0.0;
  for (int i = 0; rc == FL_OK && i < n; i++) {
    hp[i] = h[i] - hp[i];
    num += (m->y[i] - fitted[i]) * hp[i];
    den += hp[i] * hp[i];
  }
  if (rc == FL_OK && den > 0.0 && n > 4) {
    double g = num / den;
    for (int i = 0; i < n; i++)
      ss += (m->y[i] - fitted[i] - g * hp[i]) * (m->y[i] - fitted[i] - g * hp[i]);
    ring->higher_modes = (tip ? 1.0 : 0.0) + g;
    ring->higher_modes_se = sqrt(ss / (n - 4) / den);
  }
  free(w);
  if (rc)
    snprintf(st->err, sizeof st->err, "out of memory");
  return rc;
}

int fl_cal_ring_fitted(fl_cal_state *st, int d, const gsl_vector *u, double *fitted, fl_calibration_ring *ring)
{
  const fl_fit_data *it = &st->fit->data[d];
  const fl_measured *m = &it->data;
  int n = m->n, series = it->ring_residuals == FL_RING_SERIES;
  double theta[FL_FIT_MAX_FREE], c[3] = {0.0, 1.0, 0.0};
  fl_param_values(st->fit, u, theta);
  memset(ring, 0, sizeof *ring);
  ring->used = 1;
  ring->measured_frequency = it->ring_frequency;
  ring->measured_decrement = it->ring_decrement;
  ring->noise = NAN;
  ring->frequency.std_error = ring->decrement.std_error = NAN;
  ring->decay_rate.std_error = ring->damping_ratio.std_error = NAN;
  ring_sim s;
  fl_ringdown first;
  double *sv = malloc((size_t)n * sizeof *sv), *dv = malloc((size_t)n * sizeof *dv);
  int rc = ring_run(st, d, theta, &s);
  if (rc == FL_OK && (!sv || !dv)) {
    snprintf(st->err, sizeof st->err, "out of memory");
    rc = FL_ENOMEM;
  }
  if (rc == FL_OK)
    rc = at_record(st, d, &s, sv, dv, series ? fitted : NULL, c);
  if (rc == FL_OK && !series)
    memcpy(fitted, sv, (size_t)n * sizeof *fitted);
  if (rc == FL_OK)
    rc = run_figures(st, d, &s, &first, &ring->tip_decrement);
  if (rc == FL_OK)
    rc = higher_modes(st, d, &s, fitted, ring);
  sim_free(&s);
  free(sv);
  free(dv);
  if (rc)
    return rc;
  double f = first.frequency, dl = first.log_decrement, span = m->x[n - 1] - m->x[0];
  ring->frequency.value = f;
  ring->decrement.value = dl;
  ring->decay_rate.value = dl * f;
  ring->damping_ratio.value = dl / sqrt(4.0 * FL_PI * FL_PI + dl * dl);
  ring->periods = span * f;
  ring->rows_per_period = (n - 1) / ring->periods;
  if (series) {
    /* the record's noise: its rows' misfit over their degrees of freedom, the free
     * parameters shared among the fit's rows */
    double ss = 0.0, dof = n - fl_fit_profiled(it) - (double)st->p * n / st->n;
    for (int i = 0; i < n; i++)
      ss += (fitted[i] - m->y[i]) * (fitted[i] - m->y[i]);
    ring->noise = dof > 0.0 ? sqrt(ss / dof) : NAN;
    ring->offset = c[0];
    ring->amplitude_ratio = c[1];
    ring->time_shift = c[1] != 0.0 ? c[2] / c[1] : NAN;
  }
  return st->have_cov ? figure_errors(st, d, u, &first, ring) : FL_OK;
}
