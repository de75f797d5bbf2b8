/* static.h: the quasi-static solver: a virtual test as a path of equilibria of the
 * same bodies, bonds and contacts the explicit engine steps (fiberlab-model(7), THE
 * STATIC SOLVER). */
#ifndef FL_STATIC_H
#define FL_STATIC_H

#include <stddef.h>

#include "path.h"
#include "run.h"
#include "solver.h"

/* What the static solver did, per specimen. */
typedef struct {
  long increments;        /* converged load increments */
  long newton;            /* Newton iterations, all increments together */
  long tangents;          /* tangents built (18 load evaluations each, 9 in a planar problem) */
  long cutbacks;          /* increments halved after Newton failed */
  long relaxations;       /* dynamic relaxations after a snap */
  long evaluations;       /* load evaluations of the specimen */
  int unknowns;           /* unknowns per free body solved for: 3 (a planar problem) or 6 */
  int events;             /* bonds that broke, buckled or first yielded */
  double residual_force;  /* largest free-body force residual at an output row, N */
  double residual_torque; /* largest free-body torque residual at an output row, N m */
  double load_scale;      /* the test's load scale: the largest measured |load| on the curve, N or N m */
  double length_scale;    /* span or gauge length, m */
} fl_static_stats;

/* Run the test on the specimens of setup (su->sys, built by fl_build_many from su->exps)
 * along its path (the legs of exps[0]'s test, the same the explicit engines follow in
 * time): rows at output_points path positions evenly spread over the path, into
 * su->curve (allocated for output_points rows per specimen; npoints is set to the rows
 * every specimen recorded), peaks into su->res->spec, what the solver did into stats
 * (one per specimen).  su->s0: the batch's number of the first specimen here (a block of
 * a batch spread over MPI ranks; 0 otherwise), for the messages.  Returns FL_OK, or
 * FL_EUNSTABLE when no equilibrium could be found (err names the increment, load,
 * specimen and body; *failed the first specimen here that failed, else -1),
 * FL_EINTERRUPT, FL_ENOMEM. */
int fl_static_run(const fl_solver_setup *su, fl_static_stats *stats, int *leg_first_end, int *failed, char *err,
                  size_t errlen);

/* The ring-down of a vibration cantilever (fiber-cantilever(1), mode vibration) on the
 * static solver's equations: the specimens in sys rest at their release deflection
 * (the loading path run); release the tips (fl_cantilever_release) and step each
 * specimen on its own for test.ring_periods periods of the first mode by the
 * trapezoidal rule, Newton on the balance of momentum over each step with the loads
 * of the same evaluation the static solver balances (fiberlab-model(7), THE
 * RING-DOWN).  The rows, frequencies and decrements as fl_cantilever_ringdown records
 * them; res->time_step the step, sys->step the steps of specimen 0, Newton's
 * iterations, tangents and halved steps added to res.  s0 as fl_static_run's.  FL_OK,
 * FL_EUNSTABLE (no convergence after the halvings: err names the specimen, the time
 * and the body), FL_EINTERRUPT, FL_ENOMEM; the rows recorded stay. */
int fl_static_ringdown(const fl_experiment *const *exps, int nspec, int s0, fl_system *sys, const fl_build_info *info,
                       const fl_run_hooks *hooks, fl_curve *curve, fl_result *res, char *err, size_t errlen);

#endif
