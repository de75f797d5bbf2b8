/* bend.c: the bending tests, 3-point (bend3pt) and 4-point (bend4pt): a fiber on two
 * supports under one or two noses, its tools and their contact laws, and its checks
 * and warnings (fiber-bend3pt(1), fiber-bend4pt(1)). */
#include <config.h>

#include <math.h>
#include <stdio.h>

#include "fl_defs.h"
#include "kinds.h"

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
  law.e_star = 1.0 / ((1.0 - nu * nu) / E + (1.0 - nut * nut) / Et);
  law.g_star = 1.0 / (2.0 * (2.0 - nu) * (1.0 + nu) / E + 2.0 * (2.0 - nut) * (1.0 + nut) / Et);
  law.r_star = R * tool_radius / (R + tool_radius);
  law.m_star = seg_mass;
  law.beta = e >= 1.0 ? 0.0 : log(e) / sqrt(log(e) * log(e) + FL_PI * FL_PI);
  /* a roller that turns freely about its axis takes no tangential load */
  law.mu = exp->test.rollers == FL_ROLLERS_ROTATING ? 0.0 : exp->test.friction;
  return law;
}

int fl_bend_layout(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info)
{
  (void)h, (void)info;
  const fl_test_def *t = &exp->test;
  lay->nbody = exp->fiber.segments;
  lay->nfree = lay->nbody;
  lay->ntool = t->kind == FL_TEST_BEND4PT ? 4 : 3;
  return FL_OK;
}

double fl_bend_place(const fl_experiment *exp, const fl_experiment *const *exps, int nspec, const fl_shape *sh,
                     fl_system *sys, fl_build_info *info)
{
  const fl_fiber_def *fb = &exp->fiber;
  const fl_test_def *t = &exp->test;
  const fl_section sec = info->section;
  double h = info->h, E = fb->youngs_modulus, rho = fb->density;
  int nbody = sys->nbody, ntool = sys->ntool;
  double kc = 0.0;
  /* Supports at exactly +-span/2, wherever that falls along a segment: the rollers
   * are cylinders touching the segments' surfaces, so a support between two bond
   * points is in contact with one segment, and one at a bond point with both. */
  double xs = 0.5 * t->span_m;
  info->span = t->span_m;
  sys->gravity = fl_v3(0.0, -t->gravity, 0.0);
  /* bonds across the span: those strictly between the supports (at k h - L/2) */
  info->free_bonds = 0;
  for (int k = 1; k < nbody; k++)
    if (fabs(k * h - 0.5 * fb->length_m) < xs)
      info->free_bonds++;
  info->centre_is_segment = nbody % 2 == 1;
  double rs = t->support_radius_m, rn = t->nose_radius_m, Rc = fl_fiber_outer_fibre(fb); /* touched radius */
  /* bend4pt: the two noses at exactly +-loading_span/2, the same way */
  double xn = t->kind == FL_TEST_BEND4PT ? 0.5 * t->loading_span_m : 0.0;
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
    for (int s = 0; s < nspec; s++) {
      fl_contact_law *law = &sys->law[(size_t)s * ntool + k];
      *law = tool_law(exps[s], sys->mass[0], tl[k].radius);
      /* Contact stiffness at an overlap of 5 % of the radius, the stiffest tool. */
      double kk = 2.0 * law->e_star * sqrt(law->r_star * info->contact_overlap_ref);
      if (kk > kc)
        kc = kk;
    }
  }
  /* Lowest bending mode of the simply supported span. */
  double om = (FL_PI / info->span) * (FL_PI / info->span) *
              sqrt(exp->bond.torque_stiffness_scale * E * sec.inertia / (rho * sec.area));
  info->first_period = 2.0 * FL_PI / om;
  return kc;
}

/* A curved fiber in 3-point bending lies on both supports. */
int fl_bend3pt_check_shape(const fl_exp_checker *c, const fl_shape *sh)
{
  const fl_experiment *exp = c->exp;
  if (!sh->curved || exp->test.kind != FL_TEST_BEND3PT)
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

int fl_bend3pt_check(const fl_exp_checker *c) { return check_span(c); }

/* The two noses between the supports. */
int fl_bend4pt_check(const fl_exp_checker *c)
{
  const fl_test_def *t = &c->exp->test;
  if (t->loading_span_m >= t->span_m)
    return fl_exp_check_fail(c, "test.loading_span",
                             "test.loading_span: %g m is not shorter than test.span %g m; allowed: "
                             "loading_span < span",
                             t->loading_span_m, t->span_m);
  return check_span(c);
}

/* 3-point bending: a buckling envelope measured on another span. */
void fl_bend3pt_warn(fl_exp_warner *w)
{
  const fl_experiment *exp = w->exp;
  const fl_buckling_def *bk = &exp->bond.buckling;
  if (bk->type != FL_BUCKLING_NONE && exp->test.kind == FL_TEST_BEND3PT &&
      fabs(bk->sample_length / exp->test.span_m - 1.0) > 0.2)
    fl_exp_warn(w, "bond.buckling.sample_length",
                "bond.buckling.sample_length %g m differs from test.span %g m: the "
                "envelope comes from a test of another span",
                bk->sample_length, exp->test.span_m);
}

/* 3-point bending: an odd segment count puts a segment centre under the nose. */
void fl_bend3pt_warn_fiber(fl_exp_warner *w)
{
  const fl_experiment *exp = w->exp;
  if (exp->test.kind == FL_TEST_BEND3PT && exp->fiber.segments % 2 == 1)
    fl_exp_warn(w, "fiber.segments",
                "fiber.segments %d is odd: a segment centre, not a bond, lies under the loading nose, "
                "so two bonds share the hinge (use an even count)",
                exp->fiber.segments);
}
