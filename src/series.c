/* series.c: analyses of sampled series: a least-squares slope, and the extremes and
 * decay of a ring-down (fiber-cantilever(1), mode vibration). */
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
  free(idx);
  free(ia);
  free(la);
  out->frequency = half > 0.0 ? 0.5 / half : 0.0;
  out->log_decrement = -2.0 * slope;
  out->offset = x0;
  out->extremes = ne;
  return FL_OK;
}

