/* fit/report.c: a calibration's report: the files it writes as one set (the calibrated
 * experiment, the curves CSV, the gnuplot script and its plot, the DEM sheet), checked
 * before the fit (fl_calibration_prepare), the summary on stdout, and the warnings. */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dem_sheet.h"
#include "sheet.h"
#include "files.h"
#include "fit.h"
#include "fl_defs.h"
#include "output.h" /* gnuplot */
#include "param.h"
#include "test_kind.h"
#include "ring_report.h"
#include "yaml_emit.h"

int fl_calibration_warnings(const fl_fit *fit, const fl_calibration *cal, char *buf, size_t len)
{
  int n = 0;
  size_t used = 0;
  buf[0] = '\0';
  for (int j = 0; j < cal->nfree && used < len; j++) {
    const fl_fit_param *fp = &fit->free[j];
    double fr = fl_param_frac(fp, cal->value[j]);
    if (!(fr < FL_PARAM_BOUND_FRAC || fr > 1.0 - FL_PARAM_BOUND_FRAC))
      continue;
    used += (size_t)snprintf(buf + used, len - used,
                             "%s%s:%u:%u: free.%s: the fitted value %g is at its bound %s = %g: the fit is held "
                             "there, not determined by the data (widen the bounds, or check the data and units)",
                             n ? "\n" : "", fit->file, fp->line, fp->col, fp->path, cal->value[j],
                             fr < 0.5 ? "min" : "max", fr < 0.5 ? fp->min : fp->max);
    n++;
  }
  /* a drop the fit lost: its status may say converged, with the kink nowhere */
  const fl_calibration_features *ft = &cal->features;
  if (ft->item >= 0 && !ft->fitted_found && !cal->interrupted && used < len) {
    const fl_fit_data *it = &fit->data[ft->item];
    used += (size_t)snprintf(buf + used, len - used,
                             "%s%s: data[%d] (%s): the measured curve drops after its peak at %g %s, the fitted one "
                             "has no drop in the fitted range: the buckling envelope's kink is not where the data "
                             "have it, whatever the status says", n ? "\n" : "", fit->file, ft->item + 1, it->file,
                             ft->measured[0] / it->x_unit_si, it->x_unit);
    n++;
  }
  if (used < len)
    fl_ring_warnings(fit, cal, buf + used, len - used, &n);
  return n;
}

static int write_csv(FILE *f, const fl_calibration *cal, const fl_calibration_output *o)
{
  fprintf(f, "# fiberlab %s: %s\n", PACKAGE_VERSION, o->command ? o->command : "fiber-calibrate");
  fprintf(f, "curve,x,measured,fitted\n");
  for (int d = 0; d < cal->ncurves; d++) {
    const fl_calibration_curve *c = &cal->curve[d];
    for (int i = 0; i < c->points; i++)
      fprintf(f, "%d,%.10g,%.10g,%.10g\n", d + 1, c->x[i], c->measured[i], c->fitted[i]);
  }
  return ferror(f) ? FL_EIO : FL_OK;
}

/* The last component of a path: plot titles stay short whatever the folders. */
static const char *base_name(const char *path)
{
  const char *b = strrchr(path, '/');
  return b && b[1] ? b + 1 : path;
}

static int write_gp(FILE *f, const fl_fit *fit, const fl_calibration *cal, const fl_calibration_output *o,
                    const fl_calibration_paths *p)
{
  /* a ring-down takes two panels, a row each where it is the only item, and wider ones:
   * its record is many periods long */
  int nd = fit->ndata, nring = 0;
  for (int d = 0; d < nd; d++)
    nring += fit->data[d].kind == FL_FIT_RINGDOWN;
  int panels = nd + nring, cols = panels <= 1 || (nd == 1 && nring) ? 1 : panels <= 4 ? 2 : 3;
  int rows = (panels + cols - 1) / cols, width = nring ? 1000 : 600;
  fprintf(f, "# fiberlab %s plot script; rerun with: gnuplot %s\n", PACKAGE_VERSION, p->gp);
  fprintf(f, "if (!exists(\"fl_csv\")) fl_csv = ");
  fl_gnuplot_quote(f, p->csv);
  fprintf(f, "\nif (!exists(\"fl_out\")) fl_out = ");
  fl_gnuplot_quote(f, p->plot);
  fprintf(f, "\n");
  if (o->plot == FL_PLOT_SVG)
    fprintf(f, "set terminal svg size %d,%d dynamic enhanced font 'sans,12'\n", width * cols, 450 * rows);
  else
    fprintf(f, "set terminal pngcairo size %d,%d enhanced font 'sans,11'\n", width * cols, 450 * rows);
  fprintf(f, "set output fl_out\nset datafile separator ','\nset grid\nset key top left\n");
  fprintf(f, "set multiplot layout %d,%d title ", rows, cols);
  char title[FL_FIT_PATH + 64];
  snprintf(title, sizeof title, "fiber-calibrate %s: R^2 = %.4f", base_name(fit->file), cal->r_squared);
  fl_gnuplot_quote(f, title);
  fprintf(f, " noenhanced\n");
  int any_auto = 0;
  for (int d = 0; d < nd; d++)
    any_auto |= fit->data[d].x_max_auto;
  for (int d = 0; d < nd; d++) {
    const fl_fit_data *it = &fit->data[d];
    const char *xl, *yl, *xs;
    if (it->kind == FL_FIT_RINGDOWN) {
      if (fl_ring_panels(f, fit, cal, d, base_name(it->file)))
        return FL_EIO;
      continue;
    }
    const fl_test_type *type = fl_test_type_of(it->test);
    if (it->kind == FL_FIT_PEAKS) {
      xl = "Cumulative probability";
      yl = type->angular ? "Peak torque (N m)" : "Peak force (N)";
      xs = "1";
    } else { /* the curve as the test's own plot draws it */
      xl = type->plot_x;
      yl = type->plot_y;
      xs = type->plot_xscale;
    }
    snprintf(title, sizeof title, "%d: %s (R^2 = %.4f)", d + 1, base_name(it->file), cal->curve[d].r_squared);
    fprintf(f, "set title ");
    fl_gnuplot_quote(f, title);
    fprintf(f, " noenhanced\nset xlabel '%s'\nset ylabel '%s'\n", xl, yl);
    if (it->kind == FL_FIT_CURVE && it->x_max_auto)
      fprintf(f, "set arrow 1 from first %.10g*%s, graph 0 to first %.10g*%s, graph 1 nohead dt 2 lc rgb '#4060c0'\n"
                 "set label 1 'x_max: auto (%s)' at first %.10g*%s, graph 0.06 right offset -0.5,0 tc rgb '#4060c0' "
                 "noenhanced\n", it->x_max, xs, it->x_max, xs, it->auto_dropped ? "first drop" : "highest load",
              it->x_max, xs);
    else if (any_auto)
      fprintf(f, "unset arrow 1\nunset label 1\n");
    fprintf(f, "plot fl_csv using (column(1) == %d ? column(2)*%s : NaN):3 with points pt 7 ps 0.5 "
               "lc rgb '#707070' title '%s', \\\n", d + 1, xs,
            it->kind == FL_FIT_CURVE && it->toe_shift != 0.0 ? "measured, toe corrected" : "measured");
    if (it->kind == FL_FIT_CURVE && it->toe_shift != 0.0)
      fprintf(f, "     fl_csv using (column(1) == %d ? (column(2) + %.10g)*%s : NaN):3 with points pt 6 ps 0.5 "
                 "lc rgb '#4060c0' title 'measured, as read (before the toe shift)', \\\n", d + 1, it->toe_shift, xs);
    fprintf(f, "     fl_csv using (column(1) == %d ? column(2)*%s : NaN):4 with lines lw 2 lc rgb '#c00000' "
               "title '%s'\n", d + 1, xs, it->kind == FL_FIT_PEAKS ? "simulated" : "fitted");
  }
  fprintf(f, "unset multiplot\n");
  return ferror(f) ? FL_EIO : FL_OK;
}

/* The calibrated experiment, under its comment lines: the fit file, the status, R^2
 * and the fitted values, then one line per parameter with its value, standard error
 * and the fit's R^2. */
static int write_calibrated(FILE *f, const fl_fit *fit, const fl_calibration *cal)
{
  char *values = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&values, &len);
  if (!m)
    return FL_ENOMEM;
  for (int j = 0; j < fit->nfree; j++)
    fprintf(m, "%s %s = %.10g", j ? "," : "", fit->free[j].path, cal->value[j]);
  if (fclose(m)) {
    free(values);
    return FL_ENOMEM;
  }
  fl_yaml_out *y = fl_yaml_out_open(f);
  fl_yaml_comment(y, "Calibrated by fiber-calibrate (fiberlab %s) from %s: status %s, R^2 = %.6f.", PACKAGE_VERSION,
                  fit->file, cal->status == FL_CAL_CONVERGED ? "converged"
                             : cal->status == FL_CAL_MAX_ITERATIONS ? "max_iterations" : "failed", cal->r_squared);
  fl_yaml_comment(y, "The experiment %s with%s.", fit->exp_path, values);
  for (int j = 0; j < fit->nfree; j++) {
    char se[40];
    if (cal->held[j])
      snprintf(se, sizeof se, "not determined (held: no influence)");
    else if (isnan(cal->std_error[j]))
      snprintf(se, sizeof se, "not determined");
    else
      snprintf(se, sizeof se, "%.4g", cal->std_error[j]);
    fl_yaml_comment(y, "%s: value %.10g, std_error %s, R^2 = %.6f", fit->free[j].path, cal->value[j], se,
                    cal->r_squared);
  }
  fl_experiment_emit(y, &cal->calibrated);
  free(values);
  return fl_yaml_out_close(&y);
}

/* The files of a calibration's report, in the order they are written, and its
 * checkpoint (kept apart: checked, never written by the report). */
enum { CAL_YAML, CAL_CSV, CAL_GP, CAL_DEM_TXT, CAL_DEM_CSV, CAL_PLOT, CAL_CHECKPOINT };

static int calibration_files(const char *prefix, enum fl_plot plot, fl_outset *s)
{
  static const char *const suffix[] = {".yaml", ".csv", ".gp", "-dem.txt", "-dem.csv", NULL, ".checkpoint"};
  fl_outset_init(s, prefix);
  for (int k = 0; k <= CAL_CHECKPOINT; k++)
    if (fl_outset_add(s, k == CAL_PLOT ? (plot == FL_PLOT_SVG ? ".svg" : ".png") : suffix[k], NULL) < 0) {
      fl_outset_free(s);
      return FL_ENOMEM;
    }
  return FL_OK;
}

int fl_calibration_prepare(const char *prefix, enum fl_plot plot, char *err, size_t errlen)
{
  fl_outset s;
  if (calibration_files(prefix, plot, &s))
    return FL_ENOMEM;
  int rc = fl_outset_prepare(&s, err, errlen);
  fl_outset_free(&s);
  return rc;
}

/* One report file written by write to its temporary; FL_EIO with err. */
static int write_one(fl_outset *s, int k, int (*write)(FILE *, const void *), const void *ctx, char *err,
                     size_t errlen)
{
  FILE *f = fl_outset_open(s, k);
  if (!f || write(f, ctx) || fclose(f)) {
    snprintf(err, errlen, "cannot write %s: %s", s->file[k].final, strerror(errno));
    return FL_EIO;
  }
  return FL_OK;
}

/* The report's parts, each as write_one takes it. */
typedef struct {
  const fl_fit *fit;
  const fl_calibration *cal;
  const fl_calibration_output *o;
  const fl_calibration_paths *p;
  const fl_dem_sheet *sheet;
} report;

static int put_calibrated(FILE *f, const void *ctx)
{
  const report *r = ctx;
  return write_calibrated(f, r->fit, r->cal);
}

static int put_csv(FILE *f, const void *ctx)
{
  const report *r = ctx;
  return write_csv(f, r->cal, r->o);
}

static int put_gp(FILE *f, const void *ctx)
{
  const report *r = ctx;
  return write_gp(f, r->fit, r->cal, r->o, r->p);
}

static int put_dem_txt(FILE *f, const void *ctx)
{
  const report *r = ctx;
  return fl_dem_sheet_write_text(f, r->sheet, r->p->yaml);
}

static int put_dem_csv(FILE *f, const void *ctx)
{
  const report *r = ctx;
  return fl_dem_sheet_write_csv(f, r->sheet);
}

int fl_calibration_write(const fl_fit *fit, const fl_calibration *cal, const fl_calibration_output *o,
                         fl_calibration_paths *p, char *err, size_t errlen)
{
  fl_dem_sheet sheet;
  int do_plot;
  fl_outset s;
  int rc = fl_gnuplot_wanted(o->plot, o->plot_required, &do_plot, err, errlen);
  if (rc || (rc = calibration_files(o->prefix, o->plot, &s)))
    return rc;
  if ((rc = fl_outset_check(&s, err, errlen)))
    goto done;
  char *const name[] = {p->yaml, p->csv, p->gp, p->dem_txt, p->dem_csv, p->plot};
  const size_t size[] = {sizeof p->yaml, sizeof p->csv, sizeof p->gp, sizeof p->dem_txt, sizeof p->dem_csv,
                         sizeof p->plot};
  for (int k = 0; k < CAL_CHECKPOINT; k++)
    if (strlen(s.file[k].final) >= size[k]) { /* fl_outset_prepare's limit is below the size */
      snprintf(err, errlen, "the output %.200s... is longer than %zu bytes", s.file[k].final, size[k] - 1);
      rc = FL_EINPUT;
      goto done;
    } else {
      memcpy(name[k], s.file[k].final, strlen(s.file[k].final) + 1);
    }
  fl_calibration_sheet(fit, cal, &sheet);
  report r = {fit, cal, o, p, &sheet};
  if ((rc = write_one(&s, CAL_YAML, put_calibrated, &r, err, errlen)) ||
      (rc = write_one(&s, CAL_CSV, put_csv, &r, err, errlen)) ||
      (rc = write_one(&s, CAL_GP, put_gp, &r, err, errlen)) ||
      (rc = write_one(&s, CAL_DEM_TXT, put_dem_txt, &r, err, errlen)) ||
      (rc = write_one(&s, CAL_DEM_CSV, put_dem_csv, &r, err, errlen)))
    goto done;
  if (do_plot) {
    const char *tplot = fl_outset_reserve(&s, CAL_PLOT);
    if (!tplot) {
      snprintf(err, errlen, "cannot write %s: %s", p->plot, strerror(errno));
      rc = FL_EIO;
      goto done;
    }
    if ((rc = fl_gnuplot_run(s.file[CAL_GP].tmp, s.file[CAL_CSV].tmp, tplot, err, errlen)))
      goto done;
  }
  rc = fl_outset_commit(&s, err, errlen);
  if (!do_plot)
    p->plot[0] = '\0';
done:
  fl_outset_free(&s);
  return rc;
}

/* A curve's x_max: auto (fiberlab-fit(5)): where the range ends, in the file's unit and
 * SI, and the peak it was read from. */
static void summary_auto_range(fl_yaml_out *y, const fl_fit_data *it)
{
  fl_yaml_str(y, "x_max_auto");
  fl_yaml_map_begin(y, 1);
  fl_yaml_key_num(y, "value", "%.6g", it->x_max / it->x_unit_si);
  fl_yaml_key_str(y, "unit", it->x_unit);
  fl_yaml_key_num(y, "si", "%.6g", it->x_max);
  fl_yaml_key_str(y, "from", it->auto_dropped ? "first_drop" : "highest_load");
  fl_yaml_key_num(y, "peak_x", "%.6g", it->auto_peak_x / it->x_unit_si);
  fl_yaml_key_num(y, "peak_load", "%.6g", fabs(it->auto_peak_y));
  fl_yaml_map_end(y);
}

/* The summary's global: block (fiber-calibrate(1)): the design, and per refined
 * candidate where it started, its cost there and after its refinement. */
static void summary_global(fl_yaml_out *y, const fl_fit *fit, const fl_calibration *cal)
{
  const fl_calibration_global *g = &cal->global;
  if (!g->used)
    return;
  fl_yaml_str(y, "global");
  fl_yaml_map_begin(y, 0);
  fl_yaml_key_int(y, "points", g->points);
  fl_yaml_key_int(y, "failed", g->failed);
  fl_yaml_key_int(y, "refined", g->refined);
  fl_yaml_key_int(y, "simulations", g->simulations);
  fl_yaml_key_int(y, "winner", g->winner + 1);
  fl_yaml_str(y, "candidates");
  fl_yaml_seq_begin(y, 0);
  for (int r = 0; r < g->refined; r++) {
    fl_yaml_map_begin(y, 0);
    if (g->design_index[r])
      fl_yaml_key_int(y, "point", g->design_index[r]);
    else
      fl_yaml_key_str(y, "point", "start");
    fl_yaml_key_num(y, "cost", "%.6g", g->cost_start[r]);
    fl_yaml_key_num(y, "refined_cost", "%.6g", g->cost_refined[r]);
    fl_yaml_str(y, "start");
    fl_yaml_map_begin(y, 1);
    for (int j = 0; j < cal->nfree; j++)
      fl_yaml_key_num(y, fit->free[j].path, "%.8g", g->start[r][j]);
    fl_yaml_map_end(y);
    fl_yaml_str(y, "refined");
    fl_yaml_map_begin(y, 1);
    for (int j = 0; j < cal->nfree; j++)
      fl_yaml_key_num(y, fit->free[j].path, "%.8g", g->refined_value[r][j]);
    fl_yaml_map_end(y);
    fl_yaml_map_end(y);
  }
  fl_yaml_seq_end(y);
  fl_yaml_map_end(y);
}

static void features_block(fl_yaml_out *y, const char *key, const double *v, double xs)
{
  fl_yaml_str(y, key);
  fl_yaml_map_begin(y, 1);
  fl_yaml_key_num(y, "peak_displacement", "%.6g", v[0] / xs);
  fl_yaml_key_num(y, "peak_force", "%.6g", v[1]);
  fl_yaml_key_num(y, "plateau_level", "%.6g", v[2]);
  fl_yaml_key_num(y, "plateau_end", "%.6g", v[3] / xs);
  fl_yaml_map_end(y);
}

/* The summary's features: block: where the drop is measured and where the simulated
 * one lands, after the global stage and at the fitted values; displacements in the
 * table's unit, forces in N. */
static void summary_features(fl_yaml_out *y, const fl_fit *fit, const fl_calibration *cal)
{
  const fl_calibration_features *ft = &cal->features;
  if (ft->item < 0)
    return;
  const fl_fit_data *it = &fit->data[ft->item];
  fl_yaml_str(y, "features");
  fl_yaml_map_begin(y, 0);
  fl_yaml_key_str(y, "file", it->file);
  fl_yaml_key_str(y, "unit", it->x_unit);
  features_block(y, "measured", ft->measured, it->x_unit_si);
  if (cal->global.used) {
    if (ft->global_found)
      features_block(y, "global", ft->global, it->x_unit_si);
    else
      fl_yaml_key_null(y, "global");
  }
  if (ft->fitted_found)
    features_block(y, "fitted", ft->fitted, it->x_unit_si);
  else
    fl_yaml_key_null(y, "fitted");
  fl_yaml_map_end(y);
}

int fl_calibration_summary(FILE *out, const fl_fit *fit, const fl_calibration *cal, const fl_calibration_paths *p)
{
  static const char *const names[] = {"converged", "max_iterations", "failed"};
  int np = cal->nfree;
  fl_yaml_out *y = fl_yaml_out_open(out);
  fl_yaml_map_begin(y, 0);
  fl_yaml_key_str(y, "test", "calibrate");
  fl_yaml_key_str(y, "status", names[cal->status]);
  fl_yaml_key_int(y, "iterations", cal->iterations);
  fl_yaml_key_int(y, "simulations", cal->simulations);
  if (cal->fallbacks) /* simulation.solver auto: the static solver's dead ends */
    fl_yaml_key_int(y, "fallbacks", cal->fallbacks);
  fl_yaml_str(y, "parameters");
  fl_yaml_map_begin(y, 0);
  for (int j = 0; j < np; j++) {
    fl_yaml_str(y, fit->free[j].path);
    fl_yaml_map_begin(y, 1);
    fl_yaml_key_num(y, "value", "%.8g", cal->value[j]);
    fl_yaml_key_num(y, "std_error", "%.4g", cal->std_error[j]);
    fl_yaml_key_num(y, "start", "%.8g", cal->start[j]);
    if (cal->held[j]) /* fl_calibrate held it: no influence at the point reached */
      fl_yaml_key_str(y, "held", "no influence on the residuals: held at its value, undetermined");
    fl_yaml_map_end(y);
  }
  fl_yaml_map_end(y);
  /* A strength fitted with strength variation describes specimens of this segment
   * length only (fiberlab-model(7), Strength and segment length): say which. */
  int strength = 0;
  for (int j = 0; j < np; j++)
    strength |= strncmp(fit->free[j].path, "bond.failure.", 13) == 0;
  if (strength) {
    const fl_fiber_def *fb = &fit->exp.fiber;
    double h = fb->length_m / fb->segments;
    fl_yaml_str(y, "strength_calibrated_at");
    fl_yaml_map_begin(y, 0);
    fl_yaml_key_num(y, "segment_length", "%.6g", h);
    for (int d = 0; d < fit->ndata; d++) {
      const fl_test_def *t = &fit->data[d].exp.test;
      if (t->kind == FL_TEST_BEND3PT)
        continue;
      fl_yaml_key_int(y, "equally_loaded_bonds", fl_equally_loaded_bonds(&fit->data[d].exp));
      break;
    }
    fl_yaml_map_end(y);
  }
  fl_yaml_str(y, "correlation");
  fl_yaml_seq_begin(y, 1);
  for (int a = 0; a < np; a++) {
    fl_yaml_seq_begin(y, 1);
    for (int b = 0; b < np; b++)
      fl_yaml_num(y, "%.4f", cal->correlation[a * np + b]);
    fl_yaml_seq_end(y);
  }
  fl_yaml_seq_end(y);
  fl_yaml_str(y, "curves");
  fl_yaml_seq_begin(y, 0);
  for (int d = 0; d < cal->ncurves; d++) {
    fl_yaml_map_begin(y, 1);
    fl_yaml_key_str(y, "file", fit->data[d].file);
    fl_yaml_key_int(y, "points", cal->curve[d].points);
    fl_yaml_key_num(y, "rms", "%.4g", cal->curve[d].rms);
    fl_yaml_key_num(y, "r_squared", "%.6f", cal->curve[d].r_squared);
    if (fit->data[d].kind == FL_FIT_CURVE && fit->data[d].toe_auto) {
      fl_yaml_str(y, "toe_shift");
      fl_yaml_map_begin(y, 1);
      fl_yaml_key_num(y, "value", "%.6g", fit->data[d].toe_shift / fit->data[d].x_unit_si);
      fl_yaml_key_str(y, "unit", fit->data[d].x_unit);
      fl_yaml_key_num(y, "si", "%.6g", fit->data[d].toe_shift);
      fl_yaml_map_end(y);
    }
    if (fit->data[d].kind == FL_FIT_CURVE && fit->data[d].x_max_auto)
      summary_auto_range(y, &fit->data[d]);
    fl_yaml_map_end(y);
  }
  fl_yaml_seq_end(y);
  fl_ring_summary(y, fit, cal);
  fl_yaml_key_num(y, "r_squared", "%.6f", cal->r_squared);
  summary_global(y, fit, cal);
  summary_features(y, fit, cal);
  fl_yaml_key_str(y, "calibrated", p->yaml);
  fl_yaml_key_str(y, "csv", p->csv);
  fl_yaml_key_str_or_null(y, "plot", p->plot);
  fl_yaml_key_str(y, "dem_sheet", p->dem_txt);
  fl_yaml_key_str(y, "dem_sheet_csv", p->dem_csv);
  fl_yaml_map_end(y);
  return fl_yaml_out_close(&y);
}
