/* output.c: atomic CSV, gnuplot script and plot output, and the YAML summary. */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "files.h"
#include "fl_defs.h"
#include "output.h"
#include "series.h" /* a ring-down's decay lines */
#include "test_kind.h"
#include "yaml_emit.h"

int fl_gnuplot_available(void)
{
  const char *path = getenv("PATH");
  char buf[4096];
  if (!path)
    return 0;
  while (*path) {
    size_t n = strcspn(path, ":");
    if (n > 0 && n < sizeof buf - 10) {
      snprintf(buf, sizeof buf, "%.*s/gnuplot", (int)n, path);
      if (access(buf, X_OK) == 0)
        return 1;
    }
    path += n;
    if (*path == ':')
      path++;
  }
  return 0;
}

void fl_csv_field(FILE *f, const char *s)
{
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static int write_csv(FILE *f, const fl_output_opts *o, const fl_curve *c, const fl_result *r)
{
  fprintf(f, "# fiberlab %s: %s\n", PACKAGE_VERSION, o->command);
  /* the columns of the test's kind (test_kind.h): its abscissa and load, a third (the
   * supports' force, or a cantilever's ring-down: the first mode's tip displacement)
   * and a last (a midspan deflection), where it has them */
  const fl_test_type *type = fl_test_type_of(r->kind);
  int third = type->csv_support || r->vibration;
  int mid = type->csv_last != NULL;
  fprintf(f, "specimen,time_s,%s,%s,%s%skinetic_energy_J,strain_energy_J,broken_bonds,yielded_bonds%s%s\n",
          type->csv_x, type->csv_y, type->csv_support ? type->csv_support : r->vibration ? "first_mode_tip_m" : "",
          third ? "," : "", mid ? "," : "", mid ? type->csv_last : "");
  for (int s = 0; s < c->nspec; s++)
    for (int p = 0; p < c->npoints; p++) {
      size_t i = (size_t)s * c->npoints + p;
      fprintf(f, "%d,%.10g,%.10g,%.10g,", s, c->time[i], c->x[i], c->y[i]);
      if (third)
        fprintf(f, "%.10g,", c->support[i]);
      fprintf(f, "%.10g,%.10g,%d,%d", c->kinetic[i], c->strain[i], c->broken[i], c->yielded[i]);
      if (mid)
        fprintf(f, ",%.10g", c->midspan[i]);
      fputc('\n', f);
    }
  return ferror(f) ? FL_EIO : FL_OK;
}

/* Print s as a gnuplot single-quoted string. */
void fl_gnuplot_quote(FILE *f, const char *s)
{
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'')
      fputc('\'', f);
    fputc(*s, f);
  }
  fputc('\'', f);
}

int fl_gnuplot_peaks(FILE *f, const char *name, const double *t, const double *x, int n, fl_ringdown *rd,
                     double range[2])
{
  int ok = 0, ne = 0;
  double *te = malloc(((size_t)n + 1) * sizeof *te), *xe = malloc(((size_t)n + 1) * sizeof *xe);
  if (te && xe) {
    ne = fl_ringdown_extremes(t, x, n, te, xe);
    ok = fl_ringdown_fit(te, xe, ne, rd) == FL_OK && rd->frequency > 0.0;
  }
  fprintf(f, "$%s << EOD\n", name);
  for (int k = 0; ok && k < ne; k++) {
    double a = fabs(xe[k] - rd->offset) * 1e3;
    fprintf(f, "%.10g,%.10g\n", te[k], a);
    range[0] = fmin(range[0], a);
    range[1] = fmax(range[1], a);
  }
  fprintf(f, "EOD\n");
  free(te);
  free(xe);
  return ok;
}

void fl_gnuplot_log_axis(FILE *f, const char *label, const double range[2])
{
  fprintf(f, "set logscale y\nset autoscale yfix\nset offsets 0, 0, graph 0.1, graph 0.1\nset ylabel ");
  fl_gnuplot_quote(f, label);
  fprintf(f, "\n");
  /* a log scale within a decade has no ticks of its own: five, evenly on it */
  if (range[1] > range[0] && range[0] > 0.0) {
    fprintf(f, "set ytics (");
    for (int k = 0; k < 5; k++)
      fprintf(f, "%s%.3g", k ? ", " : "", range[0] * pow(range[1] / range[0], k / 4.0));
    fprintf(f, ")\n");
  }
}

/* A ring-down's plot (fiber-cantilever(1), PLOT): above, the tip displacement and its
 * first mode against time; below, on a log scale, specimen 0's peaks about the rest
 * position and their decay lines, the first mode's (the summary's figures) and the
 * tip's, with f and delta written on them. */
static int ring_plot(FILE *f, const fl_curve *c, const fl_result *r)
{
  fl_ringdown first, tip;
  double range[2] = {HUGE_VAL, 0.0};
  int n = c->npoints; /* specimen 0's rows */
  int have_first = fl_gnuplot_peaks(f, "first_peaks", c->time, c->support, n, &first, range);
  int have_tip = fl_gnuplot_peaks(f, "tip_peaks", c->time, c->x, n, &tip, range);
  fprintf(f, "set multiplot layout 2,1\nset key below\n");
  fprintf(f, "plot for [s=0:nspec-1] fl_csv using (column(1) == s ? column(2) : NaN):(column(3)*1e3) "
             "with lines lw 1.5 title (nspec == 1 ? 'tip' : (nspec <= 10 ? sprintf('specimen %%d', s) : '')), \\\n"
             "  fl_csv using (column(1) == 0 ? column(2) : NaN):(column(5)*1e3) with lines lw 1 dt 2 lc rgb 'black' "
             "title 'first mode%s'\n", r->specimens > 1 ? ", specimen 0" : "");
  fprintf(f, "unset title\n");
  fl_gnuplot_log_axis(f, "Peak about the rest position (mm)", range);
  fprintf(f, "plot $tip_peaks using 1:2 with points pt 6 ps 0.6 lc rgb '#2040c0' title 'tip peaks', \\\n"
             "  $first_peaks using 1:2 with points pt 7 ps 0.5 lc rgb '#c00000' title 'first mode peaks'");
  if (have_tip)
    fprintf(f, ", \\\n  exp(%.10g - %.10g*x)*1e3 with lines lw 1.5 lc rgb '#2040c0' title 'tip: f = %.5g Hz, "
               "{/Symbol d} = %.4g'", tip.log_amplitude0, tip.log_decrement * tip.frequency, tip.frequency,
            tip.log_decrement);
  if (have_first) {
    double d = first.log_decrement, b = d * first.frequency;
    fprintf(f, ", \\\n  exp(%.10g - %.10g*x)*1e3 with lines lw 2 lc rgb '#c00000' title 'first mode: f = %.5g Hz, "
               "{/Symbol d} = %.4g, b = %.4g 1/s, {/Symbol z} = %.3g'", first.log_amplitude0, b, first.frequency, d,
            b, d / sqrt(4.0 * FL_PI * FL_PI + d * d));
  }
  fprintf(f, "\nunset multiplot\n");
  return ferror(f) ? FL_EIO : FL_OK;
}

static int write_gp(FILE *f, const fl_output_opts *o, const fl_curve *c, const fl_result *r,
                    const fl_output_paths *p)
{
  const fl_test_type *type = fl_test_type_of(r->kind);
  double xscale = type->xscale;
  const char *xs = type->plot_xscale;
  /* a ring-down plots the tip displacement against time */
  const char *xl = r->vibration ? "Time (s)" : type->plot_x, *yl = r->vibration ? "Tip displacement (mm)" : type->plot_y;
  fprintf(f, "# fiberlab %s plot script; rerun with: gnuplot %s\n", PACKAGE_VERSION, p->gp);
  fprintf(f, "if (!exists(\"fl_csv\")) fl_csv = ");
  fl_gnuplot_quote(f, p->csv);
  fprintf(f, "\nif (!exists(\"fl_out\")) fl_out = ");
  fl_gnuplot_quote(f, o->plot == FL_PLOT_SVG ? p->plot : p->plot);
  fprintf(f, "\n");
  int high = r->vibration ? 900 : 600; /* a ring-down: its trace above its decay */
  if (o->plot == FL_PLOT_SVG)
    fprintf(f, "set terminal svg size 900,%d dynamic enhanced font 'sans,12'\n", high);
  else
    fprintf(f, "set terminal pngcairo size 900,%d enhanced font 'sans,11'\n", high);
  fprintf(f, "set output fl_out\nset datafile separator ','\nset grid\nset key bottom right\n");
  fprintf(f, "set xlabel '%s'\nset ylabel '%s'\n", xl, yl);
  fprintf(f, "set title ");
  fl_gnuplot_quote(f, o->title);
  fprintf(f, " noenhanced\n");
  /* The failure point, per specimen (20 at most): the peak before the break for a
   * specimen that broke, else the first row with a bond at its limit. */
  int marks = 0;
  for (int s = 0; s < r->specimens && marks < 20; s++) {
    const fl_specimen_result *sr = &r->spec[s];
    if (sr->failure_row < 0)
      continue;
    size_t i = (size_t)s * c->npoints + sr->failure_row;
    /* a break or a buckle snaps: mark the peak before it, not the ringing after it */
    int snap = sr->broken > 0 || sr->buckled > 0;
    double mx = snap ? sr->x_at_peak : c->x[i], my = snap ? sr->peak : c->y[i];
    const char *what = sr->broken > 0 ? "break" : sr->buckled > 0 ? "buckling" : "first bond at its limit";
    fprintf(f, "set label %d '%s' at %.10g,%.10g point pt 7 ps 1.2 lc rgb 'red' offset 1,-0.5\n", marks + 1,
            marks > 0 ? "" : what, mx * xscale, my);
    marks++;
  }
  /* bend3pt with buckling: the lab curve the envelope was built from, through its
   * turning points (the peak on the measured initial slope, the minimum, the slope). */
  int envelope = type->envelope && r->buckling && r->spec[0].initial_stiffness > 0.0;
  if (envelope) {
    double xend = 0.0;
    for (int i = 0; i < c->npoints; i++)
      if (c->x[i] > xend)
        xend = c->x[i];
    double up = r->bk_fmax / r->spec[0].initial_stiffness;
    fprintf(f, "$envelope << EOD\n0,0\n%.10g,%.10g\n%.10g,%.10g\n", up * xscale, r->bk_fmax, r->bk_umin * xscale,
            r->bk_fmin);
    if (xend > r->bk_umin) {
      double fe = r->bk_fmin + r->bk_slope * (xend - r->bk_umin);
      fprintf(f, "%.10g,%.10g\n", xend * xscale, fe > 0.0 ? fe : 0.0);
    }
    fprintf(f, "EOD\n");
  }
  fprintf(f, "nspec = %d\n", r->specimens);
  if (r->vibration)
    return ring_plot(f, c, r);
  fprintf(f, "plot for [s=0:nspec-1] fl_csv using (column(1) == s ? column(3)*%s : NaN):4 "
             "with lines lw 2 title (nspec == 1 ? 'fiberlab' : (nspec <= 10 ? sprintf('specimen %%d', s) : ''))%s\n",
          xs, envelope ? ", \\\n  $envelope using 1:2 with linespoints dt 2 lw 1.5 pt 6 lc rgb 'gray30' "
                         "title 'buckling envelope (Fmax, Fmin at umin, slope)'" : "");
  return ferror(f) ? FL_EIO : FL_OK;
}

int fl_gnuplot_run(const char *gp, const char *csv, const char *out, char *msg, size_t msglen)
{
  char expr[8192];
  /* Variables as gnuplot single-quoted strings. */
  size_t n = 0;
  const char *parts[2] = {csv, out};
  const char *names[2] = {"fl_csv", "fl_out"};
  for (int k = 0; k < 2; k++) {
    n += (size_t)snprintf(expr + n, sizeof expr - n, "%s%s='", k ? "; " : "", names[k]);
    for (const char *s = parts[k]; *s && n < sizeof expr - 8; s++) {
      if (*s == '\'')
        expr[n++] = '\'';
      expr[n++] = *s;
    }
    expr[n++] = '\'';
    expr[n] = '\0';
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(msg, msglen, "cannot start gnuplot: %s", strerror(errno));
    return FL_EGNUPLOT;
  }
  if (pid == 0) {
    execlp("gnuplot", "gnuplot", "-e", expr, gp, (char *)NULL);
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      snprintf(msg, msglen, "gnuplot: %s", strerror(errno));
      return FL_EGNUPLOT;
    }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    snprintf(msg, msglen, "gnuplot %s (status %d) while plotting %s",
             WIFEXITED(status) && WEXITSTATUS(status) == 127 ? "could not be run" : "failed",
             WIFEXITED(status) ? WEXITSTATUS(status) : -1, gp);
    return FL_EGNUPLOT;
  }
  return FL_OK;
}

int fl_gnuplot_wanted(enum fl_plot plot, int required, int *make, char *msg, size_t msglen)
{
  *make = plot != FL_PLOT_NONE;
  if (*make && !fl_gnuplot_available()) {
    if (required) {
      snprintf(msg, msglen, "gnuplot not found on PATH; install it, or use --plot none");
      return FL_EGNUPLOT;
    }
    fprintf(stderr, "warning: gnuplot not found on PATH: no plot made (the .gp script is written)\n");
    *make = 0;
  }
  return FL_OK;
}

/* The files of a run's outputs, in the order they are written: the CSV, the gnuplot
 * script, the plot (when one is made) and the partial rows (only on a failure). */
enum { OUT_CSV, OUT_GP, OUT_PLOT, OUT_PARTIAL };

static int output_files(const char *prefix, enum fl_plot plot, fl_outset *s)
{
  fl_outset_init(s, prefix);
  if (fl_outset_add(s, ".csv", "csv") < 0 || fl_outset_add(s, ".gp", "gnuplot") < 0 ||
      fl_outset_add(s, plot == FL_PLOT_SVG ? ".svg" : ".png", "plot") < 0 ||
      fl_outset_add(s, ".partial.csv", NULL) < 0) {
    fl_outset_free(s);
    return FL_ENOMEM;
  }
  return FL_OK;
}

/* name into a path buffer of the summary: never cut (the prefix's length is checked
 * where it is given, fl_output_prepare) */
static int keep_name(char *buf, size_t len, const char *name, char *msg, size_t msglen)
{
  if (strlen(name) < len) {
    memcpy(buf, name, strlen(name) + 1);
    return FL_OK;
  }
  snprintf(msg, msglen, "%.200s...: the output's name is longer than %zu bytes", name, len - 1);
  return FL_EINPUT;
}

int fl_output_prepare(const char *prefix, enum fl_plot plot, char *msg, size_t msglen)
{
  fl_outset s;
  if (output_files(prefix, plot, &s))
    return FL_ENOMEM;
  int rc = fl_outset_prepare(&s, msg, msglen);
  fl_outset_free(&s);
  return rc;
}

int fl_output_write(const fl_output_opts *o, const fl_curve *c, const fl_result *r, fl_output_paths *p,
                    char *msg, size_t msglen)
{
  int do_plot;
  fl_outset s;
  int rc = fl_gnuplot_wanted(o->plot, o->plot_required, &do_plot, msg, msglen);
  if (rc || (rc = output_files(o->prefix, o->plot, &s)))
    return rc;
  if ((rc = fl_outset_check(&s, msg, msglen)) || (rc = keep_name(p->csv, sizeof p->csv, s.file[OUT_CSV].final, msg, msglen)) ||
      (rc = keep_name(p->gp, sizeof p->gp, s.file[OUT_GP].final, msg, msglen)) ||
      (rc = keep_name(p->plot, sizeof p->plot, s.file[OUT_PLOT].final, msg, msglen)))
    goto done;
  FILE *f = fl_outset_open(&s, OUT_CSV);
  if (!f || write_csv(f, o, c, r) || fclose(f)) {
    snprintf(msg, msglen, "cannot write %s: %s", p->csv, strerror(errno));
    rc = FL_EIO;
    goto done;
  }
  f = fl_outset_open(&s, OUT_GP);
  if (!f || write_gp(f, o, c, r, p) || fclose(f)) {
    snprintf(msg, msglen, "cannot write %s: %s", p->gp, strerror(errno));
    rc = FL_EIO;
    goto done;
  }
  if (do_plot) {
    const char *tplot = fl_outset_reserve(&s, OUT_PLOT);
    if (!tplot) {
      snprintf(msg, msglen, "cannot write %s: %s", p->plot, strerror(errno));
      rc = FL_EIO;
      goto done;
    }
    if ((rc = fl_gnuplot_run(s.file[OUT_GP].tmp, s.file[OUT_CSV].tmp, tplot, msg, msglen)))
      goto done;
  }
  rc = fl_outset_commit(&s, msg, msglen);
  if (!do_plot)
    p->plot[0] = '\0';
done:
  fl_outset_free(&s); /* removes the temporaries of a failed write */
  return rc;
}

int fl_output_partial(const fl_output_opts *o, const fl_curve *c, const fl_result *r, char *path, size_t len,
                      char *msg, size_t msglen)
{
  fl_outset s;
  int rc = output_files(o->prefix, FL_PLOT_NONE, &s);
  if (rc)
    return rc;
  if ((rc = keep_name(path, len, s.file[OUT_PARTIAL].final, msg, msglen)) ||
      (rc = fl_outset_check(&s, msg, msglen)))
    goto done;
  FILE *f = fl_outset_open(&s, OUT_PARTIAL);
  if (!f || write_csv(f, o, c, r) || fclose(f)) {
    snprintf(msg, msglen, "cannot write %s: %s", path, strerror(errno));
    rc = FL_EIO;
    goto done;
  }
  rc = fl_outset_commit(&s, msg, msglen);
done:
  fl_outset_free(&s);
  return rc;
}

static void stats(const fl_result *r, size_t off, double *mean, double *sd, double *mn, double *mx)
{
  /* over the specimens where the figure was measured (NAN: not measured) */
  double s = 0, s2 = 0;
  int n = 0;
  *mn = HUGE_VAL;
  *mx = -HUGE_VAL;
  for (int i = 0; i < r->specimens; i++) {
    double v = *(const double *)((const char *)&r->spec[i] + off);
    if (isnan(v))
      continue;
    s += v;
    n++;
    if (v < *mn)
      *mn = v;
    if (v > *mx)
      *mx = v;
  }
  *mean = n ? s / n : NAN;
  for (int i = 0; i < r->specimens; i++) {
    double v = *(const double *)((const char *)&r->spec[i] + off) - *mean;
    if (!isnan(v))
      s2 += v * v;
  }
  *sd = n > 1 ? sqrt(s2 / (n - 1)) : n ? 0.0 : NAN;
  if (!n)
    *mn = *mx = NAN;
}

static void figure(fl_yaml_out *y, const fl_result *r, const char *name, size_t off)
{
  char key[64];
  fl_yaml_key_num(y, name, "%.8g", *(const double *)((const char *)&r->spec[0] + off));
  if (r->specimens > 1) {
    double v[4];
    static const char *const suffix[4] = {"mean", "std", "min", "max"};
    stats(r, off, &v[0], &v[1], &v[2], &v[3]);
    for (int i = 0; i < 4; i++) {
      snprintf(key, sizeof key, "%s_%s", name, suffix[i]);
      fl_yaml_key_num(y, key, "%.8g", v[i]);
    }
  }
}

/* A ring-down's figures (fiber-cantilever(1), SUMMARY): the first mode's frequency,
 * decrement, decay rate and damping ratio, each with its standard error, the tip's own
 * decrement, the release deflection. */
static void ring_summary(fl_yaml_out *y, const fl_result *r)
{
  static const struct {
    const char *name;
    size_t off;
  } fig[] = {
      {"first_frequency", offsetof(fl_specimen_result, frequency)},
      {"first_frequency_std_error", offsetof(fl_specimen_result, frequency_se)},
      {"logarithmic_decrement", offsetof(fl_specimen_result, log_decrement)},
      {"logarithmic_decrement_std_error", offsetof(fl_specimen_result, log_decrement_se)},
      {"decay_rate", offsetof(fl_specimen_result, decay_rate)},
      {"decay_rate_std_error", offsetof(fl_specimen_result, decay_rate_se)},
      {"damping_ratio", offsetof(fl_specimen_result, damping_ratio)},
      {"damping_ratio_std_error", offsetof(fl_specimen_result, damping_ratio_se)},
      {"tip_logarithmic_decrement", offsetof(fl_specimen_result, tip_log_decrement)},
      {"release_displacement", offsetof(fl_specimen_result, release_x)},
  };
  for (size_t k = 0; k < sizeof fig / sizeof fig[0]; k++)
    figure(y, r, fig[k].name, fig[k].off);
}

int fl_summary_print(FILE *out, const fl_result *r, const fl_output_paths *p)
{
  fl_yaml_out *y = fl_yaml_out_open(out);
  const fl_test_type *type = fl_test_type_of(r->kind); /* the names of its figures */
  fl_yaml_map_begin(y, 0);
  fl_yaml_key_str(y, "test", type->name);
  fl_yaml_key_int(y, "specimens", r->specimens);
  fl_yaml_key_int(y, "segments", r->segments);
  fl_yaml_key_num(y, type->key_length, "%.8g", r->length);
  fl_yaml_key_num(y, "time_step", "%.6g", r->time_step);
  fl_yaml_key_num(y, "critical_time_step", "%.6g", r->critical_step);
  fl_yaml_key_int(y, "steps", r->steps);
  fl_yaml_key_num(y, "wall_time", "%.3f", r->wall_time);
  if (!r->vibration) /* a free vibration has no loading speed */
    fl_yaml_key_num(y, type->key_speed, "%.6g", r->speed);
  fl_yaml_key_str(y, "solver", fl_solver_name(r->solver));
  if (r->device) /* the CPU, which runs every solver, goes without saying */
    fl_yaml_key_str(y, "device", "gpu");
  if (r->static_fallback[0])
    fl_yaml_key_str(y, "static_fallback", r->static_fallback);
  if (r->warnings[0])
    fl_yaml_key_str(y, "warnings", r->warnings);
  if (r->solver == FL_SOLVER_STATIC) {
    fl_yaml_key_int(y, "increments", r->increments);
    fl_yaml_key_int(y, "newton_iterations", r->newton_iterations);
    fl_yaml_key_int(y, "tangents", r->tangents);
    fl_yaml_key_int(y, "cutbacks", r->cutbacks);
    fl_yaml_key_int(y, "unknowns_per_body", r->unknowns_per_body);
    fl_yaml_key_int(y, "relaxations", r->relaxations);
    fl_yaml_key_int(y, "events", r->events);
    fl_yaml_key_num(y, "max_residual_force", "%.3g", r->residual_force);
    fl_yaml_key_num(y, "max_residual_torque", "%.3g", r->residual_torque);
    if (r->stability_checks) {
      fl_yaml_key_int(y, "stability_checks", r->stability_checks);
      fl_yaml_key_int(y, "bifurcations", r->bifurcations);
      fl_yaml_key_int(y, "unstable_rows", r->unstable_rows);
      if (r->spec[0].bifurcated) {
        fl_yaml_key_num(y, "bifurcation_load", "%.8g", r->spec[0].bifurcation_y);
        fl_yaml_key_num(y, "bifurcation_at", "%.8g", r->spec[0].bifurcation_x);
      }
    }
    if (r->pinned) {
      fl_yaml_key_int(y, "pinned_motions", r->pinned);
      fl_yaml_key_num(y, "max_pin_force", "%.3g", r->pin_force);
    }
  }
  fl_yaml_key_int(y, "bonds_broken", r->bonds_broken);
  fl_yaml_key_int(y, "bonds_yielded", r->bonds_yielded);
  fl_yaml_key_num(y, "kinetic_to_strain_energy", "%.4g", r->ke_ratio);
  if (!r->vibration) /* nor an initial stiffness: its rows are in time */
    figure(y, r, "initial_stiffness", offsetof(fl_specimen_result, initial_stiffness));
  figure(y, r, type->key_peak, offsetof(fl_specimen_result, peak));
  figure(y, r, type->key_at_peak, offsetof(fl_specimen_result, x_at_peak));
  if (type->key_at_max)
    figure(y, r, type->key_at_max, offsetof(fl_specimen_result, y_at_max_x));
  int separated = 0;
  for (int s = 0; s < r->specimens; s++)
    separated += r->spec[s].separated;
  if (separated) { /* the static solver's separations: the test ended there */
    fl_yaml_key_int(y, "separated", separated);
    for (int s = 0; s < r->specimens; s++)
      if (r->spec[s].separated) {
        fl_yaml_key_num(y, "separated_at", "%.8g", r->spec[s].separated_x);
        break;
      }
  }
  if (r->vibration)
    ring_summary(y, r);
  fl_yaml_key_str(y, "csv", p->csv);
  fl_yaml_key_str_or_null(y, "plot", p->plot);
  fl_yaml_map_end(y);
  return fl_yaml_out_close(&y);
}
