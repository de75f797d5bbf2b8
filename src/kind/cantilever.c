/* cantilever.c: the cantilever test's table entry (test_kind.h): a fiber held in a
 * clamp at its start, its tip driven along -y by a stiff spring or a dead load; its
 * layout, its tip load and its drive, its tip displacement, the clamp's reaction, its
 * scales and its checks (fiber-cantilever(1)).  The ring-down after a vibration test's
 * release is src/cantilever.c. */
#include <config.h>

#include <math.h>

#include "cantilever.h"
#include "experiment_keys.h"
#include "fl_defs.h"
#include "test_kind.h"

/* ---- the loading path ----------------------------------------------------------- */

static double target(const fl_test_def *t)
{
  return t->tip_control == FL_TIP_LOAD ? t->max_tip_load_n : t->max_tip_displacement_m;
}

static const char *target_key(const fl_test_def *t)
{
  return t->tip_control == FL_TIP_LOAD ? "test.max_tip_load" : "test.max_tip_displacement";
}

/* Under displacement control the tip follows the spring's far end closely; under load
 * control the experiment's own max_tip_load stays. */
static void reach(fl_test_def *t, double x)
{
  if (t->tip_control == FL_TIP_DISPLACEMENT)
    t->max_tip_displacement_m = x;
}

static int rings(const fl_test_def *t) { return t->mode == FL_MODE_VIBRATION; }

/* ---- the specimen ----------------------------------------------------------------- */

static int layout(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info)
{
  /* the clamp holds the first bodies (half a segment or more of the clamp length
   * makes a body) and the clamped side of the bond at its face; the rest hang free */
  const fl_test_def *t = &exp->test;
  int nbody = exp->fiber.segments;
  int ng = (int)floor(t->clamp_length_m / h + 0.5);
  if (ng < 1)
    ng = 1;
  if (ng > nbody - 2)
    return FL_EINPUT;
  lay->nbody = nbody;
  lay->ngrip = ng;
  lay->nfree = nbody - ng;
  lay->rigid_face = 1;
  info->gauge = info->length = lay->nfree * h;
  info->free_bonds = lay->nfree;
  info->clamped = ng;
  return FL_OK;
}

/* Gravity along -y, the tip load (a dead load, or the driving spring), the period of
 * the first mode into info. */
static void tip_load(const fl_experiment *exp, fl_build_info *info, fl_system *sys)
{
  const fl_fiber_def *fb = &exp->fiber;
  double ei = fl_test_bend_stiffness(exp, info, 1.0);
  double lf = info->gauge; /* free length: from the clamp's face to the tip */
  sys->gravity = fl_v3(0.0, -exp->test.gravity, 0.0);
  /* Euler-Bernoulli's first mode of the free length */
  double om = FL_CANTILEVER_BETA1 * FL_CANTILEVER_BETA1 / (lf * lf) * sqrt(ei / (fb->density * info->section.area));
  info->first_period = 2.0 * FL_PI / om;
  /* the load acts at the fiber's free end, the far end of the last body's bonded
   * length, downwards */
  fl_point_load *pl = &sys->pload;
  pl->body = sys->nbody - 1;
  pl->arm = fl_v3(0.5 * info->h, 0.0, 0.0);
  pl->dir = fl_v3(0.0, -1.0, 0.0);
  pl->force = 0.0;
  pl->anchor = 0.0;
  pl->spring = exp->test.tip_control == FL_TIP_DISPLACEMENT ? FL_TIP_SPRING_SCALE * 3.0 * ei / (lf * lf * lf) : 0.0;
  info->tip_spring = pl->spring;
}

static double place(const fl_experiment *exp, const fl_experiment *const *exps, int nspec, const fl_shape *sh,
                    fl_system *sys, fl_build_info *info)
{
  (void)exps, (void)nspec, (void)sh;
  tip_load(exp, info, sys);
  return 0.0;
}

/* The tip's drive at path position pos: the spring's anchor (m) under displacement
 * control, the dead load (N) under load control. */
static void drive(fl_system *sys, const fl_test_def *t, double pos)
{
  if (t->tip_control == FL_TIP_LOAD)
    sys->pload.force = pos;
  else
    sys->pload.anchor = pos;
}

/* ---- the measurements --------------------------------------------------------------- */

static double abscissa(const fl_system *sys, int s, double travel)
{
  (void)travel;
  return fl_system_pload_displacement(sys, s);
}

/* The clamp's load: the tip load pulls it down. */
static double down(const fl_system *sys, size_t k) { return -sys->f[k].y; }
static double reaction(const fl_system *sys, int s) { return fl_test_held_sum(sys, s, down); }

/* The largest moment peaks at the clamp, at one bond. */
static int equally_loaded(const fl_experiment *e)
{
  (void)e;
  return 1;
}

/* Euler-Bernoulli's tip stiffness 3 E I / L^3 times the tip displacement, or the load
 * itself. */
static double load_scale(const fl_experiment *e, const fl_build_info *info)
{
  const fl_test_def *t = &e->test;
  double L = info->length, top = target(t);
  return t->tip_control == FL_TIP_LOAD ? top : fl_test_bend_stiffness(e, info, 3.0) / (L * L * L) * top;
}

/* The moment at the clamp's face, the tip load times the free length (the clamp holds
 * whole segments, as the layout takes them). */
static double stress_at(const fl_experiment *e, const fl_section *s, double c, double y)
{
  const fl_fiber_def *fb = &e->fiber;
  double h = fb->length_m / fb->segments;
  int ng = (int)floor(e->test.clamp_length_m / h + 0.5);
  return y * (fb->segments - ng) * h * c / s->inertia;
}

/* ---- the checks ------------------------------------------------------------------ */

/* A static cantilever takes a curved fiber (its clamp holds the first segments as they
 * lie, its tip load acts at the free end); a vibration cantilever does not. */
static const char *straight_only(const fl_test_def *t, const char **in)
{
  if (t->mode == FL_MODE_STATIC)
    return NULL;
  *in = "a vibration cantilever";
  return "its first mode is a straight beam's";
}

/* Before the path's checks: a cantilever hangs in the air, without gravity unless the
 * file asks for it, from a clamp of whole segments that leaves at least 2 free. */
static int settle(fl_exp_checker *c)
{
  const fl_fiber_def *fb = &c->exp->fiber;
  fl_test_def *t = &c->exp->test;
  if (!t->gravity_given)
    t->gravity = 0.0;
  double h = fb->length_m / fb->segments;
  int ng = (int)floor(t->clamp_length_m / h + 0.5);
  if (ng < 1 || fb->segments - ng < 2)
    return fl_exp_check_fail(c, "test.clamp_length",
                             "test.clamp_length: %g m clamps %d of the %d segments of %g m; allowed: "
                             "at least half a segment, and at least 2 segments free: [%g, %g) m",
                             t->clamp_length_m, ng, fb->segments, h, 0.5 * h, (fb->segments - 1.5) * h);
  return FL_OK;
}

/* ---- the entry -------------------------------------------------------------------- */

const fl_test_type fl_test_cantilever = {
    .name = "cantilever",
    .what = "virtual cantilever test: tip load vs tip displacement, or the free vibration",
    .drive = FL_DRIVE_LOAD,
    .target = target,
    .target_key = target_key,
    .reach = reach,
    .rings = rings,
    .layout = layout,
    .place = place,
    .load_at = drive,
    .abscissa = abscissa,
    .reaction = reaction,
    .equally_loaded = equally_loaded,
    .load_scale = load_scale,
    .stress_at = stress_at,
    .x_unit = "m",
    .y_unit = "N",
    .k_unit = "N/m",
    .csv_x = "tip_displacement_m",
    .csv_y = "force_N",
    .plot_x = "Tip displacement (mm)",
    .plot_y = "Tip load (N)",
    .plot_xscale = "1e3",
    .xscale = 1e3,
    .key_length = "free_length",
    .key_speed = "speed",
    .key_peak = "peak_force",
    .key_at_peak = "tip_displacement_at_peak",
    .slope_scale = "bond.torque_stiffness_scale",
    .straight_only = straight_only,
    .settle = settle,
};
