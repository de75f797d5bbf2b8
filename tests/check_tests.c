/* check_tests.c: the virtual tests beyond 3-point bending, tension and torsion, against
 * beam theory written down here: the cantilever (its tip stiffness, its large
 * deflection, its free vibration). */
#include <config.h>

#include <check.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_poly.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "cantilever.h"
#include "chain_modes.h"
#include "chain_probe.h"
#include "check_limits.h"
#include "experiment.h"
#include "fl_defs.h"
#include "run.h"
#include "test_kind.h"

/* ---- the specimen ------------------------------------------------------------ */

/* A cantilever of m free segments of h = 3 mm, one more in the clamp, solid round of
 * radius R, E = 5 GPa, G = E / 2.6; no gravity. */
static fl_experiment cantilever(int m, double R)
{
  fl_experiment e = fl_experiment_default();
  double h = 3e-3;
  e.test.kind = FL_TEST_CANTILEVER;
  e.fiber.segments = m + 1;
  e.fiber.length_m = (m + 1) * h;
  e.fiber.outer_radius_m = R;
  e.fiber.density = 1000.0;
  e.fiber.youngs_modulus = 5e9;
  e.fiber.shear_modulus = 5e9 / 2.6;
  e.fiber.shear_given = 1;
  e.test.clamp_length_m = h;
  e.test.gravity = 0.0;
  e.sim.output_points = 11;
  char err[512];
  ck_assert_msg(fl_experiment_finish(&e, "(test)", err, sizeof err) == FL_OK, "%s", err);
  return e;
}

static double ei_of(const fl_experiment *e)
{
  double R = e->fiber.outer_radius_m, Ri = e->fiber.inner_radius_ratio * R;
  return e->bond.torque_stiffness_scale * e->fiber.youngs_modulus * FL_PI * (pow(R, 4) - pow(Ri, 4)) / 4.0;
}

static double ga_of(const fl_experiment *e)
{
  double R = e->fiber.outer_radius_m, Ri = e->fiber.inner_radius_ratio * R;
  return e->bond.force_stiffness_scale * e->fiber.shear_modulus * FL_PI * (R * R - Ri * Ri);
}

static void run_ok(const fl_experiment *e, fl_curve *c, fl_result *r)
{
  char err[1024];
  int rc = fl_run(e, 1, NULL, c, r, err, sizeof err);
  ck_assert_msg(rc == FL_OK, "run failed: %s", err);
}

/* ---- the tip stiffness of the discrete chain ---------------------------------- */

/* The clamp's face bond: its clamped side FL_CLAMP_RIGID times its free half segment's
 * stiffness k_half, so the bond is k_half in series with that, k_half to 1e-6. */
static double face(double k_half)
{
  return k_half * FL_CLAMP_RIGID / (FL_CLAMP_RIGID + 1.0);
}

/* The chain clamped at bond 0 (the clamp's face) with m free rigid segments of length
 * h: bond j (j = 0 .. m-1) lies j h from the face, the tip (the fiber's end) m h.  A
 * tip load P, small, puts the moment M_j = P (m - j) h on bond j and the shear force P
 * on every bond.  Bond j > 0 is a bending spring kb = E I / h (two halves of
 * E I / (h/2) in series) and a shear spring ks = G A / h; the clamp holds bond 0's
 * clamped half rigidly, so bond 0 is the free half's, 2 E I / h and 2 G A / h (face()).
 * A bond's bending turns everything beyond it by M_j / kb, which moves the tip by
 * (m - j) h times that, and its shear slides the rest by P / ks.  So
 *
 *   delta / P = (h^3 / E I) (m^2 / 2 + sum_{k=1..m-1} k^2) + (m - 1/2) h / (G A)
 *             = (L^3 / 3 E I) (1 + 1 / (2 m^2)) + (L - h/2) / (G A),   L = m h,
 *
 * the trapezoidal rule's sum for the beam's integral of (L - x)^2 / E I: the chain bends
 * as a continuous beam of its free length L, 1 / (2 m^2) too soft. */
static double chain_tip_stiffness(const fl_experiment *e, int m)
{
  double h = e->fiber.length_m / e->fiber.segments, ei = ei_of(e), ga = ga_of(e);
  double kb0 = face(2.0 * ei / h), ks0 = face(2.0 * ga / h);
  double c = (m * h) * (m * h) / kb0 + h * h * h / ei * (m - 1.0) * m * (2.0 * m - 1.0) / 6.0 + 1.0 / ks0 +
             (m - 1.0) * h / ga;
  return 1.0 / c;
}

/* Tip stiffness from a static run to a tip displacement of 1e-4 of the free length,
 * and from an explicit run for the shortest chain (slower), within 0.5 %. */
START_TEST(cantilever_tip_stiffness_is_the_chains)
{
  static const int ms[] = {8, 16, 32, 64};
  fprintf(stderr, "cantilever tip stiffness, static solver (R = 1 mm, h = 3 mm):\n");
  fprintf(stderr, "   m   model (N/m)   chain (N/m)   3EI/L^3 (N/m)   model/chain - 1\n");
  for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
    int m = ms[k];
    fl_experiment e = cantilever(m, 1e-3);
    e.test.max_tip_displacement_m = 1e-4 * m * 3e-3;
    fl_curve c;
    fl_result r;
    run_ok(&e, &c, &r);
    ck_assert_int_eq(r.solver, FL_SOLVER_STATIC);
    double k_model = r.spec[0].initial_stiffness, k_chain = chain_tip_stiffness(&e, m);
    double L = m * 3e-3, k_eb = 3.0 * ei_of(&e) / (L * L * L);
    fprintf(stderr, "  %2d   %.6g   %.6g   %.6g   %+.2e\n", m, k_model, k_chain, k_eb, k_model / k_chain - 1.0);
    ck_assert_msg(fabs(k_model / k_chain - 1.0) < 0.005, "m = %d: tip stiffness %g N/m, the chain's %g N/m", m,
                  k_model, k_chain);
    fl_curve_free(&c);
    fl_result_free(&r);
  }
  /* the explicit engine, the shortest chain, a thick fiber (a short run) */
  fl_experiment e = cantilever(8, 2e-3);
  e.sim.solver = FL_SOLVER_EXPLICIT;
  e.test.max_tip_displacement_m = 1e-4 * 8 * 3e-3;
  e.sim.output_points = 41;
  fl_curve c;
  fl_result r;
  run_ok(&e, &c, &r);
  ck_assert_int_eq(r.solver, FL_SOLVER_EXPLICIT);
  double k_model = r.spec[0].initial_stiffness, k_chain = chain_tip_stiffness(&e, 8);
  fprintf(stderr, "  explicit, m = 8, R = 2 mm: %.6g N/m, chain %.6g N/m, %+.2e\n", k_model, k_chain,
          k_model / k_chain - 1.0);
  ck_assert_msg(fabs(k_model / k_chain - 1.0) < 0.005, "explicit: tip stiffness %g N/m, the chain's %g N/m", k_model,
                k_chain);
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

/* ---- the elastica ---------------------------------------------------------------- */

/* The clamped elastica under a dead tip load across its axis (Bisshopp and Drucker,
 * Quart. Appl. Math. 3 (1945) 272), in arc length s of [0, 1] and alpha = P L^2 / E I:
 * theta' = kappa, kappa' = -alpha cos theta, y' = sin theta, with theta(0) = 0 and
 * kappa(1) = 0 (no moment at the tip).  Shooting on kappa(0) with classical RK4 over
 * 4000 steps and bisection: kappa(1) is -alpha int cos < 0 at kappa(0) = 0 and
 * alpha (1 - int cos) >= 0 at kappa(0) = alpha.  Returns the tip deflection over L. */
static void elastica_rhs(double alpha, const double *u, double *du)
{
  du[0] = u[1];
  du[1] = -alpha * cos(u[0]);
  du[2] = sin(u[0]);
}

static void elastica_shoot(double alpha, double k0, double *k1, double *y1)
{
  const int n = 4000;
  double ds = 1.0 / n, u[3] = {0.0, k0, 0.0};
  for (int i = 0; i < n; i++) {
    double a[3], b[3], c[3], d[3], t[3];
    elastica_rhs(alpha, u, a);
    for (int j = 0; j < 3; j++)
      t[j] = u[j] + 0.5 * ds * a[j];
    elastica_rhs(alpha, t, b);
    for (int j = 0; j < 3; j++)
      t[j] = u[j] + 0.5 * ds * b[j];
    elastica_rhs(alpha, t, c);
    for (int j = 0; j < 3; j++)
      t[j] = u[j] + ds * c[j];
    elastica_rhs(alpha, t, d);
    for (int j = 0; j < 3; j++)
      u[j] += ds / 6.0 * (a[j] + 2.0 * b[j] + 2.0 * c[j] + d[j]);
  }
  *k1 = u[1];
  *y1 = u[2];
}

static double elastica_deflection(double alpha)
{
  double lo = 0.0, hi = alpha, k1, y1 = 0.0;
  for (int it = 0; it < 100; it++) {
    double mid = 0.5 * (lo + hi);
    elastica_shoot(alpha, mid, &k1, &y1);
    if (k1 < 0.0)
      lo = mid;
    else
      hi = mid;
  }
  return y1;
}

/* The reference reproduces Bisshopp and Drucker's table (delta / L = 0.30172 at
 * alpha = 1, 0.49346 at 2, 0.81061 at 10) within 1e-4. */
START_TEST(elastica_reference_matches_bisshopp_drucker)
{
  ck_assert_msg(fabs(elastica_deflection(1.0) - 0.30172) < 1e-4, "alpha 1: %.6f", elastica_deflection(1.0));
  ck_assert_msg(fabs(elastica_deflection(2.0) - 0.49346) < 1e-4, "alpha 2: %.6f", elastica_deflection(2.0));
  ck_assert_msg(fabs(elastica_deflection(10.0) - 0.81061) < 1e-4, "alpha 10: %.6f", elastica_deflection(10.0));
}
END_TEST

/* A slender cantilever (m = 32, R = 0.5 mm: shear adds 2e-4 of the deflection) under
 * a tip load to alpha = P Le^2 / E I = 10, Le = m h its free length
 * (chain_tip_stiffness above): the tip deflection at every row against the
 * elastica's, within 1 %. */
START_TEST(cantilever_large_deflection_is_the_elastica)
{
  int m = 32;
  fl_experiment e = cantilever(m, 0.5e-3);
  double h = 3e-3, le = m * h, ei = ei_of(&e);
  e.test.tip_control = FL_TIP_LOAD;
  e.test.max_tip_load_n = 10.0 * ei / (le * le);
  fl_curve c;
  fl_result r;
  run_ok(&e, &c, &r);
  ck_assert_int_eq(r.solver, FL_SOLVER_STATIC);
  ck_assert_int_eq(c.npoints, 11);
  fprintf(stderr, "cantilever large deflection, m = 32 (static solver):\n  alpha   model delta/Le   elastica   model/elastica - 1\n");
  for (int i = 1; i < c.npoints; i++) {
    double alpha = c.y[i] * le * le / ei, model = c.x[i] / le, ref = elastica_deflection(alpha);
    fprintf(stderr, "  %5.2f   %.5f   %.5f   %+.2e\n", alpha, model, ref, model / ref - 1.0);
    ck_assert_msg(fabs(model / ref - 1.0) < 0.01, "alpha %g: delta / Le %g, elastica %g", alpha, model, ref);
  }
  ck_assert_msg(fabs(c.y[c.npoints - 1] * le * le / ei - 10.0) < 1e-9, "the run stopped short of alpha 10");
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST


/* ---- free vibration ------------------------------------------------------------- */

/* The chain's lowest bending frequency, in the plane: each free body i has a deflection
 * y_i and a turn t_i, mass m and transverse inertia It (fl_system_set_segment).  The
 * bond between bodies a and b = a + 1, at their midpoint, stretches its shear spring
 * ks = G A / h by (y_b - h/2 t_b) - (y_a + h/2 t_a) and its bending spring kb = E I / h
 * by t_b - t_a; the clamped body has y = t = 0, and the bond at the clamp's face is its
 * free half's, 2 ks and 2 kb (face()).  K = sum of B^T k B over the bonds, M
 * diagonal, and omega^2 the smallest eigenvalue of K phi = omega^2 M phi (GSL's
 * generalised symmetric solver).  Returns Hz. */
static double chain_first_frequency(const fl_experiment *e, int m)
{
  double h = e->fiber.length_m / e->fiber.segments, R = e->fiber.outer_radius_m, Ri = e->fiber.inner_radius_ratio * R;
  double A = FL_PI * (R * R - Ri * Ri), mass = e->fiber.density * A * h;
  double it = mass * (3.0 * (R * R + Ri * Ri) + h * h) / 12.0;
  double ks = ga_of(e) / h, kb = ei_of(e) / h;
  int n = 2 * m;
  gsl_matrix *K = gsl_matrix_calloc(n, n), *M = gsl_matrix_calloc(n, n);
  for (int i = 0; i < m; i++) {
    gsl_matrix_set(M, 2 * i, 2 * i, mass);
    gsl_matrix_set(M, 2 * i + 1, 2 * i + 1, it);
  }
  for (int b = 0; b < m; b++) { /* bond b between free body b - 1 (the clamp for b = 0) and b */
    double f = b == 0 ? face(2.0) : 1.0;
    chain_modes_bond(K, b - 1, b, 0.5 * h, -0.5 * h, f * ks, f * kb);
  }
  return chain_modes_lowest(K, M);
}

/* What the damping law predicts for a mode of undamped angular frequency w0
 * (fiberlab-model(7), Damping): every bond's dashpot is a_damp times its stiffness, in
 * series with a spring of its stiffness over s, so the mode's coordinate x carries the
 * elastic force -K x and a damping force F with a s dF/dt = -F - a K dx/dt.  With x,
 * F ~ exp(lambda t):
 *   (lambda^2 + w0^2) (1 + a s lambda) + a w0^2 lambda = 0, that is
 *   a s lambda^3 + lambda^2 + a (1 + s) w0^2 lambda + w0^2 = 0.
 * Its complex pair -sigma +- i wd rings at wd with the logarithmic decrement
 * 2 pi sigma / wd. */
static void damped_mode(double w0, double a, double s, double *fd, double *decrement)
{
  double c[4] = {w0 * w0, a * (1.0 + s) * w0 * w0, 1.0, a * s}, z[6];
  int deg = a * s > 0.0 ? 3 : 2;
  gsl_poly_complex_workspace *ws = gsl_poly_complex_workspace_alloc(deg + 1);
  ck_assert_int_eq(gsl_poly_complex_solve(c, deg + 1, ws, z), GSL_SUCCESS);
  gsl_poly_complex_workspace_free(ws);
  *fd = *decrement = 0.0;
  for (int i = 0; i < deg; i++)
    if (z[2 * i + 1] > 0.0) {
      *fd = z[2 * i + 1] / (2.0 * FL_PI);
      *decrement = 2.0 * FL_PI * -z[2 * i] / z[2 * i + 1];
    }
  ck_assert_msg(*fd > 0.0, "no oscillating root");
}

/* The ring-down's two solvers, one per loop of each vibration test (_i): the explicit
 * engine, and the trapezoidal rule on the static solver's equations. */
static const enum fl_solver ring_solver[2] = {FL_SOLVER_EXPLICIT, FL_SOLVER_STATIC};

/* A stubby cantilever (m = 20, R = 3 mm: a short explicit run) deflected by 1 mm,
 * released and rung for ring periods, with bond damping a (s) and stabilisation s, on
 * ring_solver[k]. */
static fl_experiment ringing(double a, double s, double periods, int k)
{
  fl_experiment e = cantilever(20, 3e-3);
  e.sim.solver = ring_solver[k];
  e.test.mode = FL_MODE_VIBRATION;
  e.test.max_tip_displacement_m = 1e-3;
  e.test.ring_periods = periods;
  e.bond.damping = a;
  e.bond.damping_stabilization = s;
  e.sim.output_points = (int)(50 * periods) + 1; /* 50 rows a period */
  return e;
}

/* The mean distance of extremes [k0, k1) of the first mode from its rest position. */
static double mean_amplitude(const double *xe, int k0, int k1, double x0)
{
  double sum = 0.0;
  for (int k = k0; k < k1; k++)
    sum += fabs(xe[k] - x0);
  return sum / (k1 - k0);
}

/* Undamped: the first frequency is the chain's within 1 %, and over 100 periods the
 * first mode's amplitude (from the CSV's rows) stays within 0.1 %: the integrator
 * neither feeds nor drains it. */
START_TEST(vibration_undamped_rings_at_the_chains_frequency_for_100_periods)
{
  /* 106 periods of Euler-Bernoulli's estimate hold 100 of this stubby chain's own,
   * 0.6 % slower (shear, rotary inertia, the chain's 1 / m^2) */
  fl_experiment e = ringing(0.0, 1.0, 106.0, _i);
  e.sim.safety = 0.5; /* no damping: the bound is the spring's own */
  fl_curve c;
  fl_result r;
  run_ok(&e, &c, &r);
  ck_assert_int_eq(r.vibration, 1);
  double f_chain = chain_first_frequency(&e, 20), f = r.spec[0].frequency;
  fprintf(stderr, "vibration, %s, undamped, m = 20: %.6g Hz, the chain's %.6g Hz (%+.2e); log decrement %.2e\n",
          fl_solver_name(ring_solver[_i]), f, f_chain, f / f_chain - 1.0, r.spec[0].log_decrement);
  ck_assert_msg(fabs(f / f_chain - 1.0) < 0.01, "first frequency %g Hz, the chain's %g Hz", f, f_chain);
  ck_assert_msg(fabs(r.spec[0].release_x - 1e-3) < 1e-5, "released at %g m", r.spec[0].release_x);
  double *te = malloc(c.npoints * sizeof *te), *xe = malloc(c.npoints * sizeof *xe);
  int ne = fl_ringdown_extremes(c.time, c.support, c.npoints, te, xe);
  ck_assert_msg(ne >= 199 && c.time[c.npoints - 1] * f >= 100.0, "%d extremes in %g periods", ne,
                c.time[c.npoints - 1] * f);
  fl_ringdown rd;
  ck_assert_int_eq(fl_ringdown_fit(te, xe, ne, &rd), FL_OK);
  double first = mean_amplitude(xe, 0, 10, rd.offset), last = mean_amplitude(xe, ne - 10, ne, rd.offset);
  fprintf(stderr, "  first mode's amplitude: periods 1-5 %.8g m, the last 5 %.8g m (%+.2e)\n", first, last,
          last / first - 1.0);
  ck_assert_msg(fabs(last / first - 1.0) < 1e-3, "amplitude %g m at the start, %g m after 100 periods", first, last);
  free(te);
  free(xe);
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

/* Damped, with and without the Maxwell spring: the logarithmic decrement within 3 % of
 * damped_mode's for the chain's first mode, the damped frequency within 1 %. */
START_TEST(vibration_decrement_is_the_damping_laws)
{
  static const double stab[] = {0.0, 1.0};
  for (int k = 0; k < 2; k++) {
    fl_experiment e = ringing(0.0, stab[k], 20.0, _i);
    double w0 = 2.0 * FL_PI * chain_first_frequency(&e, 20);
    e.bond.damping = 0.04 / w0; /* a damping ratio near 2 % */
    fl_curve c;
    fl_result r;
    run_ok(&e, &c, &r);
    double fd, dec;
    damped_mode(w0, e.bond.damping, stab[k], &fd, &dec);
    double f = r.spec[0].frequency, d = r.spec[0].log_decrement;
    fprintf(stderr, "vibration, %s, a_damp %.4g s, s = %g: %.6g Hz (theory %.6g, %+.2e), decrement %.5f (theory %.5f, "
            "%+.2e)\n", fl_solver_name(ring_solver[_i]), e.bond.damping, stab[k], f, fd, f / fd - 1.0, d, dec, d / dec - 1.0);
    ck_assert_msg(fabs(f / fd - 1.0) < 0.01, "s %g: frequency %g Hz, predicted %g Hz", stab[k], f, fd);
    ck_assert_msg(fabs(d / dec - 1.0) < 0.03, "s %g: decrement %g, predicted %g", stab[k], d, dec);
    /* the summary's decay rate and damping ratio: b = delta f and zeta = delta /
     * sqrt(4 pi^2 + delta^2), for the plain dashpot a_damp omega^2 / 2 and a_damp omega / 2
     * (fiberlab-model(7), The first mode's damping) within the decrement's 3 %, each with
     * a standard error of the reading that is small beside it */
    const fl_specimen_result *sr = &r.spec[0];
    double b = d * f, zeta = d / sqrt(4.0 * FL_PI * FL_PI + d * d);
    ck_assert_msg(fabs(sr->decay_rate / b - 1.0) < 1e-12 && fabs(sr->damping_ratio / zeta - 1.0) < 1e-12,
                  "b %g (delta f %g), zeta %g (%g)", sr->decay_rate, b, sr->damping_ratio, zeta);
    if (stab[k] == 0.0) {
      double a = e.bond.damping;
      ck_assert_msg(fabs(sr->decay_rate / (0.5 * a * w0 * w0) - 1.0) < 0.03, "b %g, a_damp omega^2 / 2 %g",
                    sr->decay_rate, 0.5 * a * w0 * w0);
      ck_assert_msg(fabs(sr->damping_ratio / (0.5 * a * w0) - 1.0) < 0.03, "zeta %g, a_damp omega / 2 %g",
                    sr->damping_ratio, 0.5 * a * w0);
    }
    ck_assert_msg(sr->frequency_se > 0.0 && sr->frequency_se < 1e-3 * f && sr->log_decrement_se > 0.0 &&
                      sr->log_decrement_se < 0.03 * d && sr->decay_rate_se < 0.03 * b && sr->damping_ratio_se < 0.03 * zeta,
                  "standard errors: f %g, delta %g, b %g, zeta %g", sr->frequency_se, sr->log_decrement_se,
                  sr->decay_rate_se, sr->damping_ratio_se);
    /* the CSV's tip displacement, higher modes and all, read as fiber-calibrate reads a
     * measured ring-down, gives the same within the same bounds */
    double *te = malloc(c.npoints * sizeof *te), *xe = malloc(c.npoints * sizeof *xe);
    fl_ringdown rd;
    ck_assert_int_eq(fl_ringdown_fit(te, xe, fl_ringdown_extremes(c.time, c.x, c.npoints, te, xe), &rd), FL_OK);
    fprintf(stderr, "  read off the tip displacement: %.6g Hz (%+.2e), decrement %.5f (%+.2e)\n", rd.frequency,
            rd.frequency / fd - 1.0, rd.log_decrement, rd.log_decrement / dec - 1.0);
    ck_assert_msg(fabs(rd.frequency / fd - 1.0) < 0.01, "tip signal: frequency %g Hz, predicted %g Hz", rd.frequency, fd);
    ck_assert_msg(fabs(rd.log_decrement / dec - 1.0) < 0.03, "tip signal: decrement %g, predicted %g", rd.log_decrement,
                  dec);
    free(te);
    free(xe);
    fl_curve_free(&c);
    fl_result_free(&r);
  }
}
END_TEST



/* Under gravity the fiber sags and rings about its sag: the first frequency stays the
 * chain's within 1 % (its weight's geometric stiffness, 1e-5 of the bending stiffness
 * here, is left out of the chain's), and the rest position the ring-down's extremes
 * give is the static sag under gravity alone (the static solver, no tip load) within
 * 5 % of it.  A strong gravity, 1000 m/s^2, makes the sag 16 % of the release
 * deflection, and a light bond damping (0.2 % of critical in the first mode, 1.3 % in
 * the second) quiets the higher modes' ripple on the extremes, which undamped moves
 * the rest position read off 10 periods by some 6 %. */
START_TEST(vibration_under_gravity_rings_about_the_sag)
{
  fl_experiment e = ringing(0.0, 1.0, 10.0, _i);
  e.test.gravity = 1000.0;
  e.sim.safety = 0.5;
  e.bond.damping = 0.004 / (2.0 * FL_PI * chain_first_frequency(&e, 20));
  fl_curve c;
  fl_result r;
  run_ok(&e, &c, &r);
  double f_chain = chain_first_frequency(&e, 20), f = r.spec[0].frequency;
  /* the sag: the static solver under gravity alone (a tip displacement of nothing
   * but the spring's slack) */
  fl_experiment g = e;
  g.test.mode = FL_MODE_STATIC;
  g.sim.solver = FL_SOLVER_STATIC;
  g.test.tip_control = FL_TIP_LOAD;
  g.test.max_tip_load_n = 1e-12;
  fl_curve cg;
  fl_result rg;
  run_ok(&g, &cg, &rg);
  double sag = cg.x[0];
  double *te = malloc(c.npoints * sizeof *te), *xe = malloc(c.npoints * sizeof *xe);
  fl_ringdown rd;
  ck_assert_int_eq(fl_ringdown_fit(te, xe, fl_ringdown_extremes(c.time, c.x, c.npoints, te, xe), &rd), FL_OK);
  fprintf(stderr, "vibration under gravity, %s: %.6g Hz, the chain's %.6g Hz (%+.2e); rings about %.6g m, static sag %.6g m\n",
          fl_solver_name(ring_solver[_i]), f, f_chain, f / f_chain - 1.0, rd.offset, sag);
  ck_assert_msg(fabs(f / f_chain - 1.0) < 0.01, "first frequency %g Hz, the chain's %g Hz", f, f_chain);
  ck_assert_msg(sag > 0.0 && fabs(rd.offset / sag - 1.0) < 0.05, "rest %g m, sag %g m", rd.offset, sag);
  free(te);
  free(xe);
  fl_curve_free(&c);
  fl_result_free(&r);
  fl_curve_free(&cg);
  fl_result_free(&rg);
}
END_TEST

/* ---- four-point bending ------------------------------------------------------------ */

/* The chain's bending angle of the bond between bodies i and i + 1, from their
 * orientations, rad. */
static double bond_angle(const fl_system *sys, int i)
{
  fl_quat d = fl_qmul(sys->q[i + 1], fl_qconj(sys->q[i]));
  return 2.0 * atan2(fl_norm(fl_qvec(d)), fabs(d.w));
}

typedef struct {
  chain_probe probe; /* deflection at the noses against the supports, and the force */
  double xn;         /* nose position, m */
  double kb;         /* bond bending stiffness, N m */
  double *moment_min, *moment_max; /* per row: the extremes of the bond moments between the noses, N m */
} bend4_probe;

static void bend4_sample(void *ctx, const fl_system *sys, int point, double x)
{
  (void)x;
  bend4_probe *p = ctx;
  p->probe.defl[point] = 0.5 * (chain_axis_y(sys, -p->probe.xs) + chain_axis_y(sys, p->probe.xs)) -
                         0.5 * (chain_axis_y(sys, -p->xn) + chain_axis_y(sys, p->xn));
  p->probe.force[point] = fl_run_measured(sys, FL_TEST_BEND4PT, 0);
  p->probe.n = point + 1;
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (int i = 0; i + 1 < sys->nbody; i++) {
    double xb = 0.5 * (sys->x_ref[i].x + sys->x_ref[i + 1].x);
    if (fabs(xb) < p->xn) {
      double m = p->kb * bond_angle(sys, i);
      lo = fmin(lo, m);
      hi = fmax(hi, m);
    }
  }
  p->moment_min[point] = lo;
  p->moment_max[point] = hi;
}

/* The chain on two supports at +-S/2 under two noses at +-a/2, each F/2, all four
 * between bond points (so each touches one segment, at that x): a bond at x carries
 * the moment (F/2)(S/2 - |x|) and the shear F/2 outside the noses, and the moment
 * (F/2) c, c = (S - a)/2, and no shear between them.  By virtual work with the same
 * loads, the deflection delta of the nose points against the support points
 * (conjugate to F) is
 *   delta / F = sum over the bonds between the supports of (M_b/F)^2 / kb + (V_b/F)^2 / ks,
 * kb = E I / h, ks = G A / h. */
static double chain_bend4_stiffness(const fl_experiment *e)
{
  int n = e->fiber.segments;
  double h = e->fiber.length_m / n, S2 = 0.5 * e->test.span_m, a2 = 0.5 * e->test.loading_span_m;
  double kb = ei_of(e) / h, ks = ga_of(e) / h, c = 0.0;
  for (int k = 1; k < n; k++) {
    double x = fabs(k * h - 0.5 * e->fiber.length_m);
    if (x >= S2)
      continue;
    double m = x < a2 ? 0.5 * (S2 - a2) : 0.5 * (S2 - x), v = x < a2 ? 0.0 : 0.5;
    c += m * m / kb + v * v / ks;
  }
  return 1.0 / c;
}

/* Frictionless rollers, no gravity: the chain's own stiffness (its deflection at the
 * noses against the supports, so the Hertz indentation does not enter) within 1 % of
 * the discrete form, and between the noses the bond moments equal within 0.5 % and
 * equal to (F/2) c within 1 %. */
START_TEST(bend4pt_stiffness_and_constant_moment)
{
  fl_experiment e = fl_experiment_default();
  e.test.kind = FL_TEST_BEND4PT;
  e.fiber.length_m = 0.12;
  e.fiber.segments = 48; /* h = 2.5 mm: span 39 h, loading span 15 h, all mid-segment */
  e.fiber.outer_radius_m = 1e-3;
  e.fiber.youngs_modulus = 5e9;
  e.fiber.shear_modulus = 5e9 / 2.6;
  e.fiber.shear_given = 1;
  e.test.span_m = 0.0975;
  e.test.loading_span_m = 0.0375;
  e.test.rollers = FL_ROLLERS_ROTATING;
  e.test.gravity = 0.0;
  e.test.support_radius_m = e.test.nose_radius_m = 2e-3;
  e.test.max_displacement_m = 2e-4;
  e.sim.solver = FL_SOLVER_EXPLICIT;
  e.sim.output_points = 21;
  char err[1024];
  ck_assert_msg(fl_experiment_finish(&e, "(test)", err, sizeof err) == FL_OK, "%s", err);
  double defl[21], force[21], mmin[21], mmax[21];
  bend4_probe p = {{0, 0.5 * e.test.span_m, defl, force}, 0.5 * e.test.loading_span_m, ei_of(&e) / 2.5e-3, mmin, mmax};
  fl_run_hooks hooks = {NULL, bend4_sample, &p, NULL, 1, 0, NULL, 0};
  fl_curve c;
  fl_result r;
  ck_assert_msg(fl_run(&e, 1, &hooks, &c, &r, err, sizeof err) == FL_OK, "%s", err);
  ck_assert_int_eq(p.probe.n, 21);
  /* the slope over the loaded rows (past 10 % of the largest force) */
  int a = 0;
  while (a < p.probe.n && force[a] < 0.1 * force[p.probe.n - 1])
    a++;
  double k_model = fl_fit_slope(defl, force, a, p.probe.n), k_chain = chain_bend4_stiffness(&e);
  double S = e.test.span_m, aa = e.test.loading_span_m, cc = 0.5 * (S - aa);
  double k_eb = 12.0 * ei_of(&e) / (cc * cc * (3.0 * S - 4.0 * cc));
  fprintf(stderr, "4-point bending: chain stiffness %.6g N/m, discrete form %.6g N/m (%+.2e), Euler-Bernoulli %.6g N/m\n",
          k_model, k_chain, k_model / k_chain - 1.0, k_eb);
  ck_assert_msg(fabs(k_model / k_chain - 1.0) < 0.01, "stiffness %g N/m, the chain's %g N/m", k_model, k_chain);
  int last = p.probe.n - 1;
  double spread = (mmax[last] - mmin[last]) / mmax[last], m_theory = 0.5 * force[last] * cc;
  fprintf(stderr, "  moments between the noses: %.6g .. %.6g N m (spread %.2e), (F/2) c = %.6g N m (%+.2e)\n",
          mmin[last], mmax[last], spread, m_theory, mmax[last] / m_theory - 1.0);
  ck_assert_msg(spread < 0.005, "bond moments between the noses from %g to %g N m", mmin[last], mmax[last]);
  ck_assert_msg(fabs(mmax[last] / m_theory - 1.0) < 0.01, "moment %g N m, (F/2) c %g N m", mmax[last], m_theory);
  /* the kind table's stress at that force, where a strength fit starts: the bonds' moment
   * at the outer fibre */
  fl_section sec = fl_section_hollow(e.fiber.outer_radius_m, 0.0);
  double sig = fl_test_type_of(FL_TEST_BEND4PT)->stress_at(&e, &sec, e.fiber.outer_radius_m, force[last]);
  double sig_bonds = mmax[last] * e.fiber.outer_radius_m / sec.inertia;
  fprintf(stderr, "  stress at the force (strength start): %.6g Pa, the bonds' %.6g Pa (%+.2e)\n", sig, sig_bonds,
          sig / sig_bonds - 1.0);
  ck_assert_msg(fabs(sig / sig_bonds - 1.0) < 0.01, "stress_at %g Pa, the bonds' moment gives %g Pa", sig, sig_bonds);
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST


/* ---- compression and buckling --------------------------------------------------------- */

/* The pinned chain: N rigid links of length h between the two hinges (the bonds next to
 * the grips, which do not bend), joined at N - 1 joints by bending springs
 * kb = E I / h.  Joint j (j = 0 .. N, the hinges 0 and N) moves w_j across the axis;
 * link j turns by (w_j - w_{j-1}) / h, so joint j bends by
 * (w_{j+1} - 2 w_j + w_{j-1}) / h and carries the moment -kb times that.  Under the
 * axial load P the moment at joint j is P w_j (the hinges carry no moment, so no
 * lateral reaction), and
 *   -kb (w_{j+1} - 2 w_j + w_{j-1}) / h = P w_j.
 * w_j = sin(k pi j / N) solves it with P = (4 kb / h) sin^2(k pi / (2 N)); the lowest,
 *   P_cr = 4 E I / h^2 sin^2(pi / (2 N)),
 * tends to Euler's pi^2 E I / (N h)^2 as N grows.  (The shear springs lower it by
 * Engesser's factor 1 / (1 + P / (G A)), 1e-4 here, and the axial springs shorten the
 * column by P / (E A) of its length, 1e-6: both left out.) */
static double chain_euler_load(const fl_experiment *e, int N)
{
  double h = e->fiber.length_m / e->fiber.segments, s = sin(FL_PI / (2.0 * N));
  return 4.0 * ei_of(e) / (h * h) * s * s;
}

/* A slender column of N free links of 2.5 mm (R = 0.5 mm), bowed by 1e-3 of its pinned
 * length, shortened by 2e-3 of it (the bow grows thirtyfold): the buckling load from
 * Southwell's plot (the midspan deflection delta grown since rest against delta / P
 * is a line of slope P_cr, for an imperfection in the first mode's shape; R. V.
 * Southwell, Proc. R. Soc. A 135 (1932) 601) within 1 % of the chain's, for N from
 * 16 to 64; the force never exceeds it by more than 1 %. */
START_TEST(compression_buckles_at_the_chains_euler_load)
{
  static const int Ns[] = {16, 32, 64};
  fprintf(stderr, "compression, pinned chain (static solver):\n   N   Southwell (N)   chain P_cr (N)   Euler (N)   Southwell/chain - 1\n");
  for (size_t k = 0; k < sizeof Ns / sizeof Ns[0]; k++) {
    int N = Ns[k];
    fl_experiment e = fl_experiment_default();
    e.test.kind = FL_TEST_COMPRESSION;
    e.fiber.segments = N + 2;
    e.fiber.length_m = (N + 2) * 2.5e-3;
    e.fiber.outer_radius_m = 0.5e-3;
    e.fiber.youngs_modulus = 5e9;
    e.fiber.shear_modulus = 5e9 / 2.6;
    e.fiber.shear_given = 1;
    e.test.imperfection = 1e-3;
    e.test.max_shortening_m = 2e-3 * N * 2.5e-3;
    e.sim.output_points = 41;
    char err[1024];
    ck_assert_msg(fl_experiment_finish(&e, "(test)", err, sizeof err) == FL_OK, "%s", err);
    fl_curve c;
    fl_result r;
    run_ok(&e, &c, &r);
    ck_assert_int_eq(r.solver, FL_SOLVER_STATIC);
    double lp = N * 2.5e-3, a0 = 1e-3 * lp, pcr = chain_euler_load(&e, N);
    double *u = malloc(c.npoints * sizeof *u), *d = malloc(c.npoints * sizeof *d);
    int n = 0;
    for (int i = 0; i < c.npoints; i++) {
      double delta = fabs(c.midspan[i]);
      ck_assert_msg(c.y[i] < 1.01 * pcr, "N %d: force %g N over the buckling load %g N", N, c.y[i], pcr);
      if (delta >= 2.0 * a0) {
        u[n] = delta / c.y[i];
        d[n] = delta;
        n++;
      }
    }
    ck_assert_msg(n >= 10 && fabs(c.midspan[c.npoints - 1]) > 10.0 * a0, "N %d: the column did not buckle", N);
    double ps = fl_fit_slope(u, d, 0, n), eu = FL_PI * FL_PI * ei_of(&e) / (lp * lp);
    fprintf(stderr, "  %2d   %.6g   %.6g   %.6g   %+.2e\n", N, ps, pcr, eu, ps / pcr - 1.0);
    ck_assert_msg(fabs(ps / pcr - 1.0) < 0.01, "N %d: Southwell's buckling load %g N, the chain's %g N", N, ps, pcr);
    free(u);
    free(d);
    fl_curve_free(&c);
    fl_result_free(&r);
  }
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("tests");
  TCase *tc = tcase_create("cantilever");
  fl_limits_set(tc, "cantilever", 800); /* reference times: about ten times what it takes */
  tcase_add_test(tc, cantilever_tip_stiffness_is_the_chains);
  tcase_add_test(tc, elastica_reference_matches_bisshopp_drucker);
  tcase_add_test(tc, cantilever_large_deflection_is_the_elastica);
  suite_add_tcase(s, tc);
  TCase *tb = tcase_create("bend4pt");
  fl_limits_set(tb, "bend4pt", 800);
  tcase_add_test(tb, bend4pt_stiffness_and_constant_moment);
  suite_add_tcase(s, tb);
  TCase *tc4 = tcase_create("compression");
  fl_limits_set(tc4, "compression", 800);
  tcase_add_test(tc4, compression_buckles_at_the_chains_euler_load);
  suite_add_tcase(s, tc4);
  TCase *tv = tcase_create("vibration");
  fl_limits_set(tv, "vibration", 2000); /* reference times: about ten times what it takes */
  tcase_add_loop_test(tv, vibration_undamped_rings_at_the_chains_frequency_for_100_periods, 0, 2);
  tcase_add_loop_test(tv, vibration_decrement_is_the_damping_laws, 0, 2);
  tcase_add_loop_test(tv, vibration_under_gravity_rings_about_the_sag, 0, 2);
  suite_add_tcase(s, tv);
  return s;
}

int main(void)
{
  (void)chain_probe_sample; /* the 3-point probe; 4-point bending samples its own */
  gsl_set_error_handler_off();
  return fl_check_run(suite());
}
