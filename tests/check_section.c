/* check_section.c: elliptic sections (fiber.section: ellipse).  The loader turns an
 * ellipse into the round hollow section of the same I_z and area; the chain built from
 * it is that of the round section, but the tools touch it at the semi-axis a and its
 * stresses are taken at the outer fibre a.  The calibrated experiment writes it back
 * by its semi-axes. */
#include <config.h>

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_limits.h"
#include "experiment.h"
#include "fl_defs.h"
#include "run.h"
#include "chain_probe.h"
#include "system.h"

/* Apply KEY=VALUE as an option would, failing the test on an error. */
static void set(fl_experiment *e, const char *assignment)
{
  char err[512];
  int rc = fl_experiment_set(e, assignment, err, sizeof err);
  ck_assert_msg(rc == FL_OK, "%s", err);
}

static void finish(fl_experiment *e)
{
  char err[512];
  int rc = fl_experiment_finish(e, "(test)", err, sizeof err);
  ck_assert_msg(rc == FL_OK, "%s", err);
}

/* A slender specimen over span in n segments of the span, one more at each end,
 * round of radius R (before any section keys are set). */
static fl_experiment bend(int n, double span, double R)
{
  fl_experiment e = fl_experiment_default();
  double h = span / n;
  e.fiber.outer_radius_m = R;
  e.fiber.segments = n + 2;
  e.fiber.length_m = (n + 2) * h;
  e.fiber.density = 1000;
  e.fiber.youngs_modulus = 5e9;
  e.fiber.shear_modulus = 5e9 / 2.6;
  e.fiber.shear_given = 1;
  e.test.kind = FL_TEST_BEND3PT;
  e.test.span_m = span;
  e.test.friction = 0.0;
  e.test.gravity = 0.0;
  e.test.support_radius_m = e.test.nose_radius_m = 2e-3;
  e.bond.damping = 0.05 * h / sqrt(5e9 / 1000.0);
  e.sim.output_points = 200;
  return e;
}

/* The ellipse of semi-axes a (y), b (z) and hollow ai, bi (0: solid) on e. */
static void make_ellipse(fl_experiment *e, double a, double b, double ai, double bi)
{
  char buf[96];
  set(e, "fiber.section=ellipse");
  snprintf(buf, sizeof buf, "fiber.semi_axis_y=%.17g", a);
  set(e, buf);
  snprintf(buf, sizeof buf, "fiber.semi_axis_z=%.17g", b);
  set(e, buf);
  if (ai > 0) {
    snprintf(buf, sizeof buf, "fiber.inner_semi_axis_y=%.17g", ai);
    set(e, buf);
    snprintf(buf, sizeof buf, "fiber.inner_semi_axis_z=%.17g", bi);
    set(e, buf);
  }
  finish(e);
}

static int close_rel(double x, double y, double tol)
{
  return fabs(x - y) <= tol * fmax(fabs(x), fabs(y));
}

/* The equivalent by hand: I_z = pi/4 (a^3 b - ai^3 bi), A = pi (a b - ai bi),
 * R^2 + R'^2 = 4 I / A, R^2 - R'^2 = A / pi. */
static void by_hand(double a, double b, double ai, double bi, double *R, double *Ri)
{
  double I = FL_PI / 4 * (a * a * a * b - ai * ai * ai * bi), A = FL_PI * (a * b - ai * bi);
  *R = sqrt(0.5 * (4 * I / A + A / FL_PI));
  *Ri = sqrt(0.5 * (4 * I / A - A / FL_PI));
}

START_TEST(test_ellipse_builds_the_round_section_of_its_inertia_and_area)
{
  static const double ax[2][4] = {{1.2e-3, 1.0e-3, 0.0, 0.0}, {1.2e-3, 1.1e-3, 0.7e-3, 0.8e-3}};
  for (int c = 0; c < 2; c++) {
    double a = ax[c][0], b = ax[c][1], ai = ax[c][2], bi = ax[c][3], R, Ri;
    by_hand(a, b, ai, bi, &R, &Ri);
    fl_experiment ell = bend(12, 0.04, 1e-3), round = bend(12, 0.04, R);
    make_ellipse(&ell, a, b, ai, bi);
    round.fiber.inner_radius_ratio = Ri / R;
    finish(&round);
    ck_assert(close_rel(ell.fiber.outer_radius_m, R, 1e-12));
    ck_assert(close_rel(ell.fiber.inner_radius_ratio * R, Ri, 1e-12) || (Ri == 0 && ell.fiber.inner_radius_ratio == 0));
    /* the same bodies and bonds; only the radius the tools touch differs */
    fl_system se, sr;
    fl_build_info ie, ir;
    const fl_experiment *pe = &ell, *pr = &round;
    ck_assert_int_eq(fl_build_many(&pe, 1, &se, &ie), FL_OK);
    ck_assert_int_eq(fl_build_many(&pr, 1, &sr, &ir), FL_OK);
    ck_assert(close_rel(ie.section.inertia, FL_PI / 4 * (a * a * a * b - ai * ai * ai * bi), 1e-12));
    ck_assert(close_rel(ie.section.area, FL_PI * (a * b - ai * bi), 1e-12));
    for (int i = 0; i < se.nbody; i++) {
      ck_assert(close_rel(se.mass[i], sr.mass[i], 1e-12));
      ck_assert(close_rel(se.inertia_trans[i], sr.inertia_trans[i], 1e-12));
      ck_assert(close_rel(se.inertia_axial[i], sr.inertia_axial[i], 1e-12));
      ck_assert_double_eq(se.radius[i], a);
      ck_assert_double_eq(sr.radius[i], round.fiber.outer_radius_m);
    }
    for (int k = 0; k < se.nbond; k++) {
      ck_assert(close_rel(se.bond[k].s1.k_bend, sr.bond[k].s1.k_bend, 1e-12));
      ck_assert(close_rel(se.bond[k].s1.k_axial, sr.bond[k].s1.k_axial, 1e-12));
      ck_assert(close_rel(se.bond[k].s1.k_twist, sr.bond[k].s1.k_twist, 1e-12));
    }
    /* the nose and the supports touch the ellipse at y = +-a */
    ck_assert_double_eq_tol(se.tool[2].point.y, a + 2e-3, 1e-15);
    ck_assert_double_eq_tol(se.tool[0].point.y, -(a + 2e-3), 1e-15);
    fl_system_free(&se);
    fl_system_free(&sr);
  }
}
END_TEST

/* The chain's stiffness under the nose, from the rows with 20-100 % of the force. */
static double chain_stiffness(const fl_experiment *e)
{
  chain_probe p = {0, 0.5 * e->test.span_m, calloc((size_t)e->sim.output_points, sizeof(double)),
                   calloc((size_t)e->sim.output_points, sizeof(double))};
  fl_run_hooks h = {NULL, chain_probe_sample, &p, NULL, 1, 0, NULL, 0};
  fl_curve c;
  fl_result r;
  char err[512];
  int rc = fl_run(e, 1, &h, &c, &r, err, sizeof err);
  ck_assert_msg(rc == FL_OK, "%s", err);
  double k = chain_probe_stiffness(&p);
  free(p.defl);
  free(p.force);
  fl_curve_free(&c);
  fl_result_free(&r);
  return k;
}

START_TEST(test_ellipse_bends_with_E_I_z)
{
  /* a solid ellipse, a = 1.2 mm in the loading plane, b = 1.0 mm across; 16 segments
   * over a 60 mm span */
  double a = 1.2e-3, b = 1.0e-3, span = 0.06, R, Ri;
  int n = 16;
  by_hand(a, b, 0, 0, &R, &Ri);
  fl_experiment ell = bend(n, span, 1e-3), round = bend(n, span, R);
  make_ellipse(&ell, a, b, 0, 0);
  round.fiber.inner_radius_ratio = Ri / R;
  finish(&round);
  ell.test.max_displacement_m = round.test.max_displacement_m = 2e-3 * span;
  double ke = chain_stiffness(&ell), kr = chain_stiffness(&round);
  /* beam theory for the chain: 48 E I_z / L^3 / (1 + 2/n^2), with shear L / (4 G A) */
  double E = 5e9, G = 5e9 / 2.6, I = FL_PI / 4 * a * a * a * b, A = FL_PI * a * b;
  double theory = 1.0 / (span * span * span / (48 * E * I) * (1 + 2.0 / (n * n)) + span / (4 * G * A));
  ck_assert_msg(close_rel(ke, theory, 0.01), "ellipse %g N/m, beam theory %g N/m", ke, theory);
  /* the round equivalent differs only where the tools touch it */
  ck_assert_msg(close_rel(ke, kr, 0.005), "ellipse %g N/m, round equivalent %g N/m", ke, kr);
}
END_TEST

START_TEST(test_ellipse_breaks_at_its_outer_fibre)
{
  /* bending_stress: the peak nose force is 4 sigma I_z / (a L), a the outer-fibre
   * distance; the round equivalent's radius (4.4 % less) would give 4.4 % more */
  double a = 1.2e-3, b = 1.0e-3, span = 0.04, sigma = 5e7;
  fl_experiment e = bend(16, span, 1e-3);
  make_ellipse(&e, a, b, 0, 0);
  e.bond.failure.criterion = FL_CRIT_BENDING_STRESS;
  e.bond.failure.post_failure = FL_POST_TOTAL_BREAKAGE;
  e.bond.failure.max_stress = sigma;
  e.bond.failure.max_stress_given = 1;
  e.test.max_displacement_m = 2.5e-3;
  e.sim.output_points = 400;
  fl_curve c;
  fl_result r;
  char err[512];
  int rc = fl_run(&e, 1, NULL, &c, &r, err, sizeof err);
  ck_assert_msg(rc == FL_OK, "%s", err);
  double I = FL_PI / 4 * a * a * a * b, theory = 4 * sigma * I / (a * span);
  ck_assert_msg(close_rel(r.spec[0].peak, theory, 0.03), "peak %g N, theory %g N", r.spec[0].peak, theory);
  ck_assert_int_ge(r.bonds_broken, 1);
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

START_TEST(test_ellipse_writes_back_by_its_semi_axes)
{
  fl_experiment e = bend(12, 0.04, 1e-3);
  make_ellipse(&e, 1.2e-3, 1.1e-3, 0.7e-3, 0.8e-3);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fl_experiment_write(f, &e), FL_OK);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_ptr_null(strstr(text, "outer_radius"));
  ck_assert_ptr_null(strstr(text, "inner_radius_ratio"));
  ck_assert_ptr_nonnull(strstr(text, "section: ellipse"));
  char path[] = "/tmp/check_section.XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  f = fdopen(fd, "w");
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
  fl_experiment back = fl_experiment_default();
  char err[512];
  int rc = fl_experiment_load(path, &back, err, sizeof err);
  if (rc == FL_OK)
    rc = fl_experiment_finish(&back, path, err, sizeof err);
  remove(path);
  free(text);
  ck_assert_msg(rc == FL_OK, "%s", err);
  ck_assert_int_eq(back.fiber.section, FL_SECTION_ELLIPSE);
  ck_assert_double_eq(back.fiber.semi_axis_y_m, e.fiber.semi_axis_y_m);
  ck_assert_double_eq(back.fiber.semi_axis_z_m, e.fiber.semi_axis_z_m);
  ck_assert_double_eq(back.fiber.inner_semi_axis_y_m, e.fiber.inner_semi_axis_y_m);
  ck_assert_double_eq(back.fiber.inner_semi_axis_z_m, e.fiber.inner_semi_axis_z_m);
  ck_assert_double_eq(back.fiber.outer_radius_m, e.fiber.outer_radius_m);
  ck_assert_double_eq(back.fiber.inner_radius_ratio, e.fiber.inner_radius_ratio);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("section");
  TCase *tc = tcase_create("ellipse");
  fl_limits_set(tc, "ellipse", 800); /* reference times: ten times what it takes */
  tcase_add_test(tc, test_ellipse_builds_the_round_section_of_its_inertia_and_area);
  tcase_add_test(tc, test_ellipse_bends_with_E_I_z);
  tcase_add_test(tc, test_ellipse_breaks_at_its_outer_fibre);
  tcase_add_test(tc, test_ellipse_writes_back_by_its_semi_axes);
  suite_add_tcase(s, tc);
  return fl_check_run(s);
}
