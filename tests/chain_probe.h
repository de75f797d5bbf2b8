/* chain_probe.h: a 3-point chain's own deflection, for the tests that compare it with
 * beam theory: the fiber's axis under the nose against its axis over the supports
 * (each on the segment that lies there), and the force on the nose, per output row. */
#ifndef FL_TEST_CHAIN_PROBE_H
#define FL_TEST_CHAIN_PROBE_H

#include <math.h>

#include "run.h"
#include "system.h"

typedef struct {
  int n;         /* rows recorded */
  double xs;     /* support position, m */
  double *defl;  /* m */
  double *force; /* N */
} chain_probe;

/* y of the fiber axis at x = xa, on the segment whose reference centre is nearest */
static double chain_axis_y(const fl_system *sys, double xa)
{
  int best = 0;
  for (int i = 1; i < sys->nbody; i++)
    if (fabs(sys->x_ref[i].x - xa) < fabs(sys->x_ref[best].x - xa))
      best = i;
  fl_vec3 p = fl_add(sys->x[best], fl_qrot(sys->q[best], fl_v3(xa - sys->x_ref[best].x, 0, 0)));
  return p.y;
}

/* fl_run_hooks.sample: ctx is a chain_probe */
static void chain_probe_sample(void *ctx, const fl_system *sys, int point, double x)
{
  (void)x;
  chain_probe *p = ctx;
  p->defl[point] = 0.5 * (chain_axis_y(sys, -p->xs) + chain_axis_y(sys, p->xs)) - chain_axis_y(sys, 0.0);
  p->force[point] = sys->tool_force[2].y;
  p->n = point + 1;
}

/* The chain's stiffness from the probe's rows with 20-100 % of the last row's force
 * (least squares), N/m. */
static inline double chain_probe_stiffness(const chain_probe *p)
{
  int a = 0;
  while (a < p->n && p->force[a] < 0.2 * p->force[p->n - 1])
    a++;
  return fl_fit_slope(p->defl, p->force, a, p->n);
}

#endif
