/* series.h: analyses of sampled series: a least-squares slope, the extremes and decay
 * of a ring-down, and the drop of a 3-point curve.  Plain data in, numbers out: no
 * engine. */
#ifndef FL_SERIES_H
#define FL_SERIES_H

#include "measured.h"

/* Slope of y on x by least squares over rows [a, b); 0 with fewer than two rows or
 * equal abscissae. */
double fl_fit_slope(const double *x, const double *y, int a, int b);

/* The bend of a rising curve's start (docs/start-curvature.awk's rule): over the rows
 * before the first whose measured load ym reaches 30 % of top, the least-squares slope
 * of y on x over the rows where ym is from 15 to 30 % of top, over the slope over those
 * where it is below 15 %.  Below 1 the start softens (concave), above 1 it stiffens
 * (convex).  y: the loads whose bend is taken, ym itself or a simulated curve at the
 * same abscissae.  NaN with fewer than 3 rows in either part. */
double fl_series_start_bend(const double *x, const double *ym, const double *y, int n, double top);

/* The row lo of the nondecreasing xs (n >= 2 of them) with xs[lo] <= x < xs[lo + 1] by
 * bisection: 0 before them, n - 2 from the last on. */
int fl_series_bracket(const double *xs, int n, double x);

/* The extreme at the middle of three equally spaced samples (t[0..2], x[0..2]), by
 * the parabola through them: +1 a maximum, -1 a minimum (time and value into *te,
 * *xe), 0 none. */
int fl_extreme3(const double *t, const double *x, double *te, double *xe);

/* What a ring-down's extremes give. */
typedef struct {
  double frequency;     /* damped frequency, Hz */
  double log_decrement; /* ln of the ratio of amplitudes one period apart */
  double offset;        /* the rest position the signal rings about */
  int extremes;         /* extremes used */
  double frequency_se;  /* standard errors of the two from the scatter of the extremes about */
  double log_decrement_se; /* their lines (NAN with fewer than 3 extremes) */
  double log_amplitude0; /* ln of the amplitude the decay line gives at time 0 (ln m) */
} fl_ringdown;

/* Extremes of samples x at times t (n of them, equally spaced): between two
 * consecutive crossings of the signal's mean, the sample farthest from it, refined by
 * the parabola through it and its neighbours; so the ripples of higher modes on a
 * ring-down give no extremes of their own.  Into te, xe (room for n); returns how
 * many. */
int fl_ringdown_extremes(const double *t, const double *x, int n, double *te, double *xe);

/* From ne >= 3 alternating extremes: the rest position by Aitken's formula on each
 * three in a row (exact for a damped sinusoid), the half period by least squares of
 * the extremes' times on their index, the decrement by least squares of the logarithm
 * of their amplitudes, each with its standard error, and the decay line's amplitude at
 * time 0.  FL_OK, or FL_EINPUT with fewer than 3. */
int fl_ringdown_fit(const double *te, const double *xe, int ne, fl_ringdown *out);

/* The features of a 3-point curve (rows x, y, n of them) that drops after its peak
 * (fiber-calibrate(1), STARTING VALUES): out[0] the peak load, out[1] the level of the
 * plateau after the drop, out[2] the end of that plateau, out[3] the slope of the rows
 * beyond it, out[4] the peak's displacement.  simulated 1: a noiseless simulated
 * curve, whose plateau may rise; 0: a measured one.  Returns 0 when the curve has no
 * drop, or no settled plateau after it (series.c says how each is read). */
int fl_drop_features(const double *x, const double *y, int n, int simulated, double out[5]);

/* 1 when the curve m has a drop after its peak followed by a settled plateau (the
 * features of fiber-calibrate(1), STARTING VALUES), 0 otherwise (a curve that rises to
 * its end, or one that ends at its fall: a break).  simulated 1: a noiseless simulated
 * curve, whose plateau may rise; 0: a measured one. */
int fl_fit_curve_drops(const fl_measured *m, int simulated);

/* The first significant drop of a loading curve (loads y, n rows in the order of
 * their abscissae): the first row whose load lies more than the share `drop` below the
 * highest load before it, where that highest load is at least half the curve's (the
 * toe's noise makes no drop).  Into *ipeak the row of that highest load and into *idrop
 * the row that fell; returns 1, or 0 when no row falls so far (*ipeak: the highest
 * load's row, *idrop: -1).  Loads are taken by magnitude. */
int fl_first_drop(const double *y, int n, double drop, int *ipeak, int *idrop);

#endif
