/* validate.c: fiberlab against beam theory.  Runs virtual tension, torsion, cantilever
 * and 3-point bending tests on chains of n bonds and prints one Markdown table row per case: the
 * model's stiffness, the theory's, the error and the tolerance.  Exit 1 if any case is
 * outside its tolerance.  The README's validation table is this program's output. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl_defs.h"
#include "run.h"
#include "chain_probe.h"
#include "campaign.h" /* fl_population_stat_of: the median */

static int failures = 0;
static enum fl_solver solver = FL_SOLVER_EXPLICIT; /* of the cases being run */

static void row(const char *test, const char *cfg, const char *theory, double model, double ref, double tol)
{
  double err = model / ref - 1.0;
  int ok = fabs(err) <= tol;
  if (!ok)
    failures++;
  printf("| %s | %s | %s | %s | %.6g | %.6g | %+.3f %% | %.1f %% | %s |\n", test, fl_solver_name(solver), cfg, theory,
         model, ref, 100 * err, 100 * tol, ok ? "pass" : "FAIL");
  fflush(stdout);
}

static fl_experiment base(double R, double ratio, double E, double nu)
{
  fl_experiment e = fl_experiment_default();
  e.fiber.outer_radius_m = R;
  e.fiber.inner_radius_ratio = ratio;
  e.fiber.density = 1000.0;
  e.fiber.youngs_modulus = E;
  e.fiber.poisson_ratio = nu;
  e.fiber.shear_modulus = E / (2 * (1 + nu));
  e.sim.output_points = 200;
  e.sim.solver = solver;
  return e;
}

/* Run e; a failed run counts as a failure, with its message on stderr. */
static int run_case(const fl_experiment *e, fl_curve *c, fl_result *r)
{
  char err[512];
  int rc = fl_run(e, 1, NULL, c, r, err, sizeof err);
  if (rc) {
    fprintf(stderr, "validate: %s\n", err);
    failures++;
  }
  return rc;
}

/* Tension and torsion: gauge of n bonds, grips of two segments. */
static void axial_case(enum fl_test_kind kind, int n, double scale)
{
  double R = 1e-3, h = 4e-3, E = 5e9;
  fl_experiment e = base(R, 0.5, E, 0.3);
  e.test.kind = kind;
  e.fiber.segments = n + 3;
  e.fiber.length_m = (n + 3) * h;
  e.test.gauge_length_m = n * h;
  e.test.grip_length_m = 2 * h;
  if (kind == FL_TEST_TENSION) {
    e.bond.force_stiffness_scale = scale;
    e.test.max_elongation_m = 1e-5 * n;
  } else {
    e.bond.torque_stiffness_scale = scale;
    e.test.max_twist_rad = 0.02;
  }
  e.bond.damping = 0.02 * h / sqrt(E / e.fiber.density); /* light damping of the highest modes */
  fl_curve c;
  fl_result r;
  char cfg[128];
  if (run_case(&e, &c, &r))
    return;
  fl_section s = fl_section_hollow(R, 0.5 * R);
  double L = r.length, k;
  if (kind == FL_TEST_TENSION) {
    k = scale * E * s.area / L;
    snprintf(cfg, sizeof cfg, "n = %d, a_disp = %g", n, scale);
    row("tension", cfg, "a_disp E A / L", r.spec[0].initial_stiffness, k, 0.005);
  } else {
    k = scale * e.fiber.shear_modulus * s.polar / L;
    snprintf(cfg, sizeof cfg, "n = %d, a_rot = %g", n, scale);
    row("torsion", cfg, "a_rot G J / L", r.spec[0].initial_stiffness, k, 0.005);
  }
  fl_curve_free(&c);
  fl_result_free(&r);
}

/* A viscoelastic chain on the static solver (simulation.viscoelastic): a gauge of n
 * bonds pulled at v, every bond a standard linear solid (a_damp, s), against the closed
 * form K u + a_damp K v (1 - exp(-u / (v tau))), tau = a_damp s, at the row where
 * u = v tau (the bend of the relaxation) and at the end of the travel, 3 v tau. */
static void visco_case(int n, double a_damp, double stab)
{
  double R = 1e-3, h = 4e-3, E = 5e7, v = 1.0 / 60000.0, tau = a_damp * stab;
  fl_experiment e = base(R, 0.0, E, 0.3);
  e.test.kind = FL_TEST_TENSION;
  e.fiber.segments = n + 4;
  e.fiber.length_m = (n + 4) * h;
  e.test.gauge_length_m = n * h;
  e.test.grip_length_m = 2 * h;
  e.test.speed = v;
  e.test.max_elongation_m = 3.0 * v * tau;
  e.bond.damping = a_damp;
  e.bond.damping_stabilization = stab;
  e.sim.viscoelastic = 1;
  e.sim.output_points = 301;
  fl_curve c;
  fl_result r;
  if (run_case(&e, &c, &r))
    return;
  double k = E * fl_section_hollow(R, 0.0).area / r.length;
  static const double at[] = {1.0, 3.0};
  for (int j = 0; j < 2; j++) {
    size_t i = (size_t)(j == 0 ? 100 : 300);
    double u = c.x[i], ref = k * u + a_damp * k * v * (1.0 - exp(-u / (v * tau)));
    char cfg[160];
    snprintf(cfg, sizeof cfg, "viscoelastic, n = %d, a_damp = %g s, s = %g, u = %g v tau", n, a_damp, stab, at[j]);
    row("tension", cfg, "standard linear solid: K u + a_damp K v (1 - exp(-u / (v a_damp s)))", c.y[i], ref, 1e-6);
  }
  fl_curve_free(&c);
  fl_result_free(&r);
}

/* Plastic buckling on viscoelastic bonds (simulation.viscoelastic, static solver): a
 * slender hollow stem (span 0.1 m = 25 D, R'/R = 0.8, no friction) in 3-point bending
 * at 1 mm/min, its bonds standard linear solids (a_damp 20 s, s 0.7) whose envelope
 * (Fmax 4 N, Fmin 2.5 N, no slope after) caps each buckled bond's whole moment: the
 * plateau after the kink, the median over the rows from 1 mm past the peak to the end,
 * against the envelope's Fmin (a Maxwell element carried past the kink, its moment
 * a_damp kb times the hinge's rate, puts it at 4.6 N). */
static void visco_buckling_case(void)
{
  fl_experiment e = base(2e-3, 0.8, 5.5e9, 0.3);
  e.fiber.length_m = 0.1 * 26.0 / 24.0;
  e.fiber.segments = 26;
  e.fiber.density = 800.0;
  e.bond.damping = 20.0;
  e.bond.damping_stabilization = 0.7;
  e.bond.buckling.type = FL_BUCKLING_PLASTIC;
  e.bond.buckling.sample_length = 0.1;
  e.bond.buckling.max_force = 4.0;
  e.bond.buckling.min_force = 2.5;
  e.bond.buckling.displacement_at_min_force = 4e-3;
  e.bond.buckling.slope_after_min_force = 0.0;
  e.test.kind = FL_TEST_BEND3PT;
  e.test.span_m = 0.1;
  e.test.friction = 0.0;
  e.test.speed = 1.0 / 60000.0;
  e.test.max_displacement_m = 8e-3;
  e.sim.viscoelastic = 1;
  e.sim.output_points = 400;
  fl_curve c;
  fl_result r;
  if (run_case(&e, &c, &r))
    return;
  int n = 0;
  double *v = malloc((size_t)c.npoints * sizeof *v);
  for (int i = 0; v && i < c.npoints; i++)
    if (c.x[i] > r.spec[0].x_at_peak + 1e-3)
      v[n++] = c.y[i];
  if (n > 10)
    row("3-point bending", "plastic buckling, viscoelastic (a_damp = 20 s, s = 0.7), 1 mm/min, hollow stem",
        "the envelope's plateau Fmin, the Maxwell element capped with it", fl_population_stat_of(v, n).median, 2.5,
        0.03);
  else
    failures++;
  free(v);
  fl_curve_free(&c);
  fl_result_free(&r);
}

/* Cantilever: m free segments of L/D = 20 from the clamp's face, one more in the
 * clamp, hollow (R'/R = 0.5); the tip stiffness of a small tip displacement against
 * Timoshenko's beam of the free length, with the chain's shear (no shear coefficient,
 * as the 3-point rows).  The chain's bending is the trapezoidal rule's, 1 / (2 m^2) too
 * soft (fiber-cantilever(1)). */
static void cantilever_case(int m, double scale)
{
  double R = 1e-3, L = 40.0 * R, h = L / m, E = 5e9;
  fl_experiment e = base(R, 0.5, E, 0.3);
  e.test.kind = FL_TEST_CANTILEVER;
  e.fiber.segments = m + 1;
  e.fiber.length_m = (m + 1) * h;
  e.test.clamp_length_m = h;
  e.test.gravity = 0.0;
  e.test.max_tip_displacement_m = 1e-4 * L;
  e.bond.torque_stiffness_scale = scale;
  e.bond.damping = 0.02 * h / sqrt(E / e.fiber.density); /* light damping of the highest modes */
  fl_curve c;
  fl_result r;
  char cfg[128];
  if (run_case(&e, &c, &r))
    return;
  fl_section s = fl_section_hollow(R, 0.5 * R);
  double lf = r.length;
  double comp = lf * lf * lf / (3.0 * scale * E * s.inertia) + lf / (e.fiber.shear_modulus * s.area);
  snprintf(cfg, sizeof cfg, "m = %d, L/D = 20, R'/R = 0.5, a_rot = %g", m, scale);
  row("cantilever", cfg, "Timoshenko: 1 / (L^3 / (3 a_rot E I) + L / (G A))", r.spec[0].initial_stiffness,
      1.0 / comp, 0.01);
  fl_curve_free(&c);
  fl_result_free(&r);
}

/* 3-point bending: the chain's own deflection (centre bond point against the support
 * bond points) against the force on the nose. */
typedef struct {
  int n;        /* rows */
  double *defl; /* m */
  double *force;/* N */
  int ic;       /* the two bodies around the centre bond: ic - 1, ic */
  int is;       /* the body right of the left support bond: is - 1, is */
  int js;       /* same for the right support */
} bend_probe;

static double bond_point_y(const fl_system *sys, int i)
{
  /* midpoint of body i's +x end and body i+1's -x end, both at the shared bond point */
  fl_vec3 a = fl_add(sys->x[i], fl_qrot(sys->q[i], fl_v3(sys->half_length[i], 0, 0)));
  fl_vec3 b = fl_add(sys->x[i + 1], fl_qrot(sys->q[i + 1], fl_v3(-sys->half_length[i + 1], 0, 0)));
  return 0.5 * (a.y + b.y);
}

static void bend_sample(void *ctx, const fl_system *sys, int point, double x)
{
  (void)x;
  bend_probe *p = ctx;
  double yc = bond_point_y(sys, p->ic - 1);
  double ys = 0.5 * (bond_point_y(sys, p->is - 1) + bond_point_y(sys, p->js - 1));
  p->defl[point] = ys - yc;
  p->force[point] = sys->tool_force[2].y;
  p->n = point + 1;
}

static void bend_case(int n, double ratio, double arot, double slender)
{
  double R = 1e-3, E = 5e9, nu = 0.3;
  double span = slender * 2 * R, h = span / n;
  fl_experiment e = base(R, ratio, E, nu);
  e.test.kind = FL_TEST_BEND3PT;
  e.fiber.segments = n + 2;
  e.fiber.length_m = (n + 2) * h;
  e.test.span_m = span;
  e.test.friction = 0.0;
  e.test.gravity = 0.0; /* beam theory here has no self-weight */
  e.test.support_radius_m = 2 * R;
  e.test.nose_radius_m = 2 * R;
  e.test.max_displacement_m = 2e-3 * span;
  e.bond.torque_stiffness_scale = arot;
  e.bond.damping = 0.05 * h / sqrt(E / e.fiber.density);
  bend_probe p;
  memset(&p, 0, sizeof p);
  p.defl = calloc((size_t)e.sim.output_points, sizeof(double));
  p.force = calloc((size_t)e.sim.output_points, sizeof(double));
  p.ic = (n + 2) / 2;      /* bodies ic-1 and ic meet at x = 0 */
  p.is = 1;                /* bodies 0 and 1 meet at -span/2 */
  p.js = n + 1;            /* bodies n and n+1 meet at +span/2 */
  fl_run_hooks hooks = {NULL, bend_sample, &p, NULL, 1, 0, NULL, 0};
  fl_curve c;
  fl_result r;
  char err[512], cfg[160];
  int rc = fl_run(&e, 1, &hooks, &c, &r, err, sizeof err);
  if (rc) {
    fprintf(stderr, "validate: %s\n", err);
    failures++;
    goto done;
  }
  /* slope over the rows with 20-100 % of the final force */
  int a = 0;
  double fmax = p.force[p.n - 1];
  while (a < p.n && p.force[a] < 0.2 * fmax)
    a++;
  double k = fl_fit_slope(p.defl, p.force, a, p.n);
  fl_section s = fl_section_hollow(R, ratio * R);
  double L = r.length, G = E / (2 * (1 + nu));
  double bend = L * L * L / (48 * arot * E * s.inertia), shear = L / (4 * G * s.area);
  double chain = 1.0 / (bend * (1 + 2.0 / (n * n)) + shear);
  double timo = 1.0 / (bend + shear);
  snprintf(cfg, sizeof cfg, "n = %d, L/D = %g, R'/R = %g, a_rot = %g", n, slender, ratio, arot);
  row("3-point bending", cfg, "chain: 48 a_rot E I / L^3 / (1 + 2/n^2), with shear L / (4 G A)", k, chain, 0.01);
  row("3-point bending", cfg, "Timoshenko: 1 / (L^3 / (48 a_rot E I) + L / (4 G A))", k, timo, 0.03);
done:
  free(p.defl);
  free(p.force);
  fl_curve_free(&c);
  fl_result_free(&r);
}

/* 3-point bending with the supports between bond points: a span of 100 mm on a fiber
 * of 120 mm in 26, 27 and 40 segments.  The discrete chain's compliance by
 * Castigliano: rigid segments, and at each bond point p inside the span a rotational
 * spring kb = a_rot E I / h under the moment P (span/2 - |p|) / 2 and a shear spring
 * ks = a_disp G A / h under P / 2, so
 *   delta / P = sum over bonds of (span/2 - |p|)^2 / (4 kb) + 1 / (4 ks).
 * delta is the chain's own deflection: the axis under the nose against the axis over
 * the supports (each on the segment that lies there). */
static void span_case(int segments)
{
  double R = 1e-3, E = 5e9, nu = 0.3, span = 0.1, L = 0.12, h = L / segments;
  fl_experiment e = base(R, 0.0, E, nu);
  e.test.kind = FL_TEST_BEND3PT;
  e.fiber.segments = segments;
  e.fiber.length_m = L;
  e.test.span_m = span;
  e.test.friction = 0.0;
  e.test.gravity = 0.0;
  e.test.support_radius_m = 2 * R;
  e.test.nose_radius_m = 2 * R;
  e.test.max_displacement_m = 2e-3 * span;
  e.bond.damping = 0.05 * h / sqrt(E / e.fiber.density);
  chain_probe p = {0, 0.5 * span, calloc((size_t)e.sim.output_points, sizeof(double)),
                  calloc((size_t)e.sim.output_points, sizeof(double))};
  fl_run_hooks hooks = {NULL, chain_probe_sample, &p, NULL, 1, 0, NULL, 0};
  fl_curve c;
  fl_result r;
  char err[512], cfg[160];
  if (fl_run(&e, 1, &hooks, &c, &r, err, sizeof err)) {
    fprintf(stderr, "validate: %s\n", err);
    failures++;
    free(p.defl);
    free(p.force);
    return;
  }
  if (fabs(r.length / span - 1.0) > 1e-9) { /* the span simulated is the one asked for */
    fprintf(stderr, "validate: %d segments: span simulated %.17g m, asked %.17g m\n", segments, r.length, span);
    failures++;
  }
  int a = 0;
  double fmax = p.force[p.n - 1];
  while (a < p.n && p.force[a] < 0.2 * fmax)
    a++;
  double k = fl_fit_slope(p.defl, p.force, a, p.n);
  fl_section sc = fl_section_hollow(R, 0.0);
  double kb = E * sc.inertia / h, ks = E / (2 * (1 + nu)) * sc.area / h, comp = 0.0;
  for (int b = 1; b < segments; b++) {
    double pb = fabs(b * h - 0.5 * L);
    if (pb < 0.5 * span)
      comp += (0.5 * span - pb) * (0.5 * span - pb) / (4 * kb) + 1.0 / (4 * ks);
  }
  snprintf(cfg, sizeof cfg, "%d segments, h = %.3g mm, span 100 mm between bond points", segments, 1e3 * h);
  row("3-point bending", cfg, "chain by Castigliano: sum (s/2 - |p|)^2 / (4 kb) + 1 / (4 ks)", k, 1.0 / comp, 0.01);
  free(p.defl);
  free(p.force);
  fl_curve_free(&c);
  fl_result_free(&r);
}

/* ---- large deflection: the elastica with sliding supports ----------------------
 *
 * Reference: the inextensible, shear-free elastica (Euler-Bernoulli, EI dtheta/ds =
 * M), solved by shooting with fourth-order Runge-Kutta, as in the classical treatment
 * of a beam on frictionless supports in large deflection (Frisch-Fay, "Flexible Bars",
 * Butterworths 1962, ch. 3; Conway, Phil. Mag. 38 (1947) 905, who first solved the
 * 3-point case with sliding supports).  By symmetry the half beam from the nose (s = 0,
 * slope 0) to the support contact (s = sc, slope tc) carries only the support's
 * reaction R, normal to the beam there (no friction): n = (-sin tc, cos tc), so the
 * nose force is P = 2 R cos tc and the moment is M(s) = R (rc - r(s)) x n, zero at the
 * contact (the overhang carries nothing).  Rollers of radius rs and nose of radius rn
 * touch the fiber's surface: the axis at the contact lies rs + a from the roller's
 * centre along n, and at the nose rn + a above it.  For a contact slope tc, R is found
 * by bisection so that the horizontal distance from the axis at the contact back to
 * the nose axis (where the slope returns to 0) is span/2 - (rs + a) sin tc; then the
 * nose travel is delta = (rs + a)(1 - cos tc) + (the axis's drop from the contact to
 * the middle). */
typedef struct {
  double ei, half, rsa; /* EI (N m^2), span / 2 (m), roller radius + fiber radius (m) */
} elastica;

/* One fourth-order Runge-Kutta step of h along the rod toward the middle, sigma from
 * the contact: y = (x, y relative to the contact, theta), M = R (rc - r) x n with rc =
 * 0, dtheta/dsigma = -M / EI. */
static void elastica_step(const elastica *el, double R, double nx, double ny, double *y, double h)
{
  double k[4][3], tmp[3];
  for (int q = 0; q < 4; q++) {
    double c = q == 0 ? 0.0 : (q == 3 ? 1.0 : 0.5);
    for (int m = 0; m < 3; m++)
      tmp[m] = y[m] + (q == 0 ? 0.0 : c * h * k[q - 1][m]);
    double M = R * (-tmp[0] * ny + tmp[1] * nx);
    k[q][0] = -cos(tmp[2]);
    k[q][1] = -sin(tmp[2]);
    k[q][2] = -M / el->ei;
  }
  for (int m = 0; m < 3; m++)
    y[m] += h / 6.0 * (k[0][m] + 2 * k[1][m] + 2 * k[2][m] + k[3][m]);
}

/* From the contact (slope tc, reaction R) toward the middle until the slope is 0:
 * the horizontal and vertical distances covered (dx > 0, dy > 0 the drop). */
static void elastica_half(const elastica *el, double tc, double R, double *dx, double *dy)
{
  double nx = -sin(tc), ny = cos(tc);
  double st[3] = {0.0, 0.0, tc}, h = 2.0 * el->half / 1000.0;
  for (int it = 0; it < 100000; it++) {
    double prev[3] = {st[0], st[1], st[2]};
    elastica_step(el, R, nx, ny, st, h);
    if (st[2] <= 0.0) {
      /* the slope crossed 0 in this step: shorten it by secant until it lands on 0 */
      double lo = 0.0, hi = h, tlo = prev[2], thi = st[2];
      for (int s2 = 0; s2 < 40 && fabs(thi) > 1e-15; s2++) {
        double hh = lo + (hi - lo) * tlo / (tlo - thi);
        memcpy(st, prev, sizeof st);
        elastica_step(el, R, nx, ny, st, hh);
        if (st[2] > 0.0) {
          lo = hh;
          tlo = st[2];
        } else {
          hi = hh;
          thi = st[2];
        }
      }
      break;
    }
  }
  *dx = -st[0];
  *dy = -st[1];
}

/* The elastica's nose force and travel for contact slope tc. */
static void elastica_point(const elastica *el, double tc, double *P, double *delta)
{
  double want = el->half - el->rsa * sin(tc), lo = 0.0, hi = 1.0, dx, dy;
  elastica_half(el, tc, hi, &dx, &dy);
  while (dx > want) { /* more reaction, more curvature, a shorter half */
    lo = hi;
    hi *= 2.0;
    elastica_half(el, tc, hi, &dx, &dy);
  }
  for (int it = 0; it < 56; it++) {
    double mid = 0.5 * (lo + hi);
    elastica_half(el, tc, mid, &dx, &dy);
    if (dx > want)
      lo = mid;
    else
      hi = mid;
  }
  double R = 0.5 * (lo + hi);
  elastica_half(el, tc, R, &dx, &dy);
  *P = 2.0 * R * cos(tc);
  *delta = el->rsa * (1.0 - cos(tc)) + dy;
}

/* The elastica's nose force at travel delta (delta grows with tc). */
static double elastica_force(const elastica *el, double delta)
{
  double lo = 1e-6, hi = 1.2, P = 0.0, d;
  for (int it = 0; it < 44; it++) {
    double mid = 0.5 * (lo + hi);
    elastica_point(el, mid, &P, &d);
    if (d < delta)
      lo = mid;
    else
      hi = mid;
  }
  elastica_point(el, 0.5 * (lo + hi), &P, &d);
  return P;
}

/* A slender light rod (L/D 50, 50 segments in the span, supports and nose on bond
 * points) pressed to a quarter of the span on frictionless rollers: every row from 20
 * % of the travel on within 1 % of the elastica's force, and the case is truly large:
 * at full travel the elastica lies more than 10 % off the linear beam. */
static void elastica_case(void)
{
  double R = 1e-3, E = 5e9, nu = 0.3, span = 0.1, n = 50, h = span / n;
  fl_experiment e = base(R, 0.0, E, nu);
  e.fiber.density = 10.0; /* the weight 1e-5 of the load: the elastica has none */
  e.test.kind = FL_TEST_BEND3PT;
  e.fiber.segments = 80;
  e.fiber.length_m = 80 * h;
  e.test.span_m = span;
  e.test.friction = 0.0;
  e.test.rollers = FL_ROLLERS_ROTATING;
  e.test.support_radius_m = 2 * R;
  e.test.nose_radius_m = 2 * R;
  e.test.max_displacement_m = 0.25 * span;
  e.sim.output_points = 41;
  e.bond.damping = 0.05 * h / sqrt(E / e.fiber.density);
  fl_curve c;
  fl_result r;
  char err[512], cfg[160];
  if (fl_run(&e, 1, NULL, &c, &r, err, sizeof err)) {
    fprintf(stderr, "validate: %s\n", err);
    failures++;
    return;
  }
  fl_section sc = fl_section_hollow(R, 0.0);
  elastica el = {E * sc.inertia, 0.5 * span, 2 * R + R};
  double worst = 0.0, worst_x = 0.0, model = 0.0, ref = 0.0;
  for (int i = 0; i < c.npoints; i++) {
    if (c.x[i] < 0.2 * e.test.max_displacement_m)
      continue;
    double pe = elastica_force(&el, c.x[i]);
    if (fabs(c.y[i] / pe - 1.0) >= fabs(worst)) {
      worst = c.y[i] / pe - 1.0;
      worst_x = c.x[i];
      model = c.y[i];
      ref = pe;
    }
  }
  snprintf(cfg, sizeof cfg, "large deflection, L/D = 50, %g segments in the span, delta to %g span; worst row at delta %.3g mm",
           n, e.test.max_displacement_m / span, 1e3 * worst_x);
  row("3-point bending", cfg, "elastica with sliding supports (shooting, RK4)", model, ref, 0.01);
  double full = elastica_force(&el, e.test.max_displacement_m), linear = 48 * el.ei / pow(span, 3) * e.test.max_displacement_m;
  if (!(fabs(full / linear - 1.0) > 0.1)) {
    fprintf(stderr, "validate: the elastica case is not large: %g against the linear %g\n", full, linear);
    failures++;
  }
  fl_curve_free(&c);
  fl_result_free(&r);
}

int main(int argc, char **argv)
{
  /* --quick: fewer bending cases; --solver explicit | static: that solver alone;
   * --elastica: the large-deflection case alone */
  int quick = 0, only = -1;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--quick") == 0)
      quick = 1;
    else if (strcmp(argv[a], "--elastica") == 0) {
      solver = FL_SOLVER_STATIC;
      elastica_case();
      return failures ? 1 : 0;
    } else if (strcmp(argv[a], "--solver") == 0 && a + 1 < argc)
      only = strcmp(argv[++a], "static") == 0 ? FL_SOLVER_STATIC : FL_SOLVER_EXPLICIT;
  }
  printf("| test | solver | configuration | theory | model | theory value | error | tolerance | result |\n");
  printf("|---|---|---|---|---|---|---|---|---|\n");
  /* every case with both solvers, at the same tolerances */
  for (int k = 0; k < 2; k++) {
    solver = k == 0 ? FL_SOLVER_EXPLICIT : FL_SOLVER_STATIC;
    if (only >= 0 && (int)solver != only)
      continue;
    axial_case(FL_TEST_TENSION, 8, 1.0);
    axial_case(FL_TEST_TENSION, 32, 0.7);
    axial_case(FL_TEST_TORSION, 8, 1.0);
    axial_case(FL_TEST_TORSION, 32, 1.3);
    cantilever_case(8, 1.0);
    cantilever_case(16, 2.5);
    static const int ns[] = {8, 16, 32, 64};
    static const double ratios[] = {0.0, 0.5, 0.8};
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 3; j++) {
        if (quick && (i != 1))
          continue;
        bend_case(ns[i], ratios[j], (i + j) % 2 ? 2.5 : 1.0, 20.0);
      }
    bend_case(16, 0.5, 0.6, 40.0);
    span_case(26);
    span_case(27);
    span_case(40);
    if (solver == FL_SOLVER_STATIC) {
      elastica_case(); /* the explicit engine would take minutes to travel a quarter span */
      visco_case(16, 20.0, 1.5); /* at the lab's speed: the static solver's alone */
      visco_buckling_case();
    }
  }
  printf("\n%d of the cases outside their tolerance\n", failures);
  return failures ? 1 : 0;
}
