/* fit/param.c: the transform of a calibration's bounded parameters (param.h): bounds by
 * a smooth logistic map, on a log scale for a positive range. */
#include <config.h>

#include <math.h>

#include "param.h"

double fl_param_frac(const fl_fit_param *p, double theta)
{
  if (p->min > 0.0)
    return (log(theta) - log(p->min)) / (log(p->max) - log(p->min));
  return (theta - p->min) / (p->max - p->min);
}

double fl_param_step(const fl_fit *fit, double u)
{
  return fit->solver.fd_step * fmax(fabs(u), 1e-2);
}

int fl_param_at_bound(const fl_fit_param *p, double theta)
{
  double fr = fl_param_frac(p, theta);
  return fr < FL_PARAM_BOUND_FRAC || fr > 1.0 - FL_PARAM_BOUND_FRAC;
}

double fl_param_to_u(const fl_fit_param *p, double theta)
{
  double f = fl_param_frac(p, theta);
  if (f < 1e-12)
    f = 1e-12;
  if (f > 1.0 - 1e-12)
    f = 1.0 - 1e-12;
  return log(f / (1.0 - f));
}

double fl_param_from_u(const fl_fit_param *p, double u, double *deriv)
{
  double s = 1.0 / (1.0 + exp(-u)), ds = s * (1.0 - s), theta;
  if (p->min > 0.0) {
    double a = log(p->min), b = log(p->max);
    theta = exp(a + (b - a) * s);
    if (deriv)
      *deriv = theta * (b - a) * ds;
  } else {
    theta = p->min + (p->max - p->min) * s;
    if (deriv)
      *deriv = (p->max - p->min) * ds;
  }
  if (theta <= p->min) /* rounding at |u| large */
    theta = nextafter(p->min, p->max);
  if (theta >= p->max)
    theta = nextafter(p->max, p->min);
  return theta;
}

double fl_param_at(const fl_fit_param *p, double f)
{
  if (p->min > 0.0)
    return exp(log(p->min) + f * (log(p->max) - log(p->min)));
  return p->min + f * (p->max - p->min);
}

double fl_param_inside(const fl_fit_param *p, double theta)
{
  if (!(fl_param_frac(p, theta) > 0.01))
    return fl_param_at(p, 0.01);
  if (!(fl_param_frac(p, theta) < 0.99))
    return fl_param_at(p, 0.99);
  return theta;
}

void fl_param_values(const fl_fit *fit, const gsl_vector *u, double *theta)
{
  for (int j = 0; j < fit->nfree; j++)
    theta[j] = fl_param_from_u(&fit->free[j], gsl_vector_get(u, (size_t)j), NULL);
}
