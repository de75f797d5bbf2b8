/* compression.c: the compression test's table entry (test_kind.h): a fiber pinned
 * between two grips, bowed at rest by a small imperfection, pushed past its buckling
 * load; its layout and rest shape, its lowest mode, the fixed grip's reaction, its
 * lateral deflection, its scales and its checks (fiber-compression(1)). */
#include <config.h>

#include <math.h>

#include "experiment_keys.h"
#include "fl_defs.h"
#include "test_kind.h"

/* ---- the loading path ----------------------------------------------------------- */

static double target(const fl_test_def *t) { return t->max_shortening_m; }
static const char *target_key(const fl_test_def *t)
{
  (void)t;
  return "test.max_shortening";
}
static void reach(fl_test_def *t, double x) { t->max_shortening_m = x; }

/* ---- the specimen ----------------------------------------------------------------- */

static int layout(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info)
{
  /* a grip segment at each end, pinned to the fiber (fl_compression_shape) */
  lay->nbody = exp->fiber.segments;
  lay->ngrip = 1;
  lay->nfree = lay->nbody - 2;
  lay->pinned = 1;
  info->gauge = info->length = lay->nfree * h; /* between the two hinges */
  info->free_bonds = lay->nbody - 1;
  return FL_OK;
}

/* The rest shape (x_ref, q_ref), before the bonds are made in it: the grip segments
 * along x at the ends, and between the hinges (the bond points next to them, a pinned
 * length (n - 2) h apart) the free segments as chords of the half sine
 * y = test.imperfection (n - 2) h sin(pi s / ((n - 2) h)), s from the first hinge. */
static void rest(const fl_experiment *exp, fl_system *sys, double h)
{
  int n = sys->nbody, m = n - 2; /* m free segments between the hinges */
  double lp = m * h, a0 = exp->test.imperfection * lp, x0 = -0.5 * exp->fiber.length_m + h;
  for (int k = 0; k < m; k++) {
    /* free body k + 1 spans the chord from s = k h to (k + 1) h */
    double y1 = a0 * sin(FL_PI * k / m), y2 = a0 * sin(FL_PI * (k + 1) / m);
    double ang = atan2(y2 - y1, h);
    sys->x_ref[k + 1] = fl_v3(x0 + (k + 0.5) * h, 0.5 * (y1 + y2), 0.0);
    sys->q_ref[k + 1] = fl_qexp(fl_v3(0.0, 0.0, ang));
  }
  sys->x_ref[0] = fl_v3(x0 - 0.5 * h, 0.0, 0.0);
  sys->x_ref[n - 1] = fl_v3(x0 + lp + 0.5 * h, 0.0, 0.0);
  sys->q_ref[0] = sys->q_ref[n - 1] = fl_qid();
  for (int s = 0; s < sys->nspec; s++)
    for (int i = 0; i < n; i++) {
      sys->x[(size_t)s * n + i] = sys->x_ref[i];
      sys->q[(size_t)s * n + i] = sys->q_ref[i];
    }
}

static double place(const fl_experiment *exp, const fl_experiment *const *exps, int nspec, const fl_shape *sh,
                    fl_system *sys, fl_build_info *info)
{
  (void)exps, (void)nspec, (void)sh, (void)sys;
  /* the pinned column's first bending mode, unloaded */
  double om = fl_test_bending_omega(exp, info, FL_PI / info->gauge);
  info->first_period = 2.0 * FL_PI / om;
  return 0.0;
}

/* ---- the measurements --------------------------------------------------------------- */

static double abscissa(const fl_system *sys, int s, double travel)
{
  (void)sys, (void)s;
  return travel;
}

/* The fixed grip's load: the fiber pushes it along -x. */
static double push(const fl_system *sys, size_t k) { return -sys->f[k].x; }
static double reaction(const fl_system *sys, int s) { return fl_test_held_sum(sys, s, push); }

/* The lateral deflection (along y) of specimen s's axis at midspan from its place at
 * rest, m. */
static double lateral(const fl_system *sys, int s)
{
  /* the point of the axis over x = 0 at rest, on the segment whose centre lies nearest */
  int best = 0;
  for (int i = 1; i < sys->nbody; i++)
    if (fabs(sys->x_ref[i].x) < fabs(sys->x_ref[best].x))
      best = i;
  fl_vec3 arm = fl_qrot(fl_qconj(sys->q_ref[best]), fl_v3(-sys->x_ref[best].x, 0.0, 0.0));
  size_t k = (size_t)s * sys->nbody + best;
  fl_vec3 now = fl_add(sys->x[k], fl_qrot(sys->q[k], arm));
  fl_vec3 rest = fl_add(sys->x_ref[best], fl_qrot(sys->q_ref[best], arm));
  return now.y - rest.y;
}

static void columns(const fl_system *sys, int s, double span, fl_curve *c, size_t r)
{
  (void)span;
  c->midspan[r] = lateral(sys, s);
}

/* The largest moment peaks at the middle of the pinned column, at one bond. */
static int equally_loaded(const fl_experiment *e)
{
  (void)e;
  return 1;
}

/* The pinned column's Euler load. */
static double load_scale(const fl_experiment *e, const fl_build_info *info)
{
  double L = info->length;
  return fl_test_bend_stiffness(e, info, 1.0) * (FL_PI / L) * (FL_PI / L);
}

/* The axial stress of the column's load, F / A (its bow's bending comes on top). */
static double stress_at(const fl_experiment *e, const fl_section *s, double c, double y)
{
  (void)e, (void)c;
  return y / s->area;
}

/* ---- the checks ------------------------------------------------------------------ */

static const char *straight_only(const fl_test_def *t, const char **in)
{
  (void)t, (void)in;
  return "its imperfection is the half-sine bow test.imperfection gives";
}

/* A grip segment at each end and 2 free between them. */
static int check(const fl_exp_checker *c)
{
  const fl_fiber_def *fb = &c->exp->fiber;
  if (fb->segments < 4)
    return fl_exp_check_fail(c, "fiber.segments",
                             "fiber.segments: %d for a compression test; allowed: at least 4 (a grip "
                             "segment at each end, 2 free)",
                             fb->segments);
  return FL_OK;
}

/* ---- the entry -------------------------------------------------------------------- */

const fl_test_type fl_test_compression = {
    .name = "compression",
    .what = "virtual compression test of a pinned fiber: grip force vs shortening, past buckling",
    .drive = FL_DRIVE_PUSH,
    .target = target,
    .target_key = target_key,
    .reach = reach,
    .layout = layout,
    .rest = rest,
    .place = place,
    .abscissa = abscissa,
    .reaction = reaction,
    .columns = columns,
    .equally_loaded = equally_loaded,
    .load_scale = load_scale,
    .critical_load = load_scale, /* the column buckles at its Euler load */
    .stress_at = stress_at,
    .x_unit = "m",
    .y_unit = "N",
    .k_unit = "N/m",
    .csv_x = "shortening_m",
    .csv_y = "force_N",
    .csv_last = "midspan_lateral_m",
    .plot_x = "Shortening (mm)",
    .plot_y = "Grip force, compression positive (N)",
    .plot_xscale = "1e3",
    .xscale = 1e3,
    .key_length = "pinned_length",
    .key_speed = "speed",
    .key_peak = "peak_force",
    .key_at_peak = "shortening_at_peak",
    .slope_scale = "bond.torque_stiffness_scale",
    .straight_only = straight_only,
    .check = check,
};
