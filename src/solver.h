/* solver.h: the seam between a test's driver (run.c: the build, the output rows, the
 * figures) and the solvers that advance its specimens: the explicit engine on the CPU
 * (explicit.c, stepping engine.c), the same on a CUDA device (explicit.c, stepping
 * gpu/engine.cu) and the static solver (static/).  A solver is a const table of
 * functions, chosen by simulation.solver and --device (solver.c); what every solver
 * shares (the specimens, the loading path, the measurements) lives outside it. */
#ifndef FL_SOLVER_H
#define FL_SOLVER_H

#include <stddef.h>

#include "path.h"
#include "run.h"

/* What a solver is created on: the specimens built, the path and where the rows go.
 * The solver writes the curve's rows and each specimen's peak (res->spec) and may
 * add its own figures to res; the caller owns all of it. */
typedef struct {
  const fl_experiment *const *exps; /* specimen s's definition; the test and simulation are exps[0]'s */
  int nspec;                        /* specimens */
  int s0;                           /* the batch's number of specimen 0 (a block of an MPI-spread batch) */
  fl_system *sys;                   /* the specimens, built, time step and damping set */
  const fl_build_info *info;        /* what the builder realised */
  const fl_run_hooks *hooks;        /* progress, sample, stop (may be NULL) */
  const fl_path_schedule *path;     /* the loading path, in time at the test's speed */
  double first;                     /* the first leg's end, m or rad */
  fl_curve *curve;                  /* rows: allocated for npoints per specimen */
  fl_result *res;                   /* res->spec: one per specimen */
  /* the explicit engine's step (fl_system_step), for a solver that lets a specimen move
   * in time between its rows: the static solver's relaxation after a snap */
  int (*step)(fl_system *sys, int *bad_spec, int *bad_bond);
} fl_solver_setup;

/* Where a run stands after an advance. */
typedef struct {
  int rows;          /* output rows recorded, every specimen */
  int leg_first_end; /* the first row on the path's second leg, or -1 */
  int done;          /* 1: the end of the path is reached; no more rows will come */
  double fail_key;   /* of a failure: -1 before the first step, else as mpi_batch.h orders them */
} fl_solver_status;

/* A solver's table; its state on one block of specimens is its own (void *, as GSL's
 * methods keep theirs). */
typedef struct {
  const char *name; /* as simulation.solver (and --device) name it */
  /* Check that the solver can run the setup and make its state; FL_OK, or a status
   * with a message in err. */
  int (*create)(void **out, const fl_solver_setup *setup, char *err, size_t errlen);
  /* Advance to the next output row and record it (a solver may record several rows at
   * once: the static solver records them all); the measurements between rows (the
   * peak, the first touch, the first event, instability) are the solver's.  FL_OK, or
   * a status with a message in err and st->fail_key set; the rows recorded before a
   * failure stay. */
  int (*advance)(void *state, fl_solver_status *st, char *err, size_t errlen);
  /* What the solver measured between the rows (the peaks) into setup->res, after the
   * last advance, whatever it returned.  setup->sys holds the state of the last row
   * recorded (a device's is copied back at the rows, so after a failure between rows
   * it may be up to one row older than the device's). */
  int (*read)(void *state);
  /* Free the state and null the pointer; NULL is allowed. */
  void (*free)(void **state);
  /* A vibration cantilever's ring-down after the loading path (fl_cantilever_ringdown's
   * arguments and returns, and s0 as fl_static_run's): the explicit engines step it on
   * the CPU, the static solver by the trapezoidal rule (fl_static_ringdown). */
  int (*ringdown)(const fl_experiment *const *exps, int nspec, int s0, fl_system *sys, const fl_build_info *info,
                  const fl_run_hooks *hooks, fl_curve *curve, fl_result *res, char *err, size_t errlen);
} fl_solver_type;

/* The explicit engine on the CPU (engine.c). */
extern const fl_solver_type fl_solver_explicit_cpu;
/* The explicit engine on a CUDA device (gpu/engine.cu); in a build without CUDA its
 * create says so. */
extern const fl_solver_type fl_solver_explicit_cuda;
/* The static solver (static/). */
extern const fl_solver_type fl_solver_static;

/* The solver a test runs on, simulation.solver's policy in one place:
 * - explicit and static are taken as asked (static refuses the GPU: its create says so);
 * - auto takes the static solver for a test at the automatic speed (test.speed or
 *   test.angular_speed auto: a quasi-static test) on the CPU, except where it has no
 *   path of equilibria to follow or may not settle: a 3-point test whose bonds break
 *   (total_breakage), a 3-point test of a weightless fiber on frictionless rollers, a
 *   3-point test of a specimen whose weight need not be symmetric about its middle (a
 *   taper, a section table, nodes, a scanned polyline), and 4-point bending; the
 *   explicit engine for these, for a speed given (the rate's inertia and damping) and on
 *   the GPU;
 * - where auto's static run finds no equilibrium (FL_EUNSTABLE: a specimen whose buckled
 *   or broken bonds leave a mechanism that falls off its supports, or none on the
 *   supports under its weight), the explicit engine runs the whole batch again and the
 *   result says why (fl_result.static_fallback; fl_run_many does it). */
/* auto's choice for exp (FL_SOLVER_EXPLICIT or FL_SOLVER_STATIC), whatever
 * simulation.solver says; gpu: the run steps on a CUDA device. */
enum fl_solver fl_solver_auto(const fl_experiment *exp, int gpu);
/* The solver simulation.solver asks for, with auto resolved. */
enum fl_solver fl_solver_resolve(const fl_experiment *exp, int gpu);
/* The table of a resolved solver (FL_SOLVER_EXPLICIT or FL_SOLVER_STATIC). */
const fl_solver_type *fl_solver_type_of(enum fl_solver solver, int gpu);

/* Shared beginnings (fl_prefix_cache, run.h) as a solver sees them: the caller's tags
 * of the batch that runs, and what the solver keeps for later runs.  A solver that
 * keeps nothing leaves them alone. */
struct fl_prefix_cache {
  const double *tags;            /* the batch's tags, ntag numbers a specimen, nspec of them (NULL: none) */
  int ntag, nspec;
  long starts, skipped;          /* specimens that started from a kept state, and the increments they skipped */
  void *kept;                    /* the solver's kept states, NULL before it keeps any */
  void (*kept_free)(void *kept); /* and how fl_prefix_cache_free frees them */
};

#endif
