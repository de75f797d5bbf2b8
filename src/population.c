/* population.c: a campaign's population (campaign.h, fiberlab-campaign(5)): the
 * statistics of the converged specimens' fitted values, their robust centre and the
 * experiments made of it (the population experiment, one per class of particle radius),
 * and the check that the population reproduces the lab: specimens drawn from the joint
 * distribution of the fitted values and the measured dimensions, run as batches, and
 * their initial stiffness, peak force and kink compared with the measured curves'. */
#include <config.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "fl_defs.h"
#include "measure.h"
#include "rng.h"
#include "series.h"
#include "strength.h"
#include "test_kind.h"

#define CHECK_DRAWS 200 /* at least this many specimens drawn */
#define X_REACH 1.05    /* a run reaches this times the last measured abscissa, as the fit's do */
/* the verdict's tolerances on the peak force: the median, the 5th and 95th percentiles */
#define TOL_MEDIAN 0.10
#define TOL_TAILS 0.20

static const double check_p[FL_CHECK_QUANTILES] = {0.05, 0.25, 0.50, 0.75, 0.95};

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The quantile at probability q of the sorted v[0..n-1], linear between the order
 * statistics at (n - 1) q (Hyndman and Fan's definition 7, the default of R and NumPy). */
static double quantile(const double *v, int n, double q)
{
  double h = (n - 1) * q;
  int lo = (int)floor(h);
  return lo + 1 < n ? v[lo] + (h - lo) * (v[lo + 1] - v[lo]) : v[lo];
}

fl_population_stat fl_population_stat_of(double *v, int n)
{
  fl_population_stat s;
  double sum = 0, ss = 0;
  for (int i = 0; i < n; i++)
    sum += v[i];
  s.mean = sum / n;
  for (int i = 0; i < n; i++)
    ss += (v[i] - s.mean) * (v[i] - s.mean);
  s.sd = sqrt(ss / (n - 1));
  s.cv = s.mean != 0.0 ? s.sd / fabs(s.mean) : NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  s.min = v[0];
  s.q25 = quantile(v, n, 0.25);
  s.median = quantile(v, n, 0.5);
  s.q75 = quantile(v, n, 0.75);
  s.max = v[n - 1];
  s.p05 = quantile(v, n, 0.05);
  s.p95 = quantile(v, n, 0.95);
  s.centre = v[0] > 0.0 ? (n % 2 ? v[n / 2] : sqrt(v[n / 2 - 1] * v[n / 2])) : s.median;
  return s;
}

void fl_population_free(fl_population *p)
{
  free(p->used);
  p->used = NULL;
  fl_population_check *k = &p->check;
  free(k->value);
  free(k->parent);
  free(k->lab);
  free(k->pop);
  k->value = k->lab = k->pop = NULL;
  k->parent = NULL;
}

/* The template's experiment with mapped values m (NULL: the template's) and fitted values
 * v, and the strength that gives specimens of one bond the strengths' centre and sd
 * (sd <= 0: v's max_stress and no variation) on the test's equally loaded bonds. */
static int make_experiment(const fl_campaign *c, const double *m, const double *v, double strength_sd, long bonds,
                           fl_experiment *e, double *sigma, double *cv, char *err, size_t errlen)
{
  char assignment[FL_FIT_KEY + 40];
  int rc = FL_OK, js = -1;
  *e = c->exp;
  for (int j = 0; m && j < c->nmap && !rc; j++) {
    if (!fl_experiment_key_unit(c->map[j].key))
      continue; /* data.x_min, data.x_max: the fit's, not the experiment's */
    snprintf(assignment, sizeof assignment, "%s=%.17g", c->map[j].key, m[j]);
    rc = fl_experiment_set(e, assignment, err, errlen);
  }
  for (int j = 0; j < c->nfree && !rc; j++) {
    if (strcmp(c->free[j].path, "bond.failure.max_stress") == 0)
      js = j;
    snprintf(assignment, sizeof assignment, "%s=%.17g", c->free[j].path, v[j]);
    rc = fl_experiment_set(e, assignment, err, errlen);
  }
  if (!rc && js >= 0 && strength_sd > 0.0) {
    /* Each fitted strength is a specimen's, at which its most loaded bonds give way;
     * the bond strength and variation that give specimens the centre and spread on the
     * test's equally loaded bonds are the rule of strength.h carried from one bond
     * (sigma = centre, cv = sd / centre) to those n. */
    if (fl_strength_carry(v[js], strength_sd / v[js], 1, bonds, sigma, cv)) {
      snprintf(err, errlen, "the fitted strengths (centre %g Pa, sd %g Pa) have no bond strength and variation that "
               "gives them on %ld equally loaded bonds", v[js], strength_sd, bonds);
      return FL_EINPUT;
    }
    snprintf(assignment, sizeof assignment, "bond.failure.max_stress=%.17g", *sigma);
    rc = fl_experiment_set(e, assignment, err, errlen);
    snprintf(assignment, sizeof assignment, "bond.failure.strength_variation=%.17g", *cv);
    if (!rc)
      rc = fl_experiment_set(e, assignment, err, errlen);
  }
  if (!rc)
    rc = fl_experiment_finish(e, c->exp_path, err, errlen);
  return rc;
}

/* The correlation (Pearson) of the n rows of m values v (rows with a NAN left out) into
 * out, m x m. */
static void correlation(const double *v, int n, int m, double *out)
{
  for (int a = 0; a < m; a++)
    for (int b = 0; b < m; b++) {
      double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
      int k = 0;
      for (int r = 0; r < n; r++)
        if (!isnan(v[r * m + a]) && !isnan(v[r * m + b])) {
          ma += v[r * m + a];
          mb += v[r * m + b];
          k++;
        }
      ma /= k > 0 ? k : 1;
      mb /= k > 0 ? k : 1;
      for (int r = 0; r < n; r++)
        if (!isnan(v[r * m + a]) && !isnan(v[r * m + b])) {
          double da = v[r * m + a] - ma, db = v[r * m + b] - mb;
          sab += da * db;
          saa += da * da;
          sbb += db * db;
        }
      out[a * m + b] = saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
    }
}

int fl_campaign_population(const fl_campaign *c, const fl_campaign_result *res, fl_population *p, char *err,
                           size_t errlen)
{
  memset(p, 0, sizeof *p);
  p->strength = -1;
  if (!(p->used = malloc((size_t)c->nspec * sizeof *p->used))) {
    snprintf(err, errlen, "out of memory");
    return FL_ENOMEM;
  }
  for (int i = 0; i < c->nspec; i++)
    if (res[i].done && res[i].status == FL_CAL_CONVERGED)
      p->used[p->nused++] = i;
  int n = p->nused, np = c->nfree;
  if (n < 2) {
    snprintf(err, errlen, "%d of the %d specimens converged; a population needs at least 2", n, c->nspec);
    return FL_EINPUT;
  }
  double *v = malloc((size_t)n * (size_t)(np + 1) * sizeof *v);
  if (!v) {
    snprintf(err, errlen, "out of memory");
    return FL_ENOMEM;
  }
  for (int k = 0; k < n; k++)
    for (int j = 0; j < np; j++)
      v[k * np + j] = res[p->used[k]].held[j] ? NAN : res[p->used[k]].value[j];
  correlation(v, n, np, p->correlation);
  for (int j = 0; j < np; j++) {
    /* a value held without influence tells nothing of the material: left out where at
     * least two rows determined it */
    int nd = 0;
    for (int k = 0; k < n; k++)
      if (!res[p->used[k]].held[j])
        v[nd++] = res[p->used[k]].value[j];
    if (nd < 2)
      for (nd = 0; nd < n; nd++)
        v[nd] = res[p->used[nd]].value[j];
    p->param[j] = fl_population_stat_of(v, nd);
    if (strcmp(c->free[j].path, "bond.failure.max_stress") == 0)
      p->strength = j;
  }
  for (int j = 0; j < c->nmap; j++) {
    for (int k = 0; k < n; k++)
      v[k] = c->spec[p->used[k]].value[j];
    p->mapped[j] = fl_population_stat_of(v, n);
  }
  free(v);
  /* the population experiment: the template's at the centres, the strength's spread as
   * strength variation (one material) */
  double m[FL_CAMPAIGN_MAX_MAP], cen[FL_FIT_MAX_FREE];
  for (int j = 0; j < c->nmap; j++)
    m[j] = p->mapped[j].centre;
  for (int j = 0; j < np; j++)
    cen[j] = p->param[j].centre;
  p->strength_bonds = res[p->used[0]].equally_loaded_bonds;
  double sd = p->strength >= 0 ? p->param[p->strength].sd : 0.0;
  return make_experiment(c, m, cen, sd, p->strength_bonds, &p->experiment, &p->strength_sigma, &p->strength_cv, err,
                         errlen);
}

/* ---- reading a curve ------------------------------------------------------------------- */

/* The figures of one curve's rows (x, y, n; a measured curve as the fit reads it, or a
 * simulated one over the same range): out[FL_CHECK_STIFFNESS] the slope from 10 to 50 %
 * of the peak before it (fl_measure_figures), out[FL_CHECK_PEAK] the largest load up to
 * x_peak (the whole curve: x_peak infinite), out[FL_CHECK_KINK] the peak before the
 * deepest fall (fl_drop_features; NAN when there is no drop). */
static void figures(const double *x, const double *y, int n, int simulated, double x_peak, double out[3])
{
  fl_specimen_result sr;
  memset(&sr, 0, sizeof sr);
  out[0] = out[1] = out[2] = NAN;
  if (n < 3)
    return;
  fl_measure_figures(x, y, n, n, &sr);
  out[FL_CHECK_STIFFNESS] = sr.initial_stiffness;
  double top = -HUGE_VAL;
  for (int i = 0; i < n && x[i] <= x_peak * (1.0 + 1e-9); i++)
    top = fmax(top, y[i]);
  out[FL_CHECK_PEAK] = isfinite(top) ? top : NAN;
  double d[5];
  if (fl_drop_features(x, y, n, simulated, d))
    out[FL_CHECK_KINK] = d[4];
}

/* Where the measured curve of row i peaks (the abscissa of its largest load). */
static double peak_x(const fl_campaign_result *r)
{
  int top = 0;
  for (int k = 1; k < r->points; k++)
    if (r->measured[k] > r->measured[top])
      top = k;
  return r->points ? r->x[top] : 0.0;
}

/* ---- the draws ---------------------------------------------------------------------------- */

/* The symmetric square root (sqrt = 1) or pseudo-inverse (sqrt = 0) of the d x d
 * matrix a, in place, by its eigenvalues (those below 1e-12 of the largest taken as 0). */
static int sym_function(double *a, int d, int sqrt_of)
{
  if (d == 0)
    return FL_OK;
  gsl_matrix_view A = gsl_matrix_view_array(a, (size_t)d, (size_t)d);
  gsl_matrix *V = gsl_matrix_alloc((size_t)d, (size_t)d);
  gsl_vector *L = gsl_vector_alloc((size_t)d);
  gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc((size_t)d);
  int rc = FL_ENOMEM;
  if (V && L && w && gsl_eigen_symmv(&A.matrix, L, V, w) == GSL_SUCCESS) {
    double top = 0.0;
    for (int k = 0; k < d; k++)
      top = fmax(top, gsl_vector_get(L, (size_t)k));
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) {
        double s = 0.0;
        for (int k = 0; k < d; k++) {
          double l = gsl_vector_get(L, (size_t)k);
          if (!(l > 1e-12 * top))
            continue;
          s += gsl_matrix_get(V, (size_t)i, (size_t)k) * gsl_matrix_get(V, (size_t)j, (size_t)k) *
               (sqrt_of ? sqrt(l) : 1.0 / l);
        }
        a[i * d + j] = s;
      }
    rc = FL_OK;
  }
  gsl_matrix_free(V);
  gsl_vector_free(L);
  gsl_eigen_symmv_free(w);
  return rc;
}

/* The plan of the draws (fiberlab-campaign(5), The population check): each converged
 * row's measured dimensions g (the mapped experiment keys) and fitted values p, on a log
 * scale where they are all positive; the regression p = mp + B (g - mg) + e over the
 * rows; the square root of the residuals' covariance; the bandwidth h. */
typedef struct {
  int n, dg, dp;
  int gkey[FL_CAMPAIGN_MAX_MAP]; /* the mapped keys drawn (experiment keys) */
  int glog[FL_CAMPAIGN_MAX_MAP], plog[FL_FIT_MAX_FREE];
  double mg[FL_CAMPAIGN_MAX_MAP], mp[FL_FIT_MAX_FREE];
  double *g, *e;                 /* n x dg transformed dimensions, n x dp residuals */
  double B[FL_CAMPAIGN_MAX_MAP * FL_FIT_MAX_FREE]; /* dg x dp */
  double L[FL_FIT_MAX_FREE * FL_FIT_MAX_FREE];     /* dp x dp */
  double h;
} draw_plan;

static double tr(double v, int lg) { return lg ? log(v) : v; }

static int plan_draws(const fl_campaign *c, const fl_campaign_result *res, const fl_population *p, draw_plan *d)
{
  int n = p->nused;
  memset(d, 0, sizeof *d);
  d->n = n;
  d->dp = c->nfree;
  for (int j = 0; j < c->nmap; j++)
    if (fl_experiment_key_unit(c->map[j].key))
      d->gkey[d->dg++] = j;
  for (int a = 0; a < d->dg; a++)
    d->glog[a] = p->mapped[d->gkey[a]].min > 0.0;
  for (int j = 0; j < d->dp; j++)
    d->plog[j] = p->param[j].min > 0.0;
  double *pv = malloc((size_t)n * (size_t)(d->dp + 1) * sizeof *pv);
  d->g = malloc((size_t)n * (size_t)(d->dg + 1) * sizeof *d->g);
  d->e = malloc((size_t)n * (size_t)(d->dp + 1) * sizeof *d->e);
  double gg[FL_CAMPAIGN_MAX_MAP * FL_CAMPAIGN_MAX_MAP], gp[FL_CAMPAIGN_MAX_MAP * FL_FIT_MAX_FREE];
  double ee[FL_FIT_MAX_FREE * FL_FIT_MAX_FREE];
  if (!pv || !d->g || !d->e) {
    free(pv);
    return FL_ENOMEM;
  }
  for (int k = 0; k < n; k++) {
    int i = p->used[k];
    for (int a = 0; a < d->dg; a++)
      d->g[k * d->dg + a] = tr(c->spec[i].value[d->gkey[a]], d->glog[a]);
    for (int j = 0; j < d->dp; j++)
      pv[k * d->dp + j] = tr(res[i].value[j], d->plog[j]);
  }
  for (int a = 0; a < d->dg; a++) {
    for (int k = 0; k < n; k++)
      d->mg[a] += d->g[k * d->dg + a] / n;
    for (int k = 0; k < n; k++)
      d->g[k * d->dg + a] -= d->mg[a];
  }
  for (int j = 0; j < d->dp; j++) {
    for (int k = 0; k < n; k++)
      d->mp[j] += pv[k * d->dp + j] / n;
    for (int k = 0; k < n; k++)
      pv[k * d->dp + j] -= d->mp[j];
  }
  /* B = (G'G)^+ G'P: the fitted values' regression on the dimensions */
  for (int a = 0; a < d->dg; a++) {
    for (int b = 0; b < d->dg; b++) {
      gg[a * d->dg + b] = 0.0;
      for (int k = 0; k < n; k++)
        gg[a * d->dg + b] += d->g[k * d->dg + a] * d->g[k * d->dg + b];
    }
    for (int j = 0; j < d->dp; j++) {
      gp[a * d->dp + j] = 0.0;
      for (int k = 0; k < n; k++)
        gp[a * d->dp + j] += d->g[k * d->dg + a] * pv[k * d->dp + j];
    }
  }
  int rc = sym_function(gg, d->dg, 0);
  for (int a = 0; a < d->dg; a++)
    for (int j = 0; j < d->dp; j++) {
      d->B[a * d->dp + j] = 0.0;
      for (int b = 0; b < d->dg; b++)
        d->B[a * d->dp + j] += gg[a * d->dg + b] * gp[b * d->dp + j];
    }
  /* the residuals and the square root of their covariance (n - 1, as the population's) */
  for (int k = 0; k < n; k++)
    for (int j = 0; j < d->dp; j++) {
      double fit = 0.0;
      for (int a = 0; a < d->dg; a++)
        fit += d->g[k * d->dg + a] * d->B[a * d->dp + j];
      d->e[k * d->dp + j] = pv[k * d->dp + j] - fit;
    }
  for (int i = 0; i < d->dp; i++)
    for (int j = 0; j < d->dp; j++) {
      ee[i * d->dp + j] = 0.0;
      for (int k = 0; k < n; k++)
        ee[i * d->dp + j] += d->e[k * d->dp + i] * d->e[k * d->dp + j] / (n - 1);
    }
  if (!rc)
    rc = sym_function(ee, d->dp, 1);
  memcpy(d->L, ee, sizeof(double) * (size_t)(d->dp * d->dp));
  /* the normal reference bandwidth of a d-dimensional kernel estimate (Silverman 1986,
   * Density Estimation, eq. 4.14), halved: the rule is made for one normal hump and
   * smooths away the groups a small sample of specimens shows */
  d->h = 0.5 * pow(4.0 / (d->dp + 2.0), 1.0 / (d->dp + 4.0)) * pow((double)n, -1.0 / (d->dp + 4.0));
  free(pv);
  return rc;
}

/* Draw k's fitted values v (YAML units), from its parent row, the k-th of the converged
 * (k mod n), with a jitter from the stream (seed, k, attempt): the parent's dimensions
 * exactly, and for the fitted values
 *   p* = mp + B (g_I - mg) + (e_I + h L z) / sqrt(1 + h^2),   z standard normal,
 * whose mean and covariance are those of the rows (the shrunk smoothed bootstrap of
 * Silverman and Young 1987, on the residuals of the regression on the dimensions). */
static void draw_values(const draw_plan *d, unsigned long seed, int k, int attempt, double *v)
{
  int I = k % d->n;
  double z[FL_FIT_MAX_FREE], s = 1.0 / sqrt(1.0 + d->h * d->h);
  for (int j = 0; j < d->dp; j++)
    z[j] = fl_rng_normal(seed, (uint64_t)k, (uint64_t)(attempt * FL_FIT_MAX_FREE + j));
  for (int j = 0; j < d->dp; j++) {
    double u = d->mp[j], jit = 0.0;
    for (int a = 0; a < d->dg; a++)
      u += d->B[a * d->dp + j] * d->g[I * d->dg + a];
    for (int i = 0; i < d->dp; i++)
      jit += d->L[j * d->dp + i] * z[i];
    u += (d->e[I * d->dp + j] + d->h * jit) * s;
    v[j] = d->plog[j] ? exp(u) : u;
  }
}

/* e's test made to reach X_REACH times x_last, the last measured abscissa, as the fit
 * runs its curves. */
static void set_reach(fl_experiment *e, double x_last)
{
  fl_test_type_of(e->test.kind)->reach(&e->test, X_REACH * x_last);
}

/* Specimen i's experiment with fitted values v, run over its measured range. */
static int draw_experiment(const fl_campaign *c, const fl_campaign_result *r, int i, const double *v, fl_experiment *e,
                           char *err, size_t errlen)
{
  int rc = make_experiment(c, c->spec[i].value, v, 0.0, 1, e, NULL, NULL, err, errlen);
  if (rc)
    return rc;
  set_reach(e, r->x[r->points - 1]);
  return FL_OK;
}

/* Within bounds: each fitted value inside its free parameter's. */
static int inside(const fl_campaign *c, const double *v)
{
  for (int j = 0; j < c->nfree; j++)
    if (!(v[j] >= c->free[j].min && v[j] <= c->free[j].max))
      return 0;
  return 1;
}

/* The figures of run k of a batch (curve cv, results rs) read over row i's range. */
static void run_figures(const fl_curve *cv, const fl_result *rs, int k, const fl_campaign_result *r, double *qx,
                        double *qy, double out[3])
{
  int nq = fl_curve_quasi_static(cv, &rs->spec[k], r->test, k, qx, qy);
  double lo = r->x[0], hi = r->x[r->points - 1], tol = 1e-9 * fabs(hi);
  int a = 0, b = nq;
  while (a < nq && qx[a] < lo - tol)
    a++;
  while (b > a && qx[b - 1] > hi + tol)
    b--;
  figures(qx + a, qy + a, b - a, 1, peak_x(r), out);
}

/* Run the draws of parent row i (index k0, k0 + n, ...) as one batch, their figures into
 * chk->pop.  Draws whose run fails are counted in chk->failed. */
static int run_parent(const fl_campaign *c, const fl_campaign_result *res, const fl_population *p,
                      const draw_plan *d, fl_population_check *chk, int k0, const fl_run_hooks *h)
{
  int i = p->used[k0], m = 0;
  for (int k = k0; k < chk->ndraws; k += d->n)
    m++;
  fl_experiment *ex = malloc((size_t)m * sizeof *ex);
  const fl_experiment **ptr = malloc((size_t)m * sizeof *ptr);
  int *which = malloc((size_t)m * sizeof *which);
  size_t room = (size_t)(c->exp.sim.output_points + 2 * (FL_MAX_SNAPS + 1) + 8);
  double *qx = malloc(room * sizeof *qx), *qy = malloc(room * sizeof *qy);
  int rc = FL_ENOMEM, nb = 0;
  char err[2048];
  if (!ex || !ptr || !which || !qx || !qy)
    goto out;
  for (int k = k0; k < chk->ndraws; k += d->n) {
    double *v = chk->value + (size_t)k * (size_t)c->nfree;
    int ok = 0;
    for (int attempt = 0; attempt < 32 && !ok; attempt++) {
      draw_values(d, chk->seed, k, attempt, v);
      ok = inside(c, v) && draw_experiment(c, &res[i], i, v, &ex[nb], err, sizeof err) == FL_OK;
    }
    if (!ok) {
      for (int j = 0; j < c->nfree; j++)
        v[j] = NAN;
      chk->failed++;
      continue;
    }
    ptr[nb] = &ex[nb];
    which[nb++] = k;
  }
  fl_curve cv;
  fl_result rs;
  memset(&cv, 0, sizeof cv);
  memset(&rs, 0, sizeof rs);
  rc = nb ? fl_run_many(ptr, nb, h, &cv, &rs, err, sizeof err) : FL_OK;
  if (rc == FL_EINTERRUPT)
    goto done;
  if (rc) { /* the batch failed: each draw alone, so that one failure costs one draw */
    for (int s = 0; s < nb; s++) {
      fl_curve c1;
      fl_result r1;
      if (fl_run(ptr[s], 1, h, &c1, &r1, err, sizeof err) == FL_OK)
        run_figures(&c1, &r1, 0, &res[i], qx, qy, chk->pop + 3 * (size_t)which[s]);
      else
        chk->failed++;
      fl_curve_free(&c1);
      fl_result_free(&r1);
    }
    rc = FL_OK;
    goto done;
  }
  for (int s = 0; s < nb; s++)
    run_figures(&cv, &rs, s, &res[i], qx, qy, chk->pop + 3 * (size_t)which[s]);
done:
  fl_curve_free(&cv);
  fl_result_free(&rs);
out:
  free(ex);
  free(ptr);
  free(which);
  free(qx);
  free(qy);
  return rc;
}

/* ---- comparing ----------------------------------------------------------------------------- */

/* The two-sample Kolmogorov-Smirnov distance of the sorted a[0..n-1] and b[0..m-1]: the
 * largest difference of their empirical distribution functions. */
static double ks_distance(const double *a, int n, const double *b, int m)
{
  int i = 0, j = 0;
  double dmax = 0.0;
  while (i < n && j < m) {
    double x = fmin(a[i], b[j]);
    while (i < n && a[i] <= x)
      i++;
    while (j < m && b[j] <= x)
      j++;
    dmax = fmax(dmax, fabs((double)i / n - (double)j / m));
  }
  return dmax;
}

/* Quantity q of the lab's rows (nl of them, stride 3) against the population's. */
static void compare(const double *lab, int nl, const double *pop, int np, int q, fl_check_quantity *out)
{
  double *a = malloc((size_t)(nl + 1) * sizeof *a), *b = malloc((size_t)(np + 1) * sizeof *b);
  memset(out, 0, sizeof *out);
  for (int k = 0; k < FL_CHECK_QUANTILES; k++)
    out->lab[k] = out->pop[k] = NAN;
  out->ks = out->ks_5pct = NAN;
  if (!a || !b) {
    free(a);
    free(b);
    return;
  }
  int n = 0, m = 0;
  for (int k = 0; k < nl; k++)
    if (isfinite(lab[3 * k + q]))
      a[n++] = lab[3 * k + q];
  for (int k = 0; k < np; k++)
    if (isfinite(pop[3 * k + q]))
      b[m++] = pop[3 * k + q];
  out->n_lab = n;
  out->n_pop = m;
  if (n >= 2 && m >= 2) {
    qsort(a, (size_t)n, sizeof *a, cmp_double);
    qsort(b, (size_t)m, sizeof *b, cmp_double);
    for (int k = 0; k < FL_CHECK_QUANTILES; k++) {
      out->lab[k] = quantile(a, n, check_p[k]);
      out->pop[k] = quantile(b, m, check_p[k]);
    }
    out->ks = ks_distance(a, n, b, m);
    out->ks_5pct = 1.358 * sqrt((double)(n + m) / ((double)n * m));
  }
  free(a);
  free(b);
}

/* The verdict on the peak force: its median within TOL_MEDIAN and its 5th and 95th
 * percentiles within TOL_TAILS of the lab's; err gets the three relative differences. */
static int verdict(const fl_check_quantity *q, double err[3])
{
  static const int at[3] = {0, 2, 4};
  static const double tol[3] = {TOL_TAILS, TOL_MEDIAN, TOL_TAILS};
  int ok = q->n_lab >= 2 && q->n_pop >= 2;
  for (int k = 0; k < 3; k++) {
    err[k] = q->pop[at[k]] / q->lab[at[k]] - 1.0;
    ok = ok && fabs(err[k]) <= tol[k];
  }
  return ok;
}

/* ---- classes ------------------------------------------------------------------------------ */

/* A row and its particle radius, for sorting by radius. */
typedef struct {
  double radius;
  int k;
} radius_row;

static int by_radius(const void *a, const void *b)
{
  double x = ((const radius_row *)a)->radius, y = ((const radius_row *)b)->radius;
  return (x > y) - (x < y);
}

/* The classes by particle radius: the converged rows in order of their particle radius R,
 * cut into nclass runs of (nearly) equal count, each with the centre of its rows' values
 * and its strengths' spread as strength variation (fiberlab-campaign(5)). */
static int make_classes(const fl_campaign *c, const fl_campaign_result *res, fl_population *p, char *err,
                        size_t errlen)
{
  fl_population_check *chk = &p->check;
  int n = p->nused;
  chk->nclass = n >= 9 ? 3 : n >= 4 ? 2 : 1;
  radius_row *order = malloc((size_t)n * sizeof *order);
  double *v = malloc((size_t)n * sizeof *v);
  int rc = FL_ENOMEM;
  if (!order || !v)
    goto out;
  for (int k = 0; k < n; k++) {
    order[k].k = k;
    order[k].radius = res[p->used[k]].calibrated.fiber.outer_radius_m;
  }
  qsort(order, (size_t)n, sizeof *order, by_radius);
  rc = FL_OK;
  for (int g = 0, first = 0; g < chk->nclass && !rc; g++) {
    fl_population_class *cl = &chk->cls[g];
    int last = (int)floor((double)n * (g + 1) / chk->nclass + 0.5);
    cl->count = last - first;
    cl->share = (double)cl->count / n;
    cl->radius_lo = order[first].radius;
    cl->radius_hi = order[last - 1].radius;
    double m[FL_CAMPAIGN_MAX_MAP], cen[FL_FIT_MAX_FREE], sd = 0.0;
    for (int j = 0; j < c->nmap; j++) {
      for (int k = first; k < last; k++)
        v[k - first] = c->spec[p->used[order[k].k]].value[j];
      m[j] = cl->count > 1 ? fl_population_stat_of(v, cl->count).centre : v[0];
      cl->mapped[j] = m[j];
    }
    for (int j = 0; j < c->nfree; j++) {
      for (int k = first; k < last; k++)
        v[k - first] = res[p->used[order[k].k]].value[j];
      fl_population_stat s = cl->count > 1 ? fl_population_stat_of(v, cl->count) : (fl_population_stat){.centre = v[0]};
      cen[j] = s.centre;
      cl->centre[j] = cen[j];
      if (j == p->strength)
        sd = s.sd;
    }
    rc = make_experiment(c, m, cen, sd, p->strength_bonds, &cl->experiment, &cl->strength_sigma, &cl->strength_cv, err,
                         errlen);
    if (sd <= 0.0 && p->strength >= 0) {
      cl->strength_sigma = cen[p->strength];
      cl->strength_cv = 0.0;
    }
    first = last;
  }
out:
  free(order);
  free(v);
  if (rc == FL_ENOMEM)
    snprintf(err, errlen, "out of memory");
  return rc;
}

/* ---- the check ------------------------------------------------------------------------------ */

int fl_population_check_run(const fl_campaign *c, const fl_campaign_result *res, fl_population *p, int threads,
                            volatile sig_atomic_t *stop, char *err, size_t errlen)
{
  fl_population_check *chk = &p->check;
  int n = p->nused, rc;
  chk->seed = c->exp.sim.seed;
  for (int i = 0; i < c->nspec; i++)
    if (res[i].done && res[i].points < 3) {
      snprintf(chk->why_not, sizeof chk->why_not, "row %d has fewer than 3 measured rows", c->spec[i].row);
      return FL_OK;
    }
  if (fl_test_rings(&c->exp.test)) {
    snprintf(chk->why_not, sizeof chk->why_not, "a ring-down has no peak force");
    return FL_OK;
  }
  if ((rc = make_classes(c, res, p, err, errlen)))
    return rc;
  draw_plan d;
  if ((rc = plan_draws(c, res, p, &d))) {
    snprintf(err, errlen, "out of memory");
    goto out;
  }
  chk->bandwidth = d.h;
  chk->ndraws = n * ((CHECK_DRAWS + n - 1) / n);
  chk->value = malloc((size_t)chk->ndraws * (size_t)(c->nfree + 1) * sizeof *chk->value);
  chk->parent = malloc((size_t)chk->ndraws * sizeof *chk->parent);
  chk->pop = malloc((size_t)chk->ndraws * 3 * sizeof *chk->pop);
  chk->lab = malloc((size_t)c->nspec * 3 * sizeof *chk->lab);
  rc = FL_ENOMEM;
  if (!chk->value || !chk->parent || !chk->pop || !chk->lab) {
    snprintf(err, errlen, "out of memory");
    goto out;
  }
  for (int k = 0; k < 3 * chk->ndraws; k++)
    chk->pop[k] = NAN;
  for (int k = 0; k < chk->ndraws; k++)
    chk->parent[k] = p->used[k % n];
  /* the lab: every row the campaign fitted, converged or not, read as its fit read it */
  chk->nlab = 0;
  for (int i = 0; i < c->nspec; i++)
    if (res[i].done)
      figures(res[i].x, res[i].measured, res[i].points, 0, HUGE_VAL, chk->lab + 3 * (size_t)chk->nlab++);
  fl_run_hooks h;
  memset(&h, 0, sizeof h);
  h.threads = threads;
  h.stop = stop;
  for (int k0 = 0; k0 < n; k0++)
    if ((stop && *stop && (rc = FL_EINTERRUPT)) || (rc = run_parent(c, res, p, &d, chk, k0, &h))) {
      snprintf(err, errlen, "%s", rc == FL_EINTERRUPT ? "interrupted" : "out of memory");
      goto out;
    }
  for (int q = 0; q < FL_CHECK_QUANTITIES; q++)
    compare(chk->lab, chk->nlab, chk->pop, chk->ndraws, q, &chk->q[q]);
  chk->passed = verdict(&chk->q[FL_CHECK_PEAK], chk->peak_err);
  correlation(chk->value, chk->ndraws, c->nfree, chk->correlation);
  chk->run = 1;
  rc = FL_OK;
out:
  free(d.g);
  free(d.e);
  return rc;
}
