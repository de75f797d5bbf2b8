/* check_clamp.c: the cantilever's clamp where fiber-cantilever(1) says it is: a chain
 * of m free segments between the clamp's face and the tip bends and rings as a beam of
 * its free length L = m h (Euler-Bernoulli, Timoshenko), its error falling as 1/m^2.
 * The clamp holds the clamped half of the bond at its face rigidly (build.h,
 * FL_CLAMP_RIGID); a clamp that held only the bodies would leave that half to bend,
 * and the chain would behave as a beam of (m + 1/2) h: 3/(2m) too soft, 1/m too slow. */
#include <config.h>

#include <check.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>

#include "bond_law.h"
#include "cantilever.h"
#include "chain_modes.h"
#include "check_limits.h"
#include "experiment.h"
#include "fl_defs.h"
#include "run.h"
#include "system.h"

/* A cantilever of free length L in m segments (one more in the clamp), solid round of
 * radius R, E = 5 GPa, nu = 0.3, 1000 kg/m^3; no gravity. */
static fl_experiment cantilever(int m, double L, double R)
{
  fl_experiment e = fl_experiment_default();
  double h = L / m;
  e.test.kind = FL_TEST_CANTILEVER;
  e.fiber.segments = m + 1;
  e.fiber.length_m = (m + 1) * h;
  e.fiber.outer_radius_m = R;
  e.fiber.density = 1000.0;
  e.fiber.youngs_modulus = 5e9;
  e.fiber.poisson_ratio = 0.3;
  e.fiber.poisson_given = 1;
  e.test.clamp_length_m = h;
  e.test.gravity = 0.0;
  e.sim.solver = FL_SOLVER_STATIC;
  e.sim.output_points = 11;
  char err[512];
  ck_assert_msg(fl_experiment_finish(&e, "(test)", err, sizeof err) == FL_OK, "%s", err);
  return e;
}

static double ei_of(const fl_experiment *e)
{
  double R = e->fiber.outer_radius_m;
  return e->bond.torque_stiffness_scale * e->fiber.youngs_modulus * FL_PI * pow(R, 4) / 4.0;
}

/* Euler-Bernoulli's tip compliance L^3 / (3 E I), m/N. */
static double euler_bernoulli(const fl_experiment *e, double L)
{
  return L * L * L / (3.0 * ei_of(e));
}

/* Timoshenko's: with the shear of the section, L / (kappa G A), kappa the solid circle's
 * shear coefficient 6 (1 + nu) / (7 + 6 nu) (Cowper, J. Appl. Mech. 33 (1966) 335). */
static double timoshenko(const fl_experiment *e, double L)
{
  double R = e->fiber.outer_radius_m, G = e->fiber.shear_modulus, nu = e->fiber.youngs_modulus / (2.0 * G) - 1.0;
  double kappa = 6.0 * (1.0 + nu) / (7.0 + 6.0 * nu);
  return euler_bernoulli(e, L) + L / (kappa * e->bond.force_stiffness_scale * G * FL_PI * R * R);
}

/* The model's tip compliance: a static run to a tip displacement of 1e-4 of L. */
static double tip_compliance(fl_experiment e, double L)
{
  fl_curve c;
  fl_result r;
  char err[1024];
  e.test.max_tip_displacement_m = 1e-4 * L;
  int rc = fl_run(&e, 1, NULL, &c, &r, err, sizeof err);
  ck_assert_msg(rc == FL_OK, "run failed: %s", err);
  ck_assert_int_eq(r.solver, FL_SOLVER_STATIC);
  double k = r.spec[0].initial_stiffness;
  fl_curve_free(&c);
  fl_result_free(&r);
  return 1.0 / k;
}

/* The errors of a table against m = 8, 16, 32, 64 fall as 1/m^2: each ratio of one to
 * the next within [3.5, 4.5]. */
static void falls_as_m_squared(const char *what, const double *err, int n)
{
  for (int k = 0; k + 1 < n; k++) {
    double ratio = err[k] / err[k + 1];
    ck_assert_msg(ratio > 3.5 && ratio < 4.5, "%s: error %.3e then %.3e, ratio %.3f (4 for 1/m^2)", what, err[k],
                  err[k + 1], ratio);
  }
}

static const int ms[] = {8, 16, 32, 64};
#define NM ((int)(sizeof ms / sizeof ms[0]))

/* A slender cantilever (L = 0.2 m, R = 0.5 mm: shear adds 1.4e-5 of the deflection)
 * against both beams: within 0.5 % at 16 segments, the error falling as 1/m^2 (the
 * chain's sum is the trapezoidal rule's on the beam's integral of (L - x)^2 / E I, 1 /
 * (2 m^2) too soft). */
START_TEST(cantilever_tip_deflection_converges_to_the_beams)
{
  double L = 0.2, R = 0.5e-3, eb[NM], ti[NM];
  fprintf(stderr, "cantilever tip compliance, L = %g m, R = %g mm (static solver):\n", L, 1e3 * R);
  fprintf(stderr, "   m   model (m/N)   E-B error   ratio   Timoshenko error   ratio\n");
  for (int k = 0; k < NM; k++) {
    fl_experiment e = cantilever(ms[k], L, R);
    double c = tip_compliance(e, L);
    eb[k] = c / euler_bernoulli(&e, L) - 1.0;
    ti[k] = c / timoshenko(&e, L) - 1.0;
    fprintf(stderr, "  %2d   %.6e   %+.3e   %5.2f   %+.3e   %5.2f\n", ms[k], c, eb[k], k ? eb[k - 1] / eb[k] : NAN,
            ti[k], k ? ti[k - 1] / ti[k] : NAN);
    if (ms[k] == 16) {
      ck_assert_msg(fabs(eb[k]) < 0.005, "m = 16: %+.3e from Euler-Bernoulli", eb[k]);
      ck_assert_msg(fabs(ti[k]) < 0.005, "m = 16: %+.3e from Timoshenko", ti[k]);
    }
  }
  falls_as_m_squared("Euler-Bernoulli", eb, NM);
  falls_as_m_squared("Timoshenko", ti, NM);
}
END_TEST

/* A stubby cantilever (L = 50 mm, R = 5 mm: shear adds 2.2 % of the deflection) at 16
 * segments: Timoshenko's within 0.5 %, which Euler-Bernoulli's is not.  The chain's
 * shear springs hold no shear coefficient (fiberlab-model(7), Export to LAMMPS) and its
 * last half segment none: they take 0.3 % off, its bending adds 0.2 %. */
START_TEST(stubby_cantilever_is_timoshenkos)
{
  double L = 0.05, R = 5e-3;
  fl_experiment e = cantilever(16, L, R);
  double c = tip_compliance(e, L), eb = c / euler_bernoulli(&e, L) - 1.0, ti = c / timoshenko(&e, L) - 1.0;
  fprintf(stderr, "stubby cantilever, m = 16, L = %g m, R = %g mm: E-B error %+.3e, Timoshenko error %+.3e\n", L,
          1e3 * R, eb, ti);
  ck_assert_msg(fabs(ti) < 0.005, "%+.3e from Timoshenko", ti);
  ck_assert_msg(eb > 0.01, "%+.3e from Euler-Bernoulli: the shear should show", eb);
}
END_TEST

/* The built chain's lowest bending frequency in the plane, Hz: each free body i has a
 * deflection y_i and a turn t_i, its mass and transverse inertia as built; each bond
 * its series shear and bending stiffnesses as built, the shear spring stretched by the
 * difference of its two sides' contact points, (y_b + r2 t_b) - (y_a + r1 t_a) with
 * r1, r2 the arms along x, the bending spring by t_b - t_a; held bodies do not move.
 * omega^2 is the smallest eigenvalue of K phi = omega^2 M phi. */
static double built_first_frequency(const fl_experiment *e)
{
  fl_system sys;
  fl_build_info info;
  ck_assert_int_eq(fl_build(e, 1, &sys, &info), FL_OK);
  int n = sys.nbody, ng = info.clamped, nd = 2 * (n - ng);
  gsl_matrix *K = gsl_matrix_calloc(nd, nd), *M = gsl_matrix_calloc(nd, nd);
  for (int i = ng; i < n; i++) {
    gsl_matrix_set(M, 2 * (i - ng), 2 * (i - ng), sys.mass[i]);
    gsl_matrix_set(M, 2 * (i - ng) + 1, 2 * (i - ng) + 1, sys.inertia_trans[i]);
  }
  for (int b = 0; b < sys.nbond; b++) {
    const fl_bond *bd = &sys.bond[b];
    chain_modes_bond(K, sys.b1[b] - ng, sys.b2[b] - ng, bd->r1.x, bd->r2.x, fl_series(bd->s1.k_shear, bd->s2.k_shear),
                     fl_series(bd->s1.k_bend, bd->s2.k_bend));
  }
  fl_system_free(&sys);
  return chain_modes_lowest(K, M);
}

/* Euler-Bernoulli's first frequency of a clamped-free beam of length L, Hz. */
static double euler_bernoulli_frequency(const fl_experiment *e, double L)
{
  double R = e->fiber.outer_radius_m, A = FL_PI * R * R;
  return FL_CANTILEVER_BETA1 * FL_CANTILEVER_BETA1 / (2.0 * FL_PI) *
         sqrt(ei_of(e) / (e->fiber.density * A * L * L * L * L));
}

/* The slender cantilever's first frequency, from the chain as built: within 0.5 % of
 * Euler-Bernoulli's at 16 segments, the error falling as 1/m^2; and at 16 segments a
 * ring-down (the static solver's, 200 steps a period) rings at it within 0.5 %. */
START_TEST(cantilever_first_frequency_converges_to_euler_bernoulli)
{
  double L = 0.2, R = 0.5e-3, err[NM];
  fprintf(stderr, "cantilever first frequency, L = %g m, R = %g mm (the chain as built):\n", L, 1e3 * R);
  fprintf(stderr, "   m   chain (Hz)   Euler-Bernoulli (Hz)   error   ratio\n");
  for (int k = 0; k < NM; k++) {
    fl_experiment e = cantilever(ms[k], L, R);
    double f = built_first_frequency(&e), f_eb = euler_bernoulli_frequency(&e, L);
    err[k] = f / f_eb - 1.0;
    fprintf(stderr, "  %2d   %.6f   %.6f   %+.3e   %5.2f\n", ms[k], f, f_eb, err[k], k ? err[k - 1] / err[k] : NAN);
    if (ms[k] == 16)
      ck_assert_msg(fabs(err[k]) < 0.005, "m = 16: %+.3e from Euler-Bernoulli", err[k]);
  }
  falls_as_m_squared("first frequency", err, NM);
  fl_experiment e = cantilever(16, L, R);
  e.test.mode = FL_MODE_VIBRATION;
  e.test.max_tip_displacement_m = 1e-3 * L;
  e.test.ring_periods = 4.0;
  e.sim.output_points = 201;
  fl_curve c;
  fl_result r;
  char msg[1024];
  int rc = fl_run(&e, 1, NULL, &c, &r, msg, sizeof msg);
  ck_assert_msg(rc == FL_OK, "run failed: %s", msg);
  double f = r.spec[0].frequency, f_eb = euler_bernoulli_frequency(&e, L);
  fprintf(stderr, "  ring-down, %s, m = 16: %.6f Hz, %+.3e from Euler-Bernoulli\n", fl_solver_name(r.solver), f,
          f / f_eb - 1.0);
  ck_assert_msg(fabs(f / f_eb - 1.0) < 0.005, "ring-down at %g Hz, Euler-Bernoulli %g Hz", f, f_eb);
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

int main(void)
{
  gsl_set_error_handler_off();
  Suite *s = suite_create("clamp");
  TCase *tc = tcase_create("clamp");
  fl_limits_set(tc, "clamp", 400);
  tcase_add_test(tc, cantilever_tip_deflection_converges_to_the_beams);
  tcase_add_test(tc, stubby_cantilever_is_timoshenkos);
  tcase_add_test(tc, cantilever_first_frequency_converges_to_euler_bernoulli);
  suite_add_tcase(s, tc);
  return fl_check_run(s);
}
