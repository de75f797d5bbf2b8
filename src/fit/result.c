/* fit/result.c: what a finished calibration reports besides its values: the measured
 * and fitted rows of each item and their R^2, the standard errors and correlations of
 * the values, and where the measured and the simulated drop lie. */
#include <config.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fl_defs.h"
#include "model.h"
#include "param.h"
#include "result.h"
#include "ring.h"
#include "series.h"
#include "test_kind.h"

void fl_calibration_free(fl_calibration *cal)
{
  if (cal->curve)
    for (int i = 0; i < cal->ncurves; i++) {
      free(cal->curve[i].x);
      free(cal->curve[i].measured);
      free(cal->curve[i].fitted);
    }
  free(cal->curve);
  cal->curve = NULL;
  cal->ncurves = 0;
}

/* The measured drop's features (fl_calibration_features): item -1 when no 3-point curve
 * with buckling bonds has a drop. */
void fl_cal_features_measured(const fl_fit *fit, fl_calibration_features *ft)
{
  double out[5];
  ft->item = -1;
  for (int d = 0; d < fit->ndata && ft->item < 0; d++) {
    const fl_fit_data *it = &fit->data[d];
    if (it->kind == FL_FIT_CURVE && fl_test_type_of(it->test)->kink && it->exp.bond.buckling.type != FL_BUCKLING_NONE &&
        fl_drop_features(it->data.x, it->data.y, it->data.n, 0, out)) {
      ft->item = d;
      ft->measured[0] = out[4];
      ft->measured[1] = out[0];
      ft->measured[2] = out[1];
      ft->measured[3] = out[2];
    }
  }
}

/* The same features of the simulated curve whose residuals are f: at the global stage's
 * winner (fitted 0) or at the fitted values (fitted 1). */
void fl_cal_features_at(const fl_cal_state *st, const gsl_vector *f, fl_calibration_features *ft, int fitted)
{
  const fl_fit *fit = st->fit;
  double out[5];
  if (ft->item < 0)
    return;
  const fl_fit_data *it = &fit->data[ft->item];
  const fl_cal_item *ii = &st->item[ft->item];
  double *y = malloc((size_t)it->data.n * sizeof *y);
  if (!y)
    return;
  for (int i = 0; i < it->data.n; i++)
    y[i] = it->data.y[i] + gsl_vector_get(f, (size_t)(ii->row0 + i)) / (ii->norm * fl_cal_row_weight(it, i));
  int found = fl_drop_features(it->data.x, y, it->data.n, 1, out);
  double *dst = fitted ? ft->fitted : ft->global;
  if (found) {
    dst[0] = out[4];
    dst[1] = out[0];
    dst[2] = out[1];
    dst[3] = out[2];
  }
  if (fitted)
    ft->fitted_found = found;
  else
    ft->global_found = found;
  free(y);
}

/* The report rows of each item at the best point u, with residuals f. */
int fl_cal_curves(fl_cal_state *st, const gsl_vector *u, const gsl_vector *f, fl_calibration *cal)
{
  fl_fit *fit = st->fit;
  double theta[FL_FIT_MAX_FREE], ss_res = 0, ss_tot = 0;
  fl_param_values(st->fit, u, theta);
  cal->ncurves = fit->ndata;
  cal->curve = calloc((size_t)fit->ndata, sizeof *cal->curve);
  if (!cal->curve)
    return FL_ENOMEM;
  for (int d = 0; d < fit->ndata; d++) {
    const fl_fit_data *it = &fit->data[d];
    const fl_cal_item *ii = &st->item[d];
    fl_calibration_curve *cc = &cal->curve[d];
    int n = it->data.n;
    cc->points = n;
    cc->x = malloc((size_t)n * sizeof(double));
    cc->measured = malloc((size_t)n * sizeof(double));
    cc->fitted = malloc((size_t)n * sizeof(double));
    if (!cc->x || !cc->measured || !cc->fitted)
      return FL_ENOMEM;
    double ymax = 0;
    if (it->kind == FL_FIT_RINGDOWN) {
      /* the measured ring-down against the simulated one at the fitted values, and the
       * first mode's figures there */
      int rc = fl_cal_ring_fitted(st, d, u, cc->fitted, &cc->ring);
      if (rc)
        return rc;
      for (int i = 0; i < n; i++) {
        cc->x[i] = it->data.x[i];
        cc->measured[i] = it->data.y[i];
        ymax = fmax(ymax, fabs(it->data.y[i]));
      }
    } else if (it->kind == FL_FIT_CURVE) {
      ymax = ii->ymax;
      for (int i = 0; i < n; i++) {
        cc->x[i] = it->data.x[i];
        cc->measured[i] = it->data.y[i];
        cc->fitted[i] =
            it->data.y[i] + gsl_vector_get(f, (size_t)(ii->row0 + i)) / (ii->norm * fl_cal_row_weight(it, i));
      }
    } else {
      /* quantiles: measured peaks sorted against the simulated ones at the same
       * cumulative probability (i - 0.5) / n */
      int ns = it->specimens;
      double *sim = malloc((size_t)ns * sizeof *sim), m, s;
      if (!sim)
        return FL_ENOMEM;
      int rc = fl_cal_run_peaks(st, d, theta, &m, &s, sim);
      if (rc) {
        free(sim);
        return rc;
      }
      memcpy(cc->measured, it->data.y, (size_t)n * sizeof(double));
      fl_cal_sort(cc->measured, n);
      for (int i = 0; i < n; i++) {
        double pr = (i + 0.5) / n, pos = pr * ns - 0.5;
        int k = (int)floor(pos);
        double w = pos - k;
        if (k < 0) {
          k = 0;
          w = 0;
        }
        if (k >= ns - 1) {
          k = ns - 2;
          w = 1;
        }
        cc->x[i] = pr;
        cc->fitted[i] = (1 - w) * sim[k] + w * sim[k + 1];
        if (fabs(cc->measured[i]) > ymax)
          ymax = fabs(cc->measured[i]);
      }
      free(sim);
    }
    double mean = 0, sr = 0, stt = 0;
    for (int i = 0; i < n; i++)
      mean += cc->measured[i] / n;
    for (int i = 0; i < n; i++) {
      sr += (cc->fitted[i] - cc->measured[i]) * (cc->fitted[i] - cc->measured[i]);
      stt += (cc->measured[i] - mean) * (cc->measured[i] - mean);
    }
    cc->rms = sqrt(sr / n) / ymax;
    cc->r_squared = stt > 0 ? 1.0 - sr / stt : NAN;
    ss_res += sr / (ymax * ymax);
    ss_tot += stt / (ymax * ymax);
  }
  cal->r_squared = ss_tot > 0 ? 1.0 - ss_res / ss_tot : NAN;
  return FL_OK;
}

/* Standard errors and correlations at the best point from J (covariance of u scaled
 * by chi^2 / (n - p - q) when curves are fitted, q the linear parameters the rows are
 * minimised over besides (fl_fit_profiled), mapped through d theta / d u); the scaled
 * covariance of u kept in st->cov_u.  Without the degrees of freedom to estimate the
 * scale (as many figures as parameters) neither errors nor correlations. Returns the
 * index of a parameter that is not determined, or -1. */
int fl_cal_uncertainties(fl_cal_state *st, const gsl_vector *u, const gsl_matrix *J, const gsl_vector *f,
                         fl_calibration *cal)
{
  int p = st->p, n = st->n, undetermined = -1, curves = 0, q = 0;
  for (int d = 0; d < st->fit->ndata; d++) {
    curves += st->fit->data[d].kind != FL_FIT_PEAKS;
    q += fl_fit_profiled(&st->fit->data[d]);
  }
  gsl_matrix *cov = gsl_matrix_alloc((size_t)p, (size_t)p);
  double chi2;
  gsl_blas_ddot(f, f, &chi2);
  double scale = curves ? (n > p + q ? chi2 / (n - p - q) : NAN) : 1.0;
  st->have_cov = 0;
  for (int j = 0; j < p * p; j++)
    cal->correlation[j] = NAN;
  for (int j = 0; j < p; j++)
    cal->std_error[j] = NAN;
  if (!cov)
    return -1;
  gsl_multifit_nlinear_covar(J, 1e-10, cov);
  for (int j = 0; j < p; j++) {
    double cjj = gsl_matrix_get(cov, (size_t)j, (size_t)j), deriv;
    /* a column GSL left out, or J_j all zero */
    double colnorm = 0;
    for (int i = 0; i < n; i++)
      colnorm += gsl_matrix_get(J, (size_t)i, (size_t)j) * gsl_matrix_get(J, (size_t)i, (size_t)j);
    if (!(cjj > 0.0) || !(colnorm > 0.0)) {
      if (undetermined < 0)
        undetermined = j;
      continue;
    }
    fl_param_from_u(&st->fit->free[j], gsl_vector_get(u, (size_t)j), &deriv);
    cal->std_error[j] = fabs(deriv) * sqrt(cjj * scale);
  }
  for (int a = 0; a < p; a++)
    for (int b = 0; b < p; b++) {
      double ca = gsl_matrix_get(cov, (size_t)a, (size_t)a), cb = gsl_matrix_get(cov, (size_t)b, (size_t)b);
      if (ca > 0 && cb > 0 && !isnan(scale))
        cal->correlation[a * p + b] = gsl_matrix_get(cov, (size_t)a, (size_t)b) / sqrt(ca * cb);
      st->cov_u[a * p + b] = gsl_matrix_get(cov, (size_t)a, (size_t)b) * scale;
    }
  st->have_cov = undetermined < 0 && !isnan(scale);
  gsl_matrix_free(cov);
  return undetermined;
}
