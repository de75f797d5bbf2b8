/* series.c: analyses of sampled series: a least-squares slope, the extremes and decay
 * of a ring-down (fiber-cantilever(1), mode vibration), and the drop of a 3-point curve
 * (fiber-calibrate(1), STARTING VALUES). */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fl_defs.h"
#include "series.h"

double fl_fit_slope(const double *x, const double *y, int a, int b)
{
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = a; i < b; i++) {
    n += 1;
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  double d = n * sxx - sx * sx;
  return (n >= 2 && d > 0.0) ? (n * sxy - sx * sy) / d : 0.0;
}

double fl_series_start_bend(const double *x, const double *ym, const double *y, int n, double top)
{
  double acc[2][5] = {{0}}; /* per part: rows, sx, sy, sxx, sxy */
  for (int i = 0; i < n && ym[i] < 0.30 * top; i++) {
    double *a = acc[ym[i] >= 0.15 * top];
    a[0] += 1.0;
    a[1] += x[i];
    a[2] += y[i];
    a[3] += x[i] * x[i];
    a[4] += x[i] * y[i];
  }
  double slope[2];
  for (int k = 0; k < 2; k++) {
    const double *a = acc[k];
    double d = a[0] * a[3] - a[1] * a[1];
    if (a[0] < 3.0 || !(d > 0.0))
      return NAN;
    slope[k] = (a[0] * a[4] - a[1] * a[2]) / d;
  }
  return slope[1] / slope[0];
}

int fl_series_bracket(const double *xs, int n, double x)
{
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (xs[mid] <= x)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

int fl_extreme3(const double *t, const double *x, double *te, double *xe)
{
  double d1 = x[1] - x[0], d2 = x[2] - x[1];
  int kind = d1 > 0.0 && d2 <= 0.0 ? 1 : (d1 < 0.0 && d2 >= 0.0 ? -1 : 0);
  if (!kind)
    return 0;
  double a = 0.5 * (x[0] - 2.0 * x[1] + x[2]), b = 0.5 * (x[2] - x[0]);
  double u = a != 0.0 ? -b / (2.0 * a) : 0.0;
  u = fmax(-1.0, fmin(1.0, u));
  *xe = x[1] + b * u + a * u * u;
  *te = t[1] + u * 0.5 * (t[2] - t[0]);
  return kind;
}

int fl_ringdown_extremes(const double *t, const double *x, int n, double *te, double *xe)
{
  /* The level the signal rings about, roughly: its mean.  Between two crossings of it
   * lies one extreme of the first mode, the sample farthest from it; the higher modes'
   * ripples, far smaller, neither cross the level nor win there.  The pieces before the
   * first crossing and after the last are left out (their extreme may be the record's
   * end). */
  double level = 0.0;
  for (int i = 0; i < n; i++)
    level += x[i] / n;
  int ne = 0, start = -1;
  for (int i = 1; i < n; i++) {
    if ((x[i - 1] - level) * (x[i] - level) > 0.0 || x[i] == level)
      continue;
    if (start >= 0) {
      int best = start;
      for (int k = start; k < i; k++)
        if (fabs(x[k] - level) > fabs(x[best] - level))
          best = k;
      if (best > 0 && best + 1 < n && fl_extreme3(t + best - 1, x + best - 1, &te[ne], &xe[ne]))
        ne++;
    }
    start = i;
  }
  return ne;
}

/* The least-squares line y = a + b x through n rows: b, a, and b's standard error from
 * the rows' scatter about it (NAN with fewer than 3 rows). */
static void line_fit(const double *x, const double *y, int n, double *b, double *a, double *se)
{
  double sx = 0, sy = 0;
  for (int i = 0; i < n; i++) {
    sx += x[i];
    sy += y[i];
  }
  double mx = n > 0 ? sx / n : 0.0, my = n > 0 ? sy / n : 0.0, sxx = 0, sxy = 0, ss = 0;
  for (int i = 0; i < n; i++) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  *b = n >= 2 && sxx > 0.0 ? sxy / sxx : 0.0;
  *a = my - *b * mx;
  for (int i = 0; i < n; i++)
    ss += (y[i] - *a - *b * x[i]) * (y[i] - *a - *b * x[i]);
  *se = n >= 3 && sxx > 0.0 ? sqrt(ss / (n - 2) / sxx) : NAN;
}

int fl_ringdown_fit(const double *te, const double *xe, int ne, fl_ringdown *out)
{
  memset(out, 0, sizeof *out);
  if (ne < 3)
    return FL_EINPUT;
  /* the rest position: x0 = (p1 p2 - m^2) / (p1 + p2 - 2 m) for a maximum, minimum,
   * maximum (or the reverse) of x0 + A r^k (-1)^k, averaged over the triples */
  double x0 = 0.0;
  int nt = 0;
  for (int k = 0; k + 2 < ne; k++) {
    double d = xe[k] + xe[k + 2] - 2.0 * xe[k + 1];
    if (d != 0.0) {
      x0 += (xe[k] * xe[k + 2] - xe[k + 1] * xe[k + 1]) / d;
      nt++;
    }
  }
  x0 = nt > 0 ? x0 / nt : 0.0;
  double *idx = malloc((size_t)ne * sizeof *idx), *ia = malloc((size_t)ne * sizeof *ia),
         *la = malloc((size_t)ne * sizeof *la);
  if (!idx || !ia || !la) {
    free(idx);
    free(ia);
    free(la);
    return FL_ENOMEM;
  }
  int n = 0;
  for (int k = 0; k < ne; k++) {
    idx[k] = k;
    double a = fabs(xe[k] - x0);
    if (a > 0.0) {
      ia[n] = k;
      la[n] = log(a);
      n++;
    }
  }
  double half = fl_fit_slope(idx, te, 0, ne);  /* half a period per extreme */
  double slope = fl_fit_slope(ia, la, 0, n);   /* log amplitude per extreme */
  /* the same lines again for their standard errors and intercepts: the first extreme's
   * time, and the log amplitude at time 0 */
  double hb, t0, hse, sb, a0, sse;
  line_fit(idx, te, ne, &hb, &t0, &hse);
  line_fit(ia, la, n, &sb, &a0, &sse);
  free(idx);
  free(ia);
  free(la);
  out->frequency = half > 0.0 ? 0.5 / half : 0.0;
  out->log_decrement = -2.0 * slope;
  out->offset = x0;
  out->extremes = ne;
  out->frequency_se = half > 0.0 ? 0.5 * hse / (half * half) : NAN;
  out->log_decrement_se = 2.0 * sse;
  out->log_amplitude0 = half > 0.0 ? a0 - slope * t0 / half : a0;
  return FL_OK;
}

/* The features of a 3-point curve that has a drop after its peak (rows x, y), in the
 * order of the buckling numbers they stand for: out[0] the peak, out[1] the level of
 * the plateau after the drop, out[2] the end of that plateau, out[3] the slope of the
 * rows beyond (0 with fewer than 3 there); and out[4] the displacement of the peak.
 * - The peak is the highest row before the deepest fall below an earlier row, so a
 *   curve that climbs past it after the drop keeps its peak; its load is read off the
 *   least-squares line through the rows of the 2 % of the range before it.
 * - The plateau starts at the first window of 2 % of the range (3 rows at least) after
 *   the peak that has settled (its rows within a tenth of the drop to them; on a
 *   simulated curve, about their least-squares line when it rises) and no longer falls
 *   steeply (its secant above -0.1 times the secant stiffness to the peak); its level
 *   is that window's mean, which averages out the ringing of a snap and the noise of a
 *   measurement.
 * - It ends at the first of three rows in a row that leave its level, on the same
 *   side, by more than 5 % of the drop (the last row if none do).
 * Returns 0 when the curve has no drop, or no settled plateau after it. */
int fl_drop_features(const double *x, const double *y, int n, int simulated, double out[5])
{
  int ip = 0, irun = 0, ib = -1;
  double fall = 0.0;
  for (int i = 1; i < n; i++) {
    if (y[i] > y[irun])
      irun = i;
    if (y[irun] - y[i] > fall) {
      fall = y[irun] - y[i];
      ip = irun;
    }
  }
  if (!(fall > 0.0) || !(x[ip] > 0.0) || !(y[ip] > 0.0))
    return 0;
  double span = 0.02 * (x[n - 1] - x[0]), k = y[ip] / x[ip], level = 0.0;
  for (int i = ip + 1, j = ip + 1; i < n && ib < 0; i++) {
    if (j < i)
      j = i;
    while (j < n - 1 && (x[j] < x[i] + span || j - i < 2))
      j++;
    if (j - i < 2 || !(x[j] > x[i]))
      break;
    /* the rows' spread; on a simulated curve, which has no noise, for a window that
     * rises about its least-squares line: the fall is over, and a plateau that rises (a
     * root stiffening as it turns on the rollers) has settled as much as a level one (one
     * that still falls may be the drop's tail; on a measured curve the noise about a
     * slight rise would pass for a plateau after a serration) */
    double lo = y[i], hi = y[i], sum = 0.0, sx = 0.0, b = fl_fit_slope(x, y, i, j + 1), rlo = 0.0, rhi = 0.0;
    for (int r = i; r <= j; r++) {
      lo = fmin(lo, y[r]);
      hi = fmax(hi, y[r]);
      sum += y[r];
      sx += x[r];
    }
    for (int r = i; r <= j; r++) {
      double res = y[r] - sum / (j - i + 1) - b * (x[r] - sx / (j - i + 1));
      rlo = fmin(rlo, res);
      rhi = fmax(rhi, res);
    }
    double spread = simulated && b > 0.0 ? rhi - rlo : hi - lo;
    if (spread <= 0.1 * (y[ip] - lo) && (y[j] - y[i]) / (x[j] - x[i]) >= -0.1 * k) {
      ib = i;
      level = sum / (j - i + 1);
    }
  }
  if (ib < 0 || !(level > 0.0) || !(level < y[ip]))
    return 0;
  int ie = n - 1;
  double tol = 0.05 * (y[ip] - level);
  for (int i = ib; i + 2 < n && ie == n - 1; i++) {
    int up = 1, down = 1;
    for (int r = i; r < i + 3; r++) {
      up &= y[r] > level + tol;
      down &= y[r] < level - tol;
    }
    if (up || down)
      ie = i;
  }
  /* the peak's load from the rows just before it (2 % of the range): the line through
   * them, at the peak; a noisy curve's highest row overstates its peak */
  int i0 = ip;
  while (i0 > 0 && x[i0 - 1] >= x[ip] - span)
    i0--;
  out[0] = y[ip];
  if (ip - i0 >= 2) {
    double sx = 0, sy = 0, m = ip - i0 + 1;
    for (int r = i0; r <= ip; r++) {
      sx += x[r];
      sy += y[r];
    }
    out[0] = sy / m + fl_fit_slope(x, y, i0, ip + 1) * (x[ip] - sx / m);
  }
  out[1] = level;
  out[2] = x[ie];
  out[3] = n - ie >= 3 ? fl_fit_slope(x, y, ie, n) : 0.0;
  out[4] = x[ip];
  return 1;
}

int fl_first_drop(const double *y, int n, double drop, int *ipeak, int *idrop)
{
  double top = 0.0;
  for (int i = 0; i < n; i++)
    top = fmax(top, fabs(y[i]));
  int ip = 0;
  *idrop = -1;
  for (int i = 0; i < n; i++) {
    if (fabs(y[i]) > fabs(y[ip]))
      ip = i;
    else if (fabs(y[ip]) >= 0.5 * top && fabs(y[i]) < (1.0 - drop) * fabs(y[ip])) {
      *ipeak = ip;
      *idrop = i;
      return 1;
    }
  }
  *ipeak = ip;
  return 0;
}

int fl_fit_curve_drops(const fl_measured *m, int simulated)
{
  double out[5];
  return fl_drop_features(m->x, m->y, m->n, simulated, out);
}
