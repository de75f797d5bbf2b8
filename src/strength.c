/* strength.c: the weakest of n normal bond strengths (strength.h). */
#include <config.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_erf.h>
#include <math.h>

#include "fl_defs.h"
#include "strength.h"

typedef struct {
  double n;     /* bonds */
  int moment;   /* 0: density, 1: z density, 2: z^2 density */
} least_arg;

/* z^moment times the density of the least of n standard normals, n phi (1 - Phi)^(n-1),
 * with the tail written through log1p and erfc so that it stays exact far out. */
static double least_density(double z, void *p)
{
  const least_arg *a = p;
  double upper = gsl_sf_erf_Q(z); /* 1 - Phi(z) */
  double dens = upper > 0.0 ? a->n * gsl_sf_erf_Z(z) * exp((a->n - 1.0) * log(upper)) : 0.0;
  return a->moment == 0 ? dens : a->moment == 1 ? z * dens : z * z * dens;
}

int fl_strength_least_normal(long n, double *mean, double *sd)
{
  if (n < 1 || n > 10000000)
    return FL_EINPUT;
  if (n == 1) {
    *mean = 0.0;
    *sd = 1.0;
    return FL_OK;
  }
  /* The least of n lies within a few units of -sqrt(2 ln n): integrate over a window
   * wide enough that what is left out is below rounding. */
  double c = -sqrt(2.0 * log((double)n)), lo = c - 12.0, hi = 8.0;
  gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
  if (!w)
    return FL_ENOMEM;
  double m[3];
  int rc = FL_OK;
  for (int k = 0; k < 3 && rc == FL_OK; k++) {
    least_arg a = {(double)n, k};
    gsl_function f = {least_density, &a};
    double err;
    if (gsl_integration_qags(&f, lo, hi, 0.0, 1e-12, 1000, w, &m[k], &err) != GSL_SUCCESS)
      rc = FL_ENUMERIC;
  }
  gsl_integration_workspace_free(w);
  if (rc)
    return rc;
  *mean = m[1] / m[0];
  double var = m[2] / m[0] - *mean * *mean;
  *sd = var > 0.0 ? sqrt(var) : 0.0;
  return FL_OK;
}

int fl_strength_carry(double sigma, double cv, long n_from, long n_to, double *sigma_to, double *cv_to)
{
  double e1, s1, e2, s2;
  int rc = fl_strength_least_normal(n_from, &e1, &s1);
  if (!rc)
    rc = fl_strength_least_normal(n_to, &e2, &s2);
  if (rc)
    return rc;
  /* specimens: mean mu = sigma (1 + cv e1) and spread sd = sigma cv s1, to keep */
  double mu = sigma * (1.0 + cv * e1), spread = sigma * cv * s1;
  double st = mu - spread * e2 / s2; /* sigma_to, from sigma_to + (sigma_to cv_to) e2 = mu */
  if (!(mu > 0.0) || !(st > 0.0))
    return FL_EINPUT;
  *sigma_to = st;
  *cv_to = spread / (s2 * st);
  return FL_OK;
}
