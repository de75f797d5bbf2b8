/* track.h: what the explicit solver watches at every step of every specimen
 * (explicit.c): the measured load, the peak and where it is, the nose's first touch,
 * the first break or buckle.  Host/device inline functions, so the CPU engine's solver
 * and the CUDA engine (gpu/engine.cu) track alike. */
#ifndef FL_TRACK_H
#define FL_TRACK_H

#include "experiment.h"
#include "fl_defs.h"
#include "vec.h"

/* One specimen's watch. */
typedef struct {
  double peak;       /* the largest measured load so far, N or N m */
  double x_at_peak;  /* the displacement column there, m or rad */
  double touch;      /* bend3pt: path position at the nose's first touch, m; -1: none yet */
  double event_time; /* the first break or buckle, s; -1: none yet */
} fl_track;

/* The test's measured load of one specimen (fl_run_measured) from the loads of the
 * last evaluation: tool_force its ntool tools', grip_force and grip_torque the moving
 * grip's, pload_force the cantilever tip's. */
static inline FL_HD double fl_track_load(enum fl_test_kind kind, const fl_vec3 *tool_force, int ntool,
                                         fl_vec3 grip_force, fl_vec3 grip_torque, double pload_force)
{
  if (fl_test_bends(kind)) { /* the noses, tools 2 on */
    double f = 0.0;
    for (int k = 2; k < ntool; k++)
      f += tool_force[k].y;
    return f;
  }
  if (kind == FL_TEST_TENSION)
    return -grip_force.x;
  if (kind == FL_TEST_CANTILEVER)
    return pload_force;
  if (kind == FL_TEST_COMPRESSION) /* the fiber pushes the moving grip back along +x */
    return grip_force.x;
  return -grip_torque.x;
}

/* The displacement column at path position pos: measured from the first touch (none
 * yet: 0). */
static inline FL_HD double fl_track_travel(double touch, double pos) { return touch < 0.0 ? 0.0 : pos - touch; }

/* Step n at time tm (s), from path position pos, with y the load its loads measure
 * (evaluated at the step's start) and nbroken the specimen's broken or buckled bonds
 * after it.  The peak comes from every step's load, not only from the output rows,
 * until a bond breaks or buckles: what follows at once is the ringing of the released
 * energy, not the strength (later rows may count again: explicit.c).  Returns 1 when
 * y is a new peak; the caller sets x_at_peak. */
static inline FL_HD int fl_track_step(fl_track *tr, int bends, double y, int nbroken, double tm, double pos, long n)
{
  if (nbroken > 0) {
    if (tr->event_time < 0.0)
      tr->event_time = tm;
    return 0;
  }
  if (bends && tr->touch < 0.0 && y > 0.0)
    tr->touch = pos; /* the nose's first touch: displacement counts from here */
  if (y > tr->peak || n == 0) {
    tr->peak = y;
    return 1;
  }
  return 0;
}

#endif
