/* compression.c: the compression test (fiber-compression(1)): a fiber pinned between
 * two grips, bowed at rest by a small imperfection, pushed past its buckling load; its
 * layout and rest shape, its lowest mode, its lateral deflection and its checks. */
#include <config.h>

#include <math.h>

#include "fl_defs.h"
#include "kinds.h"

int fl_compression_layout(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info)
{
  /* a grip segment at each end, pinned to the fiber (fl_compression_shape) */
  lay->nbody = exp->fiber.segments;
  lay->ngrip = 1;
  lay->nfree = lay->nbody - 2;
  lay->pinned = 1;
  info->gauge = lay->nfree * h; /* between the two hinges */
  info->free_bonds = lay->nbody - 1;
  return FL_OK;
}

void fl_compression_shape(const fl_experiment *exp, fl_system *sys, double h)
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

double fl_compression_lateral(const fl_system *sys, int s)
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

double fl_compression_place(const fl_experiment *exp, const fl_experiment *const *exps, int nspec, const fl_shape *sh,
                            fl_system *sys, fl_build_info *info)
{
  (void)exps, (void)nspec, (void)sh, (void)sys;
  const fl_fiber_def *fb = &exp->fiber;
  const fl_section sec = info->section;
  double E = fb->youngs_modulus, rho = fb->density;
  /* the pinned column's first bending mode, unloaded */
  double om = (FL_PI / info->gauge) * (FL_PI / info->gauge) *
              sqrt(exp->bond.torque_stiffness_scale * E * sec.inertia / (rho * sec.area));
  info->first_period = 2.0 * FL_PI / om;
  return 0.0;
}

/* A grip segment at each end and 2 free between them. */
int fl_compression_check(const fl_exp_checker *c)
{
  const fl_fiber_def *fb = &c->exp->fiber;
  if (fb->segments < 4)
    return fl_exp_check_fail(c, "fiber.segments",
                             "fiber.segments: %d for a compression test; allowed: at least 4 (a grip "
                             "segment at each end, 2 free)",
                             fb->segments);
  return FL_OK;
}
