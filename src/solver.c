/* solver.c: which solver runs a test: simulation.solver with auto's rule resolved, and
 * the solver's table (solver.h). */
#include <config.h>

#include "solver.h"
#include "test_kind.h"

enum fl_solver fl_solver_auto(const fl_experiment *exp, int gpu)
{
  const fl_test_def *t = &exp->test;
  /* a speed given asks for a rate (inertia, damping), and the GPU steps in time */
  if (gpu || t->speed > 0.0)
    return FL_SOLVER_EXPLICIT;
  /* where the test has no path of equilibria to follow, or may not settle (its kind's
   * table says) */
  const fl_test_type *type = fl_test_type_of(exp->test.kind);
  if (type->auto_explicit && type->auto_explicit(exp))
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
