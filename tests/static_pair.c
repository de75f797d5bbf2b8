/* static_pair.c: one experiment on the static solver two ways.
 * Usage: static_pair planar|colours FILE.yaml...  One TAP line a file; exit 1 if any fails.
 *
 * planar: the planar reduction (fiberlab-model(7), THE STATIC SOLVER, Tangent).  Each
 * file runs as it comes, where a planar problem is solved for x, y and the turn about z
 * only, and with all six unknowns of every body (FL_RUN_CHECK_ALL_UNKNOWNS).  The two
 * curves are the same: at every row the two measured loads within 1e-6 of the curve's
 * largest, the abscissae within 1e-6 of the largest.  Both are equilibria to 1e-9 of the
 * load scale; what may differ is where Newton stops inside that tolerance.  A torsion
 * test is not planar and says so (6 unknowns both times).
 *
 * colours: the tangent by colours.  Each column of a tangent by differences moves every
 * third free body; about a trial's state, whose bonds' loads the rows still hold, the
 * column evaluates again only the bonds those bodies join (src/static/newton.c,
 * fl_loads_pass_some in src/loads.c).  Each file runs that way and with every bond
 * evaluated for every column (FL_RUN_CHECK_FULL_TANGENT): the same rows to the bit,
 * every column of the curve, and the same Newton iterations and tangents. */
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
    fprintf(stderr, "static_pair: %s\n", err);
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

/* 1 when a and b hold the same rows to the bit. */
static int same_rows(const fl_curve *a, const fl_curve *b)
{
  size_t n = (size_t)a->nspec * (size_t)a->npoints, d = n * sizeof(double), k = n * sizeof(int);
  return a->nspec == b->nspec && a->npoints == b->npoints && !memcmp(a->time, b->time, d) && !memcmp(a->x, b->x, d) &&
         !memcmp(a->y, b->y, d) && !memcmp(a->support, b->support, d) && !memcmp(a->midspan, b->midspan, d) &&
         !memcmp(a->kinetic, b->kinetic, d) && !memcmp(a->strain, b->strain, d) && !memcmp(a->broken, b->broken, k) &&
         !memcmp(a->yielded, b->yielded, k);
}

/* planar: the reduced run (c, r) against the run of six unknowns (c6, r6) of e. */
static int planar(const fl_experiment *e, const fl_curve *c, const fl_result *r, const fl_curve *c6,
                  const fl_result *r6, char *line, size_t len)
{
  int want = e->test.kind == FL_TEST_TORSION ? 6 : 3;
  double dx, dy;
  differences(c, c6, &dx, &dy);
  snprintf(line, len, "unknowns %d and %d (want %d and 6), largest differences (abscissa, load) %.3g %.3g",
           r->unknowns_per_body, r6->unknowns_per_body, want, dx, dy);
  return r->unknowns_per_body == want && r6->unknowns_per_body == 6 && dx >= 0.0 && dx <= 1e-6 && dy >= 0.0 &&
         dy <= 1e-6;
}

/* colours: the run by colours (c, r) against the one of full columns (cf, rf). */
static int colours(const fl_curve *c, const fl_result *r, const fl_curve *cf, const fl_result *rf, char *line,
                   size_t len)
{
  int same = same_rows(c, cf);
  snprintf(line, len, "%d rows the same to the bit: %s; Newton iterations %ld and %ld, tangents %ld and %ld",
           c->npoints, same ? "yes" : "no", r->newton_iterations, rf->newton_iterations, r->tangents, rf->tangents);
  return same && r->newton_iterations == rf->newton_iterations && r->tangents == rf->tangents && r->tangents > 0;
}

int main(int argc, char **argv)
{
  int mode = argc > 1 ? (!strcmp(argv[1], "planar") ? 1 : !strcmp(argv[1], "colours") ? 2 : 0) : 0;
  if (!mode) {
    fprintf(stderr, "usage: static_pair planar|colours FILE.yaml...\n");
    return 2;
  }
  int failed = 0;
  for (int a = 2; a < argc; a++) {
    const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
    fl_experiment e = fl_experiment_default();
    char err[2048], line[512];
    fl_curve c1, c2;
    fl_result r1, r2;
    if (fl_experiment_load(argv[a], &e, err, sizeof err) || fl_experiment_finish(&e, argv[a], err, sizeof err)) {
      fprintf(stderr, "static_pair: %s\n", err);
      printf("not ok %d - %s loads\n", a - 1, name);
      failed++;
      continue;
    }
    e.sim.solver = FL_SOLVER_STATIC;
    if (run(&e, 0, &c1, &r1) ||
        run(&e, mode == 1 ? FL_RUN_CHECK_ALL_UNKNOWNS : FL_RUN_CHECK_FULL_TANGENT, &c2, &r2)) {
      printf("not ok %d - %s: both runs end\n", a - 1, name);
      failed++;
      continue;
    }
    int ok = mode == 1 ? planar(&e, &c1, &r1, &c2, &r2, line, sizeof line)
                       : colours(&c1, &r1, &c2, &r2, line, sizeof line);
    printf("%s %d - %s: %s\n", ok ? "ok" : "not ok", a - 1, name, line);
    failed += !ok;
    fl_curve_free(&c1);
    fl_curve_free(&c2);
    fl_result_free(&r1);
    fl_result_free(&r2);
  }
  printf("1..%d\n", argc - 2);
  return failed ? 1 : 0;
}
