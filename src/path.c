/* path.c: a test's loading path, by path length and in time (path.h). */
#include <config.h>

#include <math.h>

#include "fl_defs.h"
#include "path.h"
#include "test_kind.h"

void fl_path_make(fl_path *p, const fl_test_def *t)
{
  double target = fl_test_target(t);
  p->n = t->ncycles > 0 ? t->ncycles : 1;
  double prev = 0.0;
  p->arc[0] = 0.0;
  for (int i = 0; i < p->n; i++) {
    p->to[i] = t->ncycles > 0 ? t->cycles[i] : target;
    p->arc[i + 1] = p->arc[i] + fabs(p->to[i] - prev);
    prev = p->to[i];
  }
}

double fl_path_from(const fl_path *p, int i) { return i > 0 ? p->to[i - 1] : 0.0; }

double fl_path_position(const fl_path *p, double a, int *leg)
{
  for (int i = 0; i < p->n; i++)
    if (a <= p->arc[i + 1] || i == p->n - 1) {
      double from = fl_path_from(p, i), len = p->arc[i + 1] - p->arc[i];
      double s = len > 0.0 ? (a - p->arc[i]) / len : 1.0;
      s = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
      if (leg)
        *leg = i;
      return from + s * (p->to[i] - from);
    }
  return 0.0;
}

void fl_path_schedule_make(fl_path_schedule *p, const fl_test_def *t, double speed, double ramp_s)
{
  double time = 0.0;
  fl_path_make(&p->path, t);
  p->speed = speed;
  for (int i = 0; i < p->path.n; i++) {
    /* the leg's length from its ends (not from arc[], a running sum that rounds) */
    double len = fabs(p->path.to[i] - fl_path_from(&p->path, i));
    double r = ramp_s;
    if (r > len / speed)
      r = len / speed; /* a short leg ramps over its whole length */
    p->ramp[i] = r;
    p->dur[i] = len / speed + r;
    p->start[i] = time;
    time += p->dur[i];
  }
  p->total = time;
}

double fl_path_schedule_position(const fl_path_schedule *p, double tm, int *leg)
{
  const fl_path *g = &p->path;
  for (int i = 0; i < g->n; i++) {
    double u = tm - p->start[i];
    if (u > p->dur[i] && i < g->n - 1)
      continue;
    if (u > p->dur[i])
      u = p->dur[i];
    if (leg)
      *leg = i;
    double from = fl_path_from(g, i);
    double dir = g->to[i] >= from ? 1.0 : -1.0, v = p->speed, r = p->ramp[i], T = p->dur[i], s;
    if (r <= 0.0)
      s = v * u;
    else if (u < r) /* v (1 - cos(pi u / r)) / 2, integrated */
      s = 0.5 * v * (u - r / FL_PI * sin(FL_PI * u / r));
    else if (u <= T - r)
      s = 0.5 * v * r + v * (u - r);
    else {
      double w = T - u;
      s = fabs(g->to[i] - from) - 0.5 * v * (w - r / FL_PI * sin(FL_PI * w / r));
    }
    return from + dir * s;
  }
  return g->to[g->n - 1];
}
