/* check_failure.c: elastic limits and post-failure behaviours (fiberlab-model(7),
 * Elastic limits and Beyond the limit), each against a number computed from theory in
 * the test. */
#include <config.h>

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bond.h"
#include "rng.h"
#include "run.h"
#include "strength.h"
#include "check_limits.h"
#include "system.h"

/* ---- bond-level ------------------------------------------------------------------ */

static fl_side_section section(double R, double ratio)
{
  fl_section s = fl_section_hollow(R, ratio * R);
  double Ri = ratio * R;
  fl_side_section sc = {R, s.area, s.inertia, s.polar, (Ri * Ri + Ri * R + R * R) / (R * R + Ri * Ri)};
  return sc;
}

static fl_side_stiffness stiff(const fl_side_section *sc, double d, double E, double G)
{
  fl_side_stiffness k = {E * sc->area / d, G * sc->area / d, G * sc->polar / d, E * sc->inertia / d};
  return k;
}

/* A straight bond along x between bodies 2d apart, and its limits. */
typedef struct {
  fl_bond bond;
  fl_bond_limits lim;
  fl_bond_state st;
  double d;
} pair;

static pair make_pair(int criterion, int post, double max_stress)
{
  pair p;
  memset(&p, 0, sizeof p);
  p.d = 2e-3;
  fl_side_section sc = section(1e-3, 0.5);
  fl_side_stiffness k = stiff(&sc, p.d, 5e9, 2e9);
  p.bond = fl_bond_make(fl_v3(0, 0, 0), fl_qid(), fl_v3(2 * p.d, 0, 0), fl_qid(), fl_v3(p.d, 0, 0), k, k);
  p.lim.criterion = criterion;
  p.lim.post = post;
  p.lim.max_stress = max_stress;
  p.lim.max_angle = 10.0 * FL_PI / 180.0;
  p.lim.sec1 = p.lim.sec2 = sc;
  p.st.strength = 1.0;
  return p;
}

/* Body 2 moved along x by u (stretch), bent about z by theta, twisted by psi. */
static void load_pair(pair *p, double u, double theta, double psi, fl_bond_loads *ld)
{
  fl_body b1 = {fl_v3(0, 0, 0), fl_qid(), fl_v3(0, 0, 0), fl_v3(0, 0, 0)};
  fl_quat q2 = fl_qmul(fl_qexp(fl_v3(0, 0, theta)), fl_qexp(fl_v3(psi, 0, 0)));
  fl_vec3 x2 = fl_add(fl_v3(p->d + u, 0, 0), fl_qrot(q2, fl_v3(p->d, 0, 0)));
  fl_body b2 = {x2, q2, fl_v3(0, 0, 0), fl_v3(0, 0, 0)};
  fl_bond_damping none = {0.0, 0.0, 1e-7, 0};
  fl_bond_eval(&p->bond, &none, &p->lim, &b1, &b2, &p->st, ld);
}

/* Combined plasticity keeps the loads on the yield surface while loading goes on. */
static void combined_stays_on_surface(int criterion)
{
  double sigma = 2e7;
  pair p = make_pair(criterion, FL_POST_COMBINED_PLASTICITY, sigma);
  fl_bond_loads ld;
  int steps_on = 0;
  for (int k = 1; k <= 400; k++) {
    double u = 2e-7 * k, th = 2e-4 * k; /* tension and bending together */
    load_pair(&p, u, th, 0.5 * th, &ld);
    if (p.st.yielded) {
      /* the side axes lean with the bending: evaluate as the bond does */
      fl_bond_work wk;
      fl_body b1 = {fl_v3(0, 0, 0), fl_qid(), fl_v3(0, 0, 0), fl_v3(0, 0, 0)};
      fl_quat q2 = fl_qmul(fl_qexp(fl_v3(0, 0, th)), fl_qexp(fl_v3(0.5 * th, 0, 0)));
      fl_body b2 = {fl_add(fl_v3(p.d + u, 0, 0), fl_qrot(q2, fl_v3(p.d, 0, 0))), q2, fl_v3(0, 0, 0),
                    fl_v3(0, 0, 0)};
      fl_bond_loads el;
      fl_bond_elastic(&p.bond, &b1, &b2, fl_qrot(b1.q, p.st.dp), fl_qrot(b1.q, p.st.thp), &el, &wk);
      double v = fl_bond_criterion_value(&p.lim, &wk, el.axis, el.force, el.moment);
      ck_assert_double_eq_tol(v, sigma, 1e-9 * sigma);
      /* and the loads returned are those elastic loads, the twist moment carried along
       * the energy's gradient as the bond does after its limits */
      fl_bond_twist_carry(&wk, &el);
      ck_assert_double_le(fl_norm(fl_sub(el.force, ld.force)), 1e-9 * fl_norm(ld.force));
      ck_assert_double_le(fl_norm(fl_sub(el.moment, ld.moment)), 1e-9 * fl_norm(ld.moment));
      steps_on++;
    }
  }
  ck_assert_int_gt(steps_on, 100); /* it did yield, early enough to be tested */
}

START_TEST(test_combined_plasticity_axial_stress_on_surface) { combined_stays_on_surface(FL_CRIT_AXIAL_STRESS); }
END_TEST

START_TEST(test_combined_plasticity_von_mises_on_surface) { combined_stays_on_surface(FL_CRIT_VON_MISES); }
END_TEST

/* A compression that fails an axial_stress bond does not fail it with ignore_compression. */
START_TEST(test_ignore_compression)
{
  double sigma = 1e7;
  fl_side_section sc = section(1e-3, 0.5);
  pair p = make_pair(FL_CRIT_AXIAL_STRESS, FL_POST_TOTAL_BREAKAGE, sigma);
  double k = fl_series(p.bond.s1.k_axial, p.bond.s2.k_axial);
  double u = -1.5 * sigma * sc.area / k; /* compression to 1.5 sigma */
  fl_bond_loads ld;
  load_pair(&p, u, 0, 0, &ld);
  ck_assert_int_eq(p.st.broken, 1);
  pair q = make_pair(FL_CRIT_AXIAL_STRESS, FL_POST_TOTAL_BREAKAGE, sigma);
  q.lim.ignore_compression = 1;
  load_pair(&q, u, 0, 0, &ld);
  ck_assert_int_eq(q.st.broken, 0);
  ck_assert_double_eq_tol(ld.force.x, u * k, 1e-9 * fabs(u * k)); /* still elastic, pushing body 1 back (-x) */
  /* the same stretch breaks it either way */
  load_pair(&q, -u, 0, 0, &ld);
  ck_assert_int_eq(q.st.broken, 1);
}
END_TEST

/* bending_angle: the bond yields at the given total angle within 1 %. */
START_TEST(test_bending_angle_limit)
{
  pair p = make_pair(FL_CRIT_BENDING_ANGLE, FL_POST_CONSTANT_TORQUE, 0.0);
  double lim = p.lim.max_angle, at = -1;
  fl_bond_loads ld;
  for (int k = 1; k <= 2000 && at < 0; k++) {
    double th = 1e-3 * lim * k;
    load_pair(&p, 0, th, 0, &ld);
    if (p.st.yielded)
      at = th;
  }
  ck_assert_double_eq_tol(at, lim, 0.01 * lim);
  /* beyond it the bending moment stays at kb * limit */
  load_pair(&p, 0, 1.5 * lim, 0, &ld);
  double kb = fl_series(p.bond.s1.k_bend, p.bond.s2.k_bend);
  ck_assert_double_eq_tol(fl_norm(ld.moment), kb * lim, 1e-9 * kb * lim);
  /* and unloading to zero angle leaves the plastic angle as a reverse moment */
  load_pair(&p, 0, 0.0, 0, &ld);
  ck_assert_double_eq_tol(ld.moment.z, -kb * 0.5 * lim, 1e-6 * kb * lim);
}
END_TEST

/* bending_angle with total_breakage, bent slowly from straight to angle th_end in
 * steps of th_end / 2000 (the last one exactly th_end).  The bond of make_pair bent
 * about z by theta has the bending angle theta between its bodies, exactly. */
static void bend_to(pair *p, double th_end)
{
  fl_bond_loads ld;
  for (int k = 1; k <= 2000; k++)
    load_pair(p, 0, th_end * k / 2000.0, 0, &ld);
}

/* A bond that buckles (any kind) keeps its bending_angle limit: its moment is capped
 * by the envelope, yet it breaks when the angle between the bodies passes the limit,
 * to 1e-6 rad.  Without buckling it breaks at the same angle. */
static void bending_angle_breaks_at_limit(int kind)
{
  double lim = 20.0 * FL_PI / 180.0, tol = 1e-6;
  pair p = make_pair(FL_CRIT_BENDING_ANGLE, FL_POST_TOTAL_BREAKAGE, 0.0);
  p.lim.max_angle = lim;
  double kb = fl_series(p.bond.s1.k_bend, p.bond.s2.k_bend);
  double ei = p.bond.s1.k_bend * p.d; /* a_rot E I of the beam */
  double span = 0.1, mmax = kb * 5.0 * FL_PI / 180.0; /* buckles at 5 deg */
  p.lim.buckling = fl_buckling_make(kind, span, 4.0 * mmax / span, 1.6 * mmax / span, 2e-3, 0.0, kb, ei);
  pair q = p;
  bend_to(&p, lim - tol);
  ck_assert_int_eq(p.st.broken, 0);
  ck_assert_int_eq(p.st.buckled, kind != FL_BUCKLING_NONE);
  fl_bond_loads ld;
  load_pair(&p, 0, lim + tol, 0, &ld);
  ck_assert_int_eq(p.st.broken, 1);
  ck_assert_double_eq(fl_norm(ld.moment), 0.0);
  /* and a bond bent far past its limit (90 deg) is broken */
  bend_to(&q, 0.5 * FL_PI);
  ck_assert_int_eq(q.st.broken, 1);
}

START_TEST(test_bending_angle_breaks_at_limit_unbuckled) { bending_angle_breaks_at_limit(FL_BUCKLING_NONE); }
END_TEST

START_TEST(test_bending_angle_breaks_at_limit_reversible) { bending_angle_breaks_at_limit(FL_BUCKLING_REVERSIBLE); }
END_TEST

START_TEST(test_bending_angle_breaks_at_limit_damage) { bending_angle_breaks_at_limit(FL_BUCKLING_DAMAGE); }
END_TEST

START_TEST(test_bending_angle_breaks_at_limit_plastic) { bending_angle_breaks_at_limit(FL_BUCKLING_PLASTIC); }
END_TEST

/* total_breakage: no force while the broken pair still overlaps as it did when bonded;
 * once the segments have separated, they touch again as Hertz spheres. */
START_TEST(test_broken_pair_contact)
{
  pair p = make_pair(FL_CRIT_FORCE_STRESS, FL_POST_TOTAL_BREAKAGE, 1e5);
  double E = 5e9, nu = 0.3, R = 1e-3;
  p.lim.pair_law.e_star = E / (2 * (1 - nu * nu));
  p.lim.pair_law.g_star = E / (4 * (2 - nu) * (1 + nu));
  p.lim.pair_law.r_star = R / 2;
  p.lim.pair_law.m_star = 1e-5;
  p.lim.pair_law.beta = 0.0;
  p.lim.pair_law.mu = 0.3;
  p.lim.hl1 = p.lim.hl2 = p.d; /* segments end to end at the contact point */
  p.lim.r1 = p.lim.r2 = R;
  fl_bond_loads ld;
  load_pair(&p, 1e-6, 0, 0, &ld); /* stretched past the tiny strength */
  ck_assert_int_eq(p.st.broken, 1);
  load_pair(&p, 1e-4, 0, 0, &ld); /* still overlapping (the caps): nothing */
  ck_assert_int_eq(p.st.separated, 0);
  ck_assert_double_eq(fl_norm(ld.force), 0.0);
  load_pair(&p, 3e-3, 0, 0, &ld); /* apart: the ends 3 mm apart, more than 2 R */
  ck_assert_int_eq(p.st.separated, 1);
  ck_assert_double_eq(fl_norm(ld.force), 0.0);
  double delta = 1e-4;
  load_pair(&p, 2 * R - delta, 0, 0, &ld); /* back, the caps overlapping by delta */
  double fn = 4.0 / 3.0 * p.lim.pair_law.e_star * sqrt(p.lim.pair_law.r_star) * pow(delta, 1.5);
  ck_assert_double_eq_tol(ld.force.x, -fn, 1e-9 * fn); /* body 1 pushed back, along -x */
  ck_assert_double_le(fabs(ld.force.y) + fabs(ld.force.z), 1e-12 * fn);
}
END_TEST

/* Strength and segment length: the least of n normal draws of the engine's own
 * generator, over 20 000 specimens, has the mean and spread of fl_strength_least_normal;
 * and carried from 8 to 32 equally loaded bonds with fl_strength_carry, the specimens'
 * mean strength and spread stay those of the 8 (strength.h, man 7). */
static void sample_least(double cv, int n, int specimens, double *mean, double *sd)
{
  double m = 0.0, m2 = 0.0;
  for (int s = 0; s < specimens; s++) {
    double least = HUGE_VAL;
    for (int b = 0; b < n; b++)
      least = fmin(least, fl_rng_strength(77, (uint64_t)s, (uint64_t)b, cv));
    m += least / specimens;
    m2 += least * least / specimens;
  }
  *mean = m;
  *sd = sqrt((m2 - m * m) * specimens / (specimens - 1.0));
}

START_TEST(test_strength_least_of_n_and_carry_to_another_segment_length)
{
  const double cv = 0.1;
  const int ns = 20000;
  double e1, s1, e2, s2;
  ck_assert_int_eq(fl_strength_least_normal(2, &e1, &s1), FL_OK);
  ck_assert_double_eq_tol(e1, -1.0 / sqrt(FL_PI), 1e-9); /* E min of two: -1/sqrt(pi) */
  ck_assert_double_eq_tol(s1, sqrt(1.0 - 1.0 / FL_PI), 1e-9);
  ck_assert_int_eq(fl_strength_least_normal(8, &e1, &s1), FL_OK);
  ck_assert_int_eq(fl_strength_least_normal(32, &e2, &s2), FL_OK);
  double m8, sd8, m32, sd32;
  sample_least(cv, 8, ns, &m8, &sd8);
  sample_least(cv, 32, ns, &m32, &sd32);
  /* the sampling error of the mean is sd / sqrt(20000), below 0.05 % here */
  ck_assert_double_eq_tol(m8, 1.0 + cv * e1, 2e-3);
  ck_assert_double_eq_tol(sd8, cv * s1, 0.03 * cv * s1);
  ck_assert_double_eq_tol(m32, 1.0 + cv * e2, 2e-3);
  ck_assert_double_eq_tol(sd32, cv * s2, 0.03 * cv * s2);
  ck_assert_double_lt(m32, m8 - 0.03); /* the longer chain is weaker, by 6.5 % */
  /* carried from 8 bonds to 32: the same specimens' strength */
  double sigma = 3e7, st, ct;
  ck_assert_int_eq(fl_strength_carry(sigma, cv, 8, 32, &st, &ct), FL_OK);
  ck_assert_double_gt(st, sigma);
  ck_assert_double_gt(ct, cv);
  double mc, sdc;
  sample_least(ct, 32, ns, &mc, &sdc);
  ck_assert_double_eq_tol(st * mc, sigma * m8, 3e-3 * sigma * m8);
  ck_assert_double_eq_tol(st * sdc, sigma * sd8, 0.05 * sigma * sd8);
  /* no change of length, no change */
  ck_assert_int_eq(fl_strength_carry(sigma, cv, 8, 8, &st, &ct), FL_OK);
  ck_assert_double_eq_tol(st, sigma, 1e-9 * sigma);
  ck_assert_double_eq_tol(ct, cv, 1e-9 * cv);
  ck_assert_int_eq(fl_strength_least_normal(0, &e1, &s1), FL_EINPUT);
}
END_TEST

/* ---- virtual tests ------------------------------------------------------------------ */

static fl_experiment slender_bend(int n, double span)
{
  fl_experiment e = fl_experiment_default();
  double R = 1e-3, h = span / n;
  e.fiber.outer_radius_m = R;
  e.fiber.inner_radius_ratio = 0.0;
  e.fiber.segments = n + 2;
  e.fiber.length_m = (n + 2) * h;
  e.fiber.density = 1000;
  e.fiber.youngs_modulus = 5e9;
  e.fiber.shear_modulus = 5e9 / 2.6;
  e.test.kind = FL_TEST_BEND3PT;
  e.test.span_m = span;
  e.test.friction = 0.0;
  e.test.support_radius_m = e.test.nose_radius_m = 2 * R;
  e.bond.damping = 0.05 * h / sqrt(5e9 / 1000.0);
  e.sim.output_points = 400;
  return e;
}

typedef struct {
  int nbond;
  fl_bond_state last[256]; /* bond states of specimen 0 at the last output point */
} probe;

static void keep_states(void *ctx, const fl_system *sys, int point, double x)
{
  (void)point;
  (void)x;
  probe *p = ctx;
  p->nbond = sys->nbond < 256 ? sys->nbond : 256;
  memcpy(p->last, sys->bstate, (size_t)p->nbond * sizeof *p->last);
}

static void run_ok(const fl_experiment *e, int nspec, probe *p, fl_curve *c, fl_result *r)
{
  char err[512];
  fl_run_hooks h = {NULL, keep_states, p, NULL, 1, 0, NULL, 0};
  int rc = fl_run(e, nspec, p ? &h : NULL, c, r, err, sizeof err);
  ck_assert_msg(rc == 0, "run failed: %s", err);
}

/* Rollers: rotating ones take no tangential load whatever the friction, so their curve
 * is, bit for bit, that of fixed rollers without friction; fixed rollers with friction
 * hold the fiber back as it slides inwards over them, and the force at 10 % of the
 * span is higher. */
static void roller_run(int rollers, double friction, fl_curve *c, fl_result *r)
{
  fl_experiment e = slender_bend(16, 0.04);
  e.test.friction = friction;
  e.test.rollers = rollers;
  e.test.max_displacement_m = 0.1 * 0.04;
  e.sim.output_points = 100;
  run_ok(&e, 1, NULL, c, r);
}

START_TEST(test_rotating_rollers_take_no_tangential_load)
{
  fl_curve rot, frictionless, fixed;
  fl_result rr, rf, rx;
  roller_run(FL_ROLLERS_ROTATING, 0.5, &rot, &rr);
  roller_run(FL_ROLLERS_FIXED, 0.0, &frictionless, &rf);
  roller_run(FL_ROLLERS_FIXED, 0.5, &fixed, &rx);
  ck_assert_int_eq(rot.npoints, frictionless.npoints);
  for (int i = 0; i < rot.npoints; i++) {
    ck_assert_double_eq(rot.y[i], frictionless.y[i]);
    ck_assert_double_eq(rot.support[i], frictionless.support[i]);
  }
  int last = rot.npoints - 1;
  ck_assert_double_gt(fixed.y[last], 1.01 * rot.y[last]);
  fl_curve_free(&rot), fl_curve_free(&frictionless), fl_curve_free(&fixed);
  fl_result_free(&rr), fl_result_free(&rf), fl_result_free(&rx);
}
END_TEST

START_TEST(test_bend3pt_bending_stress_breakage)
{
  double span = 0.04, sigma = 5e7, R = 1e-3;
  fl_experiment e = slender_bend(16, span);
  e.bond.failure.criterion = FL_CRIT_BENDING_STRESS;
  e.bond.failure.post_failure = FL_POST_TOTAL_BREAKAGE;
  e.bond.failure.max_stress = sigma;
  e.test.max_displacement_m = 2.5e-3;
  fl_curve c;
  fl_result r;
  run_ok(&e, 1, NULL, &c, &r);
  fl_section s = fl_section_hollow(R, 0);
  double theory = 4 * sigma * s.inertia / (R * span);
  ck_assert_double_eq_tol(r.spec[0].peak, theory, 0.03 * theory);
  ck_assert_int_ge(r.bonds_broken, 1);
  /* after the break the force falls to about nothing */
  ck_assert_double_le(fabs(c.y[c.npoints - 1]), 0.05 * theory);
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

START_TEST(test_bend3pt_constant_torque_plateau_and_residual)
{
  double span = 0.04, sigma = 5e7, R = 1e-3, umax = 3e-3;
  fl_experiment e = slender_bend(16, span);
  e.bond.failure.criterion = FL_CRIT_BENDING_STRESS;
  e.bond.failure.post_failure = FL_POST_CONSTANT_TORQUE;
  e.bond.failure.max_stress = sigma;
  e.test.max_displacement_m = umax;
  e.test.ncycles = 2;
  e.test.cycles[0] = umax;
  e.test.cycles[1] = 0.0;
  fl_section s = fl_section_hollow(R, 0);
  double My = sigma * s.inertia / R, plateau = 4 * My / span;
  probe *pr = calloc(1, sizeof *pr);
  fl_curve c;
  fl_result r;
  run_ok(&e, 1, pr, &c, &r);
  /* plateau: the force at the turning point */
  int turn = 0;
  for (int i = 0; i < c.npoints; i++)
    if (c.x[i] > c.x[turn])
      turn = i;
  ck_assert_double_eq_tol(c.y[turn], plateau, 0.03 * plateau);
  ck_assert_double_le(r.spec[0].peak, 1.03 * plateau);
  ck_assert_int_eq(r.bonds_broken, 0);
  ck_assert_int_eq(r.spec[0].yielded, 1); /* the bond under the nose, and only it */
  /* residual displacement where the unloading force reaches zero, against the hinge */
  double res = -1;
  for (int i = turn; i < c.npoints - 1; i++)
    if (c.y[i] > 0 && c.y[i + 1] <= 1e-9 * plateau) {
      res = c.x[i] - c.y[i] * (c.x[i + 1] - c.x[i]) / (c.y[i + 1] - c.y[i]);
      break;
    }
  double phi = 0;
  for (int b = 0; b < pr->nbond; b++)
    if (fl_norm(pr->last[b].thp) > phi)
      phi = fl_norm(pr->last[b].thp);
  double theory = 0.5 * span * tan(0.5 * phi);
  ck_assert_double_gt(phi, 0.0);
  ck_assert_double_eq_tol(res, theory, 0.03 * theory);
  free(pr);
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

static fl_experiment rod_tension(void)
{
  fl_experiment e = fl_experiment_default();
  double R = 1e-3, h = 2e-3;
  e.fiber.outer_radius_m = R;
  e.fiber.segments = 16;
  e.fiber.length_m = 16 * h;
  e.fiber.density = 1000;
  e.fiber.youngs_modulus = 5e9;
  e.fiber.shear_modulus = 5e9 / 2.6;
  e.test.kind = FL_TEST_TENSION;
  e.test.gauge_length_m = 12 * h;
  e.test.grip_length_m = 2 * h;
  e.bond.damping = 0.05 * h / sqrt(5e9 / 1000.0);
  e.sim.output_points = 400;
  return e;
}

START_TEST(test_tension_force_stress_peak)
{
  double sigma = 3e7;
  fl_experiment e = rod_tension();
  e.bond.failure.criterion = FL_CRIT_FORCE_STRESS;
  e.bond.failure.max_stress = sigma;
  e.bond.failure.ignore_compression = 1;
  e.test.max_elongation_m = 2.0 * sigma / 5e9 * 0.024;
  fl_curve c;
  fl_result r;
  run_ok(&e, 1, NULL, &c, &r);
  double theory = sigma * fl_section_hollow(1e-3, 0).area;
  ck_assert_double_eq_tol(r.spec[0].peak, theory, 0.01 * theory);
  ck_assert_int_ge(r.bonds_broken, 1);
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

START_TEST(test_tension_constant_force_plateau_and_set)
{
  double sigma = 3e7;
  fl_experiment e = rod_tension();
  double L = 0.024, umax = 2.0 * sigma / 5e9 * L;
  e.bond.failure.criterion = FL_CRIT_FORCE_STRESS;
  e.bond.failure.post_failure = FL_POST_CONSTANT_FORCE;
  e.bond.failure.max_stress = sigma;
  e.test.max_elongation_m = umax;
  e.test.ncycles = 2;
  e.test.cycles[0] = umax;
  e.test.cycles[1] = 0.6 * umax;
  e.test.max_elongation_m = umax;
  /* the cycle must end at the maximum: load, unload, reload */
  e.test.ncycles = 3;
  e.test.cycles[2] = umax;
  fl_curve c;
  fl_result r;
  run_ok(&e, 1, NULL, &c, &r);
  double plateau = sigma * fl_section_hollow(1e-3, 0).area;
  int turn = 0;
  while (turn < c.npoints - 1 && c.x[turn + 1] >= c.x[turn])
    turn++;
  /* the plateau: every first-leg row after the first yield, before the grip slows down
   * for the turn (its deceleration takes about 2 % off the grip force) */
  int nplat = 0;
  for (int i = 0; i < turn; i++)
    if (c.yielded[i] > 0 && c.x[i] < 0.95 * umax) {
      ck_assert_double_eq_tol(c.y[i], plateau, 0.01 * plateau);
      nplat++;
    }
  ck_assert_int_gt(nplat, 20);
  ck_assert_double_le(r.spec[0].peak, 1.01 * plateau);
  /* unloading: the original stiffness, from the rows between 30 % and 80 % of the plateau */
  int a = -1, b = -1;
  for (int i = turn; i < c.npoints && c.x[i] <= c.x[turn]; i++) {
    if (c.y[i] <= 0.8 * plateau && a < 0)
      a = i;
    if (c.y[i] >= 0.3 * plateau)
      b = i + 1;
  }
  ck_assert_int_gt(b - a, 3);
  double k_un = fl_fit_slope(c.x, c.y, a, b);
  ck_assert_double_eq_tol(k_un, r.spec[0].initial_stiffness, 0.02 * r.spec[0].initial_stiffness);
  /* permanent elongation: the unloading line reaches zero force at umax - plateau / k */
  double set = c.x[turn] - c.y[turn] / r.spec[0].initial_stiffness;
  double zero = c.x[a] - c.y[a] / k_un;
  ck_assert_double_gt(set, 0.0);
  ck_assert_double_eq_tol(zero, set, 0.02 * set);
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

START_TEST(test_torsion_von_mises_peak)
{
  double sigma = 3e7, R = 1e-3;
  fl_experiment e = rod_tension();
  e.test.kind = FL_TEST_TORSION;
  e.bond.failure.criterion = FL_CRIT_VON_MISES;
  e.bond.failure.max_stress = sigma;
  fl_section s = fl_section_hollow(R, 0);
  double G = 5e9 / 2.6, L = 0.024;
  e.test.max_twist_rad = 1.5 * sigma / sqrt(3.0) * L / (G * R);
  fl_curve c;
  fl_result r;
  run_ok(&e, 1, NULL, &c, &r);
  double theory = sigma * s.polar / (sqrt(3.0) * R);
  ck_assert_double_eq_tol(r.spec[0].peak, theory, 0.01 * theory);
  ck_assert_int_ge(r.bonds_broken, 1);
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

/* Weakest link: 400 brittle specimens with strength variation 0.1 each break at the
 * strength of their own weakest gauge bond, computed here from the generator
 * directly; and so the sample's mean and spread are the predicted ones. */
START_TEST(test_strength_variation_weakest_link)
{
  double sigma = 3e7, cv = 0.1;
  int ns = 400;
  fl_experiment e = rod_tension();
  e.fiber.segments = 12;
  e.fiber.length_m = 12 * 2e-3;
  e.test.gauge_length_m = 8 * 2e-3;
  e.bond.failure.criterion = FL_CRIT_FORCE_STRESS;
  e.bond.failure.max_stress = sigma;
  e.bond.failure.ignore_compression = 1;
  e.bond.failure.strength_variation = cv;
  e.test.max_elongation_m = 1.6 * sigma / 5e9 * 0.016;
  e.sim.output_points = 50;
  e.sim.seed = 2026;
  fl_curve c;
  fl_result r;
  run_ok(&e, ns, NULL, &c, &r);
  /* the gauge bonds: those with a free body; grips hold 2 segments at each end */
  fl_system sys;
  fl_build_info info;
  ck_assert_int_eq(fl_build(&e, 1, &sys, &info), 0);
  double A = fl_section_hollow(1e-3, 0).area;
  double ms = 0, ms2 = 0, mp = 0, mp2 = 0;
  for (int s = 0; s < ns; s++) {
    double weakest = HUGE_VAL;
    for (int b = 0; b < sys.nbond; b++)
      if (sys.motion[sys.b1[b]] == FL_FREE || sys.motion[sys.b2[b]] == FL_FREE) {
        double f = fl_rng_strength(e.sim.seed, (uint64_t)s, (uint64_t)b, cv);
        if (f < weakest)
          weakest = f;
      }
    double pred = sigma * A * weakest, sim = r.spec[s].peak;
    /* each specimen breaks at its own weakest bond's force, to within the ripple of the
     * explicit run's stress waves (1.4 % at most here) */
    ck_assert_msg(fabs(sim - pred) <= 0.02 * pred, "specimen %d: peak %.6g N, its weakest bond %.6g N", s, sim,
                  pred);
    ms += sim / ns;
    ms2 += sim * sim / ns;
    mp += pred / ns;
    mp2 += pred * pred / ns;
  }
  double sds = sqrt((ms2 - ms * ms) * ns / (ns - 1)), sdp = sqrt((mp2 - mp * mp) * ns / (ns - 1));
  ck_assert_double_eq_tol(ms, mp, 0.02 * mp);
  ck_assert_double_eq_tol(sds, sdp, 0.15 * sdp);
  ck_assert_double_gt(sdp, 0.02 * mp); /* the variation is real */
  fl_system_free(&sys);
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

static Suite *failure_suite(void)
{
  Suite *s = suite_create("failure");
  TCase *tb = tcase_create("bond");
  tcase_add_test(tb, test_combined_plasticity_axial_stress_on_surface);
  tcase_add_test(tb, test_combined_plasticity_von_mises_on_surface);
  tcase_add_test(tb, test_ignore_compression);
  tcase_add_test(tb, test_bending_angle_limit);
  tcase_add_test(tb, test_bending_angle_breaks_at_limit_unbuckled);
  tcase_add_test(tb, test_bending_angle_breaks_at_limit_reversible);
  tcase_add_test(tb, test_bending_angle_breaks_at_limit_damage);
  tcase_add_test(tb, test_bending_angle_breaks_at_limit_plastic);
  tcase_add_test(tb, test_broken_pair_contact);
  tcase_add_test(tb, test_strength_least_of_n_and_carry_to_another_segment_length);
  suite_add_tcase(s, tb);
  TCase *tv = tcase_create("virtual tests");
  fl_limits_set(tv, "virtual tests", 2000); /* reference times (check_limits.h) */
  tcase_add_test(tv, test_bend3pt_bending_stress_breakage);
  tcase_add_test(tv, test_rotating_rollers_take_no_tangential_load);
  tcase_add_test(tv, test_bend3pt_constant_torque_plateau_and_residual);
  tcase_add_test(tv, test_tension_force_stress_peak);
  tcase_add_test(tv, test_tension_constant_force_plateau_and_set);
  tcase_add_test(tv, test_torsion_von_mises_peak);
  tcase_add_test(tv, test_strength_variation_weakest_link);
  suite_add_tcase(s, tv);
  return s;
}

int main(void)
{
  return fl_check_run(failure_suite());
}
