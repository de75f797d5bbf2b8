/* series.h: analyses of sampled series: a least-squares slope, and the extremes and
 * decay of a ring-down.  Plain data in, numbers out: no engine. */
#ifndef FL_SERIES_H
#define FL_SERIES_H

/* Slope of y on x by least squares over rows [a, b); 0 with fewer than two rows or
 * equal abscissae. */
double fl_fit_slope(const double *x, const double *y, int a, int b);

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
 * of their amplitudes.  FL_OK, or FL_EINPUT with fewer than 3. */
int fl_ringdown_fit(const double *te, const double *xe, int ne, fl_ringdown *out);

#endif
