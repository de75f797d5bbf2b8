/* static_planar.c: the static solver's planar reduction (fiberlab-model(7), THE STATIC
 * SOLVER, Tangent).  Usage: static_planar FILE.yaml...  Each file runs on the static
 * solver twice: as it comes, where a planar problem is solved for x, y and the turn
 * about z only, and with all six unknowns of every body (FL_RUN_CHECK_ALL_UNKNOWNS).
 * The two curves are the same: at every row the two measured loads within 1e-6 of the
 * curve's largest, the abscissae within 1e-6 of the largest.  Both are equilibria to
 * 1e-9 of the load scale; what may differ is where Newton stops inside that tolerance.
 * A torsion test is not planar and says so (6 unknowns both times).  One TAP line a
 * file; exit 1 if any fails. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fl_defs.h"
#include "run.h"

/* Run e on the static solver with options; 0 on success, else a message on stderr. */
static int run(const fl_experiment *e, int options, fl_curve *c, fl_result *r)
{
  char err[2048];
  fl_run_hooks hooks = {NULL, NULL, NULL, NULL, 1, 0, NULL, options};
  int rc = fl_run(e, 1, &hooks, c, r, err, sizeof err);
  if (rc)
    fprintf(stderr, "static_planar: %s\n", err);
  return rc;
}

/* The largest differences of the abscissae and the loads of a and b, each over the
 * largest of its column in a; -1 when the rows differ in number or a column is zero. */
static void differences(const fl_curve *a, const fl_curve *b, double *dx, double *dy)
{
  double mx = 0.0, my = 0.0, sx = 0.0, sy = 0.0;
  *dx = *dy = -1.0;
  if (a->npoints != b->npoints)
    return;
  for (int i = 0; i < a->npoints; i++) {
    mx = fmax(mx, fabs(a->x[i] - b->x[i]));
    my = fmax(my, fabs(a->y[i] - b->y[i]));
    sx = fmax(sx, fabs(a->x[i]));
    sy = fmax(sy, fabs(a->y[i]));
  }
  if (sx > 0.0 && sy > 0.0) {
    *dx = mx / sx;
    *dy = my / sy;
  }
}

int main(int argc, char **argv)
{
  int failed = 0;
  for (int a = 1; a < argc; a++) {
    const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
    fl_experiment e = fl_experiment_default();
    char err[2048];
    fl_curve cp, ca;
    fl_result rp, ra;
    if (fl_experiment_load(argv[a], &e, err, sizeof err) || fl_experiment_finish(&e, argv[a], err, sizeof err)) {
      fprintf(stderr, "static_planar: %s\n", err);
      printf("not ok %d - %s loads\n", a, name);
      failed++;
      continue;
    }
    e.sim.solver = FL_SOLVER_STATIC;
    if (run(&e, 0, &cp, &rp) || run(&e, FL_RUN_CHECK_ALL_UNKNOWNS, &ca, &ra)) {
      printf("not ok %d - %s: both runs end\n", a, name);
      failed++;
      continue;
    }
    int want = e.test.kind == FL_TEST_TORSION ? 6 : 3;
    double dx, dy;
    differences(&cp, &ca, &dx, &dy);
    int ok = rp.unknowns_per_body == want && ra.unknowns_per_body == 6 && dx >= 0.0 && dx <= 1e-6 && dy >= 0.0 &&
             dy <= 1e-6;
    printf("%s %d - %s: unknowns %d and %d (want %d and 6), largest differences (abscissa, load) %.3g %.3g\n",
           ok ? "ok" : "not ok", a, name, rp.unknowns_per_body, ra.unknowns_per_body, want, dx, dy);
    failed += !ok;
    fl_curve_free(&cp);
    fl_curve_free(&ca);
    fl_result_free(&rp);
    fl_result_free(&ra);
  }
  printf("1..%d\n", argc - 1);
  return failed ? 1 : 0;
}
