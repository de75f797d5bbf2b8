/* experiment_checks.c: the checks across keys once an experiment is complete (file and
 * every -s: fl_experiment_finish), those of every test by concern, then those of its
 * test kind (its table's, test_kind.h); and the warnings about a valid experiment
 * (fl_experiment_warnings). */
#include <config.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "experiment.h"
#include "experiment_keys.h"
#include "fl_defs.h"
#include "shape.h"
#include "test_kind.h"

/* An experiment being finished, and where its messages go (experiment_keys.h). */
typedef fl_exp_checker checker;

/* A failed check, at the place key was given. */
static int fail_key(const checker *c, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_key(const checker *c, const char *key, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = fl_exp_check_vfail(c, key, fmt, ap);
  va_end(ap);
  return rc;
}

static int given(const checker *c, const char *key) { return fl_exp_key_given(c->exp, key); }

/* ---- the checks of every test ---------------------------------------------- */

/* The section keys: circle or ellipse, each with its own keys; an ellipse becomes the
 * round hollow section of the same I_z and area (fiberlab-model(7), Sections). */
static int finish_section(const checker *c)
{
  static const char *const circle_keys[] = {"fiber.outer_radius", "fiber.inner_radius_ratio", NULL};
  static const char *const ellipse_keys[] = {"fiber.semi_axis_y", "fiber.semi_axis_z", "fiber.inner_semi_axis_y",
                                             "fiber.inner_semi_axis_z", NULL};
  fl_fiber_def *fb = &c->exp->fiber;
  int ell = fb->section == FL_SECTION_ELLIPSE;
  const char *const *wrong = ell ? circle_keys : ellipse_keys;
  for (int i = 0; wrong[i]; i++)
    if (given(c, wrong[i]))
      return fail_key(c, wrong[i], "%s: given with section %s; allowed: %s", wrong[i], ell ? "ellipse" : "circle",
                      ell ? "semi_axis_y, semi_axis_z and the optional inner_semi_axis_y, inner_semi_axis_z for an "
                            "ellipse"
                          : "outer_radius and inner_radius_ratio for a circle, or section: ellipse");
  if (!ell)
    return FL_OK;
  for (int i = 0; i < 2; i++)
    if (!given(c, ellipse_keys[i]))
      return fail_key(c, "fiber.section", "%s: missing, and section 'ellipse' needs it; allowed: a number in (0, 1] m",
                      ellipse_keys[i]);
  int gy = given(c, ellipse_keys[2]), gz = given(c, ellipse_keys[3]);
  if (gy != gz)
    return fail_key(c, ellipse_keys[gy ? 2 : 3], "%s: missing, and %s is given; allowed: both inner semi-axes or neither",
                    ellipse_keys[gy ? 3 : 2], ellipse_keys[gy ? 2 : 3] + 6);
  double a = fb->semi_axis_y_m, b = fb->semi_axis_z_m, ai = gy ? fb->inner_semi_axis_y_m : 0.0,
         bi = gz ? fb->inner_semi_axis_z_m : 0.0;
  if (!gy)
    fb->inner_semi_axis_y_m = fb->inner_semi_axis_z_m = 0.0;
  if (gy && !(ai < a))
    return fail_key(c, ellipse_keys[2], "fiber.inner_semi_axis_y: %g m is not below semi_axis_y %g m; allowed: inner "
                    "semi-axes below the outer ones", ai, a);
  if (gz && !(bi < b))
    return fail_key(c, ellipse_keys[3], "fiber.inner_semi_axis_z: %g m is not below semi_axis_z %g m; allowed: inner "
                    "semi-axes below the outer ones", bi, b);
  /* I_z = pi/4 (a^3 b - a'^3 b'), A = pi (a b - a' b'); the round hollow section with
   * both: R^2 + R'^2 = 4 I / A, R^2 - R'^2 = A / pi.  When R'^2 would be negative (a
   * solid-like ellipse flatter in the loading plane, a < b), the solid round section of
   * the same I_z (fl_experiment_warnings says by how much its area differs). */
  double I = FL_PI / 4.0 * (a * a * a * b - ai * ai * ai * bi), A = FL_PI * (a * b - ai * bi);
  double s = 4.0 * I / A, d = A / FL_PI, R2 = 0.5 * (s + d), Ri2 = 0.5 * (s - d);
  if (Ri2 < 0.0) {
    R2 = sqrt(4.0 * I / FL_PI);
    Ri2 = 0.0;
  }
  fb->outer_radius_m = sqrt(R2);
  fb->inner_radius_ratio = sqrt(Ri2) / fb->outer_radius_m;
  return FL_OK;
}

/* One of shear_modulus and poisson_ratio; G from the other when not given. */
static int finish_elastic(const checker *c)
{
  fl_fiber_def *fb = &c->exp->fiber;
  if (fb->shear_given && fb->poisson_given)
    return fail_key(c, "fiber.poisson_ratio", "fiber.poisson_ratio: given with fiber.shear_modulus; allowed: one of "
                    "the two");
  if (!fb->shear_given)
    fb->shear_modulus = fb->youngs_modulus / (2.0 * (1.0 + fb->poisson_ratio));
  return FL_OK;
}

/* The failure criterion with a post-failure behaviour that goes with it, and the
 * strength it needs. */
static int finish_failure(const checker *c)
{
  const fl_failure_def *fd = &c->exp->bond.failure;
  const char *const *crit = fl_exp_criterion_names, *const *post = fl_exp_post_names;
  /* Which post-failure behaviour goes with which criterion (fiberlab-model(7), Beyond
   * the limit): bit c of allowed_mask[p] is set when criterion c allows post_failure p. */
  static const unsigned allowed_mask[] = {
      0x3e, (1u << FL_CRIT_BENDING_STRESS) | (1u << FL_CRIT_BENDING_ANGLE), 1u << FL_CRIT_FORCE_STRESS,
      (1u << FL_CRIT_AXIAL_STRESS) | (1u << FL_CRIT_VON_MISES)};
  if (fd->criterion != FL_CRIT_NONE && !(allowed_mask[fd->post_failure] & (1u << fd->criterion))) {
    char allowed[160] = "";
    for (int pf = 0; post[pf]; pf++)
      if (allowed_mask[pf] & (1u << fd->criterion)) {
        size_t n = strlen(allowed);
        snprintf(allowed + n, sizeof allowed - n, "%s%s", n ? " | " : "", post[pf]);
      }
    return fail_key(c, "bond.failure.post_failure", "bond.failure.post_failure: '%s' does not go with criterion '%s'; "
                    "allowed with %s: %s", post[fd->post_failure], crit[fd->criterion], crit[fd->criterion], allowed);
  }
  if (fd->criterion != FL_CRIT_NONE && fd->criterion != FL_CRIT_BENDING_ANGLE && !fd->max_stress_given)
    return fail_key(c, "bond.failure.criterion",
                    "bond.failure.max_stress: missing, and criterion '%s' needs it; allowed: a number in (0, 1e+13] Pa",
                    crit[fd->criterion]);
  return FL_OK;
}

/* A buckling envelope with its four numbers, min_force not above max_force. */
static int finish_buckling(const checker *c)
{
  const fl_buckling_def *bk = &c->exp->bond.buckling;
  if (bk->type == FL_BUCKLING_NONE)
    return FL_OK;
  static const char *const need[] = {"bond.buckling.sample_length", "bond.buckling.max_force",
                                     "bond.buckling.min_force", "bond.buckling.displacement_at_min_force"};
  for (int i = 0; i < 4; i++)
    if (!(bk->given & (1u << i)))
      return fail_key(c, "bond.buckling.type", "%s: missing, and buckling type '%s' needs it; allowed: a number in %s",
                      need[i], fl_exp_buckling_names[bk->type],
                      i == 2 ? "[0, 1e+12] N" : i == 1 ? "(0, 1e+12] N" : "(0, 1000] m");
  if (bk->min_force > bk->max_force)
    return fail_key(c, "bond.buckling.min_force", "bond.buckling.min_force: %g N is above max_force %g N; allowed: "
                    "[0, max_force]", bk->min_force, bk->max_force);
  return FL_OK;
}

/* The shape and section keys (fiberlab-experiment(5), SHAPE AND SECTIONS): each with its
 * shape, one arc size, one way of varying the section, what the tests serve. */
static int shape_keys(const checker *c)
{
  fl_experiment *exp = c->exp;
  fl_fiber_def *fb = &exp->fiber;
  const char *shape = fl_exp_shape_names[fb->shape];
  int arc = fb->shape == FL_SHAPE_ARC, poly = fb->shape == FL_SHAPE_POLYLINE;
  static const char *const arc_keys[] = {"fiber.arc_radius", "fiber.arc_angle"};
  for (int i = 0; i < 2; i++)
    if (!arc && given(c, arc_keys[i]))
      return fail_key(c, arc_keys[i], "%s: given with shape %s; allowed: arc_radius or arc_angle with shape: arc",
                      arc_keys[i], shape);
  if (arc && given(c, arc_keys[0]) == given(c, arc_keys[1]))
    return fail_key(c, given(c, arc_keys[1]) ? arc_keys[1] : "fiber.shape", "fiber.shape: arc needs %s; allowed: one "
                    "of arc_radius (m) and arc_angle (deg)",
                    given(c, arc_keys[1]) ? "one size, and both are given" : "its size");
  if (arc && !given(c, arc_keys[0]))
    fb->arc_radius_m = 0.0;
  if (arc && !given(c, arc_keys[1]))
    fb->arc_angle_rad = 0.0;
  if (poly && !fb->polyline[0])
    return fail_key(c, "fiber.shape", "fiber.polyline: missing, and shape polyline needs it; allowed: a CSV file of "
                    "x, y points of the centreline");
  if (!poly && fb->polyline[0])
    return fail_key(c, "fiber.polyline", "fiber.polyline: given with shape %s; allowed: a polyline with shape: "
                    "polyline", shape);
  if (poly && given(c, "fiber.length"))
    return fail_key(c, "fiber.length", "fiber.length: given with shape polyline; allowed: no length (the polyline's "
                    "arc length is the fiber's)");
  int nvary = (fb->outer_radius_end_m > 0.0) + (fb->section_table[0] != '\0');
  if (nvary > 1)
    return fail_key(c, "fiber.section_table", "fiber.section_table: given with outer_radius_end; allowed: one of a "
                    "taper (outer_radius_end) and a section table");
  int varies = nvary || fb->nodes[0];
  static const char *const vary_keys[] = {"fiber.outer_radius_end", "fiber.section_table", "fiber.nodes"};
  const char *vkey = fb->outer_radius_end_m > 0.0 ? vary_keys[0] : fb->section_table[0] ? vary_keys[1] : vary_keys[2];
  if (varies && fb->section == FL_SECTION_ELLIPSE)
    return fail_key(c, vkey, "%s: given with section ellipse; allowed: a varying section of round sections (section: "
                    "circle)", vkey);
  const fl_failure_def *fd = &exp->bond.failure;
  if (varies && fd->criterion != FL_CRIT_NONE && fd->criterion != FL_CRIT_BENDING_STRESS &&
      fd->criterion != FL_CRIT_BENDING_ANGLE)
    return fail_key(c, "bond.failure.criterion", "bond.failure.criterion: '%s' with a section varying along the fiber "
                    "(%s); allowed with a varying section: none | bending_stress | bending_angle",
                    fl_exp_criterion_names[fd->criterion], vkey);
  if (varies && exp->bond.buckling.type != FL_BUCKLING_NONE)
    return fail_key(c, "bond.buckling.type", "bond.buckling.type: '%s' with a section varying along the fiber (%s); "
                    "allowed with a varying section: none", fl_exp_buckling_names[exp->bond.buckling.type], vkey);
  const fl_test_type *type = fl_test_type_of(exp->test.kind);
  const char *in = type->name, *why = type->straight_only(&exp->test, &in);
  if (fb->shape != FL_SHAPE_STRAIGHT && why)
    return fail_key(c, "fiber.shape", "fiber.shape: '%s' in a %s test; allowed in %s: straight (%s; a curved fiber "
                    "goes in bend3pt, tension, torsion or a static cantilever)", shape, type->name, in, why);
  return FL_OK;
}

/* The shape's keys, then the files read and the shape built once, so that a bad file
 * stops the program before it writes anything.  A polyline sets the fiber's length. */
static int finish_shape(const checker *c)
{
  fl_fiber_def *fb = &c->exp->fiber;
  const fl_failure_def *fd = &c->exp->bond.failure;
  int arc = fb->shape == FL_SHAPE_ARC, poly = fb->shape == FL_SHAPE_POLYLINE;
  int rc = shape_keys(c);
  if (rc || !fl_shape_nontrivial(fb))
    return rc;
  if (poly && (rc = fl_shape_polyline_length(fb, &fb->length_m, c->err, c->errlen)) != FL_OK)
    return rc;
  if (arc && fb->arc_radius_m > 0.0 && fb->length_m / fb->arc_radius_m >= 2.0 * FL_PI)
    return fail_key(c, "fiber.arc_radius", "fiber.arc_radius: %g m closes a fiber of length %g m on itself (%.4g deg); "
                    "allowed: a radius above length / (2 pi) = %g m", fb->arc_radius_m, fb->length_m,
                    fb->length_m / fb->arc_radius_m / DEG, fb->length_m / (2.0 * FL_PI));
  fl_shape sh;
  double ms = fd->criterion == FL_CRIT_BENDING_STRESS ? fd->max_stress : 0.0;
  rc = fl_shape_make(fb, fb->segments, fb->length_m / fb->segments, ms, &sh, c->err, c->errlen);
  if (rc == FL_EINPUT && arc) { /* the arc's message names its key */
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", c->err);
    return fail_key(c, given(c, "fiber.arc_radius") ? "fiber.arc_radius" : "fiber.arc_angle", "%s", msg);
  }
  if (rc)
    return rc;
  const fl_test_type *type = fl_test_type_of(c->exp->test.kind);
  rc = type->check_shape ? type->check_shape(c, &sh) : FL_OK;
  fl_shape_free(&sh);
  return rc;
}

/* The turning points of a cyclic path end at the path's end, none beyond it. */
static int finish_cycles(const checker *c)
{
  const fl_test_def *t = &c->exp->test;
  if (t->ncycles == 0)
    return FL_OK;
  const fl_test_type *type = fl_test_type_of(t->kind);
  double unit = type->angular ? DEG : 1.0;
  const char *maxkey = type->target_key(t);
  double target = type->target(t), last = t->cycles[t->ncycles - 1];
  if (fabs(last - target) > 1e-9 * target)
    return fail_key(c, "test.cycles", "test.cycles: the last turning point %g is not %s %g; allowed: a list ending at "
                    "the maximum", last / unit, maxkey + 5, target / unit);
  for (int i = 0; i < t->ncycles; i++)
    if (t->cycles[i] > target * (1.0 + 1e-9))
      return fail_key(c, "test.cycles", "test.cycles: turning point %d (%g) exceeds %s %g; allowed: values up to the "
                      "maximum", i + 1, t->cycles[i] / unit, maxkey + 5, target / unit);
  return FL_OK;
}

/* A viscoelastic static run: the bonds' Maxwell damping at the lab's own speed, on the
 * static solver (the explicit engine would step through minutes of a slow test). */
static int finish_viscoelastic(const checker *c)
{
  const fl_experiment *e = c->exp;
  if (!e->sim.viscoelastic)
    return FL_OK;
  const char *speed = e->test.kind == FL_TEST_TORSION ? "test.angular_speed" : "test.speed";
  if (e->sim.solver != FL_SOLVER_STATIC)
    return fail_key(c, "simulation.viscoelastic",
                    "simulation.viscoelastic: true needs simulation.solver: static (the explicit engine always "
                    "damps, at its own step); allowed: solver static, or viscoelastic false");
  if (!(e->bond.damping > 0.0))
    return fail_key(c, "simulation.viscoelastic",
                    "simulation.viscoelastic: true needs bond.damping above 0 (the dashpots' a_damp, s); allowed: "
                    "a number in (0, 1000] s");
  if (!(e->test.speed > 0.0))
    return fail_key(c, "simulation.viscoelastic",
                    "simulation.viscoelastic: true needs %s, the speed the lab ran the test at; allowed: a number, "
                    "not auto", speed);
  return FL_OK;
}

int fl_experiment_finish(fl_experiment *exp, const char *path, char *err, size_t errlen)
{
  checker c = {exp, path, err, errlen};
  int rc;
  if ((rc = finish_section(&c)) || (rc = finish_elastic(&c)) || (rc = finish_failure(&c)) ||
      (rc = finish_buckling(&c)) || (rc = finish_shape(&c)) || (rc = finish_viscoelastic(&c)))
    return rc;
  const fl_test_type *type = fl_test_type_of(exp->test.kind);
  if (type->settle && (rc = type->settle(&c)))
    return rc;
  if ((rc = finish_cycles(&c)))
    return rc;
  return type->check ? type->check(&c) : FL_OK;
}

/* ---- warnings ------------------------------------------------------------------ */

/* Warnings gathered one a line into buf (experiment_keys.h). */
typedef fl_exp_warner warner;

/* One warning about key, at the place it was given, while buf has room. */
static void warn(warner *w, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn(warner *w, const char *key, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fl_exp_vwarn(w, key, fmt, ap);
  va_end(ap);
}

/* The values whose magnitude suggests a unit mistake (the experiment's units are SI). */
int fl_experiment_unit_warnings(const fl_experiment *exp, const char *path, char *buf, size_t len, int n)
{
  warner w = {exp, path, buf, len, 0, n};
  buf[0] = '\0';
  static const struct {
    const char *path; /* the key */
    double limit;     /* warn above it (below it when low) */
    int low;          /* 1: a value below limit is suspect */
    const char *unit, *looks; /* SI unit, the unit the value looks like */
    double factor;    /* SI value of one of those */
  } hints[] = {
      {"fiber.youngs_modulus", 1e6, 1, "Pa", "MPa", 1e6},
      {"fiber.shear_modulus", 1e5, 1, "Pa", "MPa", 1e6},
      {"fiber.length", 2.0, 0, "m", "mm", 1e-3},
      {"fiber.outer_radius", 0.1, 0, "m", "mm", 1e-3},
      {"test.span", 2.0, 0, "m", "mm", 1e-3},
      {"test.gauge_length", 2.0, 0, "m", "mm", 1e-3},
  };
  for (size_t h = 0; h < sizeof hints / sizeof hints[0] && w.used < len; h++) {
    const key_def *k = fl_exp_key_find(hints[h].path);
    double v;
    if (!k || !exp->key_line[fl_exp_key_index(k)] || fl_experiment_get(exp, hints[h].path, &v) != FL_OK)
      continue; /* only values the file gives */
    if (hints[h].low ? !(v < hints[h].limit) : !(v > hints[h].limit))
      continue;
    warn(&w, hints[h].path, "%s %g %s is %s %g %s: looks like %s (%g %s = %g %s); the experiment's unit is %s",
         hints[h].path, v, hints[h].unit, hints[h].low ? "below" : "above", hints[h].limit, hints[h].unit,
         hints[h].looks, v, hints[h].looks, v * hints[h].factor, hints[h].unit, hints[h].unit);
  }
  return w.n - n;
}

/* Buckling numbers that no envelope uses. */
static void warn_buckling_unused(warner *w)
{
  const fl_buckling_def *bk = &w->exp->bond.buckling;
  if (bk->type == FL_BUCKLING_NONE && bk->values_given)
    warn(w, "bond.buckling.type", "bond.buckling: type is none, so the buckling numbers given are ignored");
}

/* An ellipse simulated as a round section of another area. */
static void warn_ellipse_area(warner *w)
{
  const fl_fiber_def *fs = &w->exp->fiber;
  if (fs->section != FL_SECTION_ELLIPSE)
    return;
  double a = fs->semi_axis_y_m, b = fs->semi_axis_z_m, ai = fs->inner_semi_axis_y_m, bi = fs->inner_semi_axis_z_m;
  double A = FL_PI * (a * b - ai * bi), R = fs->outer_radius_m, Ri = fs->inner_radius_ratio * R;
  double Aeq = FL_PI * (R * R - Ri * Ri);
  if (fabs(Aeq / A - 1.0) > 1e-9)
    warn(w, "fiber.section", "fiber.section: the ellipse has less I_z than a round section of its area (semi_axis_y "
         "below semi_axis_z): it is simulated as the solid round section of its I_z, whose area (mass, axial "
         "stiffness) is %.3g %% %s", 100.0 * fabs(Aeq / A - 1.0), Aeq < A ? "smaller" : "larger");
}

int fl_experiment_warnings(const fl_experiment *exp, const char *path, char *buf, size_t len)
{
  warner w = {exp, path, buf, len, 0, 0};
  buf[0] = '\0';
  warn_buckling_unused(&w);
  const fl_test_type *type = fl_test_type_of(exp->test.kind);
  if (type->warn)
    type->warn(&w);
  warn_ellipse_area(&w);
  if (w.used < len) {
    w.n += fl_experiment_unit_warnings(exp, path, buf + w.used, len - w.used, w.n);
    w.used += strlen(buf + w.used);
  }
  if (type->warn_fiber)
    type->warn_fiber(&w);
  return w.n;
}
