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

static const char *x_name(enum fl_test_kind k)
{
  return fl_test_bends(k)         ? "displacement_m"
         : k == FL_TEST_TENSION   ? "elongation_m"
         : k == FL_TEST_TORSION   ? "twist_rad"
         : k == FL_TEST_COMPRESSION ? "shortening_m"
                                  : "tip_displacement_m";
}
static const char *y_name(enum fl_test_kind k) { return k == FL_TEST_TORSION ? "torque_Nm" : "force_N"; }

static int write_csv(FILE *f, const fl_output_opts *o, const fl_curve *c, const fl_result *r)
{
  fprintf(f, "# fiberlab %s: %s\n", PACKAGE_VERSION, o->command);
  /* the third column: the supports' force (bend3pt), the first mode's tip displacement
   * (a cantilever's ring-down), or none */
  int third = fl_test_bends(r->kind) || r->vibration;
  int mid = r->kind == FL_TEST_BEND4PT || r->kind == FL_TEST_COMPRESSION; /* a last column: the midspan deflection */
  fprintf(f, "specimen,time_s,%s,%s,%skinetic_energy_J,strain_energy_J,broken_bonds,yielded_bonds%s\n", x_name(r->kind),
          y_name(r->kind), fl_test_bends(r->kind) ? "support_force_N," : r->vibration ? "first_mode_tip_m," : "",
          r->kind == FL_TEST_BEND4PT ? ",midspan_deflection_m" : mid ? ",midspan_lateral_m" : "");
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

static int write_gp(FILE *f, const fl_output_opts *o, const fl_curve *c, const fl_result *r,
                    const fl_output_paths *p)
{
  const char *xl, *yl, *xs;
  double xscale = r->kind == FL_TEST_TORSION ? 180.0 / FL_PI : 1e3;
  if (fl_test_bends(r->kind)) {
    xl = "Nose displacement (mm)";
    yl = r->kind == FL_TEST_BEND4PT ? "Force on the two noses (N)" : "Force on the nose (N)";
    xs = "1e3";
  } else if (r->kind == FL_TEST_TENSION) {
    xl = "Elongation (mm)";
    yl = "Grip force (N)";
    xs = "1e3";
  } else if (r->kind == FL_TEST_COMPRESSION) {
    xl = "Shortening (mm)";
    yl = "Grip force, compression positive (N)";
    xs = "1e3";
  } else if (r->kind == FL_TEST_CANTILEVER) {
    xl = r->vibration ? "Time (s)" : "Tip displacement (mm)";
    yl = r->vibration ? "Tip displacement (mm)" : "Tip load (N)";
    xs = "1e3";
  } else {
    xl = "Twist (deg)";
    yl = "Grip torque (N m)";
    xs = "180.0/pi";
  }
  fprintf(f, "# fiberlab %s plot script; rerun with: gnuplot %s\n", PACKAGE_VERSION, p->gp);
  fprintf(f, "if (!exists(\"fl_csv\")) fl_csv = ");
  fl_gnuplot_quote(f, p->csv);
  fprintf(f, "\nif (!exists(\"fl_out\")) fl_out = ");
  fl_gnuplot_quote(f, o->plot == FL_PLOT_SVG ? p->plot : p->plot);
  fprintf(f, "\n");
  if (o->plot == FL_PLOT_SVG)
    fprintf(f, "set terminal svg size 900,600 dynamic enhanced font 'sans,12'\n");
  else
    fprintf(f, "set terminal pngcairo size 900,600 enhanced font 'sans,11'\n");
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
  int envelope = r->kind == FL_TEST_BEND3PT && r->buckling && r->spec[0].initial_stiffness > 0.0;
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
  if (r->vibration) { /* the ring-down: tip displacement against time */
    fprintf(f, "plot for [s=0:nspec-1] fl_csv using (column(1) == s ? column(2) : NaN):(column(3)*1e3) "
               "with lines lw 1.5 title (nspec == 1 ? 'fiberlab' : (nspec <= 10 ? sprintf('specimen %%d', s) : ''))\n");
    return ferror(f) ? FL_EIO : FL_OK;
  }
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

int fl_summary_print(FILE *out, const fl_result *r, const fl_output_paths *p)
{
  fl_yaml_out *y = fl_yaml_out_open(out);
  fl_yaml_map_begin(y, 0);
  fl_yaml_key_str(y, "test", fl_test_kind_name(r->kind));
  fl_yaml_key_int(y, "specimens", r->specimens);
  fl_yaml_key_int(y, "segments", r->segments);
  fl_yaml_key_num(y, fl_test_bends(r->kind) ? "span" : r->kind == FL_TEST_CANTILEVER ? "free_length" : r->kind == FL_TEST_COMPRESSION ? "pinned_length" : "gauge_length",
                  "%.8g", r->length);
  fl_yaml_key_num(y, "time_step", "%.6g", r->time_step);
  fl_yaml_key_num(y, "critical_time_step", "%.6g", r->critical_step);
  fl_yaml_key_int(y, "steps", r->steps);
  fl_yaml_key_num(y, "wall_time", "%.3f", r->wall_time);
  fl_yaml_key_num(y, r->kind == FL_TEST_TORSION ? "angular_speed" : "speed", "%.6g", r->speed);
  fl_yaml_key_str(y, "solver", fl_solver_name(r->solver));
  if (r->device) /* the CPU, which runs every solver, goes without saying */
    fl_yaml_key_str(y, "device", "gpu");
  if (r->static_fallback[0])
    fl_yaml_key_str(y, "static_fallback", r->static_fallback);
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
  figure(y, r, "initial_stiffness", offsetof(fl_specimen_result, initial_stiffness));
  const char *peak = r->kind == FL_TEST_TORSION ? "peak_torque" : "peak_force";
  const char *at = fl_test_bends(r->kind)         ? "displacement_at_peak"
                   : r->kind == FL_TEST_TENSION    ? "elongation_at_peak"
                   : r->kind == FL_TEST_CANTILEVER ? "tip_displacement_at_peak"
                   : r->kind == FL_TEST_COMPRESSION ? "shortening_at_peak"
                                                   : "twist_at_peak";
  figure(y, r, peak, offsetof(fl_specimen_result, peak));
  figure(y, r, at, offsetof(fl_specimen_result, x_at_peak));
  if (fl_test_bends(r->kind))
    figure(y, r, "force_at_max_displacement", offsetof(fl_specimen_result, y_at_max_x));
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
  if (r->vibration) {
    figure(y, r, "first_frequency", offsetof(fl_specimen_result, frequency));
    figure(y, r, "logarithmic_decrement", offsetof(fl_specimen_result, log_decrement));
    figure(y, r, "release_displacement", offsetof(fl_specimen_result, release_x));
  }
  fl_yaml_key_str(y, "csv", p->csv);
  fl_yaml_key_str_or_null(y, "plot", p->plot);
  fl_yaml_map_end(y);
  return fl_yaml_out_close(&y);
}
