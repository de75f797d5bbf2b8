/* campaign_report.c: a campaign's reports: the specimens' table, the population YAML,
 * the population experiment and its sheet, the population check's files and plot, the
 * curves on one page, the parameters' distributions, and the summary (campaign.h,
 * fiberlab-campaign(5)). */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign.h"
#include "dem_sheet.h"
#include "files.h"
#include "fl_defs.h"
#include "output.h"
#include "test_kind.h"
#include "yaml_emit.h"

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* ---- the files ----------------------------------------------------------------------- */

static const char *const status_names[] = {"converged", "max_iterations", "failed"};

static int write_specimens(FILE *f, const fl_campaign *c, const fl_campaign_result *res, const fl_campaign_output *o)
{
  fprintf(f, "# fiberlab %s: %s\n", PACKAGE_VERSION, o->command ? o->command : "fiber-calibrate");
  fprintf(f, "# values in the experiment's units (fiberlab-experiment(5)); _se: standard error\n");
  /* a buckling fit of curves with a drop: where each drop's peak lies, measured and
   * fitted (fiber-calibrate(1), Global stage) */
  int drops = 0;
  for (int i = 0; i < c->nspec; i++)
    drops |= res[i].done && res[i].features.item >= 0;
  int autos = 0; /* x_max: auto in the fit: each row's range as read from its curve */
  for (int i = 0; i < c->nspec; i++)
    autos |= res[i].done && res[i].x_max_from > 0;
  fprintf(f, "row,id,file,status,r_squared,iterations,simulations");
  for (int j = 0; j < c->nmap; j++)
    fprintf(f, ",%s", c->map[j].key);
  if (autos)
    fprintf(f, ",data.x_max,x_max_from");
  for (int j = 0; j < c->nfree; j++)
    fprintf(f, ",%s,%s_se", c->free[j].path, c->free[j].path);
  if (drops)
    fprintf(f, ",peak_displacement_measured,peak_displacement_fitted,peak_force_measured,peak_force_fitted");
  fprintf(f, ",message\n");
  for (int i = 0; i < c->nspec; i++) {
    const fl_campaign_result *r = &res[i];
    fprintf(f, "%d,", c->spec[i].row);
    fl_csv_field(f, c->spec[i].id);
    fputc(',', f);
    fl_csv_field(f, c->spec[i].data_path);
    fprintf(f, ",%s,%.8f,%d,%ld", status_names[r->status], r->r_squared, r->iterations, r->simulations);
    for (int j = 0; j < c->nmap; j++)
      fprintf(f, ",%.10g", c->spec[i].value[j]);
    if (autos)
      fprintf(f, ",%.6g,%s", r->done ? r->x_max : NAN,
              !r->done ? "" : r->x_max_from == 1 ? "first_drop" : r->x_max_from == 2 ? "highest_load" : "given");
    for (int j = 0; j < c->nfree; j++)
      fprintf(f, ",%.10g,%.6g", r->value[j], r->std_error[j]);
    if (drops) {
      const fl_calibration_features *ft = &r->features;
      int m = r->done && ft->item >= 0, s = m && ft->fitted_found;
      /* nan where the curve has no drop, or the fitted curve none */
      fprintf(f, ",%.8g,%.8g,%.8g,%.8g", m ? ft->measured[0] : NAN, s ? ft->fitted[0] : NAN, m ? ft->measured[1] : NAN,
              s ? ft->fitted[1] : NAN);
    }
    fputc(',', f);
    fl_csv_field(f, r->message);
    fputc('\n', f);
  }
  return ferror(f) ? FL_EIO : FL_OK;
}

static void stat_block(fl_yaml_out *y, const char *key, const fl_population_stat *s)
{
  fl_yaml_str(y, key);
  fl_yaml_map_begin(y, 1);
  fl_yaml_key_num(y, "centre", "%.8g", s->centre);
  fl_yaml_key_num(y, "mean", "%.8g", s->mean);
  fl_yaml_key_num(y, "sd", "%.6g", s->sd);
  fl_yaml_key_num(y, "cv", "%.6g", s->cv);
  fl_yaml_key_num(y, "min", "%.8g", s->min);
  fl_yaml_key_num(y, "p05", "%.8g", s->p05);
  fl_yaml_key_num(y, "q25", "%.8g", s->q25);
  fl_yaml_key_num(y, "median", "%.8g", s->median);
  fl_yaml_key_num(y, "q75", "%.8g", s->q75);
  fl_yaml_key_num(y, "p95", "%.8g", s->p95);
  fl_yaml_key_num(y, "max", "%.8g", s->max);
  fl_yaml_map_end(y);
}

/* The specimens left out of the population, each with its status and reason. */
static void left_out(fl_yaml_out *y, const fl_campaign *c, const fl_campaign_result *res)
{
  fl_yaml_str(y, "left_out");
  fl_yaml_seq_begin(y, 0);
  for (int i = 0; i < c->nspec; i++) {
    if (res[i].status == FL_CAL_CONVERGED)
      continue;
    fl_yaml_map_begin(y, 0);
    fl_yaml_key_int(y, "row", c->spec[i].row);
    fl_yaml_key_str(y, "id", c->spec[i].id);
    fl_yaml_key_str(y, "status", status_names[res[i].status]);
    fl_yaml_key_str(y, "message", res[i].message);
    fl_yaml_map_end(y);
  }
  fl_yaml_seq_end(y);
}

static int write_population(FILE *f, const fl_campaign *c, const fl_campaign_result *res, const fl_population *p)
{
  int np = c->nfree;
  fl_yaml_out *y = fl_yaml_out_open(f);
  fl_yaml_comment(y, "Population of the campaign %s (fiberlab %s): the fitted values of the converged specimens.",
                  c->file, PACKAGE_VERSION);
  fl_yaml_comment(y, "centre: the median of the logarithms taken back; sd with n - 1; cv = sd / |mean|; quantiles "
                  "linear between order statistics.");
  fl_yaml_map_begin(y, 0);
  fl_yaml_key_str(y, "campaign", c->file);
  fl_yaml_key_int(y, "specimens", c->nspec);
  fl_yaml_key_int(y, "used", p->nused);
  left_out(y, c, res);
  fl_yaml_str(y, "parameters");
  fl_yaml_map_begin(y, 0);
  for (int j = 0; j < np; j++)
    stat_block(y, c->free[j].path, &p->param[j]);
  fl_yaml_map_end(y);
  if (c->nmap) {
    fl_yaml_str(y, "specimen_values");
    fl_yaml_map_begin(y, 0);
    for (int j = 0; j < c->nmap; j++)
      stat_block(y, c->map[j].key, &p->mapped[j]);
    fl_yaml_map_end(y);
  }
  fl_yaml_str(y, "correlation");
  fl_yaml_seq_begin(y, 0);
  for (int a = 0; a < np; a++) {
    fl_yaml_seq_begin(y, 1);
    for (int b = 0; b < np; b++)
      fl_yaml_num(y, "%.4f", p->correlation[a * np + b]);
    fl_yaml_seq_end(y);
  }
  fl_yaml_seq_end(y);
  if (p->strength >= 0) {
    fl_yaml_str(y, "strength");
    fl_yaml_map_begin(y, 0);
    fl_yaml_key_int(y, "equally_loaded_bonds", p->strength_bonds);
    fl_yaml_key_num(y, "max_stress", "%.8g", p->strength_sigma);
    fl_yaml_key_num(y, "strength_variation", "%.6g", p->strength_cv);
    fl_yaml_map_end(y);
  }
  fl_yaml_map_end(y);
  return fl_yaml_out_close(&y);
}

static int write_population_experiment(FILE *f, const fl_campaign *c, const fl_population *p)
{
  fl_yaml_out *y = fl_yaml_out_open(f);
  fl_yaml_comment(y, "Population experiment of the campaign %s (fiberlab %s): %d converged specimens of %d.", c->file,
                  PACKAGE_VERSION, p->nused, c->nspec);
  fl_yaml_comment(y, "The experiment %s at the centres (medians of the logarithms) of the specimens' values and "
                  "fitted values, one material:", c->exp_path);
  for (int j = 0; j < c->nmap; j++)
    fl_yaml_comment(y, "%s: centre %.8g, sd %.4g (column %s)", c->map[j].key, p->mapped[j].centre, p->mapped[j].sd,
                    c->map[j].column);
  for (int j = 0; j < c->nfree; j++)
    fl_yaml_comment(y, "%s: centre %.8g, sd %.4g, mean %.8g", c->free[j].path, p->param[j].centre, p->param[j].sd,
                    p->param[j].mean);
  if (p->strength >= 0)
    fl_yaml_comment(y, "bond.failure: max_stress %.8g Pa and strength_variation %.6g give specimens the fitted "
                    "strengths' centre and sd on %ld equally loaded bond%s (fiberlab-campaign(5))", p->strength_sigma,
                    p->strength_cv, p->strength_bonds, p->strength_bonds == 1 ? "" : "s");
  fl_yaml_comment(y, "One section cannot carry the specimens' spread of sections: see the classes and the check in "
                  "the population's sheet and its -population-check.yaml.");
  fl_experiment_emit(y, &p->experiment);
  return fl_yaml_out_close(&y);
}

static int write_curves(FILE *f, const fl_campaign *c, const fl_campaign_result *res)
{
  fprintf(f, "specimen,x,measured,fitted\n");
  for (int i = 0; i < c->nspec; i++)
    for (int k = 0; k < res[i].points; k++)
      fprintf(f, "%d,%.10g,%.10g,%.10g\n", i + 1, res[i].x[k], res[i].measured[k], res[i].fitted[k]);
  return ferror(f) ? FL_EIO : FL_OK;
}

/* gnuplot's terminal line for a page of rows x cols panels of w x h pixels. */
static void terminal(FILE *f, enum fl_plot plot, int cols, int rows, int w, int h)
{
  if (plot == FL_PLOT_SVG)
    fprintf(f, "set terminal svg size %d,%d dynamic enhanced font 'sans,9'\n", w * cols, h * rows);
  else
    fprintf(f, "set terminal pngcairo size %d,%d enhanced font 'sans,9'\n", w * cols, h * rows);
}

static void gp_head(FILE *f, const char *gp, const char *csv, const char *out)
{
  fprintf(f, "# fiberlab %s plot script; rerun with: gnuplot %s\n", PACKAGE_VERSION, gp);
  fprintf(f, "if (!exists(\"fl_csv\")) fl_csv = ");
  fl_gnuplot_quote(f, csv);
  fprintf(f, "\nif (!exists(\"fl_out\")) fl_out = ");
  fl_gnuplot_quote(f, out);
  fprintf(f, "\n");
}

static int write_curves_gp(FILE *f, const fl_campaign *c, const fl_campaign_result *res, enum fl_plot plot,
                           const char *gp, const char *csv, const char *out)
{
  int n = c->nspec, cols = (int)ceil(sqrt((double)n)), rows = (n + cols - 1) / cols;
  const fl_test_type *type = fl_test_type_of(res[0].test);
  const char *xs = type->plot_xscale;
  gp_head(f, gp, csv, out);
  terminal(f, plot, cols, rows, 320, 240);
  fprintf(f, "set output fl_out\nset datafile separator ','\nset grid\nunset key\nset tics font ',7'\n");
  fprintf(f, "set multiplot layout %d,%d title ", rows, cols);
  char title[FL_FIT_PATH + 128];
  const char *b = strrchr(c->file, '/');
  snprintf(title, sizeof title, "%s: measured (grey) and fitted (red), %s against %s", b ? b + 1 : c->file,
           type->y_unit, type->angular ? "deg" : "mm");
  fl_gnuplot_quote(f, title);
  fprintf(f, " noenhanced\n");
  for (int i = 0; i < n; i++) {
    if (res[i].points == 0)
      snprintf(title, sizeof title, "%.40s: not run (left out)", c->spec[i].id);
    else
      snprintf(title, sizeof title, "%.40s: R^2 %.3f%s", c->spec[i].id, res[i].r_squared,
               res[i].status == FL_CAL_CONVERGED ? "" : " (left out)");
    fprintf(f, "set title ");
    fl_gnuplot_quote(f, title);
    fprintf(f, " noenhanced font ',8'\n");
    if (res[i].points == 0) { /* its start could not be run: an empty panel */
      fprintf(f, "plot [0:1][0:1] NaN notitle\n");
      continue;
    }
    fprintf(f, "plot fl_csv using (column(1) == %d ? column(2)*%s : NaN):3 with points pt 7 ps 0.2 lc rgb '#909090', "
               "\\\n     fl_csv using (column(1) == %d ? column(2)*%s : NaN):4 with lines lw 2 lc rgb '#c00000'\n",
            i + 1, xs, i + 1, xs);
  }
  fprintf(f, "unset multiplot\n");
  return ferror(f) ? FL_EIO : FL_OK;
}

/* Each parameter's values over the converged specimens, sorted, with the plotting
 * positions (k - 0.5) / n: the empirical distribution. */
static int write_distribution(FILE *f, const fl_campaign *c, const fl_campaign_result *res, const fl_population *p)
{
  fprintf(f, "parameter,value,probability\n");
  double *v = malloc((size_t)p->nused * sizeof *v);
  if (!v)
    return FL_ENOMEM;
  for (int j = 0; j < c->nfree; j++) {
    for (int k = 0; k < p->nused; k++)
      v[k] = res[p->used[k]].value[j];
    qsort(v, (size_t)p->nused, sizeof *v, cmp_double);
    for (int k = 0; k < p->nused; k++)
      fprintf(f, "%d,%.10g,%.6f\n", j + 1, v[k], (k + 0.5) / p->nused);
  }
  free(v);
  return ferror(f) ? FL_EIO : FL_OK;
}

static int write_distribution_gp(FILE *f, const fl_campaign *c, const fl_population *p, enum fl_plot plot,
                                 const char *gp, const char *csv, const char *out)
{
  int np = c->nfree, cols = np < 3 ? np : 3, rows = (np + cols - 1) / cols;
  gp_head(f, gp, csv, out);
  terminal(f, plot, cols, rows, 480, 360);
  fprintf(f, "set output fl_out\nset datafile separator ','\nset grid\nset key bottom right\n");
  fprintf(f, "set ylabel 'Cumulative probability'\nset yrange [0:1]\n");
  fprintf(f, "set multiplot layout %d,%d title ", rows, cols);
  char title[FL_FIT_PATH + 128];
  snprintf(title, sizeof title, "Fitted values of %d specimens: empirical distribution and the normal of the same "
           "mean and sd", p->nused);
  fl_gnuplot_quote(f, title);
  fprintf(f, " noenhanced\n");
  for (int j = 0; j < np; j++) {
    const fl_population_stat *s = &p->param[j];
    const char *unit = fl_experiment_key_unit(c->free[j].path);
    snprintf(title, sizeof title, "%s%s%s%s", c->free[j].path, unit && *unit ? " (" : "", unit ? unit : "",
             unit && *unit ? ")" : "");
    fprintf(f, "set xlabel ");
    fl_gnuplot_quote(f, title);
    fprintf(f, " noenhanced\nset title 'mean %.4g, sd %.3g, cv %.3g' noenhanced\n", s->mean, s->sd, s->cv);
    fprintf(f, "plot fl_csv using (column(1) == %d ? column(2) : NaN):3 with steps lw 2 lc rgb '#404040' "
               "title 'specimens', \\\n     [%.10g:%.10g] norm((x - %.10g) / %.10g) with lines lw 1 "
               "lc rgb '#c00000' title 'normal'\n",
            j + 1, s->min, s->max, s->mean, s->sd > 0 ? s->sd : 1.0);
  }
  fprintf(f, "unset multiplot\n");
  return ferror(f) ? FL_EIO : FL_OK;
}

/* The check's plot: for each figure the lab's specimens and the drawn ones, each at its
 * plotting position (k - 0.5) / n among its own: two empirical distributions. */
static int write_check_gp(FILE *f, const fl_campaign_result *res, const fl_population *p, enum fl_plot plot,
                          const char *gp, const char *csv, const char *out)
{
  static const char *const label[3] = {"Initial stiffness", "Peak force", "Kink displacement"};
  int torsion = fl_test_type_of(res[p->used[0]].test)->angular;
  const char *unit[3] = {torsion ? "N m/rad" : "N/mm", torsion ? "N m" : "N", torsion ? "deg" : "mm"};
  const char *scale[3] = {torsion ? "1" : "1e-3", "1", torsion ? "180.0/pi" : "1e3"};
  const fl_population_check *k = &p->check;
  gp_head(f, gp, csv, out);
  terminal(f, plot, 3, 1, 480, 400);
  fprintf(f, "set output fl_out\nset datafile separator ','\nset grid\nset key bottom right\n");
  fprintf(f, "set ylabel 'Cumulative probability'\nset yrange [0:1]\n");
  fprintf(f, "set multiplot layout 1,3 title ");
  char title[512];
  snprintf(title, sizeof title, "The population (%d drawn) against the lab (%d measured): %s", k->ndraws, k->nlab,
           k->passed ? "passed" : "failed");
  fl_gnuplot_quote(f, title);
  fprintf(f, " noenhanced\n");
  for (int q = 0; q < 3; q++) {
    snprintf(title, sizeof title, "%s (%s)", label[q], unit[q]);
    fprintf(f, "set xlabel ");
    fl_gnuplot_quote(f, title);
    int c = 5 + 2 * q, any = 0;
    for (int s = 0; s < k->nlab && !any; s++)
      any = isfinite(k->lab[3 * s + q]);
    for (int s = 0; s < k->ndraws && !any; s++)
      any = isfinite(k->pop[3 * s + q]);
    if (!any) { /* no value on either side (no kink in any curve): an empty panel, which says so */
      fprintf(f, " noenhanced\nset title 'KS distance: no values' noenhanced\nset xrange [0:1]\n"
                 "set label 1 'none in the lab or the population' at graph 0.5, 0.5 center\n"
                 "plot 2 notitle\nunset label 1\nset autoscale x\n");
      continue;
    }
    fprintf(f, " noenhanced\nset title 'KS distance %.3f' noenhanced\n", k->q[q].ks);
    fprintf(f, "plot fl_csv using (strcol(1) eq 'population' ? column(%d)*%s : NaN):%d with points pt 7 ps 0.4 "
               "lc rgb '#c00000' title 'population', \\\n     fl_csv using (strcol(1) eq 'lab' ? column(%d)*%s : NaN):%d "
               "with points pt 6 ps 1.2 lw 2 lc rgb '#202020' title 'lab'\n",
            c, scale[q], c + 1, c, scale[q], c + 1);
  }
  fprintf(f, "unset multiplot\n");
  return ferror(f) ? FL_EIO : FL_OK;
}

/* ---- writing them all ---------------------------------------------------------------- */

enum { F_SPEC, F_POP, F_EXP, F_SHEET_TXT, F_SHEET_CSV, F_CHECK, F_CHECK_CSV, F_CHECK_GP, F_CURVES, F_CURVES_GP, F_DIST,
       F_DIST_GP, F_PLOTS };
/* the plots' places in the output set, after the files above */
enum { F_CURVES_PLOT = F_PLOTS, F_DIST_PLOT, F_CHECK_PLOT, F_ALL };

/* Every report file for prefix, in the order of the enums above. */
static int report_files(const char *prefix, enum fl_plot plot, fl_outset *s)
{
  static const char *const suffix[] = {"-specimens.csv", "-population.yaml", "-population-experiment.yaml",
                                       "-population-experiment-dem.txt", "-population-experiment-dem.csv",
                                       "-population-check.yaml", "-population-check.csv", "-population-check.gp",
                                       "-curves.csv", "-curves.gp", "-parameters.csv", "-parameters.gp"};
  static const char *const what[] = {"specimens", "population", "experiment", "dem_sheet", "dem_sheet_csv",
                                     "check_yaml", "check_csv", "check_gp", "curves_csv", "curves_gp", "parameters_csv",
                                     "parameters_gp"};
  static const char *const plots[] = {"-curves", "-parameters", "-population-check"};
  const char *ext = plot == FL_PLOT_SVG ? ".svg" : ".png";
  char name[48];
  fl_outset_init(s, prefix);
  for (int k = 0; k < F_PLOTS; k++)
    if (fl_outset_add(s, suffix[k], what[k]) < 0)
      goto nomem;
  for (int g = 0; g < F_ALL - F_PLOTS; g++) {
    snprintf(name, sizeof name, "%s%s", plots[g], ext);
    if (fl_outset_add(s, name, "plots") < 0)
      goto nomem;
  }
  return FL_OK;
nomem:
  fl_outset_free(s);
  return FL_ENOMEM;
}

int fl_campaign_prepare(const char *prefix, enum fl_plot plot, int nspec, char *err, size_t errlen)
{
  fl_outset s;
  if (report_files(prefix, plot, &s))
    return FL_ENOMEM;
  int rc = fl_outset_prepare(&s, err, errlen);
  fl_outset_free(&s);
  char ck[FL_FIT_PATH + 64];
  for (int i = 0; rc == FL_OK && i < nspec; i++) {
    fl_campaign_checkpoint_path(prefix, i, ck, sizeof ck);
    rc = fl_output_check_one(ck, err, errlen);
  }
  return rc;
}

/* Report file k of the campaign into f. */
static int write_report(FILE *f, int k, const fl_campaign *c, const fl_campaign_result *res, const fl_population *p,
                        const fl_campaign_output *o, const fl_outset *s)
{
  switch (k) {
  case F_SPEC:
    return write_specimens(f, c, res, o);
  case F_POP:
    return write_population(f, c, res, p);
  case F_EXP:
    return write_population_experiment(f, c, p);
  case F_SHEET_TXT:
  case F_SHEET_CSV: {
    fl_dem_sheet *sh = malloc(sizeof *sh);
    int rc = sh ? fl_population_sheet(c, res, p, sh) : FL_ENOMEM;
    if (!rc)
      rc = k == F_SHEET_TXT ? fl_dem_sheet_write_text(f, sh, s->file[F_EXP].final) : fl_dem_sheet_write_csv(f, sh);
    free(sh);
    return rc;
  }
  case F_CHECK:
    return fl_population_check_yaml(f, c, res, p);
  case F_CHECK_CSV:
    return fl_population_check_csv(f, c, res, p);
  case F_CHECK_GP:
    return write_check_gp(f, res, p, o->plot, s->file[k].final, s->file[F_CHECK_CSV].final, s->file[F_CHECK_PLOT].final);
  case F_CURVES:
    return write_curves(f, c, res);
  case F_CURVES_GP:
    return write_curves_gp(f, c, res, o->plot, s->file[k].final, s->file[F_CURVES].final, s->file[F_CURVES_PLOT].final);
  case F_DIST:
    return write_distribution(f, c, res, p);
  default: /* F_DIST_GP */
    return write_distribution_gp(f, c, p, o->plot, s->file[k].final, s->file[F_DIST].final, s->file[F_DIST_PLOT].final);
  }
}

int fl_campaign_write(const fl_campaign *c, const fl_campaign_result *res, const fl_population *p,
                      const fl_campaign_output *o, fl_campaign_paths *paths, char *err, size_t errlen)
{
  int do_plot;
  memset(paths, 0, sizeof *paths);
  fl_outset s;
  int rc = fl_gnuplot_wanted(o->plot, o->plot_required, &do_plot, err, errlen);
  if (rc || (rc = report_files(o->prefix, o->plot, &s)))
    return rc;
  if ((rc = fl_outset_check(&s, err, errlen)))
    goto done;
  for (int k = 0; k < F_PLOTS; k++) {
    paths->what[k] = s.file[k].what;
    if (!p && (k == F_POP || k == F_EXP || k == F_SHEET_TXT || k == F_SHEET_CSV || k == F_CHECK || k == F_DIST ||
               k == F_DIST_GP))
      continue;
    if ((!p || !p->check.run) && (k == F_CHECK_CSV || k == F_CHECK_GP))
      continue;
    FILE *f = fl_outset_open(&s, k);
    if (!f) {
      snprintf(err, errlen, "cannot write %s: %s", s.file[k].final, strerror(errno));
      rc = FL_EIO;
      goto done;
    }
    rc = write_report(f, k, c, res, p, o, &s);
    if (fclose(f) || rc) {
      snprintf(err, errlen, "cannot write %s: %s", s.file[k].final, rc == FL_ENOMEM ? "out of memory" : strerror(errno));
      rc = rc ? rc : FL_EIO;
      goto done;
    }
  }
  for (int g = 0; do_plot && g < F_ALL - F_PLOTS; g++) {
    static const int gps[] = {F_CURVES_GP, F_DIST_GP, F_CHECK_GP}, csvs[] = {F_CURVES, F_DIST, F_CHECK_CSV};
    int gp = gps[g], csv = csvs[g];
    if (!s.file[gp].tmp)
      continue;
    const char *tplot = fl_outset_reserve(&s, F_PLOTS + g);
    if (!tplot) {
      snprintf(err, errlen, "cannot write %s: %s", s.file[F_PLOTS + g].final, strerror(errno));
      rc = FL_EIO;
      goto done;
    }
    if ((rc = fl_gnuplot_run(s.file[gp].tmp, s.file[csv].tmp, tplot, err, errlen)))
      goto done;
  }
  /* the names of what will be renamed, for the summary (the prefix's length was
   * checked by fl_campaign_prepare, so none is cut) */
  size_t used = 0;
  for (int k = 0; k < F_ALL; k++) {
    if (!s.file[k].tmp)
      continue;
    if (k < F_PLOTS)
      snprintf(paths->path[k], sizeof paths->path[k], "%s", s.file[k].final);
    else
      used += (size_t)snprintf(paths->path[F_PLOTS] + used, sizeof paths->path[F_PLOTS] - used, "%s%s",
                               used ? " " : "", s.file[k].final);
  }
  paths->what[F_PLOTS] = "plots";
  rc = fl_outset_commit(&s, err, errlen);
done:
  fl_outset_free(&s);
  return rc;
}

int fl_campaign_summary(FILE *out, const fl_campaign *c, const fl_campaign_result *res, const fl_population *p,
                        const fl_campaign_paths *paths, double wall_time)
{
  fl_yaml_out *y = fl_yaml_out_open(out);
  int conv = 0, retried = 0, rescued = 0, fell = 0, held = 0;
  long sims = 0;
  for (int i = 0; i < c->nspec; i++) {
    for (int j = 0; j < c->nfree; j++)
      held += res[i].status == FL_CAL_CONVERGED && res[i].held[j];
    conv += res[i].status == FL_CAL_CONVERGED;
    sims += res[i].simulations;
    retried += res[i].retries > 0;
    rescued += res[i].retried_from > 0;
    fell += res[i].fallbacks > 0;
  }
  fl_yaml_map_begin(y, 0);
  fl_yaml_key_str(y, "test", "campaign");
  fl_yaml_key_str(y, "campaign", c->file);
  fl_yaml_key_int(y, "specimens", c->nspec);
  fl_yaml_key_int(y, "converged", conv);
  if (retried) {
    fl_yaml_str(y, "retried");
    fl_yaml_map_begin(y, 1);
    fl_yaml_key_int(y, "rows", retried);
    fl_yaml_key_int(y, "converged", rescued);
    fl_yaml_map_end(y);
  }
  if (held) /* values held without influence (fiber-calibrate(1), HELD PARAMETERS) */
    fl_yaml_key_int(y, "held_values", held);
  fl_yaml_key_int(y, "simulations", sims);
  if (fell) /* rows whose fit ran the explicit engine where the static solver found no equilibrium */
    fl_yaml_key_int(y, "fallback_rows", fell);
  fl_yaml_key_num(y, "wall_time", "%.3f", wall_time);
  left_out(y, c, res);
  if (p) {
    fl_yaml_str(y, "means");
    fl_yaml_map_begin(y, 0);
    for (int j = 0; j < c->nfree; j++) {
      fl_yaml_str(y, c->free[j].path);
      fl_yaml_map_begin(y, 1);
      fl_yaml_key_num(y, "mean", "%.8g", p->param[j].mean);
      fl_yaml_key_num(y, "sd", "%.4g", p->param[j].sd);
      fl_yaml_key_num(y, "centre", "%.8g", p->param[j].centre);
      fl_yaml_map_end(y);
    }
    fl_yaml_map_end(y);
    fl_population_check_summary(y, res, p);
  }
  for (int k = 0; k < FL_CAMPAIGN_FILES; k++)
    if (paths->what[k])
      fl_yaml_key_str_or_null(y, paths->what[k], paths->path[k]);
  fl_yaml_map_end(y);
  return fl_yaml_out_close(&y);
}
