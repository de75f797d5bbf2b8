/* population_report.c: what a campaign reports of its population's check and its
 * classes (campaign.h, fiberlab-campaign(5)): the population's parameter sheet for the
 * DEM package, the check's YAML and CSV, and its block in the summary. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "dem_sheet.h"
#include "fl_defs.h"
#include "output.h"
#include "test_kind.h"
#include "yaml_emit.h"

static const char *const quantity_name[FL_CHECK_QUANTITIES] = {"initial_stiffness", "peak_force", "kink_displacement"};

/* A quantity's unit for the campaign's test. */
static const char *quantity_unit(const fl_campaign_result *res, const fl_population *p, int q)
{
  const fl_test_type *type = fl_test_type_of(res[p->used[0]].test);
  const char *const unit[] = {type->k_unit, type->y_unit, type->x_unit}; /* in quantity_name's order */
  return unit[q];
}

/* "passed: the peak ... " or why not, for the first lines. */
static void verdict_text(const fl_population *p, char *buf, size_t len)
{
  const fl_population_check *k = &p->check;
  if (!k->run) {
    snprintf(buf, len, "the population was not checked (%s)", k->why_not[0] ? k->why_not : "no population");
    return;
  }
  snprintf(buf, len, "population check %s: peak force at 5 %%, 50 %%, 95 %% %+.1f %%, %+.1f %%, %+.1f %% of the lab's "
           "(allowed 20, 10, 20 %%), KS distance %.3f, %d specimens drawn",
           k->passed ? "passed" : "FAILED", 100 * k->peak_err[0], 100 * k->peak_err[1], 100 * k->peak_err[2],
           k->q[FL_CHECK_PEAK].ks, k->ndraws);
}

/* ---- the population's sheet ---------------------------------------------------------- */

static void check_rows(fl_dem_sheet *sh, const fl_campaign_result *res, const fl_population *p)
{
  static const char *const label[FL_CHECK_QUANTITIES] = {"Initial stiffness", "Peak force", "Kink displacement"};
  static const char *const at[3] = {"5th percentile", "median", "95th percentile"};
  static const int qi[3] = {0, 2, 4};
  const fl_population_check *k = &p->check;
  char name[FL_DEM_TEXT];
  for (int q = 0; q < FL_CHECK_QUANTITIES; q++) {
    const fl_check_quantity *cq = &k->q[q];
    if (cq->n_lab < 2 || cq->n_pop < 2)
      continue;
    for (int j = 0; j < 3; j++) {
      snprintf(name, sizeof name, "%s, %s", label[q], at[j]);
      fl_dem_row *r = fl_dem_sheet_add(sh, "population check", name, quantity_unit(res, p, q), cq->pop[qi[j]], NULL);
      if (!r)
        return;
      r->has_measured = 1;
      r->measured = cq->lab[qi[j]];
      if (q == FL_CHECK_PEAK && j == 1)
        snprintf(r->note, sizeof r->note, "the population's beside the lab's (in brackets), %d drawn, %d measured",
                 cq->n_pop, cq->n_lab);
    }
    snprintf(name, sizeof name, "%s, Kolmogorov-Smirnov distance", label[q]);
    fl_dem_row *r = fl_dem_sheet_add(sh, "population check", name, "None", cq->ks, NULL);
    if (r)
      snprintf(r->note, sizeof r->note, "a test at the 5 %% level would reject from %.3f", cq->ks_5pct);
  }
  fl_dem_sheet_add(sh, "population check", "Verdict", "", 0.0, k->passed ? "passed" : "failed");
}

/* The classes: what a package with several materials and particle sizes takes. */
static void class_rows(fl_dem_sheet *sh, const fl_campaign *c, const fl_population *p)
{
  static const char *const section[FL_POPULATION_CLASSES] = {"class 1 (thinnest)", "class 2", "class 3"};
  const fl_population_check *k = &p->check;
  for (int g = 0; g < k->nclass; g++) {
    const fl_population_class *cl = &k->cls[g];
    const char *sec = g == k->nclass - 1 && g > 0 ? "class 3 (thickest)" : section[g];
    if (g == 1 && k->nclass == 2)
      sec = "class 2 (thickest)";
    fl_dem_row *r = fl_dem_sheet_add(sh, sec, "Share of the population", "None", cl->share, NULL);
    if (r)
      snprintf(r->note, sizeof r->note, "%d of the %d converged specimens; particle radius R %.4g to %.4g m",
               cl->count, p->nused, cl->radius_lo, cl->radius_hi);
    fl_dem_sheet_add(sh, sec, "Particle radius R (sphero-cylinder)", "m", cl->experiment.fiber.outer_radius_m, NULL);
    for (int j = 0; j < c->nmap; j++)
      if (fl_experiment_key_unit(c->map[j].key) && (r = fl_dem_sheet_add(sh, sec, c->map[j].key,
                                                                         fl_experiment_key_unit(c->map[j].key),
                                                                         cl->mapped[j], NULL)))
        snprintf(r->key, sizeof r->key, "%s", c->map[j].key);
    for (int j = 0; j < c->nfree; j++) {
      const char *u = fl_experiment_key_unit(c->free[j].path);
      double v = j == p->strength ? cl->strength_sigma : cl->centre[j];
      if ((r = fl_dem_sheet_add(sh, sec, c->free[j].path, u && *u ? u : "None", v, NULL)))
        snprintf(r->key, sizeof r->key, "%s", c->free[j].path);
    }
    if (p->strength >= 0) {
      double factor = fl_dem_stress_factor(&cl->experiment);
      r = fl_dem_sheet_add(sh, sec, "Maximum stress (the package's, at R)", "Pa", cl->strength_sigma * factor, NULL);
      if (r)
        snprintf(r->note, sizeof r->note, "bond.failure.max_stress x R / a (x %.6g)", factor);
      r = fl_dem_sheet_add(sh, sec, "Strength variation", "None", cl->strength_cv, NULL);
      if (r)
        snprintf(r->key, sizeof r->key, "bond.failure.strength_variation");
    }
  }
}

/* Each numeric row's spread over the sheets of n specimens (the row of the same section
 * and name in each): its sd and 5th and 95th percentiles, where the specimens differ. */
static int spread(fl_dem_sheet *sh, fl_dem_sheet *spec, int n)
{
  double *v = malloc((size_t)n * sizeof *v);
  if (!v)
    return FL_ENOMEM;
  for (int i = 0; i < sh->n; i++) {
    fl_dem_row *r = &sh->row[i];
    if (!r->numeric || r->shown[0])
      continue;
    int m = 0;
    for (int s = 0; s < n; s++) {
      const fl_dem_row *o = fl_dem_sheet_find(&spec[s], r->section, r->name);
      if (o && o->numeric && isfinite(o->value))
        v[m++] = o->value;
    }
    if (m < 2)
      continue;
    fl_population_stat st = fl_population_stat_of(v, m);
    if (st.max - st.min <= 1e-12 * fabs(st.mean))
      continue; /* the same in every specimen, but for the last bits */
    r->spread = FL_DEM_SPREAD_POP;
    r->sd = st.sd;
    r->p05 = st.p05;
    r->p95 = st.p95;
  }
  free(v);
  return FL_OK;
}

int fl_population_sheet(const fl_campaign *c, const fl_campaign_result *res, const fl_population *p, fl_dem_sheet *sh)
{
  int n = p->nused, rc = fl_dem_sheet_make(&p->experiment, sh);
  fl_dem_sheet *spec = malloc((size_t)n * sizeof *spec);
  if (!spec)
    return FL_ENOMEM;
  for (int k = 0; k < n; k++)
    fl_dem_sheet_make(&res[p->used[k]].calibrated, &spec[k]);
  int sp = spread(sh, spec, n);
  free(spec);
  if (sp)
    return sp;
  /* the bond strength and its variation are the population's own, not a specimen's */
  static const char *const own[] = {"Strength variation", "Maximum stress"};
  for (int k = 0; k < 2; k++) {
    fl_dem_row *r = fl_dem_sheet_find(sh, "bond dialog", own[k]);
    if (r && p->strength >= 0 && k == 1) {
      snprintf(r->note, sizeof r->note, "bond.failure.max_stress %.6g Pa x R / a; with the strength variation, the "
               "specimens' strengths' centre and spread on %ld equally loaded bond%s (fiberlab-campaign(5))",
               p->strength_sigma, p->strength_bonds, p->strength_bonds == 1 ? "" : "s");
    } else if (r) {
      r->spread = FL_DEM_SPREAD_NONE;
    }
  }
  char v[512];
  verdict_text(p, v, sizeof v);
  fl_dem_sheet_status(sh, "Status: %d of %d specimens converged; %s", n, c->nspec, v);
  fl_dem_row *r = fl_dem_sheet_add(sh, "population", "Specimens converged", "None", n, NULL);
  if (r)
    snprintf(r->note, sizeof r->note, "of %d; each value above is the centre of theirs (the median of the logarithms), "
             "with their sd and 5th and 95th percentiles", c->nspec);
  fl_dem_sheet_add(sh, "population", "Specimens", "None", c->nspec, NULL);
  if (p->check.run) {
    check_rows(sh, res, p);
    class_rows(sh, c, p);
  }
  return rc ? rc : sh->n < FL_DEM_ROWS ? FL_OK : FL_ELIMIT;
}

/* ---- the check's files ------------------------------------------------------------------ */

static void quantiles(fl_yaml_out *y, const char *key, const double *v)
{
  fl_yaml_str(y, key);
  fl_yaml_seq_begin(y, 1);
  for (int k = 0; k < FL_CHECK_QUANTILES; k++)
    fl_yaml_num(y, "%.6g", v[k]);
  fl_yaml_seq_end(y);
}

static void classes_yaml(fl_yaml_out *y, const fl_campaign *c, const fl_population *p)
{
  const fl_population_check *k = &p->check;
  fl_yaml_str(y, "classes");
  fl_yaml_seq_begin(y, 0);
  for (int g = 0; g < k->nclass; g++) {
    const fl_population_class *cl = &k->cls[g];
    fl_yaml_map_begin(y, 0);
    fl_yaml_key_num(y, "share", "%.4f", cl->share);
    fl_yaml_key_int(y, "specimens", cl->count);
    fl_yaml_str(y, "particle_radius");
    fl_yaml_map_begin(y, 1);
    fl_yaml_key_num(y, "centre", "%.6g", cl->experiment.fiber.outer_radius_m);
    fl_yaml_key_num(y, "min", "%.6g", cl->radius_lo);
    fl_yaml_key_num(y, "max", "%.6g", cl->radius_hi);
    fl_yaml_map_end(y);
    for (int j = 0; j < c->nmap; j++)
      if (fl_experiment_key_unit(c->map[j].key))
        fl_yaml_key_num(y, c->map[j].key, "%.8g", cl->mapped[j]);
    for (int j = 0; j < c->nfree; j++)
      fl_yaml_key_num(y, c->free[j].path, "%.8g", cl->centre[j]);
    if (p->strength >= 0) {
      fl_yaml_key_num(y, "bond_max_stress", "%.8g", cl->strength_sigma);
      fl_yaml_key_num(y, "strength_variation", "%.6g", cl->strength_cv);
    }
    fl_yaml_map_end(y);
  }
  fl_yaml_seq_end(y);
}

int fl_population_check_yaml(FILE *f, const fl_campaign *c, const fl_campaign_result *res, const fl_population *p)
{
  const fl_population_check *k = &p->check;
  char v[512];
  verdict_text(p, v, sizeof v);
  fl_yaml_out *y = fl_yaml_out_open(f);
  fl_yaml_comment(y, "Check of the population of the campaign %s (fiberlab %s): %s.", c->file, PACKAGE_VERSION, v);
  fl_yaml_comment(y, "Quantiles at 5, 25, 50, 75, 95 %%, linear between order statistics; every curve read as the fit "
                  "reads it (fiberlab-campaign(5), The population check).");
  fl_yaml_map_begin(y, 0);
  fl_yaml_key_str(y, "campaign", c->file);
  fl_yaml_key_str(y, "verdict", !k->run ? "not run" : k->passed ? "passed" : "failed");
  if (!k->run) {
    fl_yaml_key_str(y, "why_not", k->why_not);
    fl_yaml_map_end(y);
    return fl_yaml_out_close(&y);
  }
  fl_yaml_key_str(y, "rule", "peak force: the population's median within 10 % of the lab's, its 5th and 95th "
                  "percentiles within 20 %");
  fl_yaml_str(y, "peak_force_off");
  fl_yaml_map_begin(y, 1);
  fl_yaml_key_num(y, "p05", "%.4f", k->peak_err[0]);
  fl_yaml_key_num(y, "median", "%.4f", k->peak_err[1]);
  fl_yaml_key_num(y, "p95", "%.4f", k->peak_err[2]);
  fl_yaml_map_end(y);
  fl_yaml_key_int(y, "lab_specimens", k->nlab);
  fl_yaml_key_int(y, "converged", p->nused);
  fl_yaml_key_int(y, "drawn", k->ndraws);
  fl_yaml_key_int(y, "failed_runs", k->failed);
  fl_yaml_key_int(y, "seed", (long)k->seed);
  fl_yaml_key_str(y, "draws", "each converged specimen equally often: its measured dimensions, its fitted values "
                  "jittered on a log scale keeping the specimens' mean and covariance");
  fl_yaml_key_num(y, "bandwidth", "%.4f", k->bandwidth);
  fl_yaml_str(y, "quantities");
  fl_yaml_map_begin(y, 0);
  for (int q = 0; q < FL_CHECK_QUANTITIES; q++) {
    const fl_check_quantity *cq = &k->q[q];
    fl_yaml_str(y, quantity_name[q]);
    fl_yaml_map_begin(y, 0);
    fl_yaml_key_str(y, "unit", quantity_unit(res, p, q));
    fl_yaml_key_int(y, "lab_n", cq->n_lab);
    fl_yaml_key_int(y, "population_n", cq->n_pop);
    quantiles(y, "lab", cq->lab);
    quantiles(y, "population", cq->pop);
    fl_yaml_key_num(y, "ks_distance", "%.4f", cq->ks);
    fl_yaml_key_num(y, "ks_5pct", "%.4f", cq->ks_5pct);
    fl_yaml_map_end(y);
  }
  fl_yaml_map_end(y);
  fl_yaml_str(y, "correlation_drawn");
  fl_yaml_seq_begin(y, 0);
  for (int a = 0; a < c->nfree; a++) {
    fl_yaml_seq_begin(y, 1);
    for (int b = 0; b < c->nfree; b++)
      fl_yaml_num(y, "%.4f", k->correlation[a * c->nfree + b]);
    fl_yaml_seq_end(y);
  }
  fl_yaml_seq_end(y);
  classes_yaml(y, c, p);
  fl_yaml_map_end(y);
  return fl_yaml_out_close(&y);
}

/* The plotting positions (k - 0.5) / n of the finite values v[s * 3 + q] (n of them):
 * each one's rank among them, as pos[s]. */
static void positions(const double *v, int n, int q, double *pos)
{
  int m = 0;
  for (int s = 0; s < n; s++)
    m += isfinite(v[3 * s + q]);
  for (int s = 0; s < n; s++) {
    pos[s] = NAN;
    if (!isfinite(v[3 * s + q]))
      continue;
    int rank = 0; /* values below, and equal ones before it */
    for (int t = 0; t < n; t++)
      if (isfinite(v[3 * t + q]) && (v[3 * t + q] < v[3 * s + q] || (v[3 * t + q] == v[3 * s + q] && t < s)))
        rank++;
    pos[s] = (rank + 0.5) / m;
  }
}

int fl_population_check_csv(FILE *f, const fl_campaign *c, const fl_campaign_result *res, const fl_population *p)
{
  const fl_population_check *k = &p->check;
  fprintf(f, "# fiberlab %s: the lab's figures and the drawn specimens' (fiberlab-campaign(5), The population check)\n",
          PACKAGE_VERSION);
  fprintf(f, "source,row,id,draw");
  for (int q = 0; q < FL_CHECK_QUANTITIES; q++)
    fprintf(f, ",%s,%s_position", quantity_name[q], quantity_name[q]);
  for (int j = 0; j < c->nfree; j++)
    fprintf(f, ",%s", c->free[j].path);
  fputc('\n', f);
  int nmax = k->ndraws > k->nlab ? k->ndraws : k->nlab;
  double *pos = malloc((size_t)(nmax + 1) * FL_CHECK_QUANTITIES * sizeof *pos);
  if (!pos)
    return FL_ENOMEM;
  for (int side = 0; side < 2; side++) {
    int n = side ? k->ndraws : k->nlab;
    const double *v = side ? k->pop : k->lab;
    for (int q = 0; q < FL_CHECK_QUANTITIES; q++)
      positions(v, n, q, pos + (size_t)q * (size_t)n);
    for (int s = 0, i = -1; s < n; s++) {
      if (side)
        i = k->parent[s];
      else
        while (!res[++i].done)
          ;
      fprintf(f, "%s,%d,", side ? "population" : "lab", c->spec[i].row);
      fl_csv_field(f, c->spec[i].id);
      if (side)
        fprintf(f, ",%d", s + 1);
      else
        fputc(',', f);
      for (int q = 0; q < FL_CHECK_QUANTITIES; q++)
        fprintf(f, ",%.8g,%.6f", v[3 * s + q], pos[(size_t)q * (size_t)n + (size_t)s]);
      for (int j = 0; j < c->nfree; j++)
        fprintf(f, ",%.10g", side ? k->value[(size_t)s * (size_t)c->nfree + (size_t)j] : res[i].value[j]);
      fputc('\n', f);
    }
  }
  free(pos);
  return ferror(f) ? FL_EIO : FL_OK;
}

void fl_population_check_summary(fl_yaml_out *y, const fl_campaign_result *res, const fl_population *p)
{
  const fl_population_check *k = &p->check;
  fl_yaml_str(y, "check");
  fl_yaml_map_begin(y, 0);
  fl_yaml_key_str(y, "verdict", !k->run ? "not run" : k->passed ? "passed" : "failed");
  if (k->run) {
    fl_yaml_key_int(y, "drawn", k->ndraws);
    const fl_check_quantity *cq = &k->q[FL_CHECK_PEAK];
    fl_yaml_str(y, "peak_force");
    fl_yaml_map_begin(y, 1);
    fl_yaml_key_str(y, "unit", quantity_unit(res, p, FL_CHECK_PEAK));
    static const int at[3] = {0, 2, 4};
    for (int side = 0; side < 2; side++) {
      fl_yaml_str(y, side ? "population" : "lab");
      fl_yaml_seq_begin(y, 1);
      for (int j = 0; j < 3; j++)
        fl_yaml_num(y, "%.4g", side ? cq->pop[at[j]] : cq->lab[at[j]]);
      fl_yaml_seq_end(y);
    }
    fl_yaml_key_num(y, "ks_distance", "%.3f", cq->ks);
    fl_yaml_map_end(y);
  } else {
    fl_yaml_key_str(y, "why_not", k->why_not);
  }
  fl_yaml_map_end(y);
}
