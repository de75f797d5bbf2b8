/* check_rig.c: the rig as labs build it (fiberlab-model(7), Tool contacts): the tools'
 * contact laws (Hertz, a linear spring, rigid tools) and the machine's compliance in
 * series with the crosshead, against what they must add to a 3-point test's
 * displacement, written down here; the keys' checks; the warning where Hertz's
 * indentation is a large share of the displacement. */
#include <config.h>

#include <check.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_limits.h"
#include "contact.h"
#include "experiment.h"
#include "fl_defs.h"
#include "measure.h"
#include "run.h"

/* ---- the laws, one contact at a time ----------------------------------------------- */

static fl_contact_law law_of(double k_n)
{
  fl_contact_law law = {2e8, 8e7, 1.5e-3, 1e-4, 0.0, 0.3, k_n, 0.25 * k_n};
  return law;
}

/* Hertz: F = 4/3 E* sqrt(R*) delta^1.5; the spring: F = k delta, its tangential
 * stiffness k_t; each overlap_at the inverse of its force. */
START_TEST(normal_laws_and_their_inverse)
{
  fl_vec3 nrm = fl_v3(0, 1, 0), none = fl_v3(0, 0, 0);
  for (int lin = 0; lin < 2; lin++) {
    fl_contact_law law = law_of(lin ? 3e5 : 0.0);
    for (double d = 1e-6; d < 1e-4; d *= 3.0) {
      fl_vec3 xi = none;
      double f = fl_contact_force(&law, d, nrm, 0.0, none, 1e-6, &xi).y;
      double want = lin ? 3e5 * d : 4.0 / 3.0 * law.e_star * sqrt(law.r_star) * pow(d, 1.5);
      ck_assert_msg(fabs(f / want - 1.0) < 1e-12, "%s at %g m: %g N, want %g N", lin ? "linear" : "hertz", d, f,
                    want);
      ck_assert_msg(fabs(fl_contact_overlap_at(&law, f) / d - 1.0) < 1e-10, "overlap_at(%g N) is not %g m", f, d);
      double sn = fl_contact_stiffness(&law, d), want_sn = lin ? 3e5 : 2.0 * law.e_star * sqrt(law.r_star * d);
      ck_assert_msg(fabs(sn / want_sn - 1.0) < 1e-12, "stiffness %g N/m, want %g N/m", sn, want_sn);
    }
  }
  /* a tangential slip of 1 um under a large normal load: the spring's tangential force */
  fl_contact_law law = law_of(3e5);
  law.mu = 10.0;
  fl_vec3 xi = fl_v3(0, 0, 0);
  double ft = fl_contact_force(&law, 1e-4, fl_v3(0, 1, 0), 0.0, fl_v3(1e-6, 0, 0), 1.0, &xi).x;
  ck_assert_msg(fabs(ft / (-law.k_t * 1e-6) - 1.0) < 1e-12, "tangential %g N", ft);
}
END_TEST

/* ---- 3-point tests ---------------------------------------------------------------- */

/* A maize-like root in 3-point bending (fits/maize-brace-roots-experiment.yaml's): solid
 * round, R 2.4 mm, E 56.4 MPa, span 17 mm, tools of 3 mm radius; pressed to 0.3 mm. */
static fl_experiment root(enum fl_contact contact, double k, double compliance, enum fl_solver solver)
{
  fl_experiment e = fl_experiment_default();
  e.fiber.length_m = 0.0255;
  e.fiber.segments = 30;
  e.fiber.outer_radius_m = 2.4e-3;
  e.fiber.youngs_modulus = 5.64e7;
  e.bond.damping = 1e-6;
  e.test.span_m = 0.017;
  e.test.support_radius_m = e.test.nose_radius_m = 3e-3;
  e.test.max_displacement_m = 3e-4;
  e.test.contact = (int)contact;
  e.test.contact_stiffness = k;
  e.test.compliance = compliance;
  e.sim.solver = solver;
  e.sim.output_points = 31;
  char err[1024];
  ck_assert_msg(fl_experiment_finish(&e, "(test)", err, sizeof err) == FL_OK, "%s", err);
  return e;
}

/* The crosshead's compliance of one run (m/N): its rows' initial stiffness. */
static double crosshead(const fl_experiment *e)
{
  fl_curve c;
  fl_result r;
  char err[1024];
  ck_assert_msg(fl_run(e, 1, NULL, &c, &r, err, sizeof err) == FL_OK, "%s", err);
  double k = r.spec[0].initial_stiffness;
  fl_curve_free(&c);
  fl_result_free(&r);
  return 1.0 / k;
}

/* Linear tools of stiffness k, each a spring behind a tool that does not indent: the
 * nose's F / k and the supports' (F / 2) / k on the crosshead, 1.5 / k over the rigid
 * tools' compliance (within 0.1 %: the rigid penalty's own 1.5 / k_pen differs), on
 * both solvers (loop 0 static, 1 explicit). */
START_TEST(linear_tools_add_one_and_a_half_over_k)
{
  double k = 2e4;
  enum fl_solver sv = _i ? FL_SOLVER_EXPLICIT : FL_SOLVER_STATIC;
  fl_experiment el = root(FL_CONTACT_LINEAR, k, 0.0, sv), er = root(FL_CONTACT_RIGID, 0.0, 0.0, sv);
  double added = crosshead(&el) - crosshead(&er);
  fprintf(stderr, "linear tools (%s): added %.6g m/N, 1.5/k %.6g m/N (%+.2e)\n", _i ? "explicit" : "static", added,
          1.5 / k, added / (1.5 / k) - 1.0);
  ck_assert_msg(fabs(added / (1.5 / k) - 1.0) < 1e-3, "added %g m/N, want %g m/N", added, 1.5 / k);
}
END_TEST

/* Rigid tools: a slender soft rod (R 1 mm, span 40 mm over 20 segments, E 56.4 MPa, G
 * 21.69 MPa, rollers that turn) is the chain's 3-point stiffness, 48 E I / L^3 / (1 + 2
 * / n^2) with the shear's L / (4 G A) in series (tests/validate.c), within 1 % on the
 * static solver; the explicit engine, whose step the penalty sets, gives the stubby
 * root's rigid stiffness of the static solver within 1 %. */
START_TEST(rigid_tools_do_not_indent)
{
  fl_experiment e = root(FL_CONTACT_RIGID, 0.0, 0.0, FL_SOLVER_STATIC);
  e.fiber.length_m = 0.048;
  e.fiber.segments = 24;
  e.fiber.outer_radius_m = 1e-3;
  e.fiber.shear_modulus = 2.169e7;
  e.fiber.shear_given = 1;
  e.test.span_m = 0.04;
  e.test.rollers = FL_ROLLERS_ROTATING;
  e.test.max_displacement_m = 4e-4;
  char err[1024];
  ck_assert_msg(fl_experiment_finish(&e, "(test)", err, sizeof err) == FL_OK, "%s", err);
  double R = 1e-3, L = 0.04, n = 20, I = FL_PI / 4 * pow(R, 4), A = FL_PI * R * R;
  double chain = L * L * L / (48.0 * 5.64e7 * I) * (1.0 + 2.0 / (n * n)) + L / (4.0 * 2.169e7 * A);
  double cc = crosshead(&e);
  fprintf(stderr, "rigid tools (static): crosshead %.6g N/m, chain %.6g N/m (%+.2e)\n", 1.0 / cc, 1.0 / chain,
          chain / cc - 1.0);
  ck_assert_msg(fabs(chain / cc - 1.0) < 0.01, "crosshead %g N/m, chain %g N/m", 1.0 / cc, 1.0 / chain);
  fl_experiment es = root(FL_CONTACT_RIGID, 0.0, 0.0, FL_SOLVER_STATIC),
                ex = root(FL_CONTACT_RIGID, 0.0, 0.0, FL_SOLVER_EXPLICIT);
  double cs = crosshead(&es), cx = crosshead(&ex);
  fprintf(stderr, "rigid tools, root: static %.6g N/m, explicit %.6g N/m (%+.2e)\n", 1.0 / cs, 1.0 / cx, cs / cx - 1.0);
  ck_assert_msg(fabs(cs / cx - 1.0) < 0.01, "static %g N/m, explicit %g N/m", 1.0 / cs, 1.0 / cx);
}
END_TEST

/* Hertz's tools with test.contact_modulus Ec: over the rigid tools' run, the crosshead
 * at the last row's load F carries the nose's indentation under F and a support's under
 * F / 2, delta(F) = (3 F / (4 E* sqrt(R*)))^(2/3), 1/E* = (1 - nu^2)/Ec + (1 - nt^2)/Et,
 * R* = R rt / (R + rt), a tool on a bond point touching two segments with half its
 * load each: within 15 % at Ec = 4 E, E and E / 2 (measured +9 %, +4 % and -3 %, the
 * same without friction or weight: two sphero-cylinders meeting under a tool are not
 * one Hertz contact); unset, the run is the one with Ec = E given. */
START_TEST(hertz_indents_with_the_contact_modulus)
{
  fl_experiment er = root(FL_CONTACT_RIGID, 0.0, 0.0, FL_SOLVER_STATIC);
  fl_curve cr, ch;
  fl_result rr, rh;
  char err[1024];
  ck_assert_msg(fl_run(&er, 1, NULL, &cr, &rr, err, sizeof err) == FL_OK, "%s", err);
  double last_y[2] = {0};
  for (int k = 0; k < 3; k++) {
    double ec = k == 0 ? 4.0 * 5.64e7 : k == 1 ? 0.5 * 5.64e7 : 5.64e7;
    fl_experiment eh = root(FL_CONTACT_HERTZ, 0.0, 0.0, FL_SOLVER_STATIC);
    if (k < 2)
      eh.test.contact_modulus = ec;
    ck_assert_msg(fl_run(&eh, 1, NULL, &ch, &rh, err, sizeof err) == FL_OK, "%s", err);
    int n = ch.npoints - 1;
    double F = ch.y[n], xr = NAN;
    for (int i = 1; i < cr.npoints; i++) /* the rigid run's crosshead at the load F */
      if (cr.y[i] >= F) {
        xr = cr.x[i - 1] + (F - cr.y[i - 1]) * (cr.x[i] - cr.x[i - 1]) / (cr.y[i] - cr.y[i - 1]);
        break;
      }
    double nu = 0.3, R = 2.4e-3, rt = 3e-3, Rs = R * rt / (R + rt);
    double Es = 1.0 / ((1.0 - nu * nu) / ec + (1.0 - 0.09) / 2.1e11);
    /* a tool on a bond point touches two segments, each taking half its load */
    double dent = pow(3.0 * F / 2 / (4.0 * Es * sqrt(Rs)), 2.0 / 3.0) + pow(1.5 * F / 2 / (4.0 * Es * sqrt(Rs)), 2.0 / 3.0);
    double added = ch.x[n] - xr;
    fprintf(stderr, "hertz tools, Ec %.4g Pa: at %.4g N the crosshead adds %.5g mm, indentation %.5g mm (%+.2e)\n",
            ec, F, 1e3 * added, 1e3 * dent, added / dent - 1.0);
    ck_assert_msg(isfinite(xr) && fabs(added / dent - 1.0) < 0.15, "Ec %g Pa: added %g m, indentation %g m", ec,
                  added, dent);
    if (k == 0)
      last_y[0] = F;
    if (k == 2)
      last_y[1] = F;
    if (k == 1 || k == 2) { /* unset: the same run as Ec = E */
      fl_experiment ee = root(FL_CONTACT_HERTZ, 0.0, 0.0, FL_SOLVER_STATIC);
      ee.test.contact_modulus = 5.64e7;
      fl_curve ce;
      fl_result re;
      ck_assert_msg(fl_run(&ee, 1, NULL, &ce, &re, err, sizeof err) == FL_OK, "%s", err);
      if (k == 2)
        for (int i = 0; i < ch.npoints; i++)
          ck_assert_msg(ce.x[i] == ch.x[i] && ce.y[i] == ch.y[i], "row %d differs with Ec = E given", i);
      fl_curve_free(&ce);
      fl_result_free(&re);
    }
    fl_curve_free(&ch);
    fl_result_free(&rh);
  }
  /* the stiffer contact indents less, so the same crosshead travel carries more load */
  ck_assert_msg(last_y[0] > last_y[1], "Ec 4 E: %g N, Ec E: %g N", last_y[0], last_y[1]);
  fl_curve_free(&cr);
  fl_result_free(&rr);
}
END_TEST

/* The machine's compliance C: the crosshead's compliance grows by C exactly, on both
 * solvers, and the peak's displacement by C times the peak. */
START_TEST(compliance_adds_c_times_the_load)
{
  enum fl_solver sv = _i ? FL_SOLVER_EXPLICIT : FL_SOLVER_STATIC;
  double C = 2e-5;
  fl_experiment e0 = root(FL_CONTACT_LINEAR, 2e4, 0.0, sv), e1 = root(FL_CONTACT_LINEAR, 2e4, C, sv);
  fl_curve c0, c1;
  fl_result r0, r1;
  char err[1024];
  ck_assert_msg(fl_run(&e0, 1, NULL, &c0, &r0, err, sizeof err) == FL_OK, "%s", err);
  ck_assert_msg(fl_run(&e1, 1, NULL, &c1, &r1, err, sizeof err) == FL_OK, "%s", err);
  double added = 1.0 / r1.spec[0].initial_stiffness - 1.0 / r0.spec[0].initial_stiffness;
  fprintf(stderr, "compliance (%s): added %.6g m/N, C %.6g m/N\n", _i ? "explicit" : "static", added, C);
  ck_assert_msg(fabs(added / C - 1.0) < 1e-3, "added %g m/N, C %g m/N", added, C);
  ck_assert_msg(fabs(r1.spec[0].x_at_peak - (r0.spec[0].x_at_peak + C * r0.spec[0].peak)) < 1e-12,
                "peak at %g m, want %g m", r1.spec[0].x_at_peak, r0.spec[0].x_at_peak + C * r0.spec[0].peak);
  for (int i = 0; i < c1.npoints; i++)
    ck_assert_msg(fabs(c1.x[i] - (c0.x[i] + C * c0.y[i])) < 1e-12, "row %d", i);
  fl_curve_free(&c0);
  fl_curve_free(&c1);
  fl_result_free(&r0);
  fl_result_free(&r1);
}
END_TEST

/* Where the load falls faster than the crosshead's travel over C, the crosshead holds
 * and the load drops at it (a vertical drop); the unloading leg after it goes back. */
START_TEST(a_snap_back_drops_at_constant_crosshead)
{
  double x[] = {0, 1, 2, 3, 4, 5, 4, 3}, y[] = {0, 1, 2, 0.5, 0.2, 0.3, 0.1, 0};
  double t[8];
  memcpy(t, x, sizeof t);
  fl_curve c = {1, 8, NULL, x, y, NULL, NULL, NULL, NULL, NULL, NULL};
  fl_specimen_result sr;
  memset(&sr, 0, sizeof sr);
  sr.peak = 2.0;
  sr.x_at_peak = 2.0;
  double C = 1.0;
  fl_measure_compliance(&c, 0, 8, C, &sr);
  double want[] = {0, 2, 4, 4, 4.2, 5.3, 4.1, 3};
  for (int i = 0; i < 8; i++)
    ck_assert_msg(fabs(x[i] - want[i]) < 1e-12, "row %d: crosshead %g, want %g (travel %g, load %g)", i, x[i],
                  want[i], t[i], y[i]);
  ck_assert_msg(fabs(sr.x_at_peak - 4.0) < 1e-12, "peak at %g", sr.x_at_peak);
}
END_TEST

/* ---- the keys ---------------------------------------------------------------------- */

static int finish(fl_experiment *e, char *err, size_t len) { return fl_experiment_finish(e, "(test)", err, len); }

START_TEST(keys_are_checked)
{
  char err[1024];
  fl_experiment e = fl_experiment_default();
  ck_assert_int_eq(fl_experiment_set(&e, "test.contact=linear", err, sizeof err), FL_OK);
  ck_assert_int_eq(finish(&e, err, sizeof err), FL_EINPUT);
  ck_assert_msg(strstr(err, "test.contact_stiffness: missing"), "%s", err);
  ck_assert_int_eq(fl_experiment_set(&e, "test.contact_stiffness=1e5", err, sizeof err), FL_OK);
  ck_assert_msg(finish(&e, err, sizeof err) == FL_OK, "%s", err);
  ck_assert_int_eq(fl_experiment_set(&e, "test.contact=rigid", err, sizeof err), FL_OK);
  ck_assert_int_eq(finish(&e, err, sizeof err), FL_EINPUT);
  ck_assert_msg(strstr(err, "given with contact rigid"), "%s", err);
  e = fl_experiment_default();
  ck_assert_int_eq(fl_experiment_set(&e, "test.contact_modulus=0", err, sizeof err), FL_EINPUT);
  ck_assert_int_eq(fl_experiment_set(&e, "test.contact_modulus=2e8", err, sizeof err), FL_OK);
  ck_assert_msg(finish(&e, err, sizeof err) == FL_OK, "%s", err);
  ck_assert_int_eq(fl_experiment_set(&e, "test.contact=rigid", err, sizeof err), FL_OK);
  ck_assert_int_eq(finish(&e, err, sizeof err), FL_EINPUT);
  ck_assert_msg(strstr(err, "test.contact_modulus: given with contact rigid; allowed: a modulus with contact: hertz "
                            "only"), "%s", err);
  e = fl_experiment_default();
  ck_assert_int_eq(fl_experiment_set(&e, "test.compliance=-1e-6", err, sizeof err), FL_EINPUT);
  ck_assert_int_eq(fl_experiment_set(&e, "test.kind=torsion", err, sizeof err), FL_OK);
  ck_assert_int_eq(fl_experiment_set(&e, "test.compliance=1e-6", err, sizeof err), FL_EINPUT);
  ck_assert_int_eq(fl_experiment_set(&e, "test.kind=tension", err, sizeof err), FL_OK);
  ck_assert_int_eq(fl_experiment_set(&e, "test.compliance=1e-6", err, sizeof err), FL_OK);
}
END_TEST

/* The warning: Hertz's indentation over 10 % of the displacement at the peak on the
 * soft root, none on a stiff straw (wheat straw, 5.5 GPa), none with rigid tools. */
START_TEST(hertz_warns_where_its_indentation_is_large)
{
  fl_curve c;
  fl_result r;
  char err[1024];
  fl_experiment e = root(FL_CONTACT_HERTZ, 0.0, 0.0, FL_SOLVER_STATIC);
  ck_assert_msg(fl_run(&e, 1, NULL, &c, &r, err, sizeof err) == FL_OK, "%s", err);
  ck_assert_msg(strstr(r.warnings, "test.contact hertz"), "no warning: '%s'", r.warnings);
  fl_curve_free(&c);
  fl_result_free(&r);
  e = root(FL_CONTACT_RIGID, 0.0, 0.0, FL_SOLVER_STATIC);
  ck_assert_msg(fl_run(&e, 1, NULL, &c, &r, err, sizeof err) == FL_OK, "%s", err);
  ck_assert_msg(r.warnings[0] == '\0', "%s", r.warnings);
  fl_curve_free(&c);
  fl_result_free(&r);
  e = fl_experiment_default(); /* experiments/wheat-straw-bend3pt.yaml's straw */
  e.fiber.outer_radius_m = 2e-3;
  e.fiber.inner_radius_ratio = 0.8;
  e.fiber.segments = 48;
  e.fiber.density = 800.0;
  e.fiber.youngs_modulus = 5.5e9;
  e.test.max_displacement_m = 3e-3;
  e.sim.solver = FL_SOLVER_STATIC;
  e.sim.output_points = 31;
  ck_assert_msg(fl_experiment_finish(&e, "(test)", err, sizeof err) == FL_OK, "%s", err);
  ck_assert_msg(fl_run(&e, 1, NULL, &c, &r, err, sizeof err) == FL_OK, "%s", err);
  ck_assert_msg(r.warnings[0] == '\0', "%s", r.warnings);
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("rig");
  TCase *tl = tcase_create("laws");
  tcase_add_test(tl, normal_laws_and_their_inverse);
  tcase_add_test(tl, a_snap_back_drops_at_constant_crosshead);
  tcase_add_test(tl, keys_are_checked);
  suite_add_tcase(s, tl);
  TCase *tb = tcase_create("bend3pt");
  fl_limits_set(tb, "bend3pt", 800); /* reference times: about ten times what it takes */
  tcase_add_loop_test(tb, linear_tools_add_one_and_a_half_over_k, 0, 2);
  tcase_add_test(tb, rigid_tools_do_not_indent);
  tcase_add_test(tb, hertz_indents_with_the_contact_modulus);
  tcase_add_loop_test(tb, compliance_adds_c_times_the_load, 0, 2);
  tcase_add_test(tb, hertz_warns_where_its_indentation_is_large);
  suite_add_tcase(s, tb);
  return s;
}

int main(void)
{
  gsl_set_error_handler_off();
  return fl_check_run(suite());
}
