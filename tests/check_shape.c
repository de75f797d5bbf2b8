/* check_shape.c: curved and tapered specimens (fiber.shape, fiber.outer_radius_end;
 * fiberlab-experiment(5), SHAPE AND SECTIONS).
 *
 * - A curved fiber is built with its bonds created in the rest shape: at rest it
 *   carries no load.
 * - The 3-point tools touch a curved specimen where it lies.
 * - A quarter-circle cantilever under an in-plane tip load deflects as Castigliano's
 *   theorem says, and a tapered straight cantilever as the integral of M^2 / (E I(x)).
 *
 * The cantilevers are clamped by holding body 0 (FL_GRIP_FIXED); the flexible beam runs
 * from its centre to the centre of the last body, where the load acts.  The chain's
 * linear stiffness at rest comes from the engine's own loads (fl_system_loads) by
 * central differences, and the tip deflection from solving K u = -F; no law is written
 * twice. */
#include <config.h>

#include <check.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain_probe.h"
#include "check_limits.h"
#include "experiment.h"
#include "fl_defs.h"
#include "run.h"
#include "system.h"

static void set(fl_experiment *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set(fl_experiment *e, const char *fmt, ...)
{
  char buf[256], err[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  int rc = fl_experiment_set(e, buf, err, sizeof err);
  ck_assert_msg(rc == FL_OK, "%s", err);
}

/* A 3-point specimen of n segments of solid radius r, steel-like, no gravity or
 * damping; shape keys are set by the caller, then finish. */
static fl_experiment specimen(int n, double length, double r)
{
  fl_experiment e = fl_experiment_default();
  set(&e, "fiber.segments=%d", n);
  if (length > 0.0) /* 0: a polyline's own */
    set(&e, "fiber.length=%.17g", length);
  set(&e, "fiber.outer_radius=%.17g", r);
  set(&e, "fiber.youngs_modulus=2e11");
  set(&e, "fiber.poisson_ratio=0.3");
  set(&e, "fiber.density=7800");
  set(&e, "test.gravity=0");
  set(&e, "test.span=%.17g", 0.5 * (length > 0.0 ? length : 0.1));
  return e;
}

static void finish(fl_experiment *e)
{
  char err[1024];
  int rc = fl_experiment_finish(e, "(test)", err, sizeof err);
  ck_assert_msg(rc == FL_OK, "%s", err);
}

/* A temporary file open for writing; its name into path (room for 32). */
static FILE *temp_file(char *path)
{
  strcpy(path, "/tmp/check_shape_XXXXXX");
  int fd = mkstemp(path);
  ck_assert(fd >= 0);
  FILE *f = fdopen(fd, "w");
  ck_assert(f != NULL);
  return f;
}

/* Largest force and torque on any body of specimen 0, from its current state. */
static void largest_loads(fl_system *sys, double *fbig, double *tbig)
{
  fl_system_loads(sys, 0);
  *fbig = *tbig = 0.0;
  for (int i = 0; i < sys->nbody; i++) {
    *fbig = fmax(*fbig, fl_norm(sys->f[i]));
    *tbig = fmax(*tbig, fl_norm(sys->t[i]));
  }
}

/* Move the tools far from the specimen (a cantilever has none). */
static void tools_away(fl_system *sys)
{
  for (int k = 0; k < sys->ntool; k++)
    sys->tool[k].point = fl_v3(0.0, 1e3 * (k + 1), 0.0);
}

/* The specimen of e built as a cantilever: tools away, body 0 held. */
static void cantilever(const fl_experiment *e, fl_system *sys)
{
  fl_build_info info;
  ck_assert_int_eq(fl_build(e, 1, sys, &info), FL_OK);
  tools_away(sys);
  sys->motion[0] = FL_GRIP_FIXED;
}

/* The tip deflection of a chain clamped at body 0 under force F on its last body:
 * K from central differences of the engine's loads at rest (6 dofs a free body:
 * translation, then rotation of the world frame), u = -K^-1 F. */
static fl_vec3 tip_deflection(fl_system *sys, fl_vec3 F, double len)
{
  int nb = sys->nbody, nf = nb - 1, N = 6 * nf;
  gsl_matrix *K = gsl_matrix_alloc((size_t)N, (size_t)N);
  gsl_vector *rhs = gsl_vector_calloc((size_t)N), *u = gsl_vector_alloc((size_t)N);
  gsl_permutation *perm = gsl_permutation_alloc((size_t)N);
  double ex = 1e-7 * len, er = 1e-7; /* m, rad */
  double *fp = malloc((size_t)N * sizeof *fp);
  ck_assert(K && rhs && u && perm && fp);
  for (int j = 0; j < N; j++) {
    int body = 1 + j / 6, c = j % 6;
    double e = c < 3 ? ex : er;
    for (int sgn = 1; sgn >= -1; sgn -= 2) {
      fl_system_reset(sys);
      fl_vec3 d = fl_v3(c % 3 == 0, c % 3 == 1, c % 3 == 2);
      if (c < 3)
        sys->x[body] = fl_add(sys->x[body], fl_scale(d, sgn * e));
      else
        sys->q[body] = fl_qnormalize(fl_qmul(fl_qexp(fl_scale(d, sgn * e)), sys->q[body]));
      fl_system_loads(sys, 0);
      for (int i = 0; i < N; i++) {
        int bi = 1 + i / 6, ci = i % 6;
        fl_vec3 v = ci < 3 ? sys->f[bi] : sys->t[bi];
        double val = ci % 3 == 0 ? v.x : ci % 3 == 1 ? v.y : v.z;
        if (sgn > 0)
          fp[i] = val;
        else
          gsl_matrix_set(K, (size_t)i, (size_t)j, (fp[i] - val) / (2.0 * e));
      }
    }
  }
  fl_system_reset(sys);
  gsl_vector_set(rhs, (size_t)(N - 6), -F.x);
  gsl_vector_set(rhs, (size_t)(N - 5), -F.y);
  gsl_vector_set(rhs, (size_t)(N - 4), -F.z);
  int sgn;
  gsl_linalg_LU_decomp(K, perm, &sgn);
  gsl_linalg_LU_solve(K, perm, rhs, u);
  fl_vec3 tip = fl_v3(gsl_vector_get(u, (size_t)(N - 6)), gsl_vector_get(u, (size_t)(N - 5)),
                      gsl_vector_get(u, (size_t)(N - 4)));
  free(fp);
  gsl_permutation_free(perm);
  gsl_vector_free(u);
  gsl_vector_free(rhs);
  gsl_matrix_free(K);
  return tip;
}

/* An arc of radius rho and angle phi_deg, at rest: no load on any body, to 1e-12 of
 * the force scale E A and the torque scale E I / h (1 rad of bending).  With the bond
 * made straight instead of at the rest shape, each joint would carry E I / h times its
 * rest angle (here 2.25 deg: 4e-2 of the scale). */
START_TEST(test_arc_at_rest_carries_no_load)
{
  int n = 40;
  double rho = 0.1, phi = 90.0, r = 1e-3, L = rho * phi * FL_PI / 180.0;
  fl_experiment e = specimen(n, L, r);
  set(&e, "fiber.shape=arc");
  set(&e, "fiber.arc_angle=%.17g", phi);
  finish(&e);
  fl_system sys;
  fl_build_info info;
  ck_assert_int_eq(fl_build(&e, 1, &sys, &info), FL_OK);
  double fmx, tmx, A = FL_PI * r * r, I = FL_PI * pow(r, 4) / 4.0, h = L / n;
  largest_loads(&sys, &fmx, &tmx);
  double fs = 2e11 * A, ts = 2e11 * I / h;
  printf("arc at rest: largest force %.3g of E A, torque %.3g of E I / h\n", fmx / fs, tmx / ts);
  ck_assert_msg(fmx <= 1e-12 * fs, "force %g N, scale %g N", fmx, fs);
  ck_assert_msg(tmx <= 1e-12 * ts, "torque %g N m, scale %g N m", tmx, ts);
  /* the arc is the one asked for: centres on a circle of radius rho about (0, -rho cos(phi/2)) */
  double yc = -rho * cos(0.5 * phi * FL_PI / 180.0);
  for (int i = 0; i < n; i++)
    ck_assert_double_eq_tol(hypot(sys.x_ref[i].x, sys.x_ref[i].y - yc), rho, 1e-12 * rho);
  fl_system_free(&sys);
}
END_TEST

/* A scanned centreline (a sine of 3 mm over 120 mm, 60 points, in mm), resampled: at
 * rest no load either, and every centre on the polyline. */
START_TEST(test_polyline_at_rest_carries_no_load)
{
  char path[32];
  FILE *f = temp_file(path);
  fprintf(f, "x_mm,y_mm\n");
  for (int k = 0; k < 60; k++) {
    double x = 120.0 * k / 59.0;
    fprintf(f, "%.12g,%.12g\n", x, 3.0 * sin(2.0 * FL_PI * x / 120.0));
  }
  fclose(f);
  fl_experiment e = specimen(30, 0.0, 1e-3);
  set(&e, "fiber.shape=polyline");
  set(&e, "fiber.polyline=%s", path);
  set(&e, "fiber.table_unit=mm");
  char err[1024];
  int rc = fl_experiment_finish(&e, "(test)", err, sizeof err);
  ck_assert_msg(rc == FL_OK, "%s", err);
  /* the sine's arc length, 120 mm (1 + k^2/4 - 3 k^4/64) with k = 2 pi 3/120, less the
   * chords' shortfall (well under 0.1 %) */
  double k = 2.0 * FL_PI * 3.0 / 120.0, sine = 0.12 * (1.0 + k * k / 4.0 - 3.0 * pow(k, 4) / 64.0);
  ck_assert_msg(fabs(e.fiber.length_m / sine - 1.0) < 1e-3, "the polyline's length %g m, the sine's %g m",
                e.fiber.length_m, sine);
  fl_system sys;
  fl_build_info info;
  rc = fl_build(&e, 1, &sys, &info); /* the builder reads the file again */
  remove(path);
  ck_assert_int_eq(rc, FL_OK);
  double fmx, tmx, r = 1e-3, A = FL_PI * r * r, I = FL_PI * pow(r, 4) / 4.0, h = e.fiber.length_m / 30;
  largest_loads(&sys, &fmx, &tmx);
  printf("polyline at rest: largest force %.3g of E A, torque %.3g of E I / h\n", fmx / (2e11 * A),
         tmx / (2e11 * I / h));
  ck_assert(fmx <= 1e-12 * 2e11 * A);
  ck_assert(tmx <= 1e-12 * 2e11 * I / h);
  /* the ends' chord lies along x and the centres on the sine (its chord is already
   * along x, centred at 60 mm): within the chord error of 60 points */
  for (int i = 0; i < 30; i++) {
    double x = sys.x_ref[i].x * 1e3 + 60.0;
    ck_assert_double_eq_tol(sys.x_ref[i].y * 1e3, 3.0 * sin(2.0 * FL_PI * x / 120.0), 0.02);
  }
  fl_system_free(&sys);
}
END_TEST

/* Distance from point p to the segment of body i (a sphero-cylinder's axis). */
static double to_axis(const fl_system *sys, int i, fl_vec3 p)
{
  fl_vec3 t = fl_qrot(sys->q_ref[i], fl_v3(1, 0, 0)), d = fl_sub(p, sys->x_ref[i]);
  double u = fl_dot(d, t), hl = sys->half_length[i];
  u = u > hl ? hl : (u < -hl ? -hl : u);
  return fl_norm(fl_sub(d, fl_scale(t, u)));
}

/* 3-point tools on an arch: each support and the nose touch the segments (the nearest
 * segment axis at the radius plus the tool's), neither inside nor apart, at the abscissa
 * asked for, supports below and the nose above. */
START_TEST(test_bend3pt_tools_touch_a_curved_specimen)
{
  fl_experiment e = specimen(24, 0.12, 1.5e-3);
  set(&e, "fiber.shape=arc");
  set(&e, "fiber.arc_radius=0.15");
  set(&e, "test.span=0.08");
  finish(&e);
  fl_system sys;
  fl_build_info info;
  ck_assert_int_eq(fl_build(&e, 1, &sys, &info), FL_OK);
  double xs[3] = {-0.04, 0.04, 0.0};
  for (int k = 0; k < 3; k++) {
    fl_vec3 p = sys.tool[k].point;
    double gap = HUGE_VAL, ymid = 0.0;
    for (int i = 0; i < sys.nbody; i++)
      if (to_axis(&sys, i, p) - sys.radius[i] - sys.tool[k].radius < gap) {
        gap = to_axis(&sys, i, p) - sys.radius[i] - sys.tool[k].radius;
        ymid = sys.x_ref[i].y;
      }
    printf("tool %d at (%g, %g) mm: gap %.3g m\n", k, 1e3 * p.x, 1e3 * p.y, gap);
    ck_assert_double_eq_tol(p.x, xs[k], 1e-15);
    ck_assert_msg(fabs(gap) <= 1e-12, "tool %d: gap %g m", k, gap);
    ck_assert_msg(k < 2 ? p.y < ymid : p.y > ymid, "tool %d on the wrong side", k);
  }
  /* and the specimen rests on them without load */
  double fmx, tmx;
  largest_loads(&sys, &fmx, &tmx);
  ck_assert(fmx <= 1e-12 * 2e11 * FL_PI * 1.5e-3 * 1.5e-3);
  fl_system_free(&sys);
}
END_TEST

/* Quarter-circle cantilever, radius rho from the clamp (body 0's centre) to the tip
 * (the last body's centre), an in-plane tip load.  Castigliano: with phi the angle
 * from the clamp, the tip load F = (F_o, F_t) in the basis of the clamp's outward
 * normal e_o (from the circle's centre) and its tangent e_t (toward the tip):
 *   M(phi) = -rho (F_t cos phi + F_o (1 - sin phi))      bending moment
 *   N(phi) = -F_o sin phi + F_t cos phi                  axial force
 *   V(phi) =  F_o cos phi + F_t sin phi                  shear force
 * and delta_j = dU/dF_j of U = int_0^{pi/2} (M^2/(2EI) + N^2/(2EA) + V^2/(2GA)) rho dphi
 * (the chain's shear spring is G A / d, no shear factor):
 *   C_oo = (3 pi/4 - 2) rho^3/EI + (pi/4) rho (1/EA + 1/GA)
 *   C_tt = (pi/4) rho^3/EI       + (pi/4) rho (1/EA + 1/GA)
 *   C_ot = rho^3/(2 EI) - rho/(2 EA) + rho/(2 GA)
 * (the thin ring's pi P R^3 / (4 E I) along the clamp's tangent).  The chain is an arc
 * of n segments whose centres span 90 deg from first to last: angle 90 n / (n - 1). */
static void castigliano_quarter(double rho, double E, double G, double A, double I, double *Coo, double *Ctt,
                                double *Cot)
{
  *Coo = (0.75 * FL_PI - 2.0) * pow(rho, 3) / (E * I) + 0.25 * FL_PI * rho * (1.0 / (E * A) + 1.0 / (G * A));
  *Ctt = 0.25 * FL_PI * pow(rho, 3) / (E * I) + 0.25 * FL_PI * rho * (1.0 / (E * A) + 1.0 / (G * A));
  *Cot = 0.5 * pow(rho, 3) / (E * I) - 0.5 * rho / (E * A) + 0.5 * rho / (G * A);
}

START_TEST(test_quarter_circle_cantilever_against_castigliano)
{
  int n = 40;
  double rho = 0.1, r = 1e-3, phi = 0.5 * FL_PI * n / (n - 1), L = rho * phi;
  fl_experiment e = specimen(n, L, r);
  set(&e, "fiber.shape=arc");
  set(&e, "fiber.arc_angle=%.17g", phi * 180.0 / FL_PI);
  finish(&e);
  fl_system sys;
  cantilever(&e, &sys);
  double E = e.fiber.youngs_modulus, G = e.fiber.shear_modulus, A = FL_PI * r * r, I = FL_PI * pow(r, 4) / 4.0;
  double Coo, Ctt, Cot;
  castigliano_quarter(rho, E, G, A, I, &Coo, &Ctt, &Cot);
  /* the clamp's basis: the circle's centre is at (0, -rho cos(phi/2)) */
  fl_vec3 c = fl_v3(0.0, -rho * cos(0.5 * phi), 0.0), x0 = sys.x_ref[0], tip = sys.x_ref[n - 1];
  fl_vec3 eo = fl_scale(fl_sub(x0, c), 1.0 / fl_norm(fl_sub(x0, c)));
  fl_vec3 et = fl_v3(-eo.y, eo.x, 0.0);
  if (fl_dot(et, fl_sub(tip, x0)) < 0.0)
    et = fl_neg(et);
  ck_assert_double_eq_tol(fl_norm(fl_sub(tip, c)), rho, 1e-12); /* the tip on the circle, 90 deg on */
  ck_assert_double_eq_tol(fl_dot(fl_sub(tip, c), eo), 0.0, 1e-12);
  fl_vec3 uo = tip_deflection(&sys, eo, L), ut = tip_deflection(&sys, et, L);
  double got[4] = {fl_dot(uo, eo), fl_dot(ut, et), fl_dot(uo, et), fl_dot(ut, eo)};
  double want[4] = {Coo, Ctt, Cot, Cot};
  const char *name[4] = {"C_oo", "C_tt", "C_ot", "C_to"};
  for (int k = 0; k < 4; k++) {
    printf("quarter circle, n = %d: %s = %.6g m/N, Castigliano %.6g m/N (%+.3f %%)\n", n, name[k], got[k], want[k],
           100.0 * (got[k] / want[k] - 1.0));
    ck_assert_msg(fabs(got[k] / want[k] - 1.0) <= 0.01, "%s %g, Castigliano %g", name[k], got[k], want[k]);
  }
  /* out of the plane nothing moves */
  ck_assert(fabs(uo.z) <= 1e-9 * Coo && fabs(ut.z) <= 1e-9 * Ctt);
  fl_system_free(&sys);
}
END_TEST

/* Tapered cantilever: a solid straight fiber, outer radius R0 at the clamp end and R1 =
 * R0 / 2 at the tip (I falls 16-fold), clamped at body 0, a transverse tip load at the
 * last body.  By the unit-load method (Castigliano) the tip compliance is
 *   delta / P = int_{x0}^{a} (a - x)^2 / (E I(x)) dx + int_{x0}^{a} dx / (G A(x))
 * from the clamped centre x0 = h/2 to the tip a = L - h/2, with R(x) = R0 + (R1 - R0)
 * x / L; Simpson's rule on 4000 intervals evaluates it. */
static double taper_compliance(double R0, double R1, double L, double x0, double a, double E, double G)
{
  int m = 4000;
  double sum = 0.0, dx = (a - x0) / m;
  for (int k = 0; k <= m; k++) {
    double x = x0 + k * dx, R = R0 + (R1 - R0) * x / L;
    double I = FL_PI * pow(R, 4) / 4.0, A = FL_PI * R * R;
    double g = (a - x) * (a - x) / (E * I) + 1.0 / (G * A);
    sum += (k == 0 || k == m ? 1.0 : (k % 2 ? 4.0 : 2.0)) * g;
  }
  return sum * dx / 3.0;
}

START_TEST(test_tapered_cantilever_against_the_integral)
{
  int n = 40;
  double L = 0.1, R0 = 1e-3, R1 = 0.5e-3, h = L / n;
  fl_experiment e = specimen(n, L, R0);
  set(&e, "fiber.outer_radius_end=%.17g", R1);
  finish(&e);
  fl_system sys;
  cantilever(&e, &sys);
  double want = taper_compliance(R0, R1, L, 0.5 * h, L - 0.5 * h, e.fiber.youngs_modulus, e.fiber.shear_modulus);
  fl_vec3 u = tip_deflection(&sys, fl_v3(0, 1, 0), L);
  printf("tapered cantilever, n = %d: tip stiffness %.6g N/m, integral %.6g N/m (%+.3f %%)\n", n, 1.0 / u.y,
         1.0 / want, 100.0 * (want / u.y - 1.0));
  ck_assert_msg(fabs(u.y / want - 1.0) <= 0.01, "compliance %g m/N, integral %g m/N", u.y, want);
  /* the taper is there: the uniform fiber of R0 is twice as stiff (int (1 - t)^2 /
   * (1 - t/2)^4 dt = 2/3 against 1/3) */
  double uniform = taper_compliance(R0, R0, L, 0.5 * h, L - 0.5 * h, e.fiber.youngs_modulus, e.fiber.shear_modulus);
  ck_assert(u.y > 1.9 * uniform);
  fl_system_free(&sys);
}
END_TEST

/* The run's initial stiffness (N/m or N m/rad). */
static double run_stiffness(const fl_experiment *e, const fl_run_hooks *h)
{
  fl_curve c;
  fl_result r;
  char err[1024];
  int rc = fl_run(e, 1, h, &c, &r, err, sizeof err);
  ck_assert_msg(rc == FL_OK, "%s", err);
  double k = r.spec[0].initial_stiffness;
  fl_curve_free(&c);
  fl_result_free(&r);
  return k;
}

/* The innermost bodies of the fixed and the moving grip: the bonds between them are
 * the gauge's. */
static void innermost_gripped(const fl_system *sys, int *first, int *last)
{
  *first = *last = -1;
  for (int i = 0; i < sys->nbody; i++) {
    if (sys->motion[i] == FL_GRIP_FIXED)
      *first = i;
    if (sys->motion[i] == FL_GRIP_MOVING && *last < 0)
      *last = i;
  }
}

/* Tension and torsion of a tapered fiber: the grips hold whole segments, and the
 * bonds between the innermost gripped bodies are springs in series, each side
 * (h/2) / (E A_i) (torsion: (h/2) / (G J_i)) with body i's section at its centre's
 * arc length s_i = L/2 + (i - (nbody - 1)/2) h.  Outer radius 1.5 mm at one end, 0.75
 * mm at the other. */
START_TEST(test_tension_and_torsion_of_a_taper_are_the_series_of_its_sections)
{
  for (int kind = FL_TEST_TENSION; kind <= FL_TEST_TORSION; kind++) {
    fl_experiment e = fl_experiment_default();
    set(&e, "test.kind=%s", kind == FL_TEST_TENSION ? "tension" : "torsion");
    set(&e, "fiber.outer_radius_end=0.75e-3");
    set(&e, "simulation.output_points=100");
    finish(&e);
    fl_system sys;
    fl_build_info info;
    ck_assert_int_eq(fl_build(&e, 1, &sys, &info), FL_OK);
    double L = e.fiber.length_m, h = info.h, R0 = e.fiber.outer_radius_m, R1 = e.fiber.outer_radius_end_m;
    double E = e.fiber.youngs_modulus, G = e.fiber.shear_modulus, comp = 0.0;
    int nb = sys.nbody, first, last;
    innermost_gripped(&sys, &first, &last);
    for (int i = first; i < last; i++)
      for (int j = i; j <= i + 1; j++) {
        double s = 0.5 * L + (j - 0.5 * (nb - 1)) * h, R = R0 + (R1 - R0) * s / L;
        double A = FL_PI * R * R, J = FL_PI * pow(R, 4) / 2.0;
        comp += 0.5 * h / (kind == FL_TEST_TENSION ? E * A : G * J);
        /* and the body was built with that section */
        ck_assert_double_eq_tol(sys.radius[j], R, 1e-15);
      }
    fl_system_free(&sys);
    double k = run_stiffness(&e, NULL);
    printf("tapered %s: initial stiffness %.6g, series of the sections %.6g (%+.3f %%)\n",
           kind == FL_TEST_TENSION ? "tension" : "torsion", k, 1.0 / comp, 100.0 * (k * comp - 1.0));
    ck_assert_msg(fabs(k * comp - 1.0) <= 0.01, "stiffness %g, series %g", k, 1.0 / comp);
  }
}
END_TEST

/* Tension and torsion of an arc: the grips hold the end segments as they lie and pull
 * along, or turn about, the chord between their centres (fl_shape_align_ends).  The
 * chain of rigid segments between the innermost gripped bodies has at each bond point
 * k (height y_k over the chord, its axis at angle t_k to it) springs in series of two
 * half segments: bending kb = a_rot E I / h, axial ka = a_disp E A / h, shear
 * ks = a_disp G A / h, twist kt = a_rot G J / h.
 * - Tension P along the chord (the static solver and the explicit engine), both grips clamped (the moving one keeps its turn): a
 *   moment M_e at the grips, so the moment at k is M_e - P y_k, its force P cos t_k
 *   along the axis and P sin t_k across.  Castigliano with M_e free (the clamp's turn
 *   zero): M_e = P mean(y), and
 *     delta / P = sum (y_k - mean y)^2 / kb + cos^2 t_k / ka + sin^2 t_k / ks.
 * - Torsion T about the chord: the moment T along the chord everywhere is a load path
 *   that balances every part without the grips' other reactions, so by least
 *   complementary energy the chain is at least as stiff as
 *     1 / sum (cos^2 t_k / kt + sin^2 t_k / kb)
 *   (the twist about the bond axis and the out-of-plane bending across it), and an
 *   arc of 100 m is the straight fiber. */
static void arc_bonds(const fl_experiment *e, double *ctens, double *ctors)
{
  fl_system sys;
  fl_build_info info;
  ck_assert_int_eq(fl_build(e, 1, &sys, &info), FL_OK);
  int first, last, n = sys.nbody;
  innermost_gripped(&sys, &first, &last);
  /* the end segments' centres on the chord, the x axis */
  ck_assert_double_eq_tol(sys.x_ref[0].y, 0.0, 1e-15);
  ck_assert_double_eq_tol(sys.x_ref[n - 1].y, 0.0, 1e-15);
  ck_assert(sys.x_ref[0].x < 0.0 && sys.x_ref[n - 1].x > 0.0);
  double h = info.h, R = e->fiber.outer_radius_m, E = e->fiber.youngs_modulus, G = e->fiber.shear_modulus;
  double A = FL_PI * R * R, I = FL_PI * pow(R, 4) / 4.0, J = 2.0 * I;
  double kb = e->bond.torque_stiffness_scale * E * I / h, ka = e->bond.force_stiffness_scale * E * A / h,
         ks = e->bond.force_stiffness_scale * G * A / h, kt = e->bond.torque_stiffness_scale * G * J / h;
  int nk = last - first;
  double y[256], t[256], ym = 0.0;
  ck_assert(nk <= 256);
  for (int k = 0; k < nk; k++) {
    int j = first + k;
    fl_vec3 a1 = fl_qrot(sys.q_ref[j], fl_v3(1, 0, 0)), a2 = fl_qrot(sys.q_ref[j + 1], fl_v3(1, 0, 0));
    fl_vec3 p = fl_scale(fl_add(fl_axpy(sys.x_ref[j], 0.5 * h, a1), fl_axpy(sys.x_ref[j + 1], -0.5 * h, a2)), 0.5);
    fl_vec3 ax = fl_add(a1, a2);
    y[k] = p.y;
    t[k] = atan2(ax.y, ax.x);
    ym += y[k] / nk;
  }
  *ctens = *ctors = 0.0;
  for (int k = 0; k < nk; k++) {
    double c = cos(t[k]), sn = sin(t[k]);
    *ctens += (y[k] - ym) * (y[k] - ym) / kb + c * c / ka + sn * sn / ks;
    *ctors += c * c / kt + sn * sn / kb;
  }
  fl_system_free(&sys);
}

static fl_experiment arc_specimen(const char *kind, double rho)
{
  fl_experiment e = specimen(40, 0.1, 1e-3);
  set(&e, "test.kind=%s", kind);
  set(&e, "test.gauge_length=0.08");
  set(&e, "test.grip_length=0.01");
  set(&e, "simulation.output_points=100");
  /* small: the arc straightens and stiffens under a large pull */
  set(&e, "test.%s=%s", strcmp(kind, "tension") == 0 ? "max_elongation" : "max_twist",
      strcmp(kind, "tension") == 0 ? "2e-6" : "2e-4");
  if (rho > 0.0) {
    set(&e, "fiber.shape=arc");
    set(&e, "fiber.arc_radius=%.17g", rho);
  }
  finish(&e);
  return e;
}

START_TEST(test_tension_and_torsion_of_an_arc)
{
  /* tension: an arc of 0.2 m (the gauge turns 23 deg), bending the larger part */
  fl_experiment e = arc_specimen("tension", 0.2);
  double ct, cr;
  arc_bonds(&e, &ct, &cr);
  double k = run_stiffness(&e, NULL);
  printf("arc of 0.2 m in tension: stiffness %.6g N/m, chain by Castigliano %.6g N/m (%+.3f %%)\n", k, 1.0 / ct,
         100.0 * (k * ct - 1.0));
  ck_assert_msg(fabs(k * ct - 1.0) <= 0.01, "stiffness %g N/m, Castigliano %g N/m", k, 1.0 / ct);
  /* the explicit engine too, at its automatic speed: slow against the curved gauge's
   * bending mode, not only its axial one */
  fl_experiment ex = e;
  ex.sim.solver = FL_SOLVER_EXPLICIT;
  double kx = run_stiffness(&ex, NULL);
  printf("the same on the explicit engine: %.6g N/m (%+.3f %%)\n", kx, 100.0 * (kx * ct - 1.0));
  ck_assert_msg(fabs(kx * ct - 1.0) <= 0.01, "explicit %g N/m, Castigliano %g N/m", kx, 1.0 / ct);
  fl_experiment st = arc_specimen("tension", 0.0);
  double kst = run_stiffness(&st, NULL);
  ck_assert_msg(k < 0.5 * kst, "the arc %g N/m against the straight fiber %g N/m", k, kst);
  /* torsion: at least the bound of the moment along the chord; a flat arc as straight */
  e = arc_specimen("torsion", 0.2);
  arc_bonds(&e, &ct, &cr);
  k = run_stiffness(&e, NULL);
  st = arc_specimen("torsion", 0.0);
  kst = run_stiffness(&st, NULL);
  fl_experiment flat = arc_specimen("torsion", 100.0);
  double kf = run_stiffness(&flat, NULL);
  printf("arc of 0.2 m in torsion: stiffness %.6g N m/rad, bound %.6g; straight %.6g, arc of 100 m %.6g (%+.4f %%)\n",
         k, 1.0 / cr, kst, kf, 100.0 * (kf / kst - 1.0));
  ck_assert_msg(k >= (1.0 - 1e-3) / cr, "torsion %g N m/rad below the bound %g", k, 1.0 / cr);
  ck_assert_msg(fabs(kf / kst - 1.0) <= 1e-3, "flat arc %g, straight %g", kf, kst);
}
END_TEST

/* A 3-point specimen of n segments over span and one beyond each support, round of
 * radius r (the caller may set sections and shape, then finish), frictionless tools,
 * no gravity, 0.2 % of the span of deflection. */
static fl_experiment bend_specimen(int n, double span, double r)
{
  double h = span / n;
  fl_experiment e = fl_experiment_default();
  set(&e, "fiber.segments=%d", n + 2);
  set(&e, "fiber.length=%.17g", (n + 2) * h);
  set(&e, "fiber.outer_radius=%.17g", r);
  set(&e, "fiber.youngs_modulus=5e9");
  set(&e, "fiber.shear_modulus=%.17g", 5e9 / 2.6);
  set(&e, "test.span=%.17g", span);
  set(&e, "test.friction=0");
  set(&e, "test.gravity=0");
  set(&e, "test.support_radius=2e-3");
  set(&e, "test.nose_radius=2e-3");
  set(&e, "test.max_displacement=%.17g", 2e-3 * span);
  set(&e, "bond.damping=%.17g", 0.05 * h / sqrt(5e9 / 1000.0));
  set(&e, "simulation.output_points=200");
  return e;
}

/* The chain's own 3-point stiffness under the nose (tests/chain_probe.h), N/m. */
static double bend_stiffness(const fl_experiment *e)
{
  int np = e->sim.output_points;
  chain_probe p = {0, 0.5 * e->test.span_m, calloc((size_t)np, sizeof(double)), calloc((size_t)np, sizeof(double))};
  fl_run_hooks hk = {NULL, chain_probe_sample, &p, NULL, 1, 0, NULL, 0};
  run_stiffness(e, &hk);
  double k = chain_probe_stiffness(&p);
  free(p.defl);
  free(p.force);
  return k;
}

/* 3-point bending of a fiber thick in the middle and thin at its ends (a section table:
 * outer radius 1.2 mm at mid-length, 0.8 mm at the ends, linear between, hollow ratio
 * 0.3 throughout; n = 24 segments over the span and one beyond each support).  A
 * fiber thinning one way only would be pushed along its axis by the tools on its
 * sloping surfaces (the nose and both supports push it toward its thick end, 2 R' F in
 * all), so the table is symmetric.  The chain's own deflection under the nose
 * (tests/chain_probe.h) against the unit-load method:
 *   delta / F = int_{-c}^{c} m(x)^2 / (E I(x)) dx (1 + 2/n^2) + int_{-c}^{c} (1/2)^2 / (G A(x)) dx
 * with c the half span, m(x) = (c - |x|) / 2 the moment of a unit load at the middle,
 * and (1 + 2/n^2) the discrete chain's share for a uniform fiber (check_section.c). */
START_TEST(test_bend3pt_of_a_section_table_against_the_unit_load_integral)
{
  int n = 24;
  double span = 0.06, L = (n + 2) * span / n, Rm = 1.2e-3, Re = 0.8e-3, q = 0.3, c = 0.5 * span;
  char path[32];
  FILE *f = temp_file(path);
  fprintf(f, "arc_length,outer_radius,inner_radius_ratio\n0,%.17g,%g\n%.17g,%.17g,%g\n%.17g,%.17g,%g\n", Re, q,
          0.5 * L, Rm, q, L, Re, q);
  fclose(f);
  fl_experiment e = bend_specimen(n, span, Rm);
  set(&e, "fiber.section_table=%s", path);
  finish(&e);
  double k = bend_stiffness(&e);
  remove(path);
  int m = 4000;
  double E = 5e9, G = 5e9 / 2.6, bend = 0.0, shear = 0.0, dx = 2.0 * c / m;
  for (int j = 0; j <= m; j++) {
    double x = -c + j * dx, R = Rm + (Re - Rm) * fabs(x) / (0.5 * L), w = (j == 0 || j == m ? 1.0 : (j % 2 ? 4.0 : 2.0));
    double mm = 0.5 * (c - fabs(x)), Ri = q * R;
    bend += w * mm * mm / (E * FL_PI * (pow(R, 4) - pow(Ri, 4)) / 4.0);
    shear += w * 0.25 / (G * FL_PI * (R * R - Ri * Ri));
  }
  double want = 1.0 / ((bend * (1.0 + 2.0 / (n * n)) + shear) * dx / 3.0);
  printf("3-point bending of a section table, n = %d: stiffness %.6g N/m, unit-load integral %.6g N/m (%+.3f %%)\n", n,
         k, want, 100.0 * (k / want - 1.0));
  ck_assert_msg(fabs(k / want - 1.0) <= 0.01, "stiffness %g N/m, integral %g N/m", k, want);
}
END_TEST

/* 3-point bending of arcs (an arch on the supports, its middle highest):
 * - one of 100 m radius over a 60 mm span (a rise of 5 um) bends as the straight fiber
 *   does, within 0.5 %: the tools are placed on it as on the straight one;
 * - one of 0.1 m radius (a rise of 4.5 mm) rests on the supports and takes the nose:
 *   in the last row, at rest, the supports carry the nose's force within 1 % (tools
 *   placed inside the arch or apart from it would make it jump or hang off them). */
START_TEST(test_bend3pt_places_tools_on_an_arc)
{
  int n = 24;
  double span = 0.06, r = 1e-3;
  fl_experiment st = bend_specimen(n, span, r), flat = st, arch = st;
  finish(&st);
  set(&flat, "fiber.shape=arc");
  set(&flat, "fiber.arc_radius=100");
  finish(&flat);
  double ks = bend_stiffness(&st), kf = bend_stiffness(&flat);
  printf("3-point bending: straight %.6g N/m, arc of 100 m %.6g N/m (%+.3f %%)\n", ks, kf, 100.0 * (kf / ks - 1.0));
  ck_assert_msg(fabs(kf / ks - 1.0) <= 0.005, "straight %g N/m, flat arc %g N/m", ks, kf);
  set(&arch, "fiber.shape=arc");
  set(&arch, "fiber.arc_radius=0.1");
  finish(&arch);
  fl_curve c;
  fl_result res;
  char err[1024];
  ck_assert_msg(fl_run(&arch, 1, NULL, &c, &res, err, sizeof err) == FL_OK, "%s", err);
  int last = c.npoints - 1;
  double nose = c.y[last], sup = c.support[last];
  printf("arch of 0.1 m: nose %.6g N, supports %.6g N at the end; initial stiffness %.6g N/m\n", nose, sup,
         res.spec[0].initial_stiffness);
  ck_assert_msg(nose > 0.0 && fabs(sup / nose - 1.0) <= 0.01, "nose %g N, supports %g N", nose, sup);
  fl_curve_free(&c);
  fl_result_free(&res);
}
END_TEST

/* Nodes (a CSV of position, length, outer radius, hollow ratio, modulus, max_stress):
 * the segments whose centres lie on a node take its section and modulus, each bond
 * side its own body's (E I / (h/2) in bending), and a tension test pulls the series of
 * the segments' sections.  A hollow straw (2 mm, ratio 0.8, 5 GPa) with a solid node
 * 10 mm long (2.2 mm, 8 GPa) in the middle of its gauge. */
START_TEST(test_nodes_take_their_own_section_and_modulus)
{
  char path[32];
  FILE *f = temp_file(path);
  fprintf(f, "position,length,outer_radius,inner_radius_ratio,youngs_modulus,max_stress\n60,10,2.2,0,8e9,3e7\n");
  fclose(f);
  fl_experiment e = fl_experiment_default();
  set(&e, "test.kind=tension");
  set(&e, "bond.failure.criterion=bending_stress"); /* no bending in tension: it stays elastic */
  set(&e, "bond.failure.max_stress=1e7");
  set(&e, "fiber.outer_radius=2e-3");
  set(&e, "fiber.inner_radius_ratio=0.8");
  set(&e, "fiber.youngs_modulus=5e9");
  set(&e, "fiber.nodes=%s", path);
  set(&e, "fiber.table_unit=mm");
  set(&e, "simulation.output_points=100");
  finish(&e);
  fl_system sys;
  fl_build_info info;
  ck_assert_int_eq(fl_build(&e, 1, &sys, &info), FL_OK);
  double L = e.fiber.length_m, h = info.h, nu = 0.3, comp = 0.0;
  int nb = sys.nbody, nodes = 0, first, last;
  innermost_gripped(&sys, &first, &last);
  for (int b = 0; b + 1 < nb; b++)
    for (int side = 0; side < 2; side++) {
      int i = b + side;
      double s = 0.5 * L + (i - 0.5 * (nb - 1)) * h;
      int node = fabs(s - 0.06) <= 0.005;
      double R = node ? 2.2e-3 : 2e-3, Ri = node ? 0.0 : 0.8 * R, E = node ? 8e9 : 5e9;
      double I = FL_PI * (pow(R, 4) - pow(Ri, 4)) / 4.0, A = FL_PI * (R * R - Ri * Ri);
      const fl_side_stiffness *k = side ? &sys.bond[b].s2 : &sys.bond[b].s1;
      ck_assert_double_eq_tol(k->k_bend, E * I / (0.5 * h), 1e-9 * k->k_bend);
      ck_assert_double_eq_tol(k->k_twist, E / (2.0 * (1.0 + nu)) * 2.0 * I / (0.5 * h), 1e-9 * k->k_twist);
      ck_assert_double_eq_tol(sys.mass[i], e.fiber.density * A * h, 1e-9 * sys.mass[i]);
      nodes += node && side == 0;
      if (b >= first && b < last)
        comp += 0.5 * h / (E * A);
    }
  fl_system_free(&sys);
  ck_assert_int_eq(nodes, 2); /* 10 mm of 5 mm segments, centred on a bond */
  /* in a batch whose second specimen has twice the fiber's modulus and max_stress (a calibration's
   * perturbed run), the node keeps its own */
  fl_experiment e2 = e;
  e2.fiber.youngs_modulus *= 2.0;
  e2.fiber.shear_modulus *= 2.0;
  e2.bond.failure.max_stress *= 2.0;
  const fl_experiment *pair[2] = {&e, &e2};
  ck_assert_int_eq(fl_build_many(pair, 2, &sys, &info), FL_OK);
  /* the bending strength of a bond: its weaker side's max_stress times I / R, over the
   * fiber's (on which the limits are taken); both sides on the node: 3 times the solid
   * 2.2 mm section's I / R over the hollow 2 mm one's, against the specimen's own */
  double z0 = (pow(2e-3, 4) - pow(1.6e-3, 4)) / 2e-3, zn = pow(2.2e-3, 3);
  for (int b = 0; b < sys.nbond; b++) {
    double s1 = 0.5 * L + (b - 0.5 * (nb - 1)) * h, k0 = sys.bond[b].s1.k_bend, k1 = sys.bond[sys.nbond + b].s1.k_bend;
    int on = fabs(s1 - 0.06) <= 0.005, both = on && fabs(s1 + h - 0.06) <= 0.005;
    ck_assert_double_eq_tol(k1 / k0, (on ? 1.0 : 2.0), 1e-12);
    ck_assert_double_eq_tol(sys.bstate[b].strength, (both ? 3.0 * zn / z0 : 1.0), 1e-12);
    ck_assert_double_eq_tol(sys.bstate[sys.nbond + b].strength, (both ? 1.5 * zn / z0 : 1.0), 1e-12);
  }
  fl_system_free(&sys);
  double k = run_stiffness(&e, NULL);
  remove(path);
  printf("tension with a node: initial stiffness %.6g N/m, series of the sections %.6g N/m (%+.3f %%)\n", k,
         1.0 / comp, 100.0 * (k * comp - 1.0));
  ck_assert_msg(fabs(k * comp - 1.0) <= 0.01, "stiffness %g, series %g", k, 1.0 / comp);
}
END_TEST

/* A written experiment loads back to the same shape and sections: an arc by its
 * angle with a nodes file in mm, and a polyline (whose length is not written: the
 * polyline's).  File names are written absolute, so the copy finds them anywhere. */
START_TEST(test_shape_keys_write_back)
{
  char nodes[32], poly[32], out[32];
  FILE *f = temp_file(nodes);
  fprintf(f, "position,length,outer_radius,inner_radius_ratio,youngs_modulus,max_stress\n30,4,1.2,0,0,0\n");
  fclose(f);
  f = temp_file(poly);
  fprintf(f, "0,0\n40,2\n80,3\n120,2\n");
  fclose(f);
  for (int c = 0; c < 2; c++) {
    fl_experiment e = specimen(24, c ? 0.0 : 0.12, 1e-3), back = fl_experiment_default();
    set(&e, "fiber.table_unit=mm");
    if (c == 0) {
      set(&e, "fiber.shape=arc");
      set(&e, "fiber.arc_angle=40");
      set(&e, "fiber.nodes=%s", nodes);
    } else {
      set(&e, "fiber.shape=polyline");
      set(&e, "fiber.polyline=%s", poly);
      set(&e, "fiber.outer_radius_end=0.8e-3");
    }
    finish(&e);
    FILE *w = temp_file(out);
    ck_assert_int_eq(fl_experiment_write(w, &e), FL_OK);
    fclose(w);
    char err[1024];
    int rc = fl_experiment_load(out, &back, err, sizeof err);
    if (rc == FL_OK)
      rc = fl_experiment_finish(&back, out, err, sizeof err);
    remove(out);
    ck_assert_msg(rc == FL_OK, "%s", err);
    ck_assert_int_eq(back.fiber.shape, e.fiber.shape);
    ck_assert_int_eq(back.fiber.table_unit, FL_TABLE_MM);
    ck_assert_str_eq(back.fiber.nodes, e.fiber.nodes);
    ck_assert_str_eq(back.fiber.polyline, e.fiber.polyline);
    ck_assert_double_eq_tol(back.fiber.arc_angle_rad, e.fiber.arc_angle_rad, 1e-14);
    ck_assert_double_eq(back.fiber.arc_radius_m, e.fiber.arc_radius_m);
    ck_assert_double_eq(back.fiber.outer_radius_end_m, e.fiber.outer_radius_end_m);
    ck_assert_double_eq(back.fiber.length_m, e.fiber.length_m);
    ck_assert_int_eq(fl_experiment_batchable(&e, &back), 1);
  }
  remove(nodes);
  remove(poly);
}
END_TEST

/* e as fiber-cantilever's static test: clamped over clamp, a small tip load, no
 * gravity; then finish. */
static void as_cantilever(fl_experiment *e, double clamp)
{
  set(e, "test.kind=cantilever");
  set(e, "test.clamp_length=%.17g", clamp);
  set(e, "test.control=load");
  set(e, "test.max_tip_load=1e-3");
  set(e, "test.gravity=0");
  set(e, "simulation.solver=static");
  set(e, "simulation.output_points=21");
  finish(e);
}

/* fiber-cantilever's run on a tapered fiber: a solid fiber 100 mm long, 1 mm to 0.5 mm
 * in radius, 48 segments, clamped over 4 of them (bodies 0-3 held, and the clamped half
 * of the bond at the face), a small tip load at the fiber's free end (the far end of
 * the last body).  The chain bends from the clamp's face x0 = 4 h, so by the unit-load
 * method the tip compliance is int_{x0}^{L} (L - x)^2 / (E I(x)) dx + int_{x0}^{L} dx / (G A(x)), as in the
 * library-level test above, now through the program's own clamp, load and solver. */
START_TEST(test_fiber_cantilever_on_a_taper)
{
  int n = 48;
  double L = 0.1, R0 = 1e-3, R1 = 0.5e-3, h = L / n;
  fl_experiment e = specimen(n, L, R0);
  set(&e, "fiber.outer_radius_end=%.17g", R1);
  as_cantilever(&e, 4 * h);
  double k = run_stiffness(&e, NULL);
  double want = taper_compliance(R0, R1, L, 4.0 * h, L, e.fiber.youngs_modulus, e.fiber.shear_modulus);
  printf("fiber-cantilever on a taper, n = %d: tip stiffness %.6g N/m, integral %.6g N/m (%+.3f %%)\n", n, k,
         1.0 / want, 100.0 * (k * want - 1.0));
  ck_assert_msg(fabs(k * want - 1.0) <= 0.01, "stiffness %g N/m, integral %g N/m", k, 1.0 / want);
}
END_TEST

/* fiber-cantilever's run on a quarter circle: radius rho = 0.1 m from the clamp's face
 * (the bond after body 3 of 48, at arc length 4 h) to the free end, so the fiber
 * subtends 90 deg (1 - 4/48)^-1; the program's tip load acts along -y at the free
 * end.  Castigliano's compliance of the test above, C in the clamp's basis (e_o,
 * e_t), along d = (0, -1): d_o^2 C_oo + 2 d_o d_t C_ot + d_t^2 C_tt. */
START_TEST(test_fiber_cantilever_on_a_quarter_circle)
{
  int n = 48;
  double rho = 0.1, r = 1e-3, L = 0.5 * FL_PI * rho / (1.0 - 4.0 / n), h = L / n;
  fl_experiment e = specimen(n, L, r);
  set(&e, "fiber.shape=arc");
  set(&e, "fiber.arc_radius=%.17g", rho);
  as_cantilever(&e, 4 * h);
  double k = run_stiffness(&e, NULL);
  double E = e.fiber.youngs_modulus, G = e.fiber.shear_modulus, A = FL_PI * r * r, I = FL_PI * pow(r, 4) / 4.0;
  double Coo, Ctt, Cot;
  castigliano_quarter(rho, E, G, A, I, &Coo, &Ctt, &Cot);
  /* the clamp at arc length 4 h: angle a from the crown, the centre at (0, -rho cos(phi/2)) */
  double a = (4.0 * h - 0.5 * L) / rho;
  fl_vec3 eo = fl_v3(sin(a), cos(a), 0.0), et = fl_v3(cos(a), -sin(a), 0.0), d = fl_v3(0.0, -1.0, 0.0);
  double dO = fl_dot(d, eo), dT = fl_dot(d, et);
  double want = dO * dO * Coo + 2.0 * dO * dT * Cot + dT * dT * Ctt;
  printf("fiber-cantilever on a quarter circle, n = %d: tip stiffness %.7g N/m, Castigliano %.7g N/m (%+.4f %%)\n",
         n, k, 1.0 / want, 100.0 * (k * want - 1.0));
  ck_assert_msg(fabs(k * want - 1.0) <= 0.01, "stiffness %g N/m, Castigliano %g N/m", k, 1.0 / want);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("shape");
  TCase *tc = tcase_create("shape");
  fl_limits_set(tc, "shape", 400);
  tcase_add_test(tc, test_arc_at_rest_carries_no_load);
  tcase_add_test(tc, test_polyline_at_rest_carries_no_load);
  tcase_add_test(tc, test_bend3pt_tools_touch_a_curved_specimen);
  tcase_add_test(tc, test_quarter_circle_cantilever_against_castigliano);
  tcase_add_test(tc, test_tapered_cantilever_against_the_integral);
  tcase_add_test(tc, test_tension_and_torsion_of_a_taper_are_the_series_of_its_sections);
  tcase_add_test(tc, test_tension_and_torsion_of_an_arc);
  tcase_add_test(tc, test_nodes_take_their_own_section_and_modulus);
  tcase_add_test(tc, test_bend3pt_places_tools_on_an_arc);
  tcase_add_test(tc, test_shape_keys_write_back);
  tcase_add_test(tc, test_fiber_cantilever_on_a_taper);
  tcase_add_test(tc, test_fiber_cantilever_on_a_quarter_circle);
  tcase_add_test(tc, test_bend3pt_of_a_section_table_against_the_unit_load_integral);
  suite_add_tcase(s, tc);
  return fl_check_run(s);
}
