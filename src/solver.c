/* solver.c: which solver runs a test: simulation.solver with auto's rule resolved, and
 * the solver's table (solver.h). */
#include <config.h>

#include "solver.h"

enum fl_solver fl_solver_auto(const fl_experiment *exp, int gpu)
{
  const fl_test_def *t = &exp->test;
  const fl_fiber_def *fb = &exp->fiber;
  /* a speed given asks for a rate (inertia, damping), and the GPU steps in time */
  if (gpu || t->speed > 0.0)
    return FL_SOLVER_EXPLICIT;
  /* a 3-point test whose bonds break: the pieces after a break are a mechanism that
   * only the supports' friction may hold, with no path of equilibria to follow */
  if (t->kind == FL_TEST_BEND3PT && exp->bond.failure.criterion != FL_CRIT_NONE &&
      exp->bond.failure.post_failure == FL_POST_TOTAL_BREAKAGE)
    return FL_SOLVER_EXPLICIT;
  /* 3-point bending of a weightless fiber on frictionless rollers: nothing but the
   * contacts' curvature holds it along its axis and about it, soft modes that Newton's
   * differences lose in rounding (tests/check_shape: a section table stalls near its
   * end); the explicit engine's damping settles them */
  if (t->kind == FL_TEST_BEND3PT && t->gravity == 0.0 && t->friction == 0.0)
    return FL_SOLVER_EXPLICIT;
  /* 3-point bending of a specimen whose weight need not be symmetric about its middle
   * (a taper, a section table, nodes, a scanned polyline): the tools push it along its
   * axis toward its thick end, which only friction holds, and the static solver may
   * find no equilibrium on the supports (fiberlab-experiment(5), SHAPE AND SECTIONS) */
  if (t->kind == FL_TEST_BEND3PT && (fb->outer_radius_end_m > 0.0 || fb->section_table[0] || fb->nodes[0] ||
                                     fb->shape == FL_SHAPE_POLYLINE))
    return FL_SOLVER_EXPLICIT;
  /* 4-point bending: the static solver does not settle the chain between two noses
   * whose rollers turn with it (the explicit engine does) */
  if (t->kind == FL_TEST_BEND4PT)
    return FL_SOLVER_EXPLICIT;
  return FL_SOLVER_STATIC;
}

enum fl_solver fl_solver_resolve(const fl_experiment *exp, int gpu)
{
  if (exp->sim.solver != FL_SOLVER_AUTO)
    return exp->sim.solver;
  return fl_solver_auto(exp, gpu);
}

const fl_solver_type *fl_solver_type_of(enum fl_solver solver, int gpu)
{
  if (solver == FL_SOLVER_STATIC)
    return &fl_solver_static;
  return gpu ? &fl_solver_explicit_cuda : &fl_solver_explicit_cpu;
}
