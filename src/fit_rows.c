/* fit_rows.c: a fit data item's table read (its file or peaks, with the columns and
 * units the item chose) and checked as its kind needs: a curve's rows kept in its
 * range with their region weights, the spread of peaks, the extremes of a ring-down
 * (fiberlab-fit(5)). */
#include <config.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "cantilever.h"
#include "files.h"
#include "fit.h"
#include "fit_item.h"
#include "fl_defs.h"
#include "measured.h"
#include "series.h"
#include "test_kind.h"
#include "yaml_input.h"

void fl_fit_note(fl_fit_loader *L, const char *kind, const yaml_node_t *n, const char *fmt, ...)
{
  char msg[1536];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  size_t used = strlen(L->fit->notes), room = sizeof L->fit->notes - used;
  if (n)
    snprintf(L->fit->notes + used, room, "%s: %s:%zu:%zu: %s\n", kind, L->r.file, n->start_mark.line + 1,
             n->start_mark.column + 1, msg);
  else
    snprintf(L->fit->notes + used, room, "%s: %s: %s\n", kind, L->r.file, msg);
}

/* "file:line:col" of node n. */
static void where(const fl_fit_loader *L, const yaml_node_t *n, char *buf, size_t len)
{
  snprintf(buf, len, "%s:%zu:%zu", L->r.file, n->start_mark.line + 1, n->start_mark.column + 1);
}

/* The share of a curve's range by which x may step back (noise) before the curve
 * counts as going out and back. */
#define TURN_TOLERANCE 0.01

/* FL_EINPUT when the kept rows of m turn back (x falls more than TURN_TOLERANCE of
 * their range below the largest x before): a loading and an unloading, which the
 * fit's interpolation at the measured x cannot match as one curve. */
static int one_way(fl_fit_loader *L, const fl_fit_item *it, const char *key, const char *t)
{
  const fl_fit_data *d = it->d;
  const fl_measured *m = &d->data;
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (int i = 0; i < m->n; i++) {
    lo = fmin(lo, m->x[i]);
    hi = fmax(hi, m->x[i]);
  }
  const char *xu = fl_test_type_of(d->test)->x_unit;
  int top = 0;
  for (int i = 1; i < m->n; i++) {
    if (m->x[i] > m->x[top])
      top = i;
    else if (m->x[i] < m->x[top] - TURN_TOLERANCE * (hi - lo))
      return fl_yaml_fail(&L->r, it->vtable, "%s: '%s' turns back at line %d: x = %g %s after %g %s at line %d (an "
                          "unloading); allowed: x that only grows: set %s.x_max below %.6g %s (the turning point) to "
                          "fit the loading alone", key, t, m->line[i], m->x[i] / d->x_unit_si, d->x_unit,
                          m->x[top] / d->x_unit_si, d->x_unit, m->line[top], it->what, m->x[top], xu);
  }
  return FL_OK;
}

/* x_max: auto (fiberlab-fit(5)): the range ends x_max_past times the peak's abscissa
 * past the peak before the first drop (at least at the row that fell), or at the
 * highest load when the curve never drops; read from the rows at or past max(0, x_min)
 * after the toe shift. */
static void auto_range(fl_fit_data *d)
{
  const fl_measured *m = &d->data;
  int i0 = 0, ip, id;
  while (i0 < m->n && (m->x[i0] < 0.0 || m->x[i0] < d->x_min))
    i0++;
  if (m->n - i0 < 2)
    return; /* keep_rows refuses the curve */
  d->auto_dropped = fl_first_drop(m->y + i0, m->n - i0, d->x_max_drop, &ip, &id);
  ip += i0;
  d->auto_peak_x = m->x[ip];
  d->auto_peak_y = m->y[ip];
  d->x_max = d->auto_dropped ? fmax(m->x[ip] * (1.0 + d->x_max_past), m->x[id + i0]) : m->x[ip];
}

/* A curve's rows: the toe shift (toe: auto), then the rows with x_min <= x and x >= 0
 * up to the first past x_max, their region weights, and the warnings about what was
 * left out. */
static int keep_rows(fl_fit_loader *L, fl_fit_item *it, const char *key, const char *t)
{
  fl_fit_data *d = it->d;
  const yaml_node_t *vf = it->vtable, *vxmin = it->vxmin, *vxmax = it->vxmax;
  const char *what = it->what;
  fl_measured *m = &d->data;
  d->rows_read = m->n;
  if (d->toe_auto) {
    double s = fl_measured_toe_shift(m);
    if (isnan(s))
      return fl_yaml_fail(&L->r, vf, "%s: '%s' has no rising part for toe: auto (fewer than 3 rows up to the peak "
                          "load, or no positive slope); allowed: a curve that rises, or toe: none", key, t);
    d->toe_shift = s;
    for (int i = 0; i < m->n; i++)
      m->x[i] -= s;
  }
  if (d->x_max_auto)
    auto_range(d);
  double xmax_all = -HUGE_VAL, xmin_all = HUGE_VAL;
  for (int i = 0; i < m->n; i++) {
    xmax_all = fmax(xmax_all, m->x[i]);
    xmin_all = fmin(xmin_all, m->x[i]);
  }
  double xmax = -HUGE_VAL, ymax = 0.0;
  int k = 0, negative = 0;
  for (int i = 0; i < m->n; i++) {
    negative += m->x[i] < 0.0;
    if (d->x_max > 0.0 && m->x[i] > d->x_max)
      break; /* the rest is past the range, or an unloading after it */
    if (m->x[i] < 0.0 || m->x[i] < d->x_min)
      continue;
    m->x[k] = m->x[i];
    m->y[k] = m->y[i];
    m->line[k] = m->line[i];
    if (m->x[k] > xmax)
      xmax = m->x[k];
    if (fabs(m->y[k]) > ymax)
      ymax = fabs(m->y[k]);
    k++;
  }
  m->n = k;
  const char *xu = fl_test_type_of(d->test)->x_unit;
  if (k < 2)
    return fl_yaml_fail(&L->r, vf, "%s: '%s' has %d row%s with %s <= x%s; allowed: at least 2 rows", key, t, k,
                        k == 1 ? "" : "s", d->x_min > 0.0 ? "x_min" : "0", d->x_max > 0.0 ? " <= x_max" : "");
  if (!(ymax > 0.0))
    return fl_yaml_fail(&L->r, vf, "%s: '%s' has only zero loads; allowed: a curve with a load", key, t);
  if (!(xmax > 0.0))
    return fl_yaml_fail(&L->r, vf, "%s: '%s' has no row with x > 0; allowed: a curve that moves", key, t);
  if (one_way(L, it, key, t))
    return FL_EINPUT;
  if (d->toe_auto)
    fl_fit_note(L, "note", vf, "%s: toe: auto shifts '%s' by %.6g %s (%.6g %s)%s", key, t, d->toe_shift / d->x_unit_si,
                d->x_unit, d->toe_shift, xu, negative ? "; rows left at x < 0 are dropped" : "");
  if (d->x_max_auto)
    fl_fit_note(L, "note", vxmax, "%s.x_max: auto: %s %.6g %s at x = %.6g %s; the range ends at %.6g %s", what,
                d->auto_dropped ? "the first drop follows the peak of" : "no drop; the highest load is",
                fabs(d->auto_peak_y), fl_test_type_of(d->test)->y_unit, d->auto_peak_x / d->x_unit_si,
                d->x_unit, d->x_max / d->x_unit_si, d->x_unit);
  if (vxmax && !d->x_max_auto && d->x_max > xmax_all)
    fl_fit_note(L, "warning", vxmax, "%s.x_max: %g %s is beyond the data (largest x %g %s): it leaves nothing out; "
                "x_max is in %s, whatever the file's unit", what, d->x_max, xu, xmax_all, xu, xu);
  if (vxmin && d->x_min > 0.0 && d->x_min < xmin_all)
    fl_fit_note(L, "warning", vxmin, "%s.x_min: %g %s is below the data (smallest x %g %s): it leaves nothing out; "
                "x_min is in %s, whatever the file's unit", what, d->x_min, xu, xmin_all, xu, xu);
  if (2 * k < d->rows_read)
    fl_fit_note(L, "warning", vf, "%s: %d of the %d rows of '%s' are used, fewer than half (x_min, x_max, toe and "
                "negative x leave the others out); check x_min and x_max, which are in %s", key, k, d->rows_read, t,
                xu);
  if (d->x_max <= 0.0)
    d->x_max = xmax;
  if (it->nreg > 0) {
    d->row_weight = malloc((size_t)k * sizeof *d->row_weight);
    if (!d->row_weight) {
      snprintf(L->r.err, L->r.errlen, "out of memory");
      return FL_ENOMEM;
    }
    for (int i = 0; i < k; i++) {
      d->row_weight[i] = 1.0;
      for (int r = 0; r < it->nreg; r++)
        if (m->x[i] >= it->reg_lo[r] && m->x[i] <= it->reg_hi[r])
          d->row_weight[i] = it->reg_w[r];
    }
  }
  return FL_OK;
}


/* Peaks: at least 3, positive on average, with a spread. */
static int check_peaks(fl_fit_loader *L, const fl_fit_item *it, const char *key, const char *t)
{
  const fl_measured *m = &it->d->data;
  if (m->n < 3)
    return fl_yaml_fail(&L->r, it->vtable, "%s: '%s' has %d peak%s; allowed: at least 3 peaks", key, t, m->n,
                        m->n == 1 ? "" : "s");
  double mean = 0, var = 0;
  for (int i = 0; i < m->n; i++)
    mean += m->y[i] / m->n;
  for (int i = 0; i < m->n; i++)
    var += (m->y[i] - mean) * (m->y[i] - mean);
  if (!(mean > 0) || !(var > 0))
    return fl_yaml_fail(&L->r, it->vtable, "%s: '%s' has peaks with mean %g and no spread; allowed: positive peaks "
                        "that differ", key, t, mean);
  return FL_OK;
}

/* A ring-down: rows in time order (from the release, for a series), and what the fit
 * reads of it, the first frequency and the decrement of its extremes (fl_ringdown_fit)
 * as the simulation's summary reads them, with a warning where too few rows a period
 * misplace the extremes. */
static int check_ringdown(fl_fit_loader *L, fl_fit_item *it, const char *key, const char *t)
{
  fl_fit_data *d = it->d;
  const fl_measured *m = &d->data;
  const yaml_node_t *vf = it->vtable;
  for (int i = 1; i < m->n; i++)
    if (!(m->x[i] > m->x[i - 1]))
      return fl_yaml_fail(&L->r, vf, "%s: '%s': the time at line %d (%g %s) is not after the one at line %d (%g %s); "
                          "allowed: rows in time order, each later than the one before", key, t, m->line[i],
                          m->x[i] / d->x_unit_si, d->x_unit, m->line[i - 1], m->x[i - 1] / d->x_unit_si, d->x_unit);
  if (d->ring_residuals == FL_RING_SERIES && m->n > 0 && m->x[0] < 0.0)
    return fl_yaml_fail(&L->r, vf, "%s: '%s': the time at line %d is %g %s, before the release; allowed: times from "
                        "the release (t >= 0): shift the record's times, or leave the rows before it out", key, t,
                        m->line[0], m->x[0] / d->x_unit_si, d->x_unit);
  double *te = malloc((size_t)(m->n + 1) * sizeof *te), *xe = malloc((size_t)(m->n + 1) * sizeof *xe);
  if (!te || !xe) {
    free(te);
    free(xe);
    return fl_yaml_fail(&L->r, vf, "%s: out of memory", key);
  }
  fl_ringdown rd;
  int ne = fl_ringdown_extremes(m->x, m->y, m->n, te, xe);
  int ok = ne >= 6 && fl_ringdown_fit(te, xe, ne, &rd) == FL_OK && rd.frequency > 0.0;
  /* figures need a decay; a series reads it from every row, where noise may hide it from
   * the extremes */
  int decays = ok && rd.log_decrement > 0.0;
  free(te);
  free(xe);
  if (!ok || (!decays && d->ring_residuals == FL_RING_FIGURES))
    return fl_yaml_fail(&L->r, vf, "%s: '%s' has %d extremes%s; allowed: a ring-down in time of at least 3 periods, "
                        "decaying", key, t, ne, ne >= 6 ? " and does not decay" : "");
  d->ring_frequency = rd.frequency;
  d->ring_decrement = rd.log_decrement;
  d->ring_decrement_se = rd.log_decrement_se;
  d->ring_extremes = ne;
  if (!(rd.log_decrement > 2.0 * rd.log_decrement_se))
    fl_fit_note(L, "note", vf, "%s: the extremes of '%s' do not show its decay above their scatter (decrement %.3g, "
                "standard error %.2g): the series alone determines bond.damping, with a standard error to match; a "
                "longer record, or one with less noise, shows more of it", key, t, rd.log_decrement,
                rd.log_decrement_se);
  /* the extremes of a ring sampled at N rows a period miss its peaks by up to about
   * (pi / N)^4 / 8 after the parabola, and the misses do not average out over a
   * record a whole number of periods long: the decrement moves by 0.2 % at 10 rows a
   * period, 0.6 % at 6.7, 7 % at 3.3 (a pure damped sinusoid decaying by 7 % over
   * 30 periods) */
  double span = m->x[m->n - 1] - m->x[0], periods = span * rd.frequency, rows = (m->n - 1) / periods;
  if (rows < FL_RING_MIN_ROWS)
    fl_fit_note(L, "warning", vf, "%s: '%s' samples its %.4g Hz ring at %.3g rows a period (%d rows over %.3g "
                "periods): its extremes miss the peaks, by enough to move the decrement read off them by several "
                "per cent below %d rows a period (residuals: figures, and the fast start of a series, read them), "
                "and below 2 a ring cannot be told from a slower one; record at least %d rows a period: a "
                "sampling rate of at least %.4g Hz, %d rows over this record", key, t, rd.frequency, rows, m->n,
                periods, FL_RING_MIN_ROWS, FL_RING_MIN_ROWS, FL_RING_MIN_ROWS * rd.frequency,
                (int)ceil(FL_RING_MIN_ROWS * periods) + 1);
  return FL_OK;
}

/* A curve: its rows kept, and a kink and a start's bend to fit where kink_weight and
 * start_weight ask for them. */
static int check_curve(fl_fit_loader *L, fl_fit_item *it, const char *key, const char *t)
{
  fl_fit_data *d = it->d;
  if (keep_rows(L, it, key, t))
    return FL_EINPUT;
  /* a campaign's row: campaign.drop may leave it out; the campaign judges the rows it keeps */
  if (d->kink_weight > 0.0 && !L->data_file && !fl_fit_curve_drops(&d->data, 0))
    return fl_yaml_fail(&L->r, it->vkink, "%s.kink_weight: %g, but the measured curve '%s' has no drop followed by a "
                        "plateau in the fitted range (fiber-calibrate(1), STARTING VALUES): there is no kink to fit; "
                        "allowed: 0 for this curve", it->what, d->kink_weight, t);
  if (d->start_weight > 0.0 && !L->data_file && !fl_fit_has_start(d))
    return fl_yaml_fail(&L->r, it->vstart, "%s.start_weight: %g, but the measured curve '%s' has fewer than 3 rows "
                        "below 15 %% of its largest load or from 15 to 30 %% in the fitted range (fiberlab-fit(5), "
                        "start_weight): there is no start's bend to fit; allowed: 0 for this curve", it->what,
                        d->start_weight, t);
  return FL_OK;
}

/* The table's path: as the fit file names it, relative to the fit file, or a
 * campaign's specimen's own table in place of the template's. */
static int table_path(fl_fit_loader *L, fl_fit_item *it, const char *key, const char **t)
{
  fl_fit_data *d = it->d;
  if (fl_yaml_need_scalar(&L->r, it->vtable, key, t) || !*t)
    return FL_EINPUT;
  if (L->data_file && d->kind == FL_FIT_CURVE) {
    *t = L->data_file;
    if (fl_path_join(NULL, *t, d->path, sizeof d->path))
      return fl_yaml_fail(&L->r, it->vtable, "%s: the campaign row's curve path is longer than %zu bytes; allowed: a "
                          "path of at most %zu bytes", key, sizeof d->path - 1, sizeof d->path - 1);
  } else if (fl_path_relative(L->r.file, *t, d->path, sizeof d->path)) {
    return fl_yaml_fail(&L->r, it->vtable, "%s: the path is longer than %zu bytes when taken relative to the fit file; "
                        "allowed: a path of at most %zu bytes", key, sizeof d->path - 1, sizeof d->path - 1);
  }
  if (strlen(*t) >= sizeof d->file)
    return fl_yaml_fail(&L->r, it->vtable, "%s: the name is longer than %zu bytes; allowed: a path of at most %zu "
                        "bytes", key, sizeof d->file - 1, sizeof d->file - 1);
  snprintf(d->file, sizeof d->file, "%s", *t);
  return FL_OK;
}

int fl_fit_item_rows(fl_fit_loader *L, fl_fit_item *it)
{
  fl_fit_data *d = it->d;
  char key[96], wbuf[FL_FIT_PATH + 64], wx[FL_FIT_PATH + 64], wy[FL_FIT_PATH + 64];
  const char *t;
  snprintf(key, sizeof key, "%s.%s", it->what, d->kind == FL_FIT_PEAKS ? "peaks" : "file");
  if (table_path(L, it, key, &t))
    return FL_EINPUT;
  where(L, it->vtable, wbuf, sizeof wbuf);
  fl_measured_source src = {d->path, d->file, key, wbuf};
  fl_measured_column col[2];
  for (int c = it->first; c < 2; c++) {
    where(L, it->cnode[c], c ? wy : wx, sizeof wx);
    col[c].number = it->cnum[c];
    col[c].name = it->cname[c];
    col[c].to_si = it->to_si[c];
    col[c].key = it->ckey[c];
    col[c].where = c ? wy : wx;
  }
  int rc = fl_measured_read(&src, it->first ? NULL : &col[0], &col[1], &d->data, L->r.err, L->r.errlen);
  if (rc)
    return rc;
  switch (d->kind) {
  case FL_FIT_PEAKS:
    return check_peaks(L, it, key, t);
  case FL_FIT_RINGDOWN:
    return check_ringdown(L, it, key, t);
  case FL_FIT_CURVE:
    break;
  }
  return check_curve(L, it, key, t);
}
