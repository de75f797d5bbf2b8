/* grips.c: the table entries (test_kind.h) of the tests that hold a fiber in two
 * grips and move one, tension (along the fiber) and torsion (about it): the gauge
 * between the grips, the lowest mode that sets their speed, the fixed grip's reaction,
 * their scales, and their checks and warnings (fiber-tension(1), fiber-torsion(1)). */
#include <config.h>

#include <math.h>
#include <stdio.h>

#include "experiment_keys.h"
#include "fl_defs.h"
#include "test_kind.h"

/* ---- the loading path ----------------------------------------------------------- */

static double target_tension(const fl_test_def *t) { return t->max_elongation_m; }
static const char *key_tension(const fl_test_def *t)
{
  (void)t;
  return "test.max_elongation";
}
static void reach_tension(fl_test_def *t, double x) { t->max_elongation_m = x; }

static double target_torsion(const fl_test_def *t) { return t->max_twist_rad; }
static const char *key_torsion(const fl_test_def *t)
{
  (void)t;
  return "test.max_twist";
}
static void reach_torsion(fl_test_def *t, double x) { t->max_twist_rad = x; }

/* ---- the specimen ----------------------------------------------------------------- */

/* The gauge simulated: the whole number of segments nearest to test.gauge_length, at
 * least 2. */
static int gauge_segments(const fl_test_def *t, double h)
{
  int m = (int)floor(t->gauge_length_m / h + 0.5);
  return m < 2 ? 2 : m;
}

/* A grip of whole segments at each end, the gauge's segments free between them. */
static int layout(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info)
{
  const fl_test_def *t = &exp->test;
  int ng = (int)floor(t->grip_length_m / h + 0.5);
  if (ng < 1)
    ng = 1;
  int m = gauge_segments(t, h);
  lay->ngrip = ng;
  lay->nfree = m - 1;
  lay->nbody = 2 * ng + lay->nfree;
  lay->chord = 1;
  info->gauge = info->length = m * h;
  info->free_bonds = m;
  return FL_OK;
}

/* A curved gauge bends as it is pulled or turned: its first bending mode between the
 * clamps (4.730^2 for a clamped-clamped beam) is far slower than the axial or torsional
 * one, and the automatic speed must be slow against it. */
static void curved_period(const fl_experiment *exp, const fl_shape *sh, fl_build_info *info)
{
  if (!sh->curved)
    return;
  double om = fl_test_bending_omega(exp, info, 4.730 / info->gauge);
  info->first_period = fmax(info->first_period, 2.0 * FL_PI / om);
}

/* The gauge's lowest axial mode (a wave there and back). */
static double place_tension(const fl_experiment *exp, const fl_experiment *const *exps, int nspec, const fl_shape *sh,
                            fl_system *sys, fl_build_info *info)
{
  (void)exps, (void)nspec, (void)sys;
  double c = sqrt(exp->bond.force_stiffness_scale * exp->fiber.youngs_modulus / exp->fiber.density);
  info->first_period = 2.0 * info->gauge / c;
  curved_period(exp, sh, info);
  return 0.0;
}

/* The gauge's lowest torsional mode. */
static double place_torsion(const fl_experiment *exp, const fl_experiment *const *exps, int nspec, const fl_shape *sh,
                            fl_system *sys, fl_build_info *info)
{
  (void)exps, (void)nspec, (void)sys;
  double c = sqrt(exp->bond.torque_stiffness_scale * exp->fiber.shear_modulus / exp->fiber.density);
  info->first_period = 2.0 * info->gauge / c;
  curved_period(exp, sh, info);
  return 0.0;
}

/* ---- the measurements --------------------------------------------------------------- */

static double abscissa(const fl_system *sys, int s, double travel)
{
  (void)sys, (void)s;
  return travel;
}

/* The fixed grip's pull along the fiber, tension positive. */
static double pull(const fl_system *sys, size_t k) { return sys->f[k].x; }
static double reaction_tension(const fl_system *sys, int s) { return fl_test_held_sum(sys, s, pull); }

/* The fixed grip's torque about the fiber's axis (the x axis). */
static double twist(const fl_system *sys, size_t k) { return sys->t[k].x + fl_cross(sys->x[k], sys->f[k]).x; }
static double reaction_torsion(const fl_system *sys, int s) { return fl_test_held_sum(sys, s, twist); }

/* The gauge's bonds all carry the load (as the layout makes it: at least 2). */
static int equally_loaded(const fl_experiment *e)
{
  return gauge_segments(&e->test, e->fiber.length_m / e->fiber.segments);
}

/* The grip's force at the path's end: a_disp E A / L times the elongation. */
static double load_scale_tension(const fl_experiment *e, const fl_build_info *info)
{
  double E = e->fiber.youngs_modulus, L = info->length, top = target_tension(&e->test);
  return e->bond.force_stiffness_scale * E * info->section.area / L * top;
}

/* The grip's torque at the path's end: a_rot G J / L times the twist. */
static double load_scale_torsion(const fl_experiment *e, const fl_build_info *info)
{
  double G = e->fiber.shear_modulus, L = info->length, top = target_torsion(&e->test);
  return e->bond.torque_stiffness_scale * G * info->section.polar / L * top;
}

/* A shaft twisted past Greenhill's load may bifurcate: hinged ends, 2 pi E I / L, the
 * lower of the two classical ones. */
static double critical_torsion(const fl_experiment *e, const fl_build_info *info)
{
  return 2.0 * FL_PI * e->bond.torque_stiffness_scale * e->fiber.youngs_modulus * info->section.inertia / info->length;
}

/* The axial stress, F / A. */
static double stress_tension(const fl_experiment *e, const fl_section *s, double c, double y)
{
  (void)e, (void)c;
  return y / s->area;
}

/* Von Mises's stress of the shear at the outer fibre, sqrt(3) T c / J. */
static double stress_torsion(const fl_experiment *e, const fl_section *s, double c, double y)
{
  (void)e;
  return sqrt(3.0) * y * c / s->polar;
}

/* ---- the checks ------------------------------------------------------------------ */

/* A curved fiber goes in: its grips hold the end segments as they lie and pull along,
 * or turn about, the chord between them. */
static const char *straight_only(const fl_test_def *t, const char **in)
{
  (void)t, (void)in;
  return NULL;
}

/* The gauge and the two grips within the fiber (tension and torsion). */
static int check(const fl_exp_checker *c)
{
  const fl_test_def *t = &c->exp->test;
  const fl_fiber_def *fb = &c->exp->fiber;
  if (t->gauge_length_m + 2.0 * t->grip_length_m > fb->length_m * (1.0 + 1e-9))
    return fl_exp_check_fail(c, "test.gauge_length",
                             "test.gauge_length: %g m plus two grip_length %g m exceeds fiber.length "
                             "%g m; allowed: gauge_length + 2 grip_length <= length",
                             t->gauge_length_m, t->grip_length_m, fb->length_m);
  return FL_OK;
}

/* Tension and torsion: the grips hold whole segments, so the gauge simulated is the
 * whole number m of segment lengths nearest to the one asked for (run.c).  Say so when
 * they differ, with the segment count nearest to the file's that makes them equal. */
static void warn(fl_exp_warner *w)
{
  const fl_experiment *exp = w->exp;
  const fl_fiber_def *fb = &exp->fiber;
  double h = fb->length_m / fb->segments, g = exp->test.gauge_length_m;
  double m = floor(g / h + 0.5);
  if (m < 2)
    m = 2;
  if (!(fabs(m * h - g) > 1e-9 * g))
    return;
  char hint[160] = "";
  int best = 0;
  for (int d = 0; d <= 100000 && !best; d++) /* n segments give a whole n g / L */
    for (int sgn = -1; sgn <= 1 && !best; sgn += 2) {
      int cand = fb->segments + sgn * d;
      double wc = cand * g / fb->length_m;
      if (cand >= 3 && cand <= 1000000 && wc >= 1.5 && fabs(wc - floor(wc + 0.5)) <= 1e-9 * wc)
        best = cand;
    }
  if (best)
    snprintf(hint, sizeof hint, "; fiber.segments: %d would give it exactly", best);
  fl_exp_warn(w, "test.gauge_length",
              "test.gauge_length %g m is simulated as %.6g m (%.4g %%): the grips hold whole segments "
              "of %.6g m%s",
              g, m * h, 100.0 * (m * h / g - 1.0), h, hint);
}

/* ---- the entries ------------------------------------------------------------------ */

const fl_test_type fl_test_tension = {
    .name = "tension",
    .what = "virtual tensile test: grip force vs elongation",
    .drive = FL_DRIVE_PULL,
    .target = target_tension,
    .target_key = key_tension,
    .reach = reach_tension,
    .layout = layout,
    .place = place_tension,
    .abscissa = abscissa,
    .reaction = reaction_tension,
    .equally_loaded = equally_loaded,
    .load_scale = load_scale_tension,
    .stress_at = stress_tension,
    .x_unit = "m",
    .y_unit = "N",
    .k_unit = "N/m",
    .csv_x = "elongation_m",
    .csv_y = "force_N",
    .plot_x = "Elongation (mm)",
    .plot_y = "Grip force (N)",
    .plot_xscale = "1e3",
    .xscale = 1e3,
    .key_length = "gauge_length",
    .key_speed = "speed",
    .key_peak = "peak_force",
    .key_at_peak = "elongation_at_peak",
    .slope_scale = "bond.force_stiffness_scale",
    .straight_only = straight_only,
    .check = check,
    .warn = warn,
};

const fl_test_type fl_test_torsion = {
    .name = "torsion",
    .what = "virtual torsion test: grip torque vs twist angle",
    .drive = FL_DRIVE_TURN,
    .angular = 1,
    .target = target_torsion,
    .target_key = key_torsion,
    .reach = reach_torsion,
    .layout = layout,
    .place = place_torsion,
    .abscissa = abscissa,
    .reaction = reaction_torsion,
    .equally_loaded = equally_loaded,
    .load_scale = load_scale_torsion,
    .critical_load = critical_torsion,
    .stress_at = stress_torsion,
    .x_unit = "rad",
    .y_unit = "N m",
    .k_unit = "N m/rad",
    .csv_x = "twist_rad",
    .csv_y = "torque_Nm",
    .plot_x = "Twist (deg)",
    .plot_y = "Grip torque (N m)",
    .plot_xscale = "180.0/pi",
    .xscale = 180.0 / FL_PI,
    .key_length = "gauge_length",
    .key_speed = "angular_speed",
    .key_peak = "peak_torque",
    .key_at_peak = "twist_at_peak",
    .slope_scale = "bond.torque_stiffness_scale",
    .straight_only = straight_only,
    .check = check,
    .warn = warn,
};
