/* experiment_keys.c: the table of an experiment's keys (type, unit, range, the test kinds
 * each belongs to) with the defaults, the lookups by dotted path, and the record of where
 * each key was given (fiberlab-experiment(5)). */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "experiment.h"
#include "experiment_keys.h"
#include "fl_defs.h"

const char *const fl_exp_kind_names[] = {"bend3pt", "tension", "torsion", "cantilever", "bend4pt", "compression", NULL};
static const char *const tip_control_names[] = {"displacement", "load", NULL};
static const char *const mode_names[] = {"static", "vibration", NULL};
const char *const fl_exp_criterion_names[] = {"none", "bending_stress", "bending_angle", "axial_stress",
                                              "force_stress", "von_mises", NULL};
const char *const fl_exp_post_names[] = {"total_breakage", "constant_torque", "constant_force",
                                         "combined_plasticity", NULL};
const char *const fl_exp_buckling_names[] = {"none", "reversible", "damage", "plastic", NULL};
static const char *const rollers_names[] = {"fixed", "rotating", NULL};
static const char *const contact_names[] = {"hertz", "linear", "rigid", NULL};
static const char *const section_names[] = {"circle", "ellipse", NULL};
static const char *const solver_names[] = {"auto", "explicit", "static", NULL};
const char *const fl_exp_shape_names[] = {"straight", "arc", "polyline", NULL};
static const char *const table_unit_names[] = {"m", "mm", "um", NULL};

#define OFF(f) offsetof(fl_experiment, f)
const key_def fl_exp_keys[] = {
    {"fiber", KT_SECTION, 0, 0, 0, 0, 0, NULL, NULL, 0, -1},
    {"fiber.length", KT_REAL, OFF(fiber.length_m), 0, 1e3, 1, 0, "m", NULL, 0, -1},
    {"fiber.outer_radius", KT_REAL, OFF(fiber.outer_radius_m), 0, 1, 1, 0, "m", NULL, 0, -1},
    {"fiber.inner_radius_ratio", KT_REAL, OFF(fiber.inner_radius_ratio), 0, 1, 0, 1, "", NULL, 0, -1},
    {"fiber.section", KT_ENUM, OFF(fiber.section), 0, 0, 0, 0, "", section_names, 0, -1},
    {"fiber.semi_axis_y", KT_REAL, OFF(fiber.semi_axis_y_m), 0, 1, 1, 0, "m", NULL, 0, -1},
    {"fiber.semi_axis_z", KT_REAL, OFF(fiber.semi_axis_z_m), 0, 1, 1, 0, "m", NULL, 0, -1},
    {"fiber.inner_semi_axis_y", KT_REAL, OFF(fiber.inner_semi_axis_y_m), 0, 1, 1, 0, "m", NULL, 0, -1},
    {"fiber.inner_semi_axis_z", KT_REAL, OFF(fiber.inner_semi_axis_z_m), 0, 1, 1, 0, "m", NULL, 0, -1},
    {"fiber.segments", KT_INT, OFF(fiber.segments), 2, 1000000, 0, 0, "", NULL, 0, -1},
    {"fiber.density", KT_REAL, OFF(fiber.density), 0, 1e5, 1, 0, "kg/m^3", NULL, 0, -1},
    {"fiber.youngs_modulus", KT_REAL, OFF(fiber.youngs_modulus), 0, 1e13, 1, 0, "Pa", NULL, 0, -1},
    {"fiber.shear_modulus", KT_REAL, OFF(fiber.shear_modulus), 0, 1e13, 1, 0, "Pa", NULL, 0, OFF(fiber.shear_given)},
    {"fiber.poisson_ratio", KT_REAL, OFF(fiber.poisson_ratio), -1, 0.5, 1, 0, "", NULL, 0, OFF(fiber.poisson_given)},
    {"fiber.shape", KT_ENUM, OFF(fiber.shape), 0, 0, 0, 0, "", fl_exp_shape_names, 0, -1},
    {"fiber.arc_radius", KT_REAL, OFF(fiber.arc_radius_m), 0, 1e3, 1, 0, "m", NULL, 0, -1},
    {"fiber.arc_angle", KT_DEG, OFF(fiber.arc_angle_rad), 0, 360, 1, 1, "deg", NULL, 0, -1},
    {"fiber.polyline", KT_FILE, OFF(fiber.polyline), 0, 0, 0, 0, "", NULL, 0, -1},
    {"fiber.outer_radius_end", KT_REAL, OFF(fiber.outer_radius_end_m), 0, 1, 1, 0, "m", NULL, 0, -1},
    {"fiber.section_table", KT_FILE, OFF(fiber.section_table), 0, 0, 0, 0, "", NULL, 0, -1},
    {"fiber.nodes", KT_FILE, OFF(fiber.nodes), 0, 0, 0, 0, "", NULL, 0, -1},
    {"fiber.table_unit", KT_ENUM, OFF(fiber.table_unit), 0, 0, 0, 0, "", table_unit_names, 0, -1},
    {"bond", KT_SECTION, 0, 0, 0, 0, 0, NULL, NULL, 0, -1},
    {"bond.force_stiffness_scale", KT_REAL, OFF(bond.force_stiffness_scale), 0, 1e6, 0, 0, "", NULL, 0, -1},
    {"bond.torque_stiffness_scale", KT_REAL, OFF(bond.torque_stiffness_scale), 0, 1e6, 0, 0, "", NULL, 0, -1},
    {"bond.damping", KT_REAL, OFF(bond.damping), 0, 1e3, 0, 0, "s", NULL, 0, -1},
    {"bond.damping_stabilization", KT_REAL, OFF(bond.damping_stabilization), 0, 1e6, 0, 0, "", NULL, 0, -1},
    {"bond.failure", KT_SECTION, 0, 0, 0, 0, 0, NULL, NULL, 0, -1},
    {"bond.failure.criterion", KT_ENUM, OFF(bond.failure.criterion), 0, 0, 0, 0, "", fl_exp_criterion_names, 0, -1},
    {"bond.failure.max_stress", KT_REAL, OFF(bond.failure.max_stress), 0, 1e13, 1, 0, "Pa", NULL, 0, OFF(bond.failure.max_stress_given)},
    {"bond.failure.max_bending_angle", KT_DEG, OFF(bond.failure.max_bending_angle), 0, 180, 0, 1, "deg", NULL, 0, -1},
    {"bond.failure.ignore_compression", KT_BOOL, OFF(bond.failure.ignore_compression), 0, 0, 0, 0, "", NULL, 0, -1},
    {"bond.failure.strength_variation", KT_REAL, OFF(bond.failure.strength_variation), 0, 10, 0, 0, "", NULL, 0, -1},
    {"bond.failure.post_failure", KT_ENUM, OFF(bond.failure.post_failure), 0, 0, 0, 0, "", fl_exp_post_names, 0, -1},
    {"bond.buckling", KT_SECTION, 0, 0, 0, 0, 0, NULL, NULL, 0, -1},
    {"bond.buckling.type", KT_ENUM, OFF(bond.buckling.type), 0, 0, 0, 0, "", fl_exp_buckling_names, 0, -1},
    {"bond.buckling.sample_length", KT_REAL, OFF(bond.buckling.sample_length), 0, 1e3, 1, 0, "m", NULL, 0, OFF(bond.buckling.values_given)},
    {"bond.buckling.max_force", KT_REAL, OFF(bond.buckling.max_force), 0, 1e12, 1, 0, "N", NULL, 0, OFF(bond.buckling.values_given)},
    {"bond.buckling.min_force", KT_REAL, OFF(bond.buckling.min_force), 0, 1e12, 0, 0, "N", NULL, 0, OFF(bond.buckling.values_given)},
    {"bond.buckling.displacement_at_min_force", KT_REAL, OFF(bond.buckling.displacement_at_min_force), 0, 1e3, 1, 0, "m", NULL, 0, OFF(bond.buckling.values_given)},
    {"bond.buckling.slope_after_min_force", KT_REAL, OFF(bond.buckling.slope_after_min_force), -1e15, 1e15, 0, 0, "N/m", NULL, 0, OFF(bond.buckling.values_given)},
    {"test", KT_SECTION, 0, 0, 0, 0, 0, NULL, NULL, 0, OFF(test_given)},
    {"test.kind", KT_ENUM, OFF(test.kind), 0, 0, 0, 0, "", fl_exp_kind_names, K_ALL, -1},
    {"test.span", KT_REAL, OFF(test.span_m), 0, 1e3, 1, 0, "m", NULL, K_BEND | K_B4, -1},
    {"test.loading_span", KT_REAL, OFF(test.loading_span_m), 0, 1e3, 1, 0, "m", NULL, K_B4, -1},
    {"test.support_radius", KT_REAL, OFF(test.support_radius_m), 0, 10, 1, 0, "m", NULL, K_BEND | K_B4, -1},
    {"test.nose_radius", KT_REAL, OFF(test.nose_radius_m), 0, 10, 1, 0, "m", NULL, K_BEND | K_B4, -1},
    {"test.tool_youngs_modulus", KT_REAL, OFF(test.tool_youngs_modulus), 0, 1e13, 1, 0, "Pa", NULL, K_BEND | K_B4, -1},
    {"test.contact_modulus", KT_REAL, OFF(test.contact_modulus), 0, 1e13, 1, 0, "Pa", NULL, K_BEND | K_B4, -1},
    {"test.tool_poisson_ratio", KT_REAL, OFF(test.tool_poisson_ratio), -1, 0.5, 1, 0, "", NULL, K_BEND | K_B4, -1},
    {"test.friction", KT_REAL, OFF(test.friction), 0, 10, 0, 0, "", NULL, K_BEND | K_B4, -1},
    {"test.rollers", KT_ENUM, OFF(test.rollers), 0, 0, 0, 0, "", rollers_names, K_BEND | K_B4, -1},
    {"test.restitution", KT_REAL, OFF(test.restitution), 0, 1, 1, 0, "", NULL, K_BEND | K_B4, -1},
    {"test.contact", KT_ENUM, OFF(test.contact), 0, 0, 0, 0, "", contact_names, K_BEND | K_B4, -1},
    {"test.contact_stiffness", KT_REAL, OFF(test.contact_stiffness), 0, 1e15, 1, 0, "N/m", NULL, K_BEND | K_B4, -1},
    {"test.gravity", KT_REAL, OFF(test.gravity), 0, 1000, 0, 0, "m/s^2", NULL, K_BEND | K_B4 | K_CANT, OFF(test.gravity_given)},
    {"test.speed", KT_REAL_AUTO, OFF(test.speed), 0, 1e3, 1, 0, "m/s", NULL, K_BEND | K_B4 | K_TENS | K_COMP, -1},
    {"test.max_displacement", KT_REAL, OFF(test.max_displacement_m), 0, 10, 1, 0, "m", NULL, K_BEND | K_B4, -1},
    {"test.gauge_length", KT_REAL, OFF(test.gauge_length_m), 0, 1e3, 1, 0, "m", NULL, K_TENS | K_TORS, -1},
    {"test.grip_length", KT_REAL, OFF(test.grip_length_m), 0, 1e3, 1, 0, "m", NULL, K_TENS | K_TORS, -1},
    {"test.max_elongation", KT_REAL, OFF(test.max_elongation_m), 0, 1e3, 1, 0, "m", NULL, K_TENS, -1},
    {"test.angular_speed", KT_REAL_AUTO, OFF(test.speed), 0, 1e6, 1, 0, "rad/s", NULL, K_TORS, -1},
    {"test.max_twist", KT_DEG, OFF(test.max_twist_rad), 0, 36000, 1, 0, "deg", NULL, K_TORS, -1},
    {"test.max_shortening", KT_REAL, OFF(test.max_shortening_m), 0, 1e3, 1, 0, "m", NULL, K_COMP, -1},
    {"test.imperfection", KT_REAL, OFF(test.imperfection), 0, 0.1, 0, 0, "", NULL, K_COMP, -1},
    {"test.clamp_length", KT_REAL, OFF(test.clamp_length_m), 0, 1e3, 1, 0, "m", NULL, K_CANT, -1},
    {"test.control", KT_ENUM, OFF(test.tip_control), 0, 0, 0, 0, "", tip_control_names, K_CANT, -1},
    {"test.max_tip_displacement", KT_REAL, OFF(test.max_tip_displacement_m), 0, 1e3, 1, 0, "m", NULL, K_CANT, -1},
    {"test.max_tip_load", KT_REAL, OFF(test.max_tip_load_n), 0, 1e9, 1, 0, "N", NULL, K_CANT, -1},
    {"test.mode", KT_ENUM, OFF(test.mode), 0, 0, 0, 0, "", mode_names, K_CANT, -1},
    {"test.ring_periods", KT_REAL, OFF(test.ring_periods), 0, 1e5, 1, 0, "", NULL, K_CANT, -1},
    {"test.compliance", KT_REAL, OFF(test.compliance), 0, 1, 0, 0, "m/N", NULL, K_BEND | K_B4 | K_TENS | K_COMP, -1},
    {"test.cycles", KT_CYCLES, OFF(test.cycles), 0, 1e6, 0, 0, "", NULL, K_ALL, -1},
    {"simulation", KT_SECTION, 0, 0, 0, 0, 0, NULL, NULL, 0, -1},
    {"simulation.solver", KT_ENUM, OFF(sim.solver), 0, 0, 0, 0, "", solver_names, 0, -1},
    {"simulation.time_step", KT_REAL_AUTO, OFF(sim.time_step), 0, 1, 1, 0, "s", NULL, 0, -1},
    {"simulation.safety", KT_REAL, OFF(sim.safety), 0, 1, 1, 0, "", NULL, 0, -1},
    {"simulation.force_time_step", KT_BOOL, OFF(sim.force_time_step), 0, 0, 0, 0, "", NULL, 0, -1},
    {"simulation.viscoelastic", KT_BOOL, OFF(sim.viscoelastic), 0, 0, 0, 0, "", NULL, K_BEND | K_B4 | K_TENS | K_COMP | K_TORS, -1},
    {"simulation.output_points", KT_INT, OFF(sim.output_points), 2, 1000000, 0, 0, "", NULL, 0, -1},
    {"simulation.seed", KT_SEED, OFF(sim.seed), 0, 0, 0, 0, "", NULL, 0, OFF(sim.seed_given)},
};
#define NKEYS (sizeof fl_exp_keys / sizeof fl_exp_keys[0])
_Static_assert(NKEYS <= FL_MAX_KEYS, "raise FL_MAX_KEYS");
const size_t fl_exp_nkeys = NKEYS;

fl_experiment fl_experiment_default(void)
{
  fl_experiment e;
  memset(&e, 0, sizeof e);
  e.fiber.length_m = 0.12;
  e.fiber.outer_radius_m = 1.5e-3;
  e.fiber.inner_radius_ratio = 0.0;
  e.fiber.segments = 24;
  e.fiber.density = 1000.0;
  e.fiber.youngs_modulus = 1e9;
  e.fiber.poisson_ratio = 0.3;
  e.bond.force_stiffness_scale = 1.0;
  e.bond.torque_stiffness_scale = 1.0;
  e.bond.damping = 0.0;
  e.bond.damping_stabilization = 1.0;
  e.bond.failure.criterion = FL_CRIT_NONE;
  e.bond.failure.max_bending_angle = 30.0 * DEG;
  e.bond.failure.post_failure = FL_POST_TOTAL_BREAKAGE;
  e.bond.buckling.type = FL_BUCKLING_NONE;
  e.test.kind = FL_TEST_BEND3PT;
  e.test.span_m = 0.1;
  e.test.loading_span_m = 0.04;
  e.test.support_radius_m = 5e-3;
  e.test.nose_radius_m = 5e-3;
  e.test.tool_youngs_modulus = 2.1e11;
  e.test.tool_poisson_ratio = 0.3;
  e.test.friction = 0.3;
  e.test.restitution = 0.5;
  e.test.gravity = 9.81;
  e.test.max_displacement_m = 1e-2;
  e.test.gauge_length_m = 0.1;
  e.test.grip_length_m = 0.01;
  e.test.max_elongation_m = 1e-3;
  e.test.max_twist_rad = 10.0 * DEG;
  e.test.max_shortening_m = 1e-3;
  e.test.imperfection = 1e-3;
  e.test.clamp_length_m = 0.01;
  e.test.tip_control = FL_TIP_DISPLACEMENT;
  e.test.max_tip_displacement_m = 0.01;
  e.test.max_tip_load_n = 0.1;
  e.test.mode = FL_MODE_STATIC;
  e.test.ring_periods = 20.0;
  e.test.speed = -1.0;
  e.sim.solver = FL_SOLVER_AUTO;
  e.sim.time_step = -1.0;
  e.sim.safety = 0.2;
  e.sim.output_points = 500;
  e.sim.seed = 1;
  return e;
}

const char *fl_solver_name(enum fl_solver solver) { return solver_names[solver]; }

const key_def *fl_exp_key_find(const char *path)
{
  for (size_t i = 0; i < NKEYS; i++)
    if (strcmp(fl_exp_keys[i].path, path) == 0)
      return &fl_exp_keys[i];
  return NULL;
}

void fl_exp_keys_allowed(const char *prefix, int kind, char *buf, size_t len)
{
  size_t pl = strlen(prefix), used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < NKEYS; i++) {
    const char *p = fl_exp_keys[i].path;
    if (pl) {
      if (strncmp(p, prefix, pl) != 0 || p[pl] != '.')
        continue;
      p += pl + 1;
    }
    if (strchr(p, '.'))
      continue;
    if (fl_exp_keys[i].kinds && kind >= 0 && !(fl_exp_keys[i].kinds & (1 << kind)))
      continue;
    int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", p);
    if (n < 0 || (size_t)n >= len - used)
      break;
    used += (size_t)n;
  }
}

int fl_experiment_get(const fl_experiment *exp, const char *path, double *value)
{
  const key_def *k = fl_exp_key_find(path);
  if (!k)
    return FL_EINPUT;
  const char *base = (const char *)exp + k->offset;
  switch (k->type) {
  case KT_REAL:
  case KT_REAL_AUTO:
    *value = *(const double *)base;
    return FL_OK;
  case KT_DEG:
    *value = *(const double *)base / DEG;
    return FL_OK;
  case KT_INT:
  case KT_BOOL:
  case KT_ENUM:
    *value = *(const int *)base;
    return FL_OK;
  case KT_SEED:
    *value = (double)*(const unsigned long *)base;
    return FL_OK;
  default:
    return FL_EINPUT;
  }
}

const char *fl_experiment_key_unit(const char *path)
{
  const key_def *k = fl_exp_key_find(path);
  return k && (k->type == KT_REAL || k->type == KT_DEG || k->type == KT_REAL_AUTO || k->type == KT_INT) ? k->unit : NULL;
}

int fl_experiment_key_is_number(const char *path)
{
  const key_def *k = fl_exp_key_find(path);
  return k && (k->type == KT_REAL || k->type == KT_DEG || k->type == KT_REAL_AUTO);
}

/* ---- where each key was given ------------------------------------------------ */

int fl_exp_vfail(char *err, size_t errlen, const fl_exp_origin *o, const char *fmt, va_list ap)
{
  char msg[768];
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (o->file)
    snprintf(err, errlen, "%s:%zu:%zu: %s", o->file, o->line, o->col, msg);
  else
    snprintf(err, errlen, "--set '%s': %s", o->arg, msg);
  return FL_EINPUT;
}

int fl_exp_fail(char *err, size_t errlen, const fl_exp_origin *o, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = fl_exp_vfail(err, errlen, o, fmt, ap);
  va_end(ap);
  return rc;
}

void fl_experiment_mark_fit(fl_experiment *exp, const char *path, const char *fit_file, unsigned line, unsigned col)
{
  const key_def *k = fl_exp_key_find(path);
  if (!k)
    return;
  size_t i = fl_exp_key_index(k);
  exp->fit_file = fit_file;
  exp->key_from_fit[i] = 1;
  exp->key_set_by_option[i] = 0;
  exp->key_line[i] = line;
  exp->key_col[i] = col;
}

fl_exp_origin fl_exp_key_origin(const fl_experiment *exp, const char *file, const char *path)
{
  const key_def *k = fl_exp_key_find(path);
  fl_exp_origin o = {file, NULL, 1, 1};
  size_t i = k ? fl_exp_key_index(k) : 0;
  if (k && exp->key_line[i]) {
    o.line = exp->key_line[i];
    o.col = exp->key_col[i];
    if (exp->key_from_fit[i] && exp->fit_file)
      o.file = exp->fit_file;
  } else if (k && exp->key_set_by_option[i]) {
    o.file = NULL;
    o.arg = path;
  }
  return o;
}

int fl_exp_key_given(const fl_experiment *exp, const char *path)
{
  const key_def *k = fl_exp_key_find(path);
  return k && (exp->key_line[fl_exp_key_index(k)] || exp->key_set_by_option[fl_exp_key_index(k)]);
}

void fl_experiment_where(const fl_experiment *exp, const char *file, const char *path, char *buf, size_t len)
{
  fl_exp_origin o = fl_exp_key_origin(exp, file, path);
  if (o.file)
    snprintf(buf, len, "%s:%zu:%zu", o.file, o.line, o.col);
  else
    snprintf(buf, len, "--set '%s'", path);
}

/* ---- failed checks and warnings, at the place a key was given ------------------ */

int fl_exp_check_vfail(const fl_exp_checker *c, const char *key, const char *fmt, va_list ap)
{
  fl_exp_origin o = fl_exp_key_origin(c->exp, c->path, key);
  return fl_exp_vfail(c->err, c->errlen, &o, fmt, ap);
}

int fl_exp_check_fail(const fl_exp_checker *c, const char *key, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = fl_exp_check_vfail(c, key, fmt, ap);
  va_end(ap);
  return rc;
}

void fl_exp_vwarn(fl_exp_warner *w, const char *key, const char *fmt, va_list ap)
{
  char where[4200], msg[1024];
  if (w->used >= w->len)
    return;
  vsnprintf(msg, sizeof msg, fmt, ap);
  fl_experiment_where(w->exp, w->path, key, where, sizeof where);
  w->used += (size_t)snprintf(w->buf + w->used, w->len - w->used, "%s%s: %s", w->n ? "\n" : "", where, msg);
  w->n++;
}

void fl_exp_warn(fl_exp_warner *w, const char *key, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fl_exp_vwarn(w, key, fmt, ap);
  va_end(ap);
}
