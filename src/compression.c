/* compression.c: the compression test's rest shape and its lateral deflection. */
#include <config.h>

#include <math.h>

#include "compression.h"
#include "fl_defs.h"

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
