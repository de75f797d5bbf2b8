/* cantilever.c: the cantilever test (fiber-cantilever(1)): a fiber held in a clamp at
 * its start, its tip driven along -y by a stiff spring or a dead load; its layout, its
 * tip load and its drive, and its checks.  The ring-down after a vibration test's
 * release is src/cantilever.c. */
#include <config.h>

#include <math.h>

#include "cantilever.h"
#include "fl_defs.h"
#include "kinds.h"

int fl_cantilever_layout(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info)
{
  /* the clamp holds the first bodies (half a segment or more of the clamp length
   * makes a body); the rest hang free */
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
  info->gauge = lay->nfree * h;
  info->free_bonds = lay->nfree;
  info->clamped = ng;
  return FL_OK;
}

void fl_cantilever_load(const fl_experiment *exp, fl_build_info *info, fl_system *sys)
{
  const fl_fiber_def *fb = &exp->fiber;
  double ei = exp->bond.torque_stiffness_scale * fb->youngs_modulus * info->section.inertia;
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

void fl_cantilever_drive(fl_system *sys, const fl_test_def *t, double pos)
{
  if (t->tip_control == FL_TIP_LOAD)
    sys->pload.force = pos;
  else
    sys->pload.anchor = pos;
}

/* Before the path's checks: a cantilever hangs in the air, without gravity unless the
 * file asks for it, from a clamp of whole segments that leaves at least 2 free. */
int fl_cantilever_settle(fl_exp_checker *c)
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
