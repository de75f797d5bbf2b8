/* check_buckling.c: the buckling envelope (fiberlab-model(7), Buckling), segment by
 * segment, and virtual 3-point tests of a slender hollow stem with each kind of
 * buckling. */
#include <config.h>

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bond.h"
#include "run.h"
#include "check_limits.h"
#include "campaign.h" /* fl_population_stat_of: the median */

/* ---- the envelope builder -------------------------------------------------------- */

static const double L = 0.1, FMAX = 4.0, FMIN = 2.5, UMIN = 4e-3, KB = 2.0, EI = 0.05;

START_TEST(test_envelope_elastic_branch)
{
  fl_buckling_envelope e = fl_buckling_make(FL_BUCKLING_PLASTIC, L, FMAX, FMIN, UMIN, 150.0, KB, EI);
  double mmax = FMAX * L / 4;
  ck_assert_double_eq_tol(e.phi_b, mmax / KB, 1e-15);
  ck_assert_double_eq_tol(fl_buckling_moment(&e, 0.5 * e.phi_b), 0.5 * mmax, 1e-15);
  ck_assert_double_eq_tol(fl_buckling_moment(&e, e.phi_b), mmax, 1e-15);
}
END_TEST

START_TEST(test_envelope_drop)
{
  fl_buckling_envelope e = fl_buckling_make(FL_BUCKLING_PLASTIC, L, FMAX, FMIN, UMIN, 150.0, KB, EI);
  double mmax = FMAX * L / 4, mmin = FMIN * L / 4;
  ck_assert_double_eq_tol(e.k_drop, 10 * KB, 1e-15);
  ck_assert_double_eq_tol(e.phi_d, e.phi_b + (mmax - mmin) / (10 * KB), 1e-15);
  double mid = 0.5 * (e.phi_b + e.phi_d);
  ck_assert_double_eq_tol(fl_buckling_moment(&e, mid), 0.5 * (mmax + mmin), 1e-14);
}
END_TEST

START_TEST(test_envelope_plateau)
{
  fl_buckling_envelope e = fl_buckling_make(FL_BUCKLING_PLASTIC, L, FMAX, FMIN, UMIN, 150.0, KB, EI);
  double mmin = FMIN * L / 4;
  /* the hinge takes the nose travel the elastic beam does not, plus its own elastic angle */
  double u_el = FMIN * L * L * L / (48 * EI);
  double phi_m = 2 * atan(2 * (UMIN - u_el) / L) + mmin / KB;
  ck_assert_double_eq_tol(e.phi_m, phi_m, 1e-15);
  ck_assert_double_eq_tol(fl_buckling_moment(&e, 0.5 * (e.phi_d + e.phi_m)), mmin, 1e-15);
  ck_assert_double_eq_tol(fl_buckling_post(&e, 0.5 * e.phi_d), mmin, 1e-15);
  /* a minimum reached during the drop: the plateau starts at once */
  fl_buckling_envelope f = fl_buckling_make(FL_BUCKLING_PLASTIC, L, FMAX, FMIN, 1e-5, 150.0, KB, EI);
  ck_assert_double_eq_tol(f.phi_m, f.phi_d, 1e-15);
}
END_TEST

START_TEST(test_envelope_beyond_plateau)
{
  fl_buckling_envelope e = fl_buckling_make(FL_BUCKLING_PLASTIC, L, FMAX, FMIN, UMIN, 150.0, KB, EI);
  double mmin = FMIN * L / 4, k = 150.0 * L * L / 16;
  ck_assert_double_eq_tol(fl_buckling_moment(&e, e.phi_m + 0.1), mmin + 0.1 * k, 1e-14);
  /* a falling branch stops at zero */
  fl_buckling_envelope g = fl_buckling_make(FL_BUCKLING_PLASTIC, L, FMAX, FMIN, UMIN, -200.0, KB, EI);
  ck_assert_double_eq_tol(fl_buckling_moment(&g, g.phi_m + 0.01), mmin - 0.01 * 200 * L * L / 16, 1e-14);
  ck_assert_double_eq(fl_buckling_moment(&g, g.phi_m + 10.0), 0.0);
}
END_TEST

/* ---- the viscoelastic cap ---------------------------------------------------------- */

/* fl_bond_damp_cap on numbers worked by hand: an elastic bending moment of 0.6 cap and a
 * Maxwell bending torque of 0.8 cap along it exceed the cap by 0.4 cap, so the torque's
 * bending part halves (lam 0.5) and its twist part stays; a torque that keeps the sum
 * within the cap, or a bond with no cap, is left as it is; an elastic moment at the cap
 * leaves the torque no bending part. */
START_TEST(test_cap_by_hand)
{
  fl_bond_work wk;
  memset(&wk, 0, sizeof wk);
  fl_bond_loads out;
  memset(&out, 0, sizeof out);
  double cap = 0.05, tw = 0.003;
  wk.cap = cap;
  out.axis = fl_v3(1, 0, 0);
  out.moment = fl_v3(0.01, 0, 0.6 * cap); /* a twist part, and bending about z */
  fl_vec3 td = fl_bond_damp_cap(&wk, &out, fl_v3(tw, 0, 0.8 * cap));
  ck_assert_double_eq_tol(td.x, tw, 1e-18);
  ck_assert_double_eq_tol(td.y, 0.0, 1e-18);
  ck_assert_double_eq_tol(td.z, 0.4 * cap, 1e-15);
  /* at an angle: the bending parts 0.6 cap along z and 0.8 cap along y are at right
   * angles, |a + lam b| = cap at lam = 1: untouched */
  td = fl_bond_damp_cap(&wk, &out, fl_v3(tw, 0.8 * cap, 0));
  ck_assert_double_eq(td.y, 0.8 * cap);
  /* 1.2 cap along y: lam^2 1.44 + 0.36 = 1, lam = sqrt(0.64 / 1.44) */
  td = fl_bond_damp_cap(&wk, &out, fl_v3(tw, 1.2 * cap, 0));
  ck_assert_double_eq_tol(td.y, 1.2 * cap * sqrt(0.64 / 1.44), 1e-15);
  ck_assert_double_eq_tol(hypot(0.6 * cap, td.y), cap, 1e-15);
  td = fl_bond_damp_cap(&wk, &out, fl_v3(tw, 0, 0.3 * cap)); /* 0.9 cap in all */
  ck_assert_double_eq(td.z, 0.3 * cap);
  out.moment = fl_v3(0.01, 0, cap);
  td = fl_bond_damp_cap(&wk, &out, fl_v3(tw, 0, 0.2 * cap));
  ck_assert_double_eq(td.z, 0.0);
  ck_assert_double_eq(td.x, tw);
  wk.cap = -1.0; /* not buckled */
  td = fl_bond_damp_cap(&wk, &out, fl_v3(tw, 0, 5 * cap));
  ck_assert_double_eq(td.z, 5 * cap);
}
END_TEST

/* A bond bent about z at a steady rate past its plastic buckling point, its damping a
 * viscoelastic material's (a_damp 20 s, s 0.7, steps of 1 ms: the Maxwell element a
 * spring 1/s times the bond's at this rate).  capped (a viscoelastic run): the bending
 * moment is the bond's own until it buckles, bit for bit the uncapped one's, and on
 * the plateau exactly the envelope's m_min, never above m_max once buckled; uncapped
 * (MODEL.md section 5 as written), the Maxwell element carries the bond past both. */
static void bend_at_rate(int capped, double *before, double *after, double *peak)
{
  const double d = 1e-3, kb = 2.0, dt = 1e-3, a_damp = 20.0, s = 0.7;
  fl_side_stiffness k = {1e6, 4e5, 1.5 * kb, 2.0 * kb}; /* two sides in series: kb */
  fl_bond bd = fl_bond_make(fl_v3(0, 0, 0), fl_qid(), fl_v3(2 * d, 0, 0), fl_qid(), fl_v3(d, 0, 0), k, k);
  fl_bond_limits lim;
  memset(&lim, 0, sizeof lim);
  lim.criterion = FL_CRIT_NONE;
  lim.buckling = fl_buckling_make(FL_BUCKLING_PLASTIC, L, FMAX, FMIN, UMIN, 0.0, kb, EI);
  fl_bond_state st;
  memset(&st, 0, sizeof st);
  st.strength = 1.0;
  fl_bond_damping dm = {a_damp, exp(-dt / (a_damp * s)), dt, capped};
  double rate = 3.0 * lim.buckling.phi_b / (400 * dt); /* to three times phi_b in 400 steps */
  *peak = 0.0;
  for (int n = 1; n <= 400; n++) {
    double th = rate * dt * n;
    fl_quat q2 = fl_qexp(fl_v3(0, 0, th));
    fl_vec3 w2 = fl_v3(0, 0, rate), x2 = fl_add(fl_v3(d, 0, 0), fl_qrot(q2, fl_v3(d, 0, 0)));
    fl_body b1 = {fl_v3(0, 0, 0), fl_qid(), fl_v3(0, 0, 0), fl_v3(0, 0, 0)};
    fl_body b2 = {x2, q2, fl_cross(w2, fl_sub(x2, fl_v3(d, 0, 0))), w2};
    fl_bond_loads ld;
    fl_bond_eval(&bd, &dm, &lim, &b1, &b2, &st, &ld);
    double m = fabs(ld.moment.z);
    if (st.buckled)
      *peak = fmax(*peak, m); /* the largest moment past the buckling point */
    if (n == 100)
      *before = m; /* at 0.75 phi_b */
    if (n == 400)
      *after = m; /* on the plateau */
  }
}

START_TEST(test_viscoelastic_cap_holds_the_plateau)
{
  double mmax = FMAX * L / 4, mmin = FMIN * L / 4, b1, a1, p1, b0, a0, p0;
  bend_at_rate(1, &b1, &a1, &p1);
  bend_at_rate(0, &b0, &a0, &p0);
  ck_assert_double_eq(b1, b0); /* below the buckling point the cap is no part of the law */
  ck_assert_double_gt(b1, 0.75 * mmax * 1.2); /* the Maxwell element carries a good part */
  ck_assert_double_eq_tol(a1, mmin, 1e-12 * mmin);
  ck_assert_double_le(p1, mmax * (1 + 1e-12));
  ck_assert_double_gt(a0, 1.5 * mmin);
  ck_assert_double_gt(p0, 1.5 * mmax);
}
END_TEST

/* The buckling point of a plastic bond whose Maxwell element carries as much bending
 * moment as its spring (0.6 m_max each): counted with it (a viscoelastic run), the
 * bond is at m_max, so its point is phi_b and its use phi / phi_b; without it, the
 * point lies down the drop where the envelope falls to 0.6 m_max. */
START_TEST(test_buckling_point_counts_the_maxwell_moment)
{
  const double d = 1e-3, kb = 2.0;
  fl_side_stiffness k = {1e6, 4e5, 1.5 * kb, 2.0 * kb};
  fl_bond bd = fl_bond_make(fl_v3(0, 0, 0), fl_qid(), fl_v3(2 * d, 0, 0), fl_qid(), fl_v3(d, 0, 0), k, k);
  fl_bond_limits lim;
  memset(&lim, 0, sizeof lim);
  lim.buckling = fl_buckling_make(FL_BUCKLING_PLASTIC, L, FMAX, FMIN, UMIN, 0.0, kb, EI);
  const fl_buckling_envelope *e = &lim.buckling;
  double th = 0.6 * e->phi_b;
  fl_quat q2 = fl_qexp(fl_v3(0, 0, th));
  fl_body b1 = {fl_v3(0, 0, 0), fl_qid(), fl_v3(0, 0, 0), fl_v3(0, 0, 0)};
  fl_body b2 = {fl_add(fl_v3(d, 0, 0), fl_qrot(q2, fl_v3(d, 0, 0))), q2, fl_v3(0, 0, 0), fl_v3(0, 0, 0)};
  fl_bond_state st;
  memset(&st, 0, sizeof st);
  st.strength = 1.0;
  fl_bond_loads out;
  fl_bond_work wk;
  fl_bond_trial_elastic(&bd, &b1, &b2, &st, &out, &wk);
  double mt;
  fl_vec3 mb = fl_bond_bending_moment(&out, &mt);
  ck_assert_double_eq_tol(fl_norm(mb), 0.6 * e->m_max, 1e-9 * e->m_max);
  st.td = mb; /* body 1's frame is the world's */
  double phi = fl_norm(out.bend);
  ck_assert_double_eq_tol(fl_bond_buckling_use(&bd, &lim, &b1, &b2, &st, 1), phi / e->phi_b, 1e-12);
  ck_assert_double_eq_tol(fl_bond_buckling_utilisation(&bd, &lim, &b1, &b2, &st),
                          phi / (e->phi_b + (e->m_max - fl_norm(mb)) / e->k_drop), 1e-12);
}
END_TEST

/* ---- virtual tests ---------------------------------------------------------------- */

/* A slender hollow stem: span 0.1 m, 4 mm diameter (span / D = 25). */
static fl_experiment stem(int type, double slope, double umax)
{
  fl_experiment e = fl_experiment_default();
  e.fiber.length_m = 0.1 * 26.0 / 24.0;
  e.fiber.segments = 26;
  e.fiber.outer_radius_m = 2e-3;
  e.fiber.inner_radius_ratio = 0.8;
  e.fiber.density = 800;
  e.fiber.youngs_modulus = 5.5e9;
  e.fiber.shear_modulus = 5.5e9 / 2.6;
  e.bond.damping = 5e-6; /* light: a plastic hinge turning under damping carries a viscous moment too */
  e.bond.buckling.type = type;
  e.bond.buckling.sample_length = 0.1;
  e.bond.buckling.max_force = FMAX;
  e.bond.buckling.min_force = FMIN;
  e.bond.buckling.displacement_at_min_force = UMIN;
  e.bond.buckling.slope_after_min_force = slope;
  e.test.kind = FL_TEST_BEND3PT;
  e.test.span_m = 0.1;
  e.test.friction = 0.0;
  e.test.max_displacement_m = umax;
  e.sim.output_points = 400;
  return e;
}

typedef struct {
  double phi_p[1024]; /* largest plastic bending angle of any bond, per output point */
} probe;

static void keep(void *ctx, const fl_system *sys, int point, double x)
{
  (void)x;
  probe *p = ctx;
  if (point >= 1024)
    return;
  p->phi_p[point] = 0;
  for (int b = 0; b < sys->nbond; b++)
    if (fl_norm(sys->bstate[b].thp) > p->phi_p[point])
      p->phi_p[point] = fl_norm(sys->bstate[b].thp);
}

static void run_ok(const fl_experiment *e, probe *p, fl_curve *c, fl_result *r)
{
  char err[512];
  fl_run_hooks h = {NULL, keep, p, NULL, 1, 0, NULL, 0};
  int rc = fl_run(e, 1, &h, c, r, err, sizeof err);
  ck_assert_msg(rc == 0, "run failed: %s", err);
}

START_TEST(test_stem_reproduces_the_five_numbers)
{
  double slope = 150.0, umax = 8e-3;
  fl_experiment e = stem(FL_BUCKLING_PLASTIC, slope, umax);
  fl_curve c;
  fl_result r;
  static probe p;
  run_ok(&e, &p, &c, &r);
  ck_assert_double_eq_tol(r.spec[0].peak, FMAX, 0.03 * FMAX);
  /* the plateau: median force over the rows between the drop and umin */
  int n = 0;
  double *v = malloc((size_t)c.npoints * sizeof *v);
  for (int i = 0; i < c.npoints; i++)
    if (c.x[i] > r.spec[0].x_at_peak + 0.3 * (UMIN - r.spec[0].x_at_peak) && c.x[i] < 0.9 * UMIN)
      v[n++] = c.y[i];
  ck_assert_int_gt(n, 10);
  double fmin = fl_population_stat_of(v, n).median;
  ck_assert_double_eq_tol(fmin, FMIN, 0.05 * FMIN);
  /* the rising branch after the minimum: slope by least squares over its last 60 % */
  int a = 0;
  while (a < c.npoints && c.x[a] < UMIN + 0.4 * (umax - UMIN))
    a++;
  double s = fl_fit_slope(c.x, c.y, a, c.npoints - 5);
  ck_assert_double_eq_tol(s, slope, 0.15 * slope);
  /* the displacement at the minimum: where that line meets the plateau */
  double xa = c.x[a], ya = c.y[a];
  double umin = xa - (ya - fmin) / s;
  ck_assert_double_eq_tol(umin, UMIN, 0.10 * UMIN);
  free(v);
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

/* Load past the peak to u1, unload to zero nose travel, reload to umax. */
static void cycle(int type, fl_curve *c, fl_result *r, probe *p, int *turn, int *lift)
{
  double u1 = 3.5e-3, umax = 5e-3;
  fl_experiment e = stem(type, 150.0, umax);
  e.test.ncycles = 3;
  e.test.cycles[0] = u1;
  e.test.cycles[1] = 0.0;
  e.test.cycles[2] = umax;
  run_ok(&e, p, c, r);
  *turn = 0;
  while (*turn < c->npoints - 1 && c->x[*turn + 1] >= c->x[*turn])
    (*turn)++;
  /* where the unloading force reaches zero (the nose leaves the stem) */
  *lift = *turn;
  while (*lift < c->npoints - 1 && c->y[*lift + 1] > 0.0 && c->x[*lift + 1] <= c->x[*lift])
    (*lift)++;
}

/* slope of the unloading rows with force between lo and hi of the force at the turn */
static double unload_slope(const fl_curve *c, int turn, int lift, double lo, double hi)
{
  int a = -1, b = -1;
  for (int i = turn; i <= lift; i++) {
    if (a < 0 && c->y[i] <= hi * c->y[turn])
      a = i;
    if (c->y[i] >= lo * c->y[turn])
      b = i + 1;
  }
  ck_assert_int_gt(b - a, 4);
  return fl_fit_slope(c->x, c->y, a, b);
}

START_TEST(test_reversible_returns_to_zero)
{
  fl_curve c;
  fl_result r;
  static probe p;
  int turn, lift;
  cycle(FL_BUCKLING_REVERSIBLE, &c, &r, &p, &turn, &lift);
  double xz = c.x[lift] - c.y[lift] * (c.x[lift + 1] - c.x[lift]) / (c.y[lift + 1] - c.y[lift]);
  ck_assert_double_le(fabs(xz), 0.03 * c.x[turn]); /* no residual */
  /* reloading retraces: at the same travel, within 5 % of the force on the way up */
  for (int i = lift + 1; i < c.npoints; i++)
    if (c.x[i] > 0.5e-3 && c.x[i] < 1.5e-3) {
      int k = 0;
      while (k < turn && c.x[k + 1] < c.x[i])
        k++;
      double up = c.y[k] + (c.y[k + 1] - c.y[k]) * (c.x[i] - c.x[k]) / (c.x[k + 1] - c.x[k]);
      ck_assert_double_eq_tol(c.y[i], up, 0.05 * up);
    }
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

START_TEST(test_damage_unloads_along_the_secant)
{
  fl_curve c;
  fl_result r;
  static probe p;
  int turn, lift;
  cycle(FL_BUCKLING_DAMAGE, &c, &r, &p, &turn, &lift);
  double secant = c.y[turn] / c.x[turn];
  double k = unload_slope(&c, turn, lift, 0.2, 0.8);
  ck_assert_double_eq_tol(k, secant, 0.05 * secant);
  ck_assert_double_le(k, 0.8 * r.spec[0].initial_stiffness); /* softer than the elastic beam */
  /* reloading with that lower slope, up to the turning point */
  int a = lift + 1;
  while (a < c.npoints && c.y[a] < 0.2 * c.y[turn])
    a++;
  int b = a;
  while (b < c.npoints && c.y[b] < 0.8 * c.y[turn] && c.x[b] < c.x[turn])
    b++;
  ck_assert_int_gt(b - a, 4);
  double kr = fl_fit_slope(c.x, c.y, a, b);
  ck_assert_double_eq_tol(kr, secant, 0.05 * secant);
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

START_TEST(test_plastic_keeps_a_permanent_angle)
{
  fl_curve c;
  fl_result r;
  static probe p;
  int turn, lift;
  cycle(FL_BUCKLING_PLASTIC, &c, &r, &p, &turn, &lift);
  double k0 = r.spec[0].initial_stiffness;
  double k = unload_slope(&c, turn, lift, 0.2, 0.8);
  ck_assert_double_eq_tol(k, k0, 0.05 * k0);
  /* residual travel: the hinge's permanent angle */
  double xz = c.x[lift] - c.y[lift] * (c.x[lift + 1] - c.x[lift]) / (c.y[lift + 1] - c.y[lift]);
  double theory = 0.5 * 0.1 * tan(0.5 * p.phi_p[lift]);
  ck_assert_double_gt(p.phi_p[lift], 0.0);
  ck_assert_double_eq_tol(xz, theory, 0.05 * theory);
  /* reloading never above the post-buckling level (the plateau, then the rising branch) */
  for (int i = lift + 1; i < c.npoints; i++) {
    double post = c.x[i] <= UMIN ? FMIN : FMIN + 150.0 * (c.x[i] - UMIN);
    ck_assert_double_le(c.y[i], 1.05 * post);
  }
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

/* Nose force of a stem kinked at midspan into two straight halves, nose travel u, when
 * the moment at the hinge is m.  Each half is tangent to its support (centre at
 * (span/2, -(R + rs))) and to the nose (centre at (0, R + rn - u)); with c = 2 R + rs +
 * rn, its tilt t solves (span/2) sin t = c - (c - u) cos t.  Both contacts push normal
 * to the half, F / (2 cos t) each, and lie (span/2) cos t + (u - c) sin t apart along
 * it, so m = (F/2) (span/2 + (u - c) tan t). */
static double hinge_force(double m, double span, double R, double rs, double rn, double u)
{
  double c = 2.0 * R + rs + rn, t = 2.0 * u / span;
  for (int i = 0; i < 50; i++) /* Newton */
    t -= (0.5 * span * sin(t) - c + (c - u) * cos(t)) / (0.5 * span * cos(t) - (c - u) * sin(t));
  return 2.0 * m / (0.5 * span + (u - c) * tan(t));
}

/* Buckling in parallel with a stress limit: the stem buckles, its moment climbs again
 * on a steep post-buckling branch, and the bond breaks when the bending stress reaches
 * the limit.  The limit is set between Fmax and Fmax / (1 - 2 h / L), where the
 * neighbours of the hinge would reach their own buckling moment first. */
START_TEST(test_buckles_then_breaks)
{
  double slope = 2000.0, fbreak = 4.2;
  fl_experiment e = stem(FL_BUCKLING_REVERSIBLE, slope, 8e-3);
  fl_section s = fl_section_hollow(2e-3, 1.6e-3);
  e.bond.failure.criterion = FL_CRIT_BENDING_STRESS;
  e.bond.failure.post_failure = FL_POST_TOTAL_BREAKAGE;
  e.bond.failure.max_stress = fbreak * 0.1 / 4 * 2e-3 / s.inertia;
  fl_curve c;
  fl_result r;
  static probe p;
  run_ok(&e, &p, &c, &r);
  ck_assert_int_eq(r.bonds_broken, 1);
  int brk = 0;
  while (brk < c.npoints && c.broken[brk] == 0)
    brk++;
  ck_assert_int_lt(brk, c.npoints);
  ck_assert_double_gt(c.x[brk], UMIN);
  int first = 0;
  while (first < c.npoints && c.yielded[first] == 0)
    first++;
  ck_assert_int_lt(first, brk); /* buckled before it broke */
  /* Two peaks, 5 % apart, each checked to 2.5 % so that neither passes for the other.
   * The buckling peak: the largest force before the first bond buckled is Fmax, reached
   * on the elastic line (its displacement is Fmax over the initial stiffness). */
  int ib = 0;
  for (int i = 0; i < first; i++)
    if (c.y[i] > c.y[ib])
      ib = i;
  ck_assert_double_eq_tol(c.y[ib], FMAX, 0.025 * FMAX);
  ck_assert_double_eq_tol(c.x[ib], FMAX / r.spec[0].initial_stiffness, 0.03 * FMAX / r.spec[0].initial_stiffness);
  /* The break: the last row before it is on the limit's force.  Once the stem has
   * kinked, its halves are tilted, and the nose touches each half (the supports too) off
   * the hinge; the moment at the hinge is that of the limit, M = fbreak span / 4, at a
   * higher force (hinge_force: 1.9 % at this travel). */
  double fb = hinge_force(fbreak * e.test.span_m / 4.0, e.test.span_m, 2e-3, e.test.support_radius_m,
                          e.test.nose_radius_m, c.x[brk - 1]);
  ck_assert_double_gt(fb, 1.01 * fbreak);
  ck_assert_double_eq_tol(c.y[brk - 1], fb, 0.01 * fb);
  ck_assert_double_le(fabs(c.y[c.npoints - 1]), 0.05 * fbreak); /* nothing carried after */
  fl_curve_free(&c);
  fl_result_free(&r);
}
END_TEST

/* ---- shared beginnings (fl_prefix_cache) ----------------------------------------------- */

/* A batch on the static solver, with the cache pc and tags (2 numbers a specimen) or
 * alone (pc NULL). */
static void run_static(const fl_experiment *const *e, int n, fl_prefix_cache *pc, const double *tags, fl_curve *c,
                       fl_result *r)
{
  char err[512];
  fl_run_hooks h = {NULL, NULL, NULL, NULL, 1, 0, pc, 0};
  if (pc)
    fl_prefix_cache_tags(pc, n, 2, tags);
  int rc = fl_run_many(e, n, &h, c, r, err, sizeof err);
  if (pc)
    fl_prefix_cache_tags(pc, 0, 0, NULL);
  ck_assert_msg(rc == 0, "run failed: %s", err);
}

/* The batch e run with the cache pc and tags into (cs, rs), then alone into (ca, ra);
 * *starts: the runs it started from a kept state, *shared: the increments that spared. */
static void run_kept_and_not(const fl_experiment *const *e, int n, fl_prefix_cache *pc, const double *tags,
                             fl_curve *cs, fl_result *rs, fl_curve *ca, fl_result *ra, long *starts, long *shared)
{
  long starts0, skipped0, skipped;
  fl_prefix_cache_counts(pc, &starts0, &skipped0);
  run_static(e, n, pc, tags, cs, rs);
  run_static(e, n, NULL, NULL, ca, ra);
  fl_prefix_cache_counts(pc, starts, &skipped);
  *starts -= starts0;
  *shared = skipped - skipped0;
}

/* Every column of every row the same to the bit. */
static void same_curves(const fl_curve *a, const fl_curve *b, const char *what)
{
  ck_assert_int_eq(a->npoints, b->npoints);
  ck_assert_int_eq(a->nspec, b->nspec);
  size_t n = (size_t)a->npoints * a->nspec;
  const double *da[] = {a->time, a->x, a->y, a->support, a->midspan, a->kinetic, a->strain};
  const double *db[] = {b->time, b->x, b->y, b->support, b->midspan, b->kinetic, b->strain};
  for (int k = 0; k < 7; k++)
    for (size_t i = 0; i < n; i++)
      ck_assert_msg(memcmp(&da[k][i], &db[k][i], sizeof da[k][i]) == 0,
                    "%s: column %d differs at row %zu of %zu: %.17g against %.17g", what, k, i, n, da[k][i], db[k][i]);
  ck_assert_msg(memcmp(a->broken, b->broken, n * sizeof *a->broken) == 0, "%s: broken bonds differ", what);
  ck_assert_msg(memcmp(a->yielded, b->yielded, n * sizeof *a->yielded) == 0, "%s: yielded bonds differ", what);
}

/* The static solver's counts of two runs the same. */
static void same_counts(const fl_result *a, const fl_result *b)
{
  ck_assert_int_eq(a->increments, b->increments);
  ck_assert_int_eq(a->newton_iterations, b->newton_iterations);
  ck_assert_int_eq(a->tangents, b->tangents);
  ck_assert_int_eq(a->relaxations, b->relaxations);
}

/* A fit's difference runs that change the envelope alone start from the base run's
 * state before any bond reaches its buckling point: their curves, solver counts and
 * peaks are those of the same runs made from the start, to the bit, also in a batch
 * behind a stiffer specimen (whose smaller time step and other first period the
 * relaxation at the snap takes), and for a lower max_force, whose run must leave the
 * base's earlier (its own approach to the buckling point comes sooner). */
START_TEST(test_shared_beginning_is_exact)
{
  fl_experiment base = stem(FL_BUCKLING_PLASTIC, 150.0, 8e-3);
  base.sim.solver = FL_SOLVER_STATIC;
  base.test.friction = 0.3; /* contacts with a history */
  base.sim.output_points = 200;
  fl_experiment stiff = base;
  stiff.bond.torque_stiffness_scale *= 1.001;
  struct {
    const char *what;
    double fmax, fmin, umin, slope;
  } v[] = {{"min_force +1 %", 1.0, 1.01, 1.0, 1.0},   {"max_force +0.1 %", 1.001, 1.0, 1.0, 1.0},
           {"max_force -0.1 %", 0.999, 1.0, 1.0, 1.0}, {"max_force -20 %", 0.8, 1.0, 1.0, 1.0},
           {"slope x 2", 1.0, 1.0, 1.0, 2.0},          {"displacement_at_min_force +10 %", 1.0, 1.0, 1.1, 1.0}};
  fl_prefix_cache *pc = fl_prefix_cache_new();
  ck_assert_ptr_nonnull(pc);
  const fl_experiment *one[1] = {&base};
  double tag_base[2] = {1.0, 0.0}, tags[4] = {1.0, 1.0, 1.0, 0.0}; /* stiff: a tag of its own */
  fl_curve c0, c1;
  fl_result r0, r1;
  run_static(one, 1, pc, tag_base, &c0, &r0);
  run_static(one, 1, NULL, NULL, &c1, &r1);
  same_curves(&c0, &c1, "the base run, kept and not");
  long base_increments = r0.increments;
  fl_curve_free(&c1);
  fl_result_free(&r1);
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
    fl_experiment e = base;
    e.bond.buckling.max_force *= v[k].fmax;
    e.bond.buckling.min_force *= v[k].fmin;
    e.bond.buckling.displacement_at_min_force *= v[k].umin;
    e.bond.buckling.slope_after_min_force *= v[k].slope;
    const fl_experiment *batch[2] = {&stiff, &e};
    long starts, shared;
    fl_curve cs, ca;
    fl_result rs, ra;
    run_kept_and_not(batch, 2, pc, tags, &cs, &rs, &ca, &ra, &starts, &shared);
    ck_assert_msg(starts == 1, "%s: started from the base run %ld times", v[k].what, starts);
    /* the base's state at half its increments or more (max_force -20 %: a third) */
    /* the base buckles at about a quarter of its increments: all of them before its
     * approach (61 of 217), or with max_force 20 % lower a state before (32) */
    ck_assert_msg(v[k].fmax < 0.9 ? shared > 0 && shared < 0.25 * base_increments : shared >= 0.25 * base_increments,
                  "%s: %ld increments of %ld shared", v[k].what, shared, base_increments);
    same_curves(&cs, &ca, v[k].what);
    same_counts(&rs, &ra);
    ck_assert_msg(memcmp(&rs.spec[1].peak, &ra.spec[1].peak, sizeof rs.spec[1].peak) == 0 &&
                      rs.spec[1].nsnaps == ra.spec[1].nsnaps,
                  "%s: peak or snaps differ", v[k].what);
    /* and the envelope did change the curve after the buckling point */
    int differs = 0;
    for (int i = 0; i < c0.npoints; i++)
      differs |= cs.y[(size_t)c0.npoints + i] != c0.y[i];
    ck_assert_msg(differs, "%s: the same curve as the base run", v[k].what);
    fl_curve_free(&cs);
    fl_curve_free(&ca);
    fl_result_free(&rs);
    fl_result_free(&ra);
  }
  /* a specimen with another tag (here: the stiffer one) starts from nothing kept */
  const fl_experiment *other[1] = {&stiff};
  double tag_other[2] = {1.0, 1.0};
  long starts0, skipped0, starts, skipped;
  fl_prefix_cache_counts(pc, &starts0, &skipped0);
  run_static(other, 1, pc, tag_other, &c1, &r1);
  fl_prefix_cache_counts(pc, &starts, &skipped);
  ck_assert_int_eq(starts, starts0);
  fl_curve_free(&c1);
  fl_result_free(&r1);
  fl_curve_free(&c0);
  fl_result_free(&r0);
  fl_prefix_cache_free(pc);
}
END_TEST

/* The same in a viscoelastic run (simulation.viscoelastic: the bonds' Maxwell elements
 * at the test's speed) with a breaking criterion on: the vectorised law serves the bonds
 * below their limit and their buckling point, so a difference run of the envelope
 * starts from the base run's state, and its curve and counts are those of the same run
 * made from the start, to the bit.  The buckling margins there count each bond's
 * Maxwell element (fl_bond_buckling_use_at), and so must the angles and moments the
 * base run logs: with the vectorised law's undamped ones in the log, a difference run
 * judges its approach to the buckling point by other margins than its own, and its
 * curve leaves the one made from the start (2.51788005745 N against 2.51788005709 at
 * row 53 of 200). */
START_TEST(test_shared_beginning_viscoelastic_is_exact)
{
  fl_experiment base = stem(FL_BUCKLING_PLASTIC, 150.0, 8e-3);
  base.sim.solver = FL_SOLVER_STATIC;
  base.sim.viscoelastic = 1;
  base.bond.damping = 2.0;        /* s: the Maxwell element's relaxation time's scale */
  base.test.speed = 1e-4;         /* m/s: 80 s over the path */
  base.sim.output_points = 200;
  base.bond.failure.criterion = FL_CRIT_BENDING_STRESS;
  base.bond.failure.post_failure = FL_POST_CONSTANT_TORQUE;
  base.bond.failure.max_stress = 4e7; /* Pa: the buckling moment's stress is about 0.9e7 */
  base.bond.failure.max_stress_given = 1;
  double fmax[] = {1.02, 0.9};
  fl_prefix_cache *pc = fl_prefix_cache_new();
  ck_assert_ptr_nonnull(pc);
  const fl_experiment *one[1] = {&base};
  double tag[2] = {1.0, 0.0};
  fl_curve c0;
  fl_result r0;
  run_static(one, 1, pc, tag, &c0, &r0);
  ck_assert_int_gt(r0.relaxations + r0.increments, 0);
  for (size_t k = 0; k < sizeof fmax / sizeof fmax[0]; k++) {
    fl_experiment e = base;
    e.bond.buckling.max_force *= fmax[k];
    const fl_experiment *run[1] = {&e};
    long starts, shared;
    fl_curve cs, ca;
    fl_result rs, ra;
    run_kept_and_not(run, 1, pc, tag, &cs, &rs, &ca, &ra, &starts, &shared);
    ck_assert_msg(starts == 1 && shared > 0, "max_force x %g: started from the base %ld times, %ld increments shared",
                  fmax[k], starts, shared);
    same_curves(&cs, &ca, "viscoelastic");
    same_counts(&rs, &ra);
    fl_curve_free(&cs);
    fl_curve_free(&ca);
    fl_result_free(&rs);
    fl_result_free(&ra);
  }
  fl_curve_free(&c0);
  fl_result_free(&r0);
  fl_prefix_cache_free(pc);
}
END_TEST

/* A batch's first specimen sets what all its specimens share; a cantilever's tip
 * spring follows its stiffness.  A run behind a stiffer specimen then has another spring
 * than the base run that ran alone, and must not start from the base's state: its curve
 * is the same run's from the start, to the bit. */
START_TEST(test_shared_beginning_needs_the_same_build)
{
  fl_experiment base = stem(FL_BUCKLING_PLASTIC, 150.0, 8e-3); /* the stem, held as a cantilever */
  base.fiber.length_m = 0.12;
  base.fiber.segments = 48;
  base.test.kind = FL_TEST_CANTILEVER;
  base.test.clamp_length_m = 0.01;
  base.test.tip_control = FL_TIP_DISPLACEMENT;
  base.test.max_tip_displacement_m = 0.05;
  base.sim.solver = FL_SOLVER_STATIC;
  base.sim.output_points = 101;
  fl_experiment stiff = base, e = base;
  stiff.bond.torque_stiffness_scale *= 1.01;
  e.bond.buckling.max_force *= 1.001;
  fl_prefix_cache *pc = fl_prefix_cache_new();
  const fl_experiment *one[1] = {&base}, *batch[2] = {&stiff, &e};
  double tag_base[2] = {1.0, 0.0}, tags[4] = {1.0, 1.0, 1.0, 0.0};
  fl_curve c0, cs, ca;
  fl_result r0, rs, ra;
  run_static(one, 1, pc, tag_base, &c0, &r0);
  ck_assert_int_gt(r0.spec[0].buckled, 0);
  long starts, skipped;
  run_static(batch, 2, pc, tags, &cs, &rs);
  fl_prefix_cache_counts(pc, &starts, &skipped);
  run_static(batch, 2, NULL, NULL, &ca, &ra);
  same_curves(&cs, &ca, "behind a stiffer cantilever");
  ck_assert_int_eq(starts, 0);
  /* alone, the same run starts from the base's state */
  const fl_experiment *alone[1] = {&e};
  fl_curve c1;
  fl_result r1;
  run_static(alone, 1, pc, tag_base, &c1, &r1);
  fl_prefix_cache_counts(pc, &starts, &skipped);
  ck_assert_int_eq(starts, 1);
  ck_assert_int_gt(skipped, 0);
  fl_curve c2;
  fl_result r2;
  run_static(alone, 1, NULL, NULL, &c2, &r2);
  same_curves(&c1, &c2, "the cantilever alone");
  fl_curve_free(&c0);
  fl_curve_free(&cs);
  fl_curve_free(&ca);
  fl_curve_free(&c1);
  fl_curve_free(&c2);
  fl_result_free(&r0);
  fl_result_free(&rs);
  fl_result_free(&ra);
  fl_result_free(&r1);
  fl_result_free(&r2);
  fl_prefix_cache_free(pc);
}
END_TEST

static Suite *buckling_suite(void)
{
  Suite *s = suite_create("buckling");
  TCase *te = tcase_create("envelope");
  tcase_add_test(te, test_envelope_elastic_branch);
  tcase_add_test(te, test_envelope_drop);
  tcase_add_test(te, test_envelope_plateau);
  tcase_add_test(te, test_envelope_beyond_plateau);
  tcase_add_test(te, test_cap_by_hand);
  tcase_add_test(te, test_viscoelastic_cap_holds_the_plateau);
  tcase_add_test(te, test_buckling_point_counts_the_maxwell_moment);
  suite_add_tcase(s, te);
  TCase *tv = tcase_create("virtual tests");
  fl_limits_set(tv, "virtual tests", 2000); /* reference times (check_limits.h) */
  tcase_add_test(tv, test_stem_reproduces_the_five_numbers);
  tcase_add_test(tv, test_reversible_returns_to_zero);
  tcase_add_test(tv, test_damage_unloads_along_the_secant);
  tcase_add_test(tv, test_plastic_keeps_a_permanent_angle);
  tcase_add_test(tv, test_buckles_then_breaks);
  tcase_add_test(tv, test_shared_beginning_is_exact);
  tcase_add_test(tv, test_shared_beginning_viscoelastic_is_exact);
  tcase_add_test(tv, test_shared_beginning_needs_the_same_build);
  suite_add_tcase(s, tv);
  return s;
}

int main(void)
{
  return fl_check_run(buckling_suite());
}
