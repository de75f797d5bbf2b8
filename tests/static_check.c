/* static_check.c: the static solver against the explicit engine on the same
 * experiment.  Usage: static_check FILE.yaml...  Each file runs once with each solver;
 * one TAP line per check; exit 1 if any fails.
 *
 * What a slow lab machine records is a path of equilibria, so the explicit curve is
 * compared where it is in equilibrium itself: its rows with little kinetic energy (5 %
 * of the strain energy, the engine's own quasi-static measure, or 1e-6 of the curve's
 * largest strain energy where the specimen is off the nose), after an event also
 * where the ringing has died down (kinetic energy below 1e-3 of the curve's largest
 * strain energy over the row and three rows either side), and for 3-point bending with
 * the nose and support forces in balance (fl_curve_quasi_static's criterion).  Where
 * the curve is steep (the stick of friction when the nose turns back) a displacement
 * within 1e-3 of the path's largest counts as the same.
 * Every static row is compared with the explicit rows in equilibrium on its leg and on
 * its side of the first event, interpolated at its displacement; a static row with no
 * such rows around it (in the ringing after a snap) is not compared.  Where the explicit run's rate bias at the automatic speed
 * is larger than the tolerances (the von Mises tube), the reference runs slower.
 *
 * - the peak (the largest measured load, before any break or buckle) within 1 %;
 * - before the first event, every row within 1 % of the explicit peak;
 * - after an event, every row in equilibrium within 3 % of the explicit peak;
 * - where the unloading leg reaches zero load, the permanent set, within 2 % of it;
 * - the static solver's largest residual at an output row below 1e-8 of the load scale
 *   (force) and of load scale times length (torque);
 * - a batch gives the same curves on 1 and 2 threads (the first file with failure).
 * A check marked TODO (a known shortfall) is reported and not counted; none is now. */
#include <config.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl_defs.h"
#include "run.h"
#include "solver.h"

static int n_checks = 0, n_failed = 0;
static const char *todo = NULL; /* the next check is a known shortfall: reported, not counted */

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
  va_list ap;
  n_checks++;
  if (!ok && !todo)
    n_failed++;
  printf("%s %d - ", ok ? "ok" : "not ok", n_checks);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  if (todo)
    printf(" # TODO %s", todo);
  printf("\n");
  todo = NULL;
  fflush(stdout);
}

/* Leg of each row: a new leg where the displacement turns back. */
static void legs_of(const double *x, int n, int *leg)
{
  int l = 0, dir = 0;
  for (int i = 0; i < n; i++) {
    if (i > 0) {
      double dx = x[i] - x[i - 1];
      int d = dx > 0.0 ? 1 : (dx < 0.0 ? -1 : 0);
      if (d != 0 && dir != 0 && d != dir)
        l++;
      if (d != 0)
        dir = d;
    }
    leg[i] = l;
  }
}

/* Load of a curve's rows tagged l (2 leg + 1 after the first event) at displacement
 * x, interpolated between two consecutive rows; NAN when x lies outside them: nothing
 * bridges a turning point, the event, or more than two rows left out as out of
 * equilibrium. */
static const int *row_of = NULL; /* each kept row's index in the explicit curve */

static double at(const double *x, const double *y, const int *leg, int n, int l, double xq)
{
  for (int i = 1; i < n; i++) {
    if (leg[i] != l || leg[i - 1] != l || (row_of && row_of[i] > row_of[i - 1] + 3))
      continue; /* nor across more than two rows left out */
    double a = x[i - 1], b = x[i];
    if ((xq - a) * (xq - b) <= 0.0)
      return a == b ? y[i] : y[i - 1] + (y[i] - y[i - 1]) * (xq - a) / (b - a);
  }
  return NAN;
}

/* The smallest |y - static(x')| for x' within tube of x on leg l. */
static double deviation(const double *sx, const double *sy, const int *sleg, int sn, int l, double x, double y,
                        double tube)
{
  double best = HUGE_VAL;
  for (int k = -10; k <= 10; k++) {
    double v = at(sx, sy, sleg, sn, l, x + tube * k / 10.0);
    if (!isnan(v) && fabs(v - y) < best)
      best = fabs(v - y);
  }
  return best;
}

/* Displacement where the load of leg l first falls to zero, or NAN. */
static double zero_crossing(const double *x, const double *y, const int *leg, int n, int l, double eps)
{
  for (int i = 1; i < n; i++)
    if (leg[i] == l && y[i - 1] > eps && y[i] <= eps)
      return x[i - 1] + (x[i] - x[i - 1]) * (y[i - 1] - eps) / (y[i - 1] - y[i]);
  return NAN;
}

static char last_err[2048]; /* the last failed run's message */

static int run(const fl_experiment *e, enum fl_solver solver, int nspec, int threads, fl_curve *c, fl_result *r)
{
  fl_experiment x = *e;
  x.sim.solver = solver;
  fl_run_hooks hooks = {NULL, NULL, NULL, NULL, threads, 0, NULL, 0};
  int rc = fl_run(&x, nspec, &hooks, c, r, last_err, sizeof last_err);
  if (rc)
    fprintf(stderr, "static_check: %s solver: %s\n", fl_solver_name(solver), last_err);
  return rc;
}

/* The explicit reference at slow times the automatic speed (slow 1: as the file says). */
static int run_reference(const fl_experiment *e, double slow, fl_curve *c, fl_result *r)
{
  fl_experiment x = *e;
  if (slow != 1.0 && x.test.speed <= 0.0) {
    fl_system sys;
    fl_build_info info;
    if (fl_build(e, 1, &sys, &info))
      return FL_EINPUT;
    fl_system_free(&sys);
    const fl_test_def *t = &e->test;
    double target = t->kind == FL_TEST_BEND3PT ? t->max_displacement_m
                    : t->kind == FL_TEST_TENSION ? t->max_elongation_m : t->max_twist_rad;
    x.test.speed = slow * target / (20.0 * info.first_period); /* run.c's automatic speed, slowed */
  }
  return run(&x, FL_SOLVER_EXPLICIT, 1, 1, c, r);
}

/* A vibration cantilever's ring-down, stepped by the trapezoidal rule on the static
 * solver's equations and by the explicit engine: the first frequency within 2e-4 and
 * the logarithmic decrement within 1e-3 of the explicit ones (the rule's period error
 * at 200 steps a period is 8e-5), and at every row the tip displacement within 1 % of
 * the release deflection (the phase that error accumulates over the ring). */
static void ring_compare(const char *name, const fl_curve *ce, const fl_result *re, const fl_curve *cs,
                         const fl_result *rs)
{
  double fe = re->spec[0].frequency, fs = rs->spec[0].frequency;
  double de = re->spec[0].log_decrement, ds = rs->spec[0].log_decrement;
  check(fe > 0.0 && fabs(fs / fe - 1.0) <= 2e-4, "%s: ring-down frequency %.8g Hz (static) against %.8g Hz (explicit), %+.2e",
        name, fs, fe, fs / fe - 1.0);
  check(de > 0.0 && fabs(ds / de - 1.0) <= 1e-3, "%s: ring-down decrement %.8g (static) against %.8g (explicit), %+.2e",
        name, ds, de, ds / de - 1.0);
  double amp = fabs(re->spec[0].release_x), worst = 0.0;
  int n = ce->npoints < cs->npoints ? ce->npoints : cs->npoints, at = 0;
  for (int i = 0; i < n; i++) {
    double d = fabs(cs->x[i] - ce->x[i]) / amp;
    if (d > worst) {
      worst = d;
      at = i;
    }
  }
  check(n == ce->npoints && n == cs->npoints && amp > 0.0 && worst <= 0.01,
        "%s: %d ring-down rows of each, tip displacement within %.3f %% of the release deflection (1 %%; worst at %.6g s)",
        name, n, 100.0 * worst, cs->time[at]);
}

static void compare(const char *name, const fl_experiment *e, double slow)
{
  fl_curve ce, cs;
  fl_result re, rs;
  if (run(e, FL_SOLVER_STATIC, 1, 1, &cs, &rs)) {
    fl_curve_free(&cs); /* a failed run keeps its rows so far, for PREFIX.partial.csv */
    fl_result_free(&rs);
    /* the known limit (issue #12): a 3-point specimen whose weight is not symmetric,
     * which auto leaves to the explicit engine (fiberlab-experiment(5)) */
    if (fl_solver_auto(e, 0) != FL_SOLVER_STATIC && strstr(last_err, "no equilibrium on the supports under its weight"))
      todo = "the static solver finds no equilibrium on the supports under this specimen's weight; auto takes "
             "explicit";
    check(0, "%s: the static solver runs", name);
    todo = NULL;
    return;
  }
  if (run_reference(e, slow, &ce, &re)) {
    fl_curve_free(&cs);
    fl_result_free(&rs);
    check(0, "%s: the explicit engine runs", name);
    return;
  }
  if (slow != 1.0)
    printf("# %s: the explicit reference at %g times the automatic speed\n", name, slow);
  printf("# %s: explicit %.2f s, %ld steps; static %.3f s, %ld increments, %ld Newton iterations, %ld tangents, "
         "%ld cut-backs, %ld relaxations; speedup %.0f\n",
         name, re.wall_time, re.steps, rs.wall_time, rs.increments, rs.newton_iterations, rs.tangents, rs.cutbacks,
         rs.relaxations, re.wall_time / fmax(rs.wall_time, 1e-6));
  int ne = ce.npoints, ns = cs.npoints;
  int *le = malloc((size_t)ne * sizeof *le), *ls = malloc((size_t)ns * sizeof *ls);
  legs_of(ce.x, ne, le);
  legs_of(cs.x, ns, ls);
  double peak = re.spec[0].peak;
  double top = 0.0;
  for (int i = 0; i < ne; i++)
    top = fmax(top, fabs(ce.x[i]));
  double tube = 1e-3 * top, strain_top = 0.0;
  for (int i = 0; i < ne; i++)
    strain_top = fmax(strain_top, ce.strain[i]);
  check(fabs(rs.spec[0].peak / peak - 1.0) <= 0.01, "%s: peak %.6g (static) against %.6g (explicit), %+.3f %%", name,
        rs.spec[0].peak, peak, 100.0 * (rs.spec[0].peak / peak - 1.0));
  /* the explicit rows in equilibrium, each tagged with its leg and whether it comes
   * after the first event: a static row is compared with the explicit curve of the
   * same leg and the same side of the event, interpolated at its displacement */
  double *kx = malloc((size_t)ne * sizeof *kx), *ky = malloc((size_t)ne * sizeof *ky);
  int *kl = malloc((size_t)ne * sizeof *kl), *ki = malloc((size_t)ne * sizeof *ki), nk = 0;
  for (int i = 0; i < ne; i++) {
    int quiet = ce.kinetic[i] <= 0.05 * ce.strain[i] || (ce.kinetic[i] <= 1e-6 * strain_top && fabs(ce.y[i]) <= 1e-3 * peak);
    if (ce.yielded[i] > 0)
      for (int j = i - 3; j <= i + 3; j++)
        if (j >= 0 && j < ne && ce.kinetic[j] > 1e-3 * strain_top)
          quiet = 0;
    if (e->test.kind == FL_TEST_BEND3PT)
      for (int j = i - 1; j <= i + 1; j++)
        if (j >= 0 && j < ne) {
          double gap = fabs(ce.y[j] - ce.support[j]);
          if (gap > 0.05 * fmax(fabs(ce.y[j]), fabs(ce.support[j])) && gap > 0.01 * peak)
            quiet = 0;
        }
    if (!quiet)
      continue;
    kx[nk] = ce.x[i];
    ky[nk] = ce.y[i];
    kl[nk] = 2 * le[i] + (ce.yielded[i] > 0);
    ki[nk] = i;
    nk++;
  }
  row_of = ki;
  double pre = 0.0, post = 0.0;
  int npre = 0, npost = 0, worst_pre = -1, worst_post = -1;
  for (int i = 0; i < ns; i++) {
    int after = cs.yielded[i] > 0;
    double d = deviation(kx, ky, kl, nk, 2 * ls[i] + after, cs.x[i], cs.y[i], tube) / peak;
    if (d == HUGE_VAL)
      continue; /* no explicit rows in equilibrium around it */
    if (!after) {
      npre++;
      if (d > pre || worst_pre < 0) {
        pre = d;
        worst_pre = i;
      }
    } else {
      npost++;
      if (d > post || worst_post < 0) {
        post = d;
        worst_post = i;
      }
    }
  }
  row_of = NULL;
  free(kx);
  free(ky);
  free(kl);
  free(ki);
  /* a ring-down's rows are in time after the release, their load 0: ring_compare
   * judges them (the peak above is the release's tip load) */
  int ringing = e->test.kind == FL_TEST_CANTILEVER && e->test.mode == FL_MODE_VIBRATION;
  if (ringing)
    npre = npost = 0;
  if (npre > 0)
    check(pre <= 0.01, "%s: %d static rows before the first event within %.3f %% of the peak (1 %%; worst at %.6g)", name,
          npre, 100.0 * pre, worst_pre >= 0 ? cs.x[worst_pre] : 0.0);
  if (npost > 0)
    check(post <= 0.03, "%s: %d static rows after an event within %.3f %% of the peak (3 %%; worst at %.6g)",
          name, npost, 100.0 * post, worst_post >= 0 ? cs.x[worst_post] : 0.0);
  int has_set = e->test.ncycles > 1 &&
                (e->bond.failure.post_failure != FL_POST_TOTAL_BREAKAGE || e->bond.buckling.type == FL_BUCKLING_PLASTIC) &&
                (e->bond.failure.criterion != FL_CRIT_NONE || e->bond.buckling.type == FL_BUCKLING_PLASTIC);
  if (has_set) {
    double xe = zero_crossing(ce.x, ce.y, le, ne, 1, 1e-3 * peak), xs = zero_crossing(cs.x, cs.y, ls, ns, 1, 1e-3 * peak);
    check(!isnan(xe) && !isnan(xs) && fabs(xs / xe - 1.0) <= 0.02,
          "%s: permanent set %.6g (static) against %.6g (explicit), within 2 %%", name, xs, xe);
  }
  check(rs.residual_force <= 1e-8 && rs.residual_torque <= 1e-8,
        "%s: largest residual at an output row %.3g (force) and %.3g (torque) of the load scale, below 1e-8", name,
        rs.residual_force, rs.residual_torque);
  if (ringing)
    ring_compare(name, &ce, &re, &cs, &rs);
  free(le);
  free(ls);
  fl_curve_free(&ce);
  fl_curve_free(&cs);
  fl_result_free(&re);
  fl_result_free(&rs);
}

/* A batch of specimens of different strengths: the same curves on 1 and 2 threads. */
static void batch(const char *name, const fl_experiment *e)
{
  fl_curve c1, c2;
  fl_result r1, r2;
  if (run(e, FL_SOLVER_STATIC, 3, 1, &c1, &r1) || run(e, FL_SOLVER_STATIC, 3, 2, &c2, &r2)) {
    check(0, "%s: a static batch of 3 runs", name);
    return;
  }
  size_t n = (size_t)c1.nspec * c1.npoints;
  check(c1.npoints == c2.npoints && memcmp(c1.y, c2.y, n * sizeof *c1.y) == 0 &&
            memcmp(c1.x, c2.x, n * sizeof *c1.x) == 0,
        "%s: a static batch of 3 gives the same curves on 1 and 2 threads", name);
  fl_curve_free(&c1);
  fl_curve_free(&c2);
  fl_result_free(&r1);
  fl_result_free(&r2);
}

int main(int argc, char **argv)
{
  int batched = 0;
  for (int a = 1; a < argc; a++) {
    fl_experiment e = fl_experiment_default();
    char err[2048];
    const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
    if (fl_experiment_load(argv[a], &e, err, sizeof err) || fl_experiment_finish(&e, argv[a], err, sizeof err)) {
      fprintf(stderr, "static_check: %s\n", err);
      check(0, "%s loads", name);
      continue;
    }
    /* the von Mises tube's curve at the automatic speed carries a rate bias of about
     * 3 % of its peak after the yield (at a quarter of it, under 1 %) */
    compare(name, &e, strstr(name, "torsion-yield") ? 0.25 : 1.0);
    if (!batched && e.bond.failure.strength_variation > 0.0) {
      batch(name, &e);
      batched = 1;
    }
  }
  printf("1..%d\n", n_checks);
  return n_failed ? 1 : 0;
}
