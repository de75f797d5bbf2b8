/* static_bifurcation.c: the static solver on paths that bifurcate (fiberlab-model(7),
 * THE STATIC SOLVER, Stability).  One TAP line a check; exit 1 if any fails.
 *
 * The column of issue #32: 102 mm of a 1 mm rod in 34 segments (32 free between the
 * pins, 96 mm), E 5 GPa, shortened by 4.8 mm, 5 % of its length, with a row spacing that
 * exceeds the shortening at which it buckles (P_E L / (E A), about 6 um) at 11 and 101
 * rows and not at 1001:
 * - with imperfections 1e-2 to 1e-5, at every row the force within 2 % of the chain's
 *   Euler load of the explicit engine's quasi-static curve: its rows in equilibrium
 *   and stable (kinetic energy below 1e-3 of the strain energy, the load not far above
 *   Euler's: quasi_static below) at the automatic speed, with a bond
 *   damping of 3e-5 s that the static solver leaves out (it changes no equilibrium), the
 *   curve at 1001 rows, so that each static row falls on one of its rows (an
 *   interpolation across the knee where the column buckles would miss it by far more),
 *   interpolated between two such rows no more than three rows apart;
 * - no row on an unstable equilibrium, and none found unstable (the summary's count);
 * - the perfect column (no imperfection) bifurcates at the chain's Euler load
 *   4 E I / h^2 sin^2(pi / 2 n) within 2 %, in the plane (2-D) and with all six unknowns
 *   of every body (3-D, where its round section gives two critical modes at once), and
 *   leaves it on the lowest mode: its force at the end as the imperfect column's (a
 *   higher mode carries four times the load or more), and in the plane its bow too;
 * - a straight shaft clamped in torsion, twisted past Greenhill's load, bifurcates at
 *   2.861 pi E I / L (both ends clamped) within 2 %. */
#include <config.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl_defs.h"
#include "run.h"

static int n_checks = 0, n_failed = 0;

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
  va_list ap;
  n_checks++;
  n_failed += !ok;
  printf("%s %d - ", ok ? "ok" : "not ok", n_checks);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

/* A 1 mm rod of 5 GPa, 1000 kg/m^3, of length L in n segments. */
static fl_experiment rod(double length, int segments)
{
  fl_experiment e = fl_experiment_default();
  e.fiber.length_m = length;
  e.fiber.segments = segments;
  e.fiber.outer_radius_m = 0.5e-3;
  e.fiber.density = 1000.0;
  e.fiber.youngs_modulus = 5.0e9;
  e.fiber.shear_modulus = 5.0e9 / (2.0 * (1.0 + e.fiber.poisson_ratio));
  return e;
}

/* The column of issue #32. */
static fl_experiment column(double imperfection, int rows)
{
  fl_experiment e = rod(0.102, 34);
  e.test.kind = FL_TEST_COMPRESSION;
  e.test.max_shortening_m = 4.8e-3;
  e.test.imperfection = imperfection;
  e.sim.output_points = rows;
  return e;
}

static int run(const fl_experiment *e, enum fl_solver solver, int options, fl_curve *c, fl_result *r)
{
  char err[2048];
  fl_experiment x = *e;
  x.sim.solver = solver;
  fl_run_hooks hooks = {NULL, NULL, NULL, NULL, 1, 0, NULL, options};
  int rc = fl_run(&x, 1, &hooks, c, r, err, sizeof err);
  if (rc)
    fprintf(stderr, "static_bifurcation: %s: %s\n", fl_solver_name(solver), err);
  return rc;
}

/* The chain's Euler load of the column e: n bonds of h between the pins. */
static double chain_euler(const fl_experiment *e)
{
  double h = e->fiber.length_m / e->fiber.segments, r = e->fiber.outer_radius_m;
  int n = e->fiber.segments - 2;
  double ei = e->fiber.youngs_modulus * FL_PI * r * r * r * r / 4.0;
  return 4.0 * ei / (h * h) * pow(sin(FL_PI / (2.0 * n)), 2.0);
}

#define DAMPING 3e-5 /* s: the explicit reference's bond damping */

/* The explicit curve's rows in stable equilibrium, interpolated at x; NAN where none
 * bracket it (or the two that do are more than three rows apart).  A row counts when
 * - its kinetic energy is below 1e-3 of its strain energy (at rest);
 * - the bonds' damping carries less than 1 % of its load: their viscous share of a
 *   straight column's force is DAMPING v / x at grip speed v, 3 % at 5 um in the
 *   speed's ramp, where the static rows of 1001 lie;
 * - it carries at most 1.05 times the Euler load pe (stable): a pinned elastica carries
 *   that only with a bow of a fifth of its length, more than this test reaches, while a
 *   nearly straight column loaded faster than its bow grows passes its Euler load by far
 *   (12 times at imperfection 1e-5 at the automatic speed, 3 times at a tenth of it),
 *   resting on the straight, unstable branch until it snaps to the bowed one. */
static double quasi_static(const fl_curve *c, double pe, double x)
{
  int last = -1;
  for (int i = 1; i < c->npoints - 1; i++) {
    double v = (c->x[i + 1] - c->x[i - 1]) / (c->time[i + 1] - c->time[i - 1]);
    if (!(c->kinetic[i] <= 1e-3 * c->strain[i]) || DAMPING * v > 0.01 * c->x[i] || c->y[i] > 1.05 * pe)
      continue;
    if (last >= 0 && i - last <= 3 && (x - c->x[last]) * (x - c->x[i]) <= 0.0)
      return c->x[i] == c->x[last] ? c->y[i]
                                   : c->y[last] + (c->y[i] - c->y[last]) * (x - c->x[last]) / (c->x[i] - c->x[last]);
    last = i;
  }
  return NAN;
}

static void imperfect_columns(void)
{
  static const double imperfection[] = {1e-2, 1e-3, 1e-4, 1e-5};
  static const int rows[] = {11, 101, 1001};
  for (int k = 0; k < 4; k++) {
    fl_experiment e = column(imperfection[k], 1001); /* rows at every static row's abscissa */
    double pe = chain_euler(&e);
    e.bond.damping = DAMPING;
    fl_curve ce;
    fl_result re;
    if (run(&e, FL_SOLVER_EXPLICIT, 0, &ce, &re)) {
      check(0, "column, imperfection %g: the explicit engine runs", imperfection[k]);
      continue;
    }
    for (int j = 0; j < 3; j++) {
      fl_experiment s = column(imperfection[k], rows[j]);
      fl_curve cs;
      fl_result rs;
      if (run(&s, FL_SOLVER_STATIC, 0, &cs, &rs)) {
        check(0, "column, imperfection %g, %d rows: the static solver runs", imperfection[k], rows[j]);
        continue;
      }
      double worst = 0.0, at = 0.0;
      int compared = 0;
      for (int i = 0; i < cs.npoints; i++) {
        double y = quasi_static(&ce, pe, cs.x[i]);
        if (isnan(y))
          continue;
        compared++;
        if (fabs(cs.y[i] - y) > worst) {
          worst = fabs(cs.y[i] - y);
          at = cs.x[i];
        }
      }
      check(cs.npoints == rows[j] && compared >= cs.npoints / 2 && worst <= 0.02 * pe,
            "column, imperfection %g, %d rows: %d rows within %.3f %% of the Euler load of the explicit quasi-static "
            "curve (2 %%; worst at %.4g mm), peak %.6g N, Euler load %.6g N",
            imperfection[k], rows[j], compared, 100.0 * worst / pe, 1e3 * at, rs.spec[0].peak, pe);
      check(rs.stability_checks > 0 && rs.unstable_rows == 0,
            "column, imperfection %g, %d rows: %ld equilibria checked, %d rows unstable", imperfection[k], rows[j],
            rs.stability_checks, rs.unstable_rows);
      fl_curve_free(&cs);
      fl_result_free(&rs);
    }
    fl_curve_free(&ce);
    fl_result_free(&re);
  }
}

/* The perfect column in the plane (options 0) and in space, against the imperfect
 * column's force and bow at the end (f_ref, bow_ref): its bifurcation load, and the mode
 * it leaves on. */
static void perfect_column(int rows, int options, double f_ref, double bow_ref)
{
  const int space = options & FL_RUN_CHECK_ALL_UNKNOWNS;
  const char *dim = space ? "3-D" : "2-D";
  fl_experiment e = column(0.0, rows);
  double pe = chain_euler(&e);
  fl_curve c;
  fl_result r;
  if (run(&e, FL_SOLVER_STATIC, options, &c, &r)) {
    check(0, "perfect column, %s, %d rows: the static solver runs", dim, rows);
    return;
  }
  double f = c.y[c.npoints - 1], bow = fabs(c.midspan[c.npoints - 1]);
  check(r.bifurcations >= 1 && r.spec[0].bifurcated && fabs(r.spec[0].bifurcation_y / pe - 1.0) <= 0.02,
        "perfect column, %s, %d rows: bifurcates at %.6g N, the chain's Euler load %.6g N (%+.3f %%; 2 %%)", dim, rows,
        r.spec[0].bifurcation_y, pe, 100.0 * (r.spec[0].bifurcation_y / pe - 1.0));
  /* in space the round section may bow in any plane: its force tells the mode */
  check(r.unstable_rows == 0 && fabs(f / f_ref - 1.0) <= 0.01 && (space || fabs(bow / bow_ref - 1.0) <= 0.01),
        "perfect column, %s, %d rows: on the lowest mode, its force at the end %.6g N, bow %.4g mm (imperfect "
        "column's %.6g N, %.4g mm; 1 %%), %d rows unstable",
        dim, rows, f, 1e3 * bow, f_ref, 1e3 * bow_ref, r.unstable_rows);
  fl_curve_free(&c);
  fl_result_free(&r);
}

/* A straight 1 mm rod of 100 mm between clamped grips, twisted by 900 degrees. */
static void greenhill(void)
{
  fl_experiment e = rod(0.11, 44);
  e.test.kind = FL_TEST_TORSION;
  e.test.gauge_length_m = 0.1;
  e.test.grip_length_m = 0.005;
  e.test.max_twist_rad = 900.0 * FL_PI / 180.0;
  e.sim.output_points = 101;
  fl_curve c;
  fl_result r;
  if (run(&e, FL_SOLVER_STATIC, 0, &c, &r)) {
    check(0, "Greenhill: the static solver runs");
    return;
  }
  double ei = e.fiber.youngs_modulus * FL_PI * pow(e.fiber.outer_radius_m, 4.0) / 4.0;
  double tg = 2.861 * FL_PI * ei / r.length;
  check(r.bifurcations >= 1 && fabs(r.spec[0].bifurcation_y / tg - 1.0) <= 0.02 && r.unstable_rows == 0,
        "Greenhill: a clamped shaft bifurcates at %.6g N m, 2.861 pi E I / L = %.6g N m (%+.3f %%; 2 %%), %d rows "
        "unstable",
        r.spec[0].bifurcation_y, tg, 100.0 * (r.spec[0].bifurcation_y / tg - 1.0), r.unstable_rows);
  fl_curve_free(&c);
  fl_result_free(&r);
}

int main(void)
{
  imperfect_columns();
  fl_curve c;
  fl_result r;
  fl_experiment e = column(1e-5, 101);
  double f = NAN, bow = NAN;
  if (run(&e, FL_SOLVER_STATIC, 0, &c, &r) == 0) {
    f = c.y[c.npoints - 1];
    bow = fabs(c.midspan[c.npoints - 1]);
    fl_curve_free(&c);
    fl_result_free(&r);
  }
  for (int rows = 11; rows <= 1001; rows = 10 * rows - 9)
    perfect_column(rows, 0, f, bow);
  perfect_column(101, FL_RUN_CHECK_ALL_UNKNOWNS, f, bow);
  greenhill();
  printf("1..%d\n", n_checks);
  return n_failed ? 1 : 0;
}
