/* yaml_experiment.c: the experiment YAML loader (libyaml document API) and the
 * -s KEY=VALUE overrides, both through one table of allowed keys. */
#include <config.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "experiment.h"
#include "fl_defs.h"
#include "table_text.h"
#include "shape.h"
#include "yaml_emit.h"
#include "yaml_input.h"

#define DEG (FL_PI / 180.0)

enum key_type {
  KT_SECTION, /* a mapping of further keys */
  KT_REAL,    /* double in [min, max] */
  KT_REAL_AUTO, /* double, or "auto" stored as -1 */
  KT_DEG,     /* degrees in YAML, radians inside */
  KT_INT,
  KT_SEED,
  KT_BOOL,
  KT_ENUM,
  KT_CYCLES,  /* a list of turning points */
  KT_FILE     /* a file name, relative to the experiment file (char[FL_PATH_LEN]) */
};

/* Bit per test kind a key belongs to; 0 for keys outside the test block. */
#define K_BEND (1 << FL_TEST_BEND3PT)
#define K_TENS (1 << FL_TEST_TENSION)
#define K_TORS (1 << FL_TEST_TORSION)
#define K_CANT (1 << FL_TEST_CANTILEVER)
#define K_B4 (1 << FL_TEST_BEND4PT)
#define K_COMP (1 << FL_TEST_COMPRESSION)
#define K_ALL (K_BEND | K_TENS | K_TORS | K_CANT | K_B4 | K_COMP)

static const char *const kind_names[] = {"bend3pt", "tension", "torsion", "cantilever", "bend4pt", "compression", NULL};
static const char *const tip_control_names[] = {"displacement", "load", NULL};
static const char *const mode_names[] = {"static", "vibration", NULL};
static const char *const criterion_names[] = {"none", "bending_stress", "bending_angle", "axial_stress",
                                              "force_stress", "von_mises", NULL};
static const char *const post_names[] = {"total_breakage", "constant_torque", "constant_force",
                                         "combined_plasticity", NULL};
static const char *const buckling_names[] = {"none", "reversible", "damage", "plastic", NULL};
static const char *const rollers_names[] = {"fixed", "rotating", NULL};
static const char *const section_names[] = {"circle", "ellipse", NULL};
static const char *const solver_names[] = {"auto", "explicit", "static", NULL};
static const char *const shape_names[] = {"straight", "arc", "polyline", NULL};
static const char *const table_unit_names[] = {"m", "mm", "um", NULL};

typedef struct {
  const char *path;           /* dotted path */
  enum key_type type;
  size_t offset;              /* of the value in fl_experiment */
  double min, max;            /* allowed range */
  int min_open, max_open;     /* 1: bound excluded */
  const char *unit;           /* for messages */
  const char *const *names;   /* KT_ENUM */
  int kinds;                  /* test kinds (test block only) */
  long given;                 /* offset of an int flag set when the key is given, or -1 */
} key_def;

#define OFF(f) offsetof(fl_experiment, f)
static const key_def keys[] = {
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
    {"fiber.shape", KT_ENUM, OFF(fiber.shape), 0, 0, 0, 0, "", shape_names, 0, -1},
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
    {"bond.failure.criterion", KT_ENUM, OFF(bond.failure.criterion), 0, 0, 0, 0, "", criterion_names, 0, -1},
    {"bond.failure.max_stress", KT_REAL, OFF(bond.failure.max_stress), 0, 1e13, 1, 0, "Pa", NULL, 0, OFF(bond.failure.max_stress_given)},
    {"bond.failure.max_bending_angle", KT_DEG, OFF(bond.failure.max_bending_angle), 0, 180, 0, 1, "deg", NULL, 0, -1},
    {"bond.failure.ignore_compression", KT_BOOL, OFF(bond.failure.ignore_compression), 0, 0, 0, 0, "", NULL, 0, -1},
    {"bond.failure.strength_variation", KT_REAL, OFF(bond.failure.strength_variation), 0, 10, 0, 0, "", NULL, 0, -1},
    {"bond.failure.post_failure", KT_ENUM, OFF(bond.failure.post_failure), 0, 0, 0, 0, "", post_names, 0, -1},
    {"bond.buckling", KT_SECTION, 0, 0, 0, 0, 0, NULL, NULL, 0, -1},
    {"bond.buckling.type", KT_ENUM, OFF(bond.buckling.type), 0, 0, 0, 0, "", buckling_names, 0, -1},
    {"bond.buckling.sample_length", KT_REAL, OFF(bond.buckling.sample_length), 0, 1e3, 1, 0, "m", NULL, 0, OFF(bond.buckling.values_given)},
    {"bond.buckling.max_force", KT_REAL, OFF(bond.buckling.max_force), 0, 1e12, 1, 0, "N", NULL, 0, OFF(bond.buckling.values_given)},
    {"bond.buckling.min_force", KT_REAL, OFF(bond.buckling.min_force), 0, 1e12, 0, 0, "N", NULL, 0, OFF(bond.buckling.values_given)},
    {"bond.buckling.displacement_at_min_force", KT_REAL, OFF(bond.buckling.displacement_at_min_force), 0, 1e3, 1, 0, "m", NULL, 0, OFF(bond.buckling.values_given)},
    {"bond.buckling.slope_after_min_force", KT_REAL, OFF(bond.buckling.slope_after_min_force), -1e15, 1e15, 0, 0, "N/m", NULL, 0, OFF(bond.buckling.values_given)},
    {"test", KT_SECTION, 0, 0, 0, 0, 0, NULL, NULL, 0, OFF(test_given)},
    {"test.kind", KT_ENUM, OFF(test.kind), 0, 0, 0, 0, "", kind_names, K_ALL, -1},
    {"test.span", KT_REAL, OFF(test.span_m), 0, 1e3, 1, 0, "m", NULL, K_BEND | K_B4, -1},
    {"test.loading_span", KT_REAL, OFF(test.loading_span_m), 0, 1e3, 1, 0, "m", NULL, K_B4, -1},
    {"test.support_radius", KT_REAL, OFF(test.support_radius_m), 0, 10, 1, 0, "m", NULL, K_BEND | K_B4, -1},
    {"test.nose_radius", KT_REAL, OFF(test.nose_radius_m), 0, 10, 1, 0, "m", NULL, K_BEND | K_B4, -1},
    {"test.tool_youngs_modulus", KT_REAL, OFF(test.tool_youngs_modulus), 0, 1e13, 1, 0, "Pa", NULL, K_BEND | K_B4, -1},
    {"test.tool_poisson_ratio", KT_REAL, OFF(test.tool_poisson_ratio), -1, 0.5, 1, 0, "", NULL, K_BEND | K_B4, -1},
    {"test.friction", KT_REAL, OFF(test.friction), 0, 10, 0, 0, "", NULL, K_BEND | K_B4, -1},
    {"test.rollers", KT_ENUM, OFF(test.rollers), 0, 0, 0, 0, "", rollers_names, K_BEND | K_B4, -1},
    {"test.restitution", KT_REAL, OFF(test.restitution), 0, 1, 1, 0, "", NULL, K_BEND | K_B4, -1},
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
    {"test.cycles", KT_CYCLES, OFF(test.cycles), 0, 1e6, 0, 0, "", NULL, K_ALL, -1},
    {"simulation", KT_SECTION, 0, 0, 0, 0, 0, NULL, NULL, 0, -1},
    {"simulation.solver", KT_ENUM, OFF(sim.solver), 0, 0, 0, 0, "", solver_names, 0, -1},
    {"simulation.time_step", KT_REAL_AUTO, OFF(sim.time_step), 0, 1, 1, 0, "s", NULL, 0, -1},
    {"simulation.safety", KT_REAL, OFF(sim.safety), 0, 1, 1, 0, "", NULL, 0, -1},
    {"simulation.force_time_step", KT_BOOL, OFF(sim.force_time_step), 0, 0, 0, 0, "", NULL, 0, -1},
    {"simulation.output_points", KT_INT, OFF(sim.output_points), 2, 1000000, 0, 0, "", NULL, 0, -1},
    {"simulation.seed", KT_SEED, OFF(sim.seed), 0, 0, 0, 0, "", NULL, 0, OFF(sim.seed_given)},
};
#define NKEYS (sizeof keys / sizeof keys[0])
_Static_assert(NKEYS <= FL_MAX_KEYS, "raise FL_MAX_KEYS");

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

const char *fl_test_kind_name(enum fl_test_kind kind) { return kind_names[kind]; }

double fl_test_target(const fl_test_def *t)
{
  switch (t->kind) {
  case FL_TEST_BEND3PT:
  case FL_TEST_BEND4PT:
    return t->max_displacement_m;
  case FL_TEST_TENSION:
    return t->max_elongation_m;
  case FL_TEST_TORSION:
    return t->max_twist_rad;
  case FL_TEST_COMPRESSION:
    return t->max_shortening_m;
  case FL_TEST_CANTILEVER:
    return t->tip_control == FL_TIP_LOAD ? t->max_tip_load_n : t->max_tip_displacement_m;
  }
  return 0.0;
}
const char *fl_solver_name(enum fl_solver solver) { return solver_names[solver]; }

/* Where a value came from, for messages. */
typedef struct {
  const char *file; /* file name, or NULL for a -s option */
  const char *arg;  /* the -s argument */
  size_t line, col; /* 1-based */
} origin;

static int fail(char *err, size_t errlen, const origin *o, const char *fmt, ...)
{
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (o->file)
    snprintf(err, errlen, "%s:%zu:%zu: %s", o->file, o->line, o->col, msg);
  else
    snprintf(err, errlen, "--set '%s': %s", o->arg, msg);
  return FL_EINPUT;
}

static const key_def *find_key(const char *path)
{
  for (size_t i = 0; i < NKEYS; i++)
    if (strcmp(keys[i].path, path) == 0)
      return &keys[i];
  return NULL;
}

/* "a, b or c": the keys allowed directly under prefix (for the given test kind). */
static void allowed_keys(const char *prefix, int kind, char *buf, size_t len)
{
  size_t pl = strlen(prefix), used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < NKEYS; i++) {
    const char *p = keys[i].path;
    if (pl) {
      if (strncmp(p, prefix, pl) != 0 || p[pl] != '.')
        continue;
      p += pl + 1;
    }
    if (strchr(p, '.'))
      continue;
    if (keys[i].kinds && kind >= 0 && !(keys[i].kinds & (1 << kind)))
      continue;
    int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", p);
    if (n < 0 || (size_t)n >= len - used)
      break;
    used += (size_t)n;
  }
}

static void allowed_names(const char *const *names, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; names[i]; i++) {
    int n = snprintf(buf + used, len - used, "%s%s", i ? " | " : "", names[i]);
    if (n < 0 || (size_t)n >= len - used)
      break;
    used += (size_t)n;
  }
}

static int parse_double(const char *s, double *out)
{
  char *end;
  if (!*s)
    return 0;
  errno = 0;
  double v = strtod(s, &end);
  if (*end || errno == ERANGE || !isfinite(v))
    return 0;
  *out = v;
  return 1;
}

static void range_text(const key_def *k, char *buf, size_t len)
{
  char lo[32], hi[32];
  snprintf(lo, sizeof lo, k->type == KT_INT ? "%.0f" : "%g", k->min);
  snprintf(hi, sizeof hi, k->type == KT_INT ? "%.0f" : "%g", k->max);
  snprintf(buf, len, "%s%s, %s%s", k->min_open ? "(" : "[", lo, hi, k->max_open ? ")" : "]");
}

static int in_range(const key_def *k, double v)
{
  if (k->min_open ? !(v > k->min) : !(v >= k->min))
    return 0;
  if (k->max_open ? !(v < k->max) : !(v <= k->max))
    return 0;
  return 1;
}

/* Check a number against the key's range and store it. */
static int store_real(const key_def *k, fl_experiment *exp, const char *text, double v, const origin *o,
                      char *err, size_t errlen)
{
  char range[96];
  range_text(k, range, sizeof range);
  if (!in_range(k, v))
    return fail(err, errlen, o, "%s: '%s' is out of range; allowed: a number in %s%s%s%s", k->path, text,
                range, *k->unit ? " " : "", k->unit, k->type == KT_REAL_AUTO ? ", or auto" : "");
  *(double *)((char *)exp + k->offset) = (k->type == KT_DEG) ? v * DEG : v;
  return FL_OK;
}

/* Parse and store one scalar value for key k. */
static int set_scalar(const key_def *k, fl_experiment *exp, const char *text, const origin *o, char *err,
                      size_t errlen)
{
  char buf[256], range[96];
  double v;
  switch (k->type) {
  case KT_REAL:
  case KT_DEG:
    if (!parse_double(text, &v)) {
      range_text(k, range, sizeof range);
      return fail(err, errlen, o, "%s: '%s' is not a number%s; allowed: a number in %s%s%s", k->path, text, fl_number_hint(text),
                  range, *k->unit ? " " : "", k->unit);
    }
    return store_real(k, exp, text, v, o, err, errlen);
  case KT_REAL_AUTO:
    if (strcmp(text, "auto") == 0) {
      *(double *)((char *)exp + k->offset) = -1.0;
      return FL_OK;
    }
    if (!parse_double(text, &v)) {
      range_text(k, range, sizeof range);
      return fail(err, errlen, o, "%s: '%s' is not a number or auto%s; allowed: auto, or a number in %s %s",
                  k->path, text, fl_number_hint(text), range, k->unit);
    }
    return store_real(k, exp, text, v, o, err, errlen);
  case KT_INT: {
    char *end;
    errno = 0;
    long n = strtol(text, &end, 10);
    range_text(k, range, sizeof range);
    if (!*text || *end || errno == ERANGE)
      return fail(err, errlen, o, "%s: '%s' is not an integer; allowed: an integer in %s", k->path, text, range);
    if (!in_range(k, (double)n))
      return fail(err, errlen, o, "%s: '%s' is out of range; allowed: an integer in %s", k->path, text, range);
    *(int *)((char *)exp + k->offset) = (int)n;
    return FL_OK;
  }
  case KT_SEED: {
    char *end;
    errno = 0;
    if (!*text || text[0] == '-' || !(text[0] >= '0' && text[0] <= '9'))
      return fail(err, errlen, o, "%s: '%s' is not a seed; allowed: an integer in [0, %lu]", k->path, text,
                  (unsigned long)-1);
    unsigned long n = strtoul(text, &end, 10);
    if (*end || errno == ERANGE)
      return fail(err, errlen, o, "%s: '%s' is not a seed; allowed: an integer in [0, %lu]", k->path, text,
                  (unsigned long)-1);
    *(unsigned long *)((char *)exp + k->offset) = n;
    return FL_OK;
  }
  case KT_BOOL:
    if (strcmp(text, "true") == 0 || strcmp(text, "yes") == 0)
      *(int *)((char *)exp + k->offset) = 1;
    else if (strcmp(text, "false") == 0 || strcmp(text, "no") == 0)
      *(int *)((char *)exp + k->offset) = 0;
    else
      return fail(err, errlen, o, "%s: '%s' is not a boolean; allowed: true | false", k->path, text);
    return FL_OK;
  case KT_ENUM:
    for (int i = 0; k->names[i]; i++)
      if (strcmp(text, k->names[i]) == 0) {
        *(int *)((char *)exp + k->offset) = i;
        return FL_OK;
      }
    allowed_names(k->names, buf, sizeof buf);
    return fail(err, errlen, o, "%s: '%s' is not allowed; allowed: %s", k->path, text, buf);
  case KT_FILE: {
    /* relative to the experiment file's directory; absolute where the file exists, so
     * that a written experiment finds it from anywhere */
    char joined[FL_PATH_LEN + 64];
    const char *slash = o->file ? strrchr(o->file, '/') : NULL;
    if (!*text)
      return fail(err, errlen, o, "%s: empty; allowed: a CSV file name, relative to the experiment file", k->path);
    if (text[0] == '/' || !slash)
      snprintf(joined, sizeof joined, "%s", text);
    else
      snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - o->file), o->file, text);
    char cwd[FL_PATH_LEN], use[2 * FL_PATH_LEN + 80];
    if (joined[0] != '/' && getcwd(cwd, sizeof cwd))
      snprintf(use, sizeof use, "%s/%s", cwd, joined);
    else
      snprintf(use, sizeof use, "%s", joined);
    if (strlen(use) >= FL_PATH_LEN)
      return fail(err, errlen, o, "%s: '%s' is too long; allowed: a file name under %d characters", k->path, text,
                  FL_PATH_LEN);
    memcpy((char *)exp + k->offset, use, strlen(use) + 1); /* shorter than FL_PATH_LEN: checked above */
    return FL_OK;
  }
  case KT_CYCLES:
    return fail(err, errlen, o, "%s: '%s' is not a list; allowed: a list of turning points, e.g. [1e-3, 0, 2e-3]",
                k->path, text);
  case KT_SECTION:
    return fail(err, errlen, o, "%s: '%s' is a value where a block of keys belongs; allowed keys: see fiberlab-experiment(5)",
                k->path, text);
  }
  return FL_EINPUT;
}

static void mark_given(const key_def *k, fl_experiment *exp)
{
  static const char *const bnums[] = {"bond.buckling.sample_length", "bond.buckling.max_force",
                                      "bond.buckling.min_force", "bond.buckling.displacement_at_min_force"};
  if (k->given >= 0)
    *(int *)((char *)exp + k->given) = 1;
  for (unsigned i = 0; i < 4; i++)
    if (strcmp(k->path, bnums[i]) == 0)
      exp->bond.buckling.given |= 1u << i;
}

/* ---- the file ------------------------------------------------------------ */

typedef struct {
  yaml_document_t *doc;
  fl_experiment *exp;
  origin o;
  char *err;
  size_t errlen;
} walker;

static void at(walker *w, yaml_node_t *n)
{
  w->o.line = n->start_mark.line + 1;
  w->o.col = n->start_mark.column + 1;
}

static const char *node_kind(yaml_node_t *n)
{
  return n->type == YAML_MAPPING_NODE ? "a block of keys" : n->type == YAML_SEQUENCE_NODE ? "a list" : "a value";
}

static int load_cycles(walker *w, const key_def *k, yaml_node_t *val)
{
  if (val->type != YAML_SEQUENCE_NODE) {
    at(w, val);
    return set_scalar(k, w->exp, val->type == YAML_SCALAR_NODE ? (const char *)val->data.scalar.value : "",
                      &w->o, w->err, w->errlen);
  }
  int n = 0;
  int torsion = w->exp->test.kind == FL_TEST_TORSION;
  for (yaml_node_item_t *it = val->data.sequence.items.start; it < val->data.sequence.items.top; it++) {
    yaml_node_t *item = yaml_document_get_node(w->doc, *it);
    at(w, item);
    double v;
    if (item->type != YAML_SCALAR_NODE || !parse_double((const char *)item->data.scalar.value, &v))
      return fail(w->err, w->errlen, &w->o, "%s: item %d is not a number; allowed: turning points in %s", k->path,
                  n + 1, torsion ? "deg" : "m");
    if (v < 0.0)
      return fail(w->err, w->errlen, &w->o, "%s: item %d '%s' is negative; allowed: turning points >= 0", k->path,
                  n + 1, (const char *)item->data.scalar.value);
    if (n >= FL_MAX_CYCLES)
      return fail(w->err, w->errlen, &w->o, "%s: more than %d turning points; allowed: at most %d", k->path,
                  FL_MAX_CYCLES, FL_MAX_CYCLES);
    w->exp->test.cycles[n++] = torsion ? v * DEG : v;
  }
  if (n == 0) {
    at(w, val);
    return fail(w->err, w->errlen, &w->o, "%s: the list is empty; allowed: turning points ending at the maximum",
                k->path);
  }
  w->exp->test.ncycles = n;
  return FL_OK;
}

static int walk_mapping(walker *w, yaml_node_t *map, const char *prefix);

static int walk_pair(walker *w, yaml_node_t *keyn, yaml_node_t *val, const char *prefix)
{
  char path[160], allowed[512];
  at(w, keyn);
  if (keyn->type != YAML_SCALAR_NODE)
    return fail(w->err, w->errlen, &w->o, "%s%skey is %s; allowed: a plain key name", prefix, *prefix ? ": " : "",
                node_kind(keyn));
  const char *name = (const char *)keyn->data.scalar.value;
  snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", name);
  const key_def *k = find_key(path);
  int in_test = strncmp(path, "test.", 5) == 0;
  if (!k || (in_test && k->kinds && !(k->kinds & (1 << w->exp->test.kind)))) {
    allowed_keys(prefix, in_test ? (int)w->exp->test.kind : -1, allowed, sizeof allowed);
    if (in_test && k)
      return fail(w->err, w->errlen, &w->o, "%s: unknown key for a %s test; allowed: %s", path,
                  kind_names[w->exp->test.kind], allowed);
    return fail(w->err, w->errlen, &w->o, "%s: unknown key; allowed%s%s: %s", path, *prefix ? " in " : "",
                prefix, allowed);
  }
  mark_given(k, w->exp);
  w->exp->key_from_fit[k - keys] = 0;
  w->exp->key_line[k - keys] = (unsigned)val->start_mark.line + 1; /* where the value is */
  w->exp->key_col[k - keys] = (unsigned)val->start_mark.column + 1;
  if (k->type == KT_SECTION) {
    if (val->type != YAML_MAPPING_NODE) {
      at(w, val);
      allowed_keys(path, -1, allowed, sizeof allowed);
      return fail(w->err, w->errlen, &w->o, "%s: is %s; allowed: a block of keys (%s)", path, node_kind(val),
                  allowed);
    }
    return walk_mapping(w, val, path);
  }
  if (k->type == KT_CYCLES)
    return load_cycles(w, k, val);
  at(w, val);
  if (val->type != YAML_SCALAR_NODE)
    return fail(w->err, w->errlen, &w->o, "%s: is %s; allowed: a single value", path, node_kind(val));
  return set_scalar(k, w->exp, (const char *)val->data.scalar.value, &w->o, w->err, w->errlen);
}

static int walk_mapping(walker *w, yaml_node_t *map, const char *prefix)
{
  yaml_node_pair_t *start = map->data.mapping.pairs.start, *top = map->data.mapping.pairs.top;
  /* Duplicate keys: libyaml keeps them silently. */
  for (yaml_node_pair_t *p = start; p < top; p++) {
    yaml_node_t *kp = yaml_document_get_node(w->doc, p->key);
    if (kp->type != YAML_SCALAR_NODE)
      continue;
    for (yaml_node_pair_t *q = start; q < p; q++) {
      yaml_node_t *kq = yaml_document_get_node(w->doc, q->key);
      if (kq->type == YAML_SCALAR_NODE && strcmp((char *)kq->data.scalar.value, (char *)kp->data.scalar.value) == 0) {
        at(w, kp);
        return fail(w->err, w->errlen, &w->o, "%s%s%s: duplicate key (first at line %zu); allowed: each key once",
                    prefix, *prefix ? "." : "", (char *)kp->data.scalar.value, kq->start_mark.line + 1);
      }
    }
  }
  /* In the test block, the kind decides which keys are allowed: read it first. */
  if (strcmp(prefix, "test") == 0) {
    yaml_node_pair_t *kindp = NULL;
    for (yaml_node_pair_t *p = start; p < top; p++) {
      yaml_node_t *kp = yaml_document_get_node(w->doc, p->key);
      if (kp->type == YAML_SCALAR_NODE && strcmp((char *)kp->data.scalar.value, "kind") == 0)
        kindp = p;
    }
    if (!kindp) {
      at(w, map);
      return fail(w->err, w->errlen, &w->o, "test: missing key 'kind'; allowed: bend3pt | tension | torsion | cantilever | bend4pt | compression");
    }
    int rc = walk_pair(w, yaml_document_get_node(w->doc, kindp->key), yaml_document_get_node(w->doc, kindp->value),
                       prefix);
    if (rc)
      return rc;
  }
  for (yaml_node_pair_t *p = start; p < top; p++) {
    yaml_node_t *kp = yaml_document_get_node(w->doc, p->key);
    if (strcmp(prefix, "test") == 0 && kp->type == YAML_SCALAR_NODE && strcmp((char *)kp->data.scalar.value, "kind") == 0)
      continue;
    int rc = walk_pair(w, kp, yaml_document_get_node(w->doc, p->value), prefix);
    if (rc)
      return rc;
  }
  return FL_OK;
}

int fl_experiment_load(const char *path, fl_experiment *exp, char *err, size_t errlen)
{
  yaml_document_t doc;
  origin o = {path, NULL, 1, 1};
  int rc = fl_yaml_load(path, "an experiment file", "fiberlab-experiment(5)", &doc, err, errlen);
  if (rc != FL_OK)
    return rc;
  rc = FL_EINPUT;
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (!root) {
    fail(err, errlen, &o, "the file is empty; allowed: a block with fiber, bond, test and simulation");
    goto done;
  }
  if (root->type != YAML_MAPPING_NODE) {
    o.line = root->start_mark.line + 1;
    o.col = root->start_mark.column + 1;
    fail(err, errlen, &o, "the top level is %s; allowed: a block with fiber, bond, test and simulation",
         node_kind(root));
    goto done;
  }
  walker w = {&doc, exp, o, err, errlen};
  rc = walk_mapping(&w, root, "");
  if (rc == FL_OK && !exp->test_given) {
    fail(err, errlen, &o, "test: missing block; allowed: a test block with kind bend3pt | tension | torsion | cantilever | bend4pt | compression");
    rc = FL_EINPUT;
  }
done:
  yaml_document_delete(&doc);
  return rc;
}

int fl_experiment_set(fl_experiment *exp, const char *assignment, char *err, size_t errlen)
{
  origin o = {NULL, assignment, 0, 0};
  char path[160], allowed[512];
  const char *eq = strchr(assignment, '=');
  if (!eq || eq == assignment)
    return fail(err, errlen, &o, "not KEY=VALUE; allowed: a dotted key such as fiber.segments=40");
  size_t n = (size_t)(eq - assignment);
  if (n >= sizeof path)
    return fail(err, errlen, &o, "key too long; allowed: a dotted key such as fiber.segments");
  memcpy(path, assignment, n);
  path[n] = '\0';
  const char *text = eq + 1;
  const key_def *k = find_key(path);
  if (!k || k->type == KT_SECTION) {
    char prefix[160];
    snprintf(prefix, sizeof prefix, "%s", path);
    char *dot = strrchr(prefix, '.');
    if (dot)
      *dot = '\0';
    else
      prefix[0] = '\0';
    allowed_keys(find_key(prefix) ? prefix : "", -1, allowed, sizeof allowed);
    return fail(err, errlen, &o, "%s: unknown key; allowed%s%s: %s", path, find_key(prefix) ? " in " : "",
                find_key(prefix) ? prefix : "", allowed);
  }
  if (k->kinds && k != find_key("test.kind") && !(k->kinds & (1 << exp->test.kind))) {
    allowed_keys("test", (int)exp->test.kind, allowed, sizeof allowed);
    return fail(err, errlen, &o, "%s: unknown key for a %s test; allowed: %s", path, kind_names[exp->test.kind],
                allowed);
  }
  if (k->type == KT_CYCLES) {
    /* A comma-separated list: test.cycles=1e-3,0,2e-3 */
    int cnt = 0;
    const char *s = text;
    int torsion = exp->test.kind == FL_TEST_TORSION;
    while (*s) {
      char item[64];
      size_t len = strcspn(s, ",");
      if (len == 0 || len >= sizeof item || cnt >= FL_MAX_CYCLES)
        return fail(err, errlen, &o, "%s: '%s' is not a list; allowed: up to %d comma-separated turning points",
                    path, text, FL_MAX_CYCLES);
      memcpy(item, s, len);
      item[len] = '\0';
      double v;
      if (!parse_double(item, &v) || v < 0.0)
        return fail(err, errlen, &o, "%s: item '%s' is not a number >= 0; allowed: turning points in %s", path,
                    item, torsion ? "deg" : "m");
      exp->test.cycles[cnt++] = torsion ? v * DEG : v;
      s += len;
      if (*s == ',')
        s++;
    }
    if (cnt == 0)
      return fail(err, errlen, &o, "%s: the list is empty; allowed: turning points ending at the maximum", path);
    exp->test.ncycles = cnt;
    exp->key_set_by_option[k - keys] = 1;
    exp->key_from_fit[k - keys] = 0;
    exp->key_line[k - keys] = 0;
    return FL_OK;
  }
  mark_given(k, exp);
  exp->key_set_by_option[k - keys] = 1;
  exp->key_from_fit[k - keys] = 0;
  exp->key_line[k - keys] = 0;
  return set_scalar(k, exp, text, &o, err, errlen);
}

void fl_experiment_mark_fit(fl_experiment *exp, const char *path, const char *fit_file, unsigned line, unsigned col)
{
  const key_def *k = find_key(path);
  if (!k)
    return;
  exp->fit_file = fit_file;
  exp->key_from_fit[k - keys] = 1;
  exp->key_set_by_option[k - keys] = 0;
  exp->key_line[k - keys] = line;
  exp->key_col[k - keys] = col;
}

/* Where a key was given: its line in the file, or the command line. */
static origin key_origin(const fl_experiment *exp, const char *file, const char *path)
{
  const key_def *k = find_key(path);
  origin o = {file, NULL, 1, 1};
  if (k && exp->key_line[k - keys]) {
    o.line = exp->key_line[k - keys];
    o.col = exp->key_col[k - keys];
    if (exp->key_from_fit[k - keys] && exp->fit_file)
      o.file = exp->fit_file;
  } else if (k && exp->key_set_by_option[k - keys]) {
    o.file = NULL;
    o.arg = path;
  }
  return o;
}

/* The values whose magnitude suggests a unit mistake (the experiment's units are SI),
 * one line each into buf, after n lines already there; returns how many. */
int fl_experiment_unit_warnings(const fl_experiment *exp, const char *path, char *buf, size_t len, int n)
{
  int found = 0;
  size_t used = 0;
  char where[4200];
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
  for (size_t h = 0; h < sizeof hints / sizeof hints[0] && used < len; h++) {
    const key_def *k = find_key(hints[h].path);
    double v;
    if (!k || !exp->key_line[k - keys] || fl_experiment_get(exp, hints[h].path, &v) != FL_OK)
      continue; /* only values the file gives */
    if (hints[h].low ? !(v < hints[h].limit) : !(v > hints[h].limit))
      continue;
    fl_experiment_where(exp, path, hints[h].path, where, sizeof where);
    used += (size_t)snprintf(buf + used, len - used,
                             "%s%s: %s %g %s is %s %g %s: looks like %s (%g %s = %g %s); the experiment's unit is %s",
                             n + found ? "\n" : "", where, hints[h].path, v, hints[h].unit,
                             hints[h].low ? "below" : "above", hints[h].limit, hints[h].unit, hints[h].looks, v,
                             hints[h].looks, v * hints[h].factor, hints[h].unit, hints[h].unit);
    found++;
  }
  return found;
}

int fl_experiment_warnings(const fl_experiment *exp, const char *path, char *buf, size_t len)
{
  int n = 0;
  size_t used = 0;
  char where[4200];
  buf[0] = '\0';
  const fl_buckling_def *bk = &exp->bond.buckling;
  if (bk->type == FL_BUCKLING_NONE && bk->values_given) {
    fl_experiment_where(exp, path, "bond.buckling.type", where, sizeof where);
    used += (size_t)snprintf(buf + used, len - used,
                             "%s%s: bond.buckling: type is none, so the buckling numbers given are ignored", n ? "\n" : "",
                             where);
    n++;
  }
  if (bk->type != FL_BUCKLING_NONE && exp->test.kind == FL_TEST_BEND3PT && used < len &&
      fabs(bk->sample_length / exp->test.span_m - 1.0) > 0.2) {
    fl_experiment_where(exp, path, "bond.buckling.sample_length", where, sizeof where);
    used += (size_t)snprintf(buf + used, len - used,
                             "%s%s: bond.buckling.sample_length %g m differs from test.span %g m: the envelope "
                             "comes from a test of another span",
                             n ? "\n" : "", where, bk->sample_length, exp->test.span_m);
    n++;
  }
  if ((exp->test.kind == FL_TEST_TENSION || exp->test.kind == FL_TEST_TORSION) && used < len) {
    /* The grips hold whole segments: the gauge simulated is the whole number m of
     * segment lengths nearest to the one asked for (run.c).  Say so when they differ,
     * with the segment count nearest to the file's that makes them equal. */
    const fl_fiber_def *fb = &exp->fiber;
    double h = fb->length_m / fb->segments, g = exp->test.gauge_length_m;
    double m = floor(g / h + 0.5);
    if (m < 2)
      m = 2;
    if (fabs(m * h - g) > 1e-9 * g) {
      char hint[160] = "";
      int best = 0;
      for (int d = 0; d <= 100000 && !best; d++) /* n segments give a whole n g / L */
        for (int sgn = -1; sgn <= 1 && !best; sgn += 2) {
          int cand = fb->segments + sgn * d;
          double w = cand * g / fb->length_m;
          if (cand >= 3 && cand <= 1000000 && w >= 1.5 && fabs(w - floor(w + 0.5)) <= 1e-9 * w)
            best = cand;
        }
      if (best)
        snprintf(hint, sizeof hint, "; fiber.segments: %d would give it exactly", best);
      fl_experiment_where(exp, path, "test.gauge_length", where, sizeof where);
      used += (size_t)snprintf(buf + used, len - used,
                               "%s%s: test.gauge_length %g m is simulated as %.6g m (%.4g %%): the grips hold whole "
                               "segments of %.6g m%s",
                               n ? "\n" : "", where, g, m * h, 100.0 * (m * h / g - 1.0), h, hint);
      n++;
    }
  }
  const fl_fiber_def *fs = &exp->fiber;
  if (fs->section == FL_SECTION_ELLIPSE && used < len) {
    double a = fs->semi_axis_y_m, b = fs->semi_axis_z_m, ai = fs->inner_semi_axis_y_m, bi = fs->inner_semi_axis_z_m;
    double A = FL_PI * (a * b - ai * bi), R = fs->outer_radius_m, Ri = fs->inner_radius_ratio * R;
    double Aeq = FL_PI * (R * R - Ri * Ri);
    if (fabs(Aeq / A - 1.0) > 1e-9) {
      fl_experiment_where(exp, path, "fiber.section", where, sizeof where);
      used += (size_t)snprintf(buf + used, len - used,
                               "%s%s: fiber.section: the ellipse has less I_z than a round section of its area "
                               "(semi_axis_y below semi_axis_z): it is simulated as the solid round section of "
                               "its I_z, whose area (mass, axial stiffness) is %.3g %% %s",
                               n ? "\n" : "", where, 100.0 * fabs(Aeq / A - 1.0), Aeq < A ? "smaller" : "larger");
      n++;
    }
  }
  if (used < len) {
    int k = fl_experiment_unit_warnings(exp, path, buf + used, len - used, n);
    used += strlen(buf + used);
    n += k;
  }
  if (exp->test.kind == FL_TEST_BEND3PT && exp->fiber.segments % 2 == 1 && used < len) {
    fl_experiment_where(exp, path, "fiber.segments", where, sizeof where);
    used += (size_t)snprintf(buf + used, len - used,
                             "%s%s: fiber.segments %d is odd: a segment centre, not a bond, lies under the loading "
                             "nose, so two bonds share the hinge (use an even count)",
                             n ? "\n" : "", where, exp->fiber.segments);
    n++;
  }
  return n;
}

void fl_experiment_where(const fl_experiment *exp, const char *file, const char *path, char *buf, size_t len)
{
  origin o = key_origin(exp, file, path);
  if (o.file)
    snprintf(buf, len, "%s:%zu:%zu", o.file, o.line, o.col);
  else
    snprintf(buf, len, "--set '%s'", path);
}

/* 1 when the file or an option gave key path. */
static int key_given(const fl_experiment *exp, const char *path)
{
  const key_def *k = find_key(path);
  return k && (exp->key_line[k - keys] || exp->key_set_by_option[k - keys]);
}

/* The section keys: circle or ellipse, each with its own keys; an ellipse becomes the
 * round hollow section of the same I_z and area (fiberlab-model(7), Sections). */
static int finish_section(fl_experiment *exp, const char *path, char *err, size_t errlen)
{
  static const char *const circle_keys[] = {"fiber.outer_radius", "fiber.inner_radius_ratio", NULL};
  static const char *const ellipse_keys[] = {"fiber.semi_axis_y", "fiber.semi_axis_z", "fiber.inner_semi_axis_y",
                                             "fiber.inner_semi_axis_z", NULL};
  fl_fiber_def *fb = &exp->fiber;
  origin o;
  int ell = fb->section == FL_SECTION_ELLIPSE;
  const char *const *wrong = ell ? circle_keys : ellipse_keys;
  for (int i = 0; wrong[i]; i++)
    if (key_given(exp, wrong[i])) {
      o = key_origin(exp, path, wrong[i]);
      return fail(err, errlen, &o, "%s: given with section %s; allowed: %s", wrong[i], ell ? "ellipse" : "circle",
                  ell ? "semi_axis_y, semi_axis_z and the optional inner_semi_axis_y, inner_semi_axis_z for an "
                        "ellipse"
                      : "outer_radius and inner_radius_ratio for a circle, or section: ellipse");
    }
  if (!ell)
    return FL_OK;
  for (int i = 0; i < 2; i++)
    if (!key_given(exp, ellipse_keys[i])) {
      o = key_origin(exp, path, "fiber.section");
      return fail(err, errlen, &o, "%s: missing, and section 'ellipse' needs it; allowed: a number in (0, 1] m",
                  ellipse_keys[i]);
    }
  int gy = key_given(exp, ellipse_keys[2]), gz = key_given(exp, ellipse_keys[3]);
  if (gy != gz) {
    o = key_origin(exp, path, ellipse_keys[gy ? 2 : 3]);
    return fail(err, errlen, &o, "%s: missing, and %s is given; allowed: both inner semi-axes or neither",
                ellipse_keys[gy ? 3 : 2], ellipse_keys[gy ? 2 : 3] + 6);
  }
  double a = fb->semi_axis_y_m, b = fb->semi_axis_z_m, ai = gy ? fb->inner_semi_axis_y_m : 0.0,
         bi = gz ? fb->inner_semi_axis_z_m : 0.0;
  if (!gy)
    fb->inner_semi_axis_y_m = fb->inner_semi_axis_z_m = 0.0;
  if (gy && !(ai < a)) {
    o = key_origin(exp, path, ellipse_keys[2]);
    return fail(err, errlen, &o, "fiber.inner_semi_axis_y: %g m is not below semi_axis_y %g m; allowed: inner "
                "semi-axes below the outer ones", ai, a);
  }
  if (gz && !(bi < b)) {
    o = key_origin(exp, path, ellipse_keys[3]);
    return fail(err, errlen, &o, "fiber.inner_semi_axis_z: %g m is not below semi_axis_z %g m; allowed: inner "
                "semi-axes below the outer ones", bi, b);
  }
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

/* The shape and section keys (fiberlab-experiment(5), SHAPE AND SECTIONS): each with its
 * shape, one arc size, one way of varying the section, what the tests serve; then the
 * files read and the shape built once, so that a bad file stops the program before it
 * writes anything.  A polyline sets the fiber's length. */
static int finish_shape(fl_experiment *exp, const char *path, char *err, size_t errlen)
{
  fl_fiber_def *fb = &exp->fiber;
  origin o;
  int arc = fb->shape == FL_SHAPE_ARC, poly = fb->shape == FL_SHAPE_POLYLINE;
  static const char *const arc_keys[] = {"fiber.arc_radius", "fiber.arc_angle"};
  for (int i = 0; i < 2; i++)
    if (!arc && key_given(exp, arc_keys[i])) {
      o = key_origin(exp, path, arc_keys[i]);
      return fail(err, errlen, &o, "%s: given with shape %s; allowed: arc_radius or arc_angle with shape: arc",
                  arc_keys[i], shape_names[fb->shape]);
    }
  if (arc && key_given(exp, arc_keys[0]) == key_given(exp, arc_keys[1])) {
    o = key_origin(exp, path, key_given(exp, arc_keys[1]) ? arc_keys[1] : "fiber.shape");
    return fail(err, errlen, &o, "fiber.shape: arc needs %s; allowed: one of arc_radius (m) and arc_angle (deg)",
                key_given(exp, arc_keys[1]) ? "one size, and both are given" : "its size");
  }
  if (arc && !key_given(exp, arc_keys[0]))
    fb->arc_radius_m = 0.0;
  if (arc && !key_given(exp, arc_keys[1]))
    fb->arc_angle_rad = 0.0;
  if (poly != (fb->polyline[0] != '\0')) {
    o = key_origin(exp, path, poly ? "fiber.shape" : "fiber.polyline");
    return fail(err, errlen, &o, poly ? "fiber.polyline: missing, and shape polyline needs it; allowed: a CSV file "
                                        "of x, y points of the centreline"
                                      : "fiber.polyline: given with shape %s; allowed: a polyline with shape: polyline",
                shape_names[fb->shape]);
  }
  if (poly && key_given(exp, "fiber.length")) {
    o = key_origin(exp, path, "fiber.length");
    return fail(err, errlen, &o, "fiber.length: given with shape polyline; allowed: no length (the polyline's arc "
                "length is the fiber's)");
  }
  int nvary = (fb->outer_radius_end_m > 0.0) + (fb->section_table[0] != '\0');
  if (nvary > 1) {
    o = key_origin(exp, path, "fiber.section_table");
    return fail(err, errlen, &o, "fiber.section_table: given with outer_radius_end; allowed: one of a taper "
                "(outer_radius_end) and a section table");
  }
  int varies = nvary || fb->nodes[0];
  static const char *const vary_keys[] = {"fiber.outer_radius_end", "fiber.section_table", "fiber.nodes"};
  const char *vkey = fb->outer_radius_end_m > 0.0 ? vary_keys[0] : fb->section_table[0] ? vary_keys[1] : vary_keys[2];
  if (varies && fb->section == FL_SECTION_ELLIPSE) {
    o = key_origin(exp, path, vkey);
    return fail(err, errlen, &o, "%s: given with section ellipse; allowed: a varying section of round sections "
                "(section: circle)", vkey);
  }
  const fl_failure_def *fd = &exp->bond.failure;
  if (varies && fd->criterion != FL_CRIT_NONE && fd->criterion != FL_CRIT_BENDING_STRESS &&
      fd->criterion != FL_CRIT_BENDING_ANGLE) {
    o = key_origin(exp, path, "bond.failure.criterion");
    return fail(err, errlen, &o, "bond.failure.criterion: '%s' with a section varying along the fiber (%s); allowed "
                "with a varying section: none | bending_stress | bending_angle", criterion_names[fd->criterion], vkey);
  }
  if (varies && exp->bond.buckling.type != FL_BUCKLING_NONE) {
    o = key_origin(exp, path, "bond.buckling.type");
    return fail(err, errlen, &o, "bond.buckling.type: '%s' with a section varying along the fiber (%s); allowed "
                "with a varying section: none", buckling_names[exp->bond.buckling.type], vkey);
  }
  /* a curved fiber: 3-point bending, tension and torsion (their grips hold the end
   * segments as they lie and pull along, or turn about, the chord between them), and a
   * static cantilever (its clamp holds the first segments as they lie, its tip load
   * acts at the free end); the first mode of a ring-down, the pinned column's bow and
   * the two noses of 4-point bending take a straight axis */
  enum fl_test_kind kind = exp->test.kind;
  int cant_static = kind == FL_TEST_CANTILEVER && exp->test.mode == FL_MODE_STATIC;
  if (fb->shape != FL_SHAPE_STRAIGHT && kind != FL_TEST_BEND3PT && kind != FL_TEST_TENSION &&
      kind != FL_TEST_TORSION && !cant_static) {
    o = key_origin(exp, path, "fiber.shape");
    return fail(err, errlen, &o, "fiber.shape: '%s' in a %s test; allowed in %s: straight (%s; a curved fiber goes "
                "in bend3pt, tension, torsion or a static cantilever)", shape_names[fb->shape], kind_names[kind],
                kind == FL_TEST_CANTILEVER ? "a vibration cantilever" : kind_names[kind],
                kind == FL_TEST_CANTILEVER     ? "its first mode is a straight beam's"
                : kind == FL_TEST_COMPRESSION ? "its imperfection is the half-sine bow test.imperfection gives"
                                              : "its two noses are placed on a straight fiber");
  }
  if (!fl_shape_nontrivial(fb))
    return FL_OK;
  int rc;
  if (poly && (rc = fl_shape_polyline_length(fb, &fb->length_m, err, errlen)) != FL_OK)
    return rc;
  if (arc && fb->arc_radius_m > 0.0 && fb->length_m / fb->arc_radius_m >= 2.0 * FL_PI) {
    o = key_origin(exp, path, "fiber.arc_radius");
    return fail(err, errlen, &o, "fiber.arc_radius: %g m closes a fiber of length %g m on itself (%.4g deg); "
                "allowed: a radius above length / (2 pi) = %g m", fb->arc_radius_m, fb->length_m,
                fb->length_m / fb->arc_radius_m / DEG, fb->length_m / (2.0 * FL_PI));
  }
  fl_shape sh;
  double ms = fd->criterion == FL_CRIT_BENDING_STRESS ? fd->max_stress : 0.0;
  rc = fl_shape_make(fb, fb->segments, fb->length_m / fb->segments, ms, &sh, err, errlen);
  if (rc == FL_EINPUT && arc) { /* the arc's message names its key */
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", err);
    o = key_origin(exp, path, key_given(exp, arc_keys[0]) ? arc_keys[0] : arc_keys[1]);
    return fail(err, errlen, &o, "%s", msg);
  }
  if (rc)
    return rc;
  if (sh.curved && exp->test.kind == FL_TEST_BEND3PT) { /* supports on the fiber */
    double reach = 0.0;
    for (int i = 0; i < sh.n; i++)
      reach = fmax(reach, fabs(sh.x[i].x));
    if (!(0.5 * exp->test.span_m < reach)) {
      fl_shape_free(&sh);
      o = key_origin(exp, path, "test.span");
      return fail(err, errlen, &o, "test.span: %g m does not fit under the %s fiber, whose segment centres reach "
                  "x = +-%g m; allowed: a span below %g m", exp->test.span_m, shape_names[fb->shape], reach,
                  2.0 * reach);
    }
  }
  fl_shape_free(&sh);
  return FL_OK;
}

int fl_experiment_finish(fl_experiment *exp, const char *path, char *err, size_t errlen)
{
  origin o;
  fl_fiber_def *fb = &exp->fiber;
  fl_test_def *t = &exp->test;
  int rc = finish_section(exp, path, err, errlen);
  if (rc)
    return rc;
  if (fb->shear_given && fb->poisson_given) {
    o = key_origin(exp, path, "fiber.poisson_ratio");
    return fail(err, errlen, &o, "fiber.poisson_ratio: given with fiber.shear_modulus; allowed: one of the two");
  }
  if (!fb->shear_given)
    fb->shear_modulus = fb->youngs_modulus / (2.0 * (1.0 + fb->poisson_ratio));
  const fl_failure_def *fd = &exp->bond.failure;
  /* Which post-failure behaviour goes with which criterion (fiberlab-model(7), Beyond
   * the limit): bit c of allowed_mask[p] is set when criterion c allows post_failure p. */
  static const unsigned allowed_mask[] = {
      0x3e, (1u << FL_CRIT_BENDING_STRESS) | (1u << FL_CRIT_BENDING_ANGLE), 1u << FL_CRIT_FORCE_STRESS,
      (1u << FL_CRIT_AXIAL_STRESS) | (1u << FL_CRIT_VON_MISES)};
  if (fd->criterion != FL_CRIT_NONE && !(allowed_mask[fd->post_failure] & (1u << fd->criterion))) {
    char allowed[160] = "";
    for (int pf = 0; post_names[pf]; pf++)
      if (allowed_mask[pf] & (1u << fd->criterion)) {
        size_t n = strlen(allowed);
        snprintf(allowed + n, sizeof allowed - n, "%s%s", n ? " | " : "", post_names[pf]);
      }
    o = key_origin(exp, path, "bond.failure.post_failure");
    return fail(err, errlen, &o, "bond.failure.post_failure: '%s' does not go with criterion '%s'; allowed with %s: %s",
                post_names[fd->post_failure], criterion_names[fd->criterion], criterion_names[fd->criterion],
                allowed);
  }
  if (fd->criterion != FL_CRIT_NONE && fd->criterion != FL_CRIT_BENDING_ANGLE && !fd->max_stress_given) {
    o = key_origin(exp, path, "bond.failure.criterion");
    return fail(err, errlen, &o,
                "bond.failure.max_stress: missing, and criterion '%s' needs it; allowed: a number in (0, 1e+13] Pa",
                criterion_names[fd->criterion]);
  }
  const fl_buckling_def *bk = &exp->bond.buckling;
  if (bk->type != FL_BUCKLING_NONE) {
    static const char *const need[] = {"bond.buckling.sample_length", "bond.buckling.max_force",
                                       "bond.buckling.min_force", "bond.buckling.displacement_at_min_force"};
    for (int i = 0; i < 4; i++)
      if (!(bk->given & (1u << i))) {
        o = key_origin(exp, path, "bond.buckling.type");
        return fail(err, errlen, &o, "%s: missing, and buckling type '%s' needs it; allowed: a number in %s", need[i],
                    buckling_names[bk->type], i == 2 ? "[0, 1e+12] N" : i == 1 ? "(0, 1e+12] N" : "(0, 1000] m");
      }
    if (bk->min_force > bk->max_force) {
      o = key_origin(exp, path, "bond.buckling.min_force");
      return fail(err, errlen, &o, "bond.buckling.min_force: %g N is above max_force %g N; allowed: [0, max_force]",
                  bk->min_force, bk->max_force);
    }
  }
  if ((rc = finish_shape(exp, path, err, errlen)) != FL_OK)
    return rc;
  int tors = t->kind == FL_TEST_TORSION;
  double unit = tors ? DEG : 1.0;
  const char *maxkey = fl_test_bends(t->kind)        ? "test.max_displacement"
                       : t->kind == FL_TEST_TENSION  ? "test.max_elongation"
                       : t->kind == FL_TEST_TORSION  ? "test.max_twist"
                       : t->kind == FL_TEST_COMPRESSION ? "test.max_shortening"
                       : t->tip_control == FL_TIP_LOAD ? "test.max_tip_load"
                                                       : "test.max_tip_displacement";
  double target = fl_test_target(t);
  if (t->kind == FL_TEST_CANTILEVER) {
    /* a cantilever hangs in the air: no gravity unless the file asks for it */
    if (!t->gravity_given)
      t->gravity = 0.0;
    double h = fb->length_m / fb->segments;
    int ng = (int)floor(t->clamp_length_m / h + 0.5);
    if (ng < 1 || fb->segments - ng < 2) {
      o = key_origin(exp, path, "test.clamp_length");
      return fail(err, errlen, &o,
                  "test.clamp_length: %g m clamps %d of the %d segments of %g m; allowed: at least half a segment, "
                  "and at least 2 segments free: [%g, %g) m",
                  t->clamp_length_m, ng, fb->segments, h, 0.5 * h, (fb->segments - 1.5) * h);
    }
  }
  if (t->ncycles > 0) {
    o = key_origin(exp, path, "test.cycles");
    double last = t->cycles[t->ncycles - 1];
    if (fabs(last - target) > 1e-9 * target)
      return fail(err, errlen, &o, "test.cycles: the last turning point %g is not %s %g; allowed: a list ending at the maximum",
                  last / unit, maxkey + 5, target / unit);
    for (int i = 0; i < t->ncycles; i++)
      if (t->cycles[i] > target * (1.0 + 1e-9))
        return fail(err, errlen, &o, "test.cycles: turning point %d (%g) exceeds %s %g; allowed: values up to the maximum",
                    i + 1, t->cycles[i] / unit, maxkey + 5, target / unit);
  }
  if (t->kind == FL_TEST_COMPRESSION && fb->segments < 4) {
    o = key_origin(exp, path, "fiber.segments");
    return fail(err, errlen, &o,
                "fiber.segments: %d for a compression test; allowed: at least 4 (a grip segment at each end, 2 free)",
                fb->segments);
  }
  if (t->kind == FL_TEST_BEND4PT && t->loading_span_m >= t->span_m) {
    o = key_origin(exp, path, "test.loading_span");
    return fail(err, errlen, &o, "test.loading_span: %g m is not shorter than test.span %g m; allowed: loading_span < span",
                t->loading_span_m, t->span_m);
  }
  if (fl_test_bends(t->kind) && t->span_m >= fb->length_m) {
    o = key_origin(exp, path, "test.span");
    return fail(err, errlen, &o, "test.span: %g m is not shorter than fiber.length %g m; allowed: span < length",
                t->span_m, fb->length_m);
  }
  if ((t->kind == FL_TEST_TENSION || t->kind == FL_TEST_TORSION) && t->gauge_length_m + 2.0 * t->grip_length_m > fb->length_m * (1.0 + 1e-9)) {
    o = key_origin(exp, path, "test.gauge_length");
    return fail(err, errlen, &o,
                "test.gauge_length: %g m plus two grip_length %g m exceeds fiber.length %g m; allowed: gauge_length + 2 grip_length <= length",
                t->gauge_length_m, t->grip_length_m, fb->length_m);
  }
  return FL_OK;
}

int fl_experiment_get(const fl_experiment *exp, const char *path, double *value)
{
  const key_def *k = find_key(path);
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
  const key_def *k = find_key(path);
  return k && (k->type == KT_REAL || k->type == KT_DEG || k->type == KT_REAL_AUTO || k->type == KT_INT) ? k->unit : NULL;
}

int fl_experiment_key_is_number(const char *path)
{
  const key_def *k = find_key(path);
  return k && (k->type == KT_REAL || k->type == KT_DEG || k->type == KT_REAL_AUTO);
}

/* The shortest %g text that reads back as v. */
static void put_double(fl_yaml_out *y, double v)
{
  char buf[40];
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v)
      break;
  }
  fl_yaml_plain(y, buf);
}

/* One key's value. */
static void write_value(fl_yaml_out *y, const fl_experiment *exp, const key_def *k)
{
  const char *base = (const char *)exp + k->offset;
  char buf[32];
  switch (k->type) {
  case KT_REAL:
    put_double(y, *(const double *)base);
    break;
  case KT_REAL_AUTO:
    if (*(const double *)base <= 0.0)
      fl_yaml_plain(y, "auto");
    else
      put_double(y, *(const double *)base);
    break;
  case KT_DEG: /* degrees to 15 digits: the radian round trip is not exact */
    fl_yaml_num(y, "%.15g", *(const double *)base / DEG);
    break;
  case KT_INT:
    fl_yaml_int(y, *(const int *)base);
    break;
  case KT_SEED:
    snprintf(buf, sizeof buf, "%lu", *(const unsigned long *)base);
    fl_yaml_plain(y, buf);
    break;
  case KT_BOOL:
    fl_yaml_plain(y, *(const int *)base ? "true" : "false");
    break;
  case KT_ENUM:
    fl_yaml_plain(y, k->names[*(const int *)base]);
    break;
  case KT_CYCLES: {
    const fl_test_def *t = &exp->test;
    double unit = t->kind == FL_TEST_TORSION ? DEG : 1.0;
    fl_yaml_seq_begin(y, 1);
    for (int i = 0; i < t->ncycles; i++) {
      if (unit != 1.0)
        fl_yaml_num(y, "%.15g", t->cycles[i] / unit);
      else
        put_double(y, t->cycles[i]);
    }
    fl_yaml_seq_end(y);
    break;
  }
  case KT_FILE:
    fl_yaml_str(y, base);
    break;
  case KT_SECTION:
    break;
  }
}

/* Whether a key belongs in the written file. */
static int write_key(const fl_experiment *exp, const key_def *k)
{
  const char *p = k->path;
  if (k->kinds && !(k->kinds & (1 << exp->test.kind)))
    return 0;
  if (strcmp(p, "fiber.poisson_ratio") == 0) /* the shear modulus is written, resolved */
    return 0;
  /* an ellipse is written by its semi-axes, never by the derived round equivalent */
  int ell = exp->fiber.section == FL_SECTION_ELLIPSE;
  if (strcmp(p, "fiber.outer_radius") == 0 || strcmp(p, "fiber.inner_radius_ratio") == 0)
    return !ell;
  if (strcmp(p, "fiber.section") == 0 || strcmp(p, "fiber.semi_axis_y") == 0 || strcmp(p, "fiber.semi_axis_z") == 0)
    return ell;
  if (strncmp(p, "fiber.inner_semi_axis_", 22) == 0)
    return ell && exp->fiber.inner_semi_axis_y_m > 0.0;
  if (strcmp(p, "test.cycles") == 0)
    return exp->test.ncycles > 0;
  /* the shape keys only where the fiber has them (a straight uniform fiber's file is
   * written as it always was) */
  const fl_fiber_def *fb = &exp->fiber;
  if (strcmp(p, "fiber.shape") == 0)
    return fb->shape != FL_SHAPE_STRAIGHT;
  if (strcmp(p, "fiber.arc_radius") == 0)
    return fb->shape == FL_SHAPE_ARC && fb->arc_radius_m > 0.0;
  if (strcmp(p, "fiber.arc_angle") == 0)
    return fb->shape == FL_SHAPE_ARC && !(fb->arc_radius_m > 0.0);
  if (strcmp(p, "fiber.polyline") == 0)
    return fb->shape == FL_SHAPE_POLYLINE;
  if (strcmp(p, "fiber.length") == 0)
    return fb->shape != FL_SHAPE_POLYLINE; /* the polyline's */
  if (strcmp(p, "fiber.outer_radius_end") == 0)
    return fb->outer_radius_end_m > 0.0;
  if (strcmp(p, "fiber.section_table") == 0)
    return fb->section_table[0] != '\0';
  if (strcmp(p, "fiber.nodes") == 0)
    return fb->nodes[0] != '\0';
  if (strcmp(p, "fiber.table_unit") == 0)
    return fb->table_unit != FL_TABLE_M && (fb->shape == FL_SHAPE_POLYLINE || fb->section_table[0] || fb->nodes[0]);
  if (strncmp(p, "bond.failure.", 13) == 0 && strcmp(p, "bond.failure.criterion") != 0)
    return exp->bond.failure.criterion != FL_CRIT_NONE;
  if (strncmp(p, "bond.buckling.", 14) == 0 && strcmp(p, "bond.buckling.type") != 0)
    return exp->bond.buckling.type != FL_BUCKLING_NONE;
  return 1;
}

void fl_experiment_emit(fl_yaml_out *y, const fl_experiment *exp)
{
  int open = 0; /* sections open */
  fl_yaml_map_begin(y, 0);
  for (size_t i = 0; i < NKEYS; i++) {
    const key_def *k = &keys[i];
    int depth = 0;
    for (const char *c = k->path; *c; c++)
      depth += *c == '.';
    const char *leaf = strrchr(k->path, '.');
    leaf = leaf ? leaf + 1 : k->path;
    for (; open > depth; open--)
      fl_yaml_map_end(y);
    if (k->type == KT_SECTION) {
      fl_yaml_str(y, leaf);
      fl_yaml_map_begin(y, 0);
      open++;
      continue;
    }
    if (!write_key(exp, k))
      continue;
    fl_yaml_str(y, leaf);
    write_value(y, exp, k);
    if (*k->unit)
      fl_yaml_note(y, k->unit);
  }
  for (; open > 0; open--)
    fl_yaml_map_end(y);
  fl_yaml_map_end(y);
}

int fl_experiment_write(FILE *f, const fl_experiment *exp)
{
  fl_yaml_out *y = fl_yaml_out_open(f);
  fl_experiment_emit(y, exp);
  return fl_yaml_out_close(&y);
}
