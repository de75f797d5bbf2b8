/* bend.c: the bending tests' table entries (test_kind.h), 3-point (bend3pt) and
 * 4-point (bend4pt): a fiber on two supports under one or two noses that move down; the
 * tools and their contact laws, what the tests measure (the supports' reaction, the
 * midspan deflection), their scales, and their checks and warnings (fiber-bend3pt(1),
 * fiber-bend4pt(1)). */
#include <config.h>

#include <math.h>
#include <stdio.h>

#include "contact.h"
#include "experiment_keys.h"
#include "fl_defs.h"
#include "measure.h"
#include "test_kind.h"

/* ---- the loading path ----------------------------------------------------------- */

static double target(const fl_test_def *t) { return t->max_displacement_m; }
static const char *target_key(const fl_test_def *t)
{
  (void)t;
  return "test.max_displacement";
}
static void reach(fl_test_def *t, double x) { t->max_displacement_m = x; }

/* ---- the specimen ----------------------------------------------------------------- */

static fl_contact_law tool_law(const fl_experiment *exp, double seg_mass, double tool_radius)
{
  fl_contact_law law;
  double E = exp->fiber.youngs_modulus, G = exp->fiber.shear_modulus;
  double nu = E / (2.0 * G) - 1.0;
  if (nu > 0.49)
    nu = 0.49;
  if (nu < -0.99)
    nu = -0.99;
  double Et = exp->test.tool_youngs_modulus, nut = exp->test.tool_poisson_ratio;
  double R = fl_fiber_outer_fibre(&exp->fiber), e = exp->test.restitution; /* the radius the tools touch */
  double Ec = exp->test.contact_modulus > 0.0 ? exp->test.contact_modulus : E; /* the section's across it */
  law.e_star = 1.0 / ((1.0 - nu * nu) / Ec + (1.0 - nut * nut) / Et);
  law.g_star = 1.0 / (2.0 * (2.0 - nu) * (1.0 + nu) / Ec + 2.0 * (2.0 - nut) * (1.0 + nut) / Et);
  law.r_star = R * tool_radius / (R + tool_radius);
  law.m_star = seg_mass;
  law.beta = e >= 1.0 ? 0.0 : log(e) / sqrt(log(e) * log(e) + FL_PI * FL_PI);
  /* a roller that turns freely about its axis takes no tangential load */
  law.mu = exp->test.rollers == FL_ROLLERS_ROTATING ? 0.0 : exp->test.friction;
  return law;
}

/* A rigid tool's penalty: its stiffness over the 3-point stiffness of the span,
 * 48 a_rot E I / L^3.  A 3-point test puts the nose's overlap F / k and the supports'
 * (F / 2) / k on the crosshead, 1.5 F / k in all against the span's F / k_span: the
 * penalty adds 1.5 / RIGID_PENALTY = 0.075 % to the deflection (4-point bending less,
 * its span being softer), and the time step of the explicit engine follows it.  The
 * static solver's floor of rounding counts it (static/workspace.c). */
#define RIGID_PENALTY 2000.0

/* The normal stiffness of one tool (N/m), or 0 for Hertz's law: the penalty of a tool
 * that does not indent (rigid, and linear, whose spring stands behind the tool in
 * series: fl_measure_series_compliance). */
static double tool_stiffness(const fl_experiment *exp, const fl_build_info *info)
{
  double L = info->length;
  if (exp->test.contact == FL_CONTACT_HERTZ)
    return 0.0;
  return RIGID_PENALTY * fl_test_bend_stiffness(exp, info, 48.0) / (L * L * L);
}

/* How many segments share a tool at x (m) at rest: two where it sits on a bond point,
 * whose segments each touch it with half its stiffness, one elsewhere. */
static int tool_segments(const fl_system *sys, double x)
{
  int n = 0;
  for (int i = 0; i < sys->nbody; i++)
    n += fabs(sys->x_ref[i].x - x) <= sys->half_length[i] * (1.0 + 1e-9);
  return n > 1 ? n : 1;
}

/* Every segment free on the two supports, under ntool - 2 noses. */
static int layout_tools(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info, int ntool)
{
  const fl_test_def *t = &exp->test;
  lay->nbody = exp->fiber.segments;
  lay->nfree = lay->nbody;
  lay->ntool = ntool;
  info->span = info->length = t->span_m;
  /* bonds across the span: those strictly between the supports (at k h - L/2) */
  info->free_bonds = 0;
  for (int k = 1; k < lay->nbody; k++)
    if (fabs(k * h - 0.5 * exp->fiber.length_m) < 0.5 * t->span_m)
      info->free_bonds++;
  info->centre_is_segment = lay->nbody % 2 == 1;
  return FL_OK;
}

static int layout_bend3pt(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info)
{
  return layout_tools(exp, h, lay, info, 3);
}

static int layout_bend4pt(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info)
{
  return layout_tools(exp, h, lay, info, 4);
}

/* Supports and noses, their contact laws, the weight, and the span's lowest mode. */
static double place(const fl_experiment *exp, const fl_experiment *const *exps, int nspec, const fl_shape *sh,
                    fl_system *sys, fl_build_info *info)
{
  const fl_fiber_def *fb = &exp->fiber;
  const fl_test_def *t = &exp->test;
  int ntool = sys->ntool;
  double kc = 0.0;
  /* Supports at exactly +-span/2, wherever that falls along a segment: the rollers
   * are cylinders touching the segments' surfaces, so a support between two bond
   * points is in contact with one segment, and one at a bond point with both. */
  double xs = 0.5 * t->span_m;
  sys->gravity = fl_v3(0.0, -t->gravity, 0.0);
  double rs = t->support_radius_m, rn = t->nose_radius_m, Rc = fl_fiber_outer_fibre(fb); /* touched radius */
  /* bend4pt: the two noses at exactly +-loading_span/2, the same way */
  double xn = ntool > 3 ? 0.5 * t->loading_span_m : 0.0;
  fl_tool tl[4] = {{fl_v3(-xs, -(Rc + rs), 0), fl_v3(0, 0, 1), fl_v3(0, 0, 0), rs},
                   {fl_v3(xs, -(Rc + rs), 0), fl_v3(0, 0, 1), fl_v3(0, 0, 0), rs},
                   {fl_v3(-xn, Rc + rn, 0), fl_v3(0, 0, 1), fl_v3(0, 0, 0), rn},
                   {fl_v3(xn, Rc + rn, 0), fl_v3(0, 0, 1), fl_v3(0, 0, 0), rn}};
  if (sh->curved || sh->varies) { /* under and over the segments there, as they lie */
    tl[0].point = fl_shape_tool_place(sh, sys->radius, -xs, rs, -1);
    tl[1].point = fl_shape_tool_place(sh, sys->radius, xs, rs, -1);
    tl[2].point = fl_shape_tool_place(sh, sys->radius, -xn, rn, 1);
    if (ntool > 3)
      tl[3].point = fl_shape_tool_place(sh, sys->radius, xn, rn, 1);
  }
  info->contact_overlap_ref = 0.05 * Rc;
  for (int k = 0; k < ntool; k++) {
    sys->tool[k] = tl[k];
    int touching = tool_segments(sys, tl[k].point.x);
    for (int s = 0; s < nspec; s++) {
      fl_contact_law *law = &sys->law[(size_t)s * ntool + k];
      *law = tool_law(exps[s], sys->mass[0], tl[k].radius);
      law->k_n = tool_stiffness(exps[s], info) / touching;
      /* the penalty's tangential stiffness: Mindlin's at the overlap of the bound */
      law->k_t = law->k_n > 0.0 ? 8.0 * law->g_star * sqrt(law->r_star * info->contact_overlap_ref) : 0.0;
      /* Contact stiffness at an overlap of 5 % of the radius, the stiffest tool. */
      double kk = fl_contact_stiffness(law, info->contact_overlap_ref);
      if (kk > kc)
        kc = kk;
    }
  }
  /* Lowest bending mode of the simply supported span. */
  double om = fl_test_bending_omega(exp, info, FL_PI / info->span);
  info->first_period = 2.0 * FL_PI / om;
  return kc;
}

/* ---- the measurements --------------------------------------------------------------- */

double fl_measure_indentation(const fl_system *sys, int s, double F)
{
  int ntool = sys->ntool, nnose = ntool - 2;
  double d[2] = {0.0, 0.0}; /* supports, noses */
  for (int k = 0; k < ntool; k++) {
    const fl_contact_law *law = &sys->law[(size_t)s * ntool + k];
    int touching = tool_segments(sys, sys->tool[k].point.x), nose = k >= 2;
    double share = (nose ? F / nnose : 0.5 * F) / touching;
    d[nose] += fl_contact_overlap_at(law, share) / (nose ? nnose : 2);
  }
  return d[0] + d[1];
}

static double abscissa(const fl_system *sys, int s, double travel)
{
  (void)sys, (void)s;
  return travel;
}

/* The supports' load: the specimen pushes them down. */
static double reaction(const fl_system *sys, int s)
{
  return -(sys->tool_force[(size_t)s * sys->ntool].y + sys->tool_force[(size_t)s * sys->ntool + 1].y);
}

static void columns_bend3pt(const fl_system *sys, int s, double span, fl_curve *c, size_t r)
{
  (void)span;
  c->support[r] = reaction(sys, s);
}

/* y of specimen s's axis at x = xa, on the segment whose reference centre lies
 * nearest. */
static double axis_y(const fl_system *sys, int s, double xa)
{
  int best = 0;
  for (int i = 1; i < sys->nbody; i++)
    if (fabs(sys->x_ref[i].x - xa) < fabs(sys->x_ref[best].x - xa))
      best = i;
  size_t k = (size_t)s * sys->nbody + best;
  return fl_add(sys->x[k], fl_qrot(sys->q[k], fl_v3(xa - sys->x_ref[best].x, 0, 0))).y;
}

double fl_run_midspan_deflection(const fl_system *sys, int s, double span)
{
  return 0.5 * (axis_y(sys, s, -0.5 * span) + axis_y(sys, s, 0.5 * span)) - axis_y(sys, s, 0.0);
}

static void columns_bend4pt(const fl_system *sys, int s, double span, fl_curve *c, size_t r)
{
  c->support[r] = reaction(sys, s);
  c->midspan[r] = fl_run_midspan_deflection(sys, s, span);
}

/* The largest moment peaks under the nose, at one bond. */
static int equally_loaded_bend3pt(const fl_experiment *e)
{
  (void)e;
  return 1;
}

/* The bond points strictly between the noses, at k h - L/2, carry the largest moment
 * (at least one). */
static int equally_loaded_bend4pt(const fl_experiment *e)
{
  const fl_test_def *t = &e->test;
  double h = e->fiber.length_m / e->fiber.segments;
  int m = 0;
  for (int k = 1; k < e->fiber.segments; k++)
    if (fabs(k * h - 0.5 * e->fiber.length_m) < 0.5 * t->loading_span_m)
      m++;
  return m < 1 ? 1 : m;
}

/* The nose's load at the path's end: delta = F L^3 / (48 E I). */
static double load_scale_bend3pt(const fl_experiment *e, const fl_build_info *info)
{
  double L = info->length, top = target(&e->test);
  return fl_test_bend_stiffness(e, info, 48.0) / (L * L * L) * top;
}

/* Each nose F/2 at c from its support: delta = (F/2) c^2 (3 L - 4 c) / (6 E I). */
static double load_scale_bend4pt(const fl_experiment *e, const fl_build_info *info)
{
  double L = info->length, top = target(&e->test);
  double c = 0.5 * (L - e->test.loading_span_m);
  return fl_test_bend_stiffness(e, info, 12.0) / (c * c * (3.0 * L - 4.0 * c)) * top;
}

/* The moment under the nose, F L / 4, at the outer fibre. */
static double stress_bend3pt(const fl_experiment *e, const fl_section *s, double c, double y)
{
  return y * e->test.span_m * c / (4.0 * s->inertia);
}

/* Between the noses, each F/2 at a from its support: M = F a / 2. */
static double stress_bend4pt(const fl_experiment *e, const fl_section *s, double c, double y)
{
  double a = 0.5 * (e->test.span_m - e->test.loading_span_m);
  return 0.5 * y * a * c / s->inertia;
}

/* 3-point bending where the static solver has no path of equilibria to follow, or may
 * not settle (solver.h). */
static int auto_explicit_bend3pt(const fl_experiment *exp)
{
  const fl_test_def *t = &exp->test;
  const fl_fiber_def *fb = &exp->fiber;
  /* bonds that break: the pieces after a break are a mechanism that only the supports'
   * friction may hold, with no path of equilibria to follow */
  if (exp->bond.failure.criterion != FL_CRIT_NONE && exp->bond.failure.post_failure == FL_POST_TOTAL_BREAKAGE)
    return 1;
  /* a weightless fiber on frictionless rollers: nothing but the contacts' curvature
   * holds it along its axis and about it, soft modes that Newton's differences lose in
   * rounding (tests/check_shape: a section table stalls near its end); the explicit
   * engine's damping settles them */
  if (t->gravity == 0.0 && t->friction == 0.0)
    return 1;
  /* a specimen whose weight need not be symmetric about its middle (a taper, a section
   * table, nodes, a scanned polyline): the tools push it along its axis toward its
   * thick end, which only friction holds, and the static solver may find no equilibrium
   * on the supports (fiberlab-experiment(5), SHAPE AND SECTIONS) */
  if (fb->outer_radius_end_m > 0.0 || fb->section_table[0] || fb->nodes[0] || fb->shape == FL_SHAPE_POLYLINE)
    return 1;
  return 0;
}

/* 4-point bending: the static solver does not settle the chain between two noses whose
 * rollers turn with it (the explicit engine does). */
static int auto_explicit_bend4pt(const fl_experiment *exp)
{
  (void)exp;
  return 1;
}

/* ---- the checks ------------------------------------------------------------------ */

static const char *straight_bend3pt(const fl_test_def *t, const char **in)
{
  (void)t, (void)in;
  return NULL;
}

static const char *straight_bend4pt(const fl_test_def *t, const char **in)
{
  (void)t, (void)in;
  return "its two noses are placed on a straight fiber";
}

/* A curved fiber in 3-point bending lies on both supports. */
static int check_shape(const fl_exp_checker *c, const fl_shape *sh)
{
  const fl_experiment *exp = c->exp;
  if (!sh->curved)
    return FL_OK;
  double reach = 0.0;
  for (int i = 0; i < sh->n; i++)
    reach = fmax(reach, fabs(sh->x[i].x));
  if (!(0.5 * exp->test.span_m < reach))
    return fl_exp_check_fail(c, "test.span",
                             "test.span: %g m does not fit under the %s fiber, whose segment centres reach "
                             "x = +-%g m; allowed: a span below %g m",
                             exp->test.span_m, fl_exp_shape_names[exp->fiber.shape], reach, 2.0 * reach);
  return FL_OK;
}

/* The supports inside the fiber's length (3- and 4-point bending). */
static int check_span(const fl_exp_checker *c)
{
  const fl_test_def *t = &c->exp->test;
  if (t->span_m >= c->exp->fiber.length_m)
    return fl_exp_check_fail(c, "test.span",
                             "test.span: %g m is not shorter than fiber.length %g m; allowed: span < length", t->span_m,
                             c->exp->fiber.length_m);
  return FL_OK;
}

/* test.contact_stiffness with the linear law, and only there; test.contact_modulus
 * with Hertz's only. */
static int check_contact(const fl_exp_checker *c)
{
  const fl_test_def *t = &c->exp->test;
  static const char *const names[] = {"hertz", "linear", "rigid"};
  int given = fl_exp_key_given(c->exp, "test.contact_stiffness");
  if (t->contact == FL_CONTACT_LINEAR && !(t->contact_stiffness > 0.0))
    return fl_exp_check_fail(c, "test.contact", "test.contact_stiffness: missing, and contact 'linear' needs it; "
                             "allowed: a number in (0, 1e+15] N/m");
  const struct {
    const char *key, *what;
    int given, law;
  } own[] = {{"test.contact_stiffness", "a stiffness", given || t->contact_stiffness > 0.0, FL_CONTACT_LINEAR},
             {"test.contact_modulus", "a modulus",
              fl_exp_key_given(c->exp, "test.contact_modulus") || t->contact_modulus > 0.0, FL_CONTACT_HERTZ}};
  for (int k = 0; k < 2; k++)
    if (own[k].given && t->contact != own[k].law)
      return fl_exp_check_fail(c, own[k].key, "%s: given with contact %s; allowed: %s with contact: %s only", own[k].key,
                               names[t->contact], own[k].what, names[own[k].law]);
  return FL_OK;
}

static int check_bend3pt(const fl_exp_checker *c)
{
  int rc = check_contact(c);
  return rc ? rc : check_span(c);
}

/* The two noses between the supports. */
static int check_bend4pt(const fl_exp_checker *c)
{
  const fl_test_def *t = &c->exp->test;
  if (t->loading_span_m >= t->span_m)
    return fl_exp_check_fail(c, "test.loading_span",
                             "test.loading_span: %g m is not shorter than test.span %g m; allowed: "
                             "loading_span < span",
                             t->loading_span_m, t->span_m);
  int rc = check_contact(c);
  return rc ? rc : check_span(c);
}

/* 3-point bending: a buckling envelope measured on another span. */
static void warn(fl_exp_warner *w)
{
  const fl_experiment *exp = w->exp;
  const fl_buckling_def *bk = &exp->bond.buckling;
  if (bk->type != FL_BUCKLING_NONE && fabs(bk->sample_length / exp->test.span_m - 1.0) > 0.2)
    fl_exp_warn(w, "bond.buckling.sample_length",
                "bond.buckling.sample_length %g m differs from test.span %g m: the "
                "envelope comes from a test of another span",
                bk->sample_length, exp->test.span_m);
}

/* 3-point bending: an odd segment count puts a segment centre under the nose. */
static void warn_fiber(fl_exp_warner *w)
{
  const fl_experiment *exp = w->exp;
  if (exp->fiber.segments % 2 == 1)
    fl_exp_warn(w, "fiber.segments",
                "fiber.segments %d is odd: a segment centre, not a bond, lies under the loading nose, "
                "so two bonds share the hinge (use an even count)",
                exp->fiber.segments);
}

/* ---- the entries ------------------------------------------------------------------ */

/* What 3- and 4-point bending share: noses driven down, the same measurements, units,
 * CSV columns and summary keys; each entry adds its own layout, scales and checks. */
#define BENDING_ENTRY                                                                                        \
  .drive = FL_DRIVE_NOSES, .target = target, .target_key = target_key, .reach = reach, .place = place,        \
  .abscissa = abscissa, .reaction = reaction, .x_unit = "m", .y_unit = "N", .k_unit = "N/m",                \
  .csv_x = "displacement_m", .csv_y = "force_N", .csv_support = "support_force_N",                           \
  .plot_x = "Nose displacement (mm)", .plot_xscale = "1e3", .xscale = 1e3, .key_length = "span",              \
  .key_speed = "speed", .key_peak = "peak_force", .key_at_peak = "displacement_at_peak",                     \
  .key_at_max = "force_at_max_displacement", .slope_scale = "bond.torque_stiffness_scale"

const fl_test_type fl_test_bend3pt = {
    BENDING_ENTRY,
    .name = "bend3pt",
    .what = "virtual 3-point bending test: force on the loading nose vs its displacement",
    .layout = layout_bend3pt,
    .columns = columns_bend3pt,
    .equally_loaded = equally_loaded_bend3pt,
    .load_scale = load_scale_bend3pt,
    .stress_at = stress_bend3pt,
    .auto_explicit = auto_explicit_bend3pt,
    .friction_turns = 1,
    .plot_y = "Force on the nose (N)",
    .envelope = 1,
    .kink = 1,
    .straight_only = straight_bend3pt,
    .check_shape = check_shape,
    .check = check_bend3pt,
    .warn = warn,
    .warn_fiber = warn_fiber,
};

const fl_test_type fl_test_bend4pt = {
    BENDING_ENTRY,
    .name = "bend4pt",
    .what = "virtual 4-point bending test: force on the two noses vs their displacement",
    .layout = layout_bend4pt,
    .columns = columns_bend4pt,
    .equally_loaded = equally_loaded_bend4pt,
    .load_scale = load_scale_bend4pt,
    .stress_at = stress_bend4pt,
    .auto_explicit = auto_explicit_bend4pt,
    .csv_last = "midspan_deflection_m",
    .plot_y = "Force on the two noses (N)",
    .straight_only = straight_bend4pt,
    .check = check_bend4pt,
};
