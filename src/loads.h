/* loads.h: the pass over a specimen that evaluates its loads, shared by the load
 * evaluation (fl_system_loads, fl_system_loads_specimen in system.h) and the explicit
 * step (engine.c), which moves the bodies within it. */
#ifndef FL_LOADS_H
#define FL_LOADS_H

#include "system.h"

/* What a pass does with bodies [lo, hi) of specimen s once their bonds are evaluated:
 * their loads (fl_loads_gather), and in a step their motion.  Returns the first body that
 * left the finite numbers, or nbody; *overlap: the largest contact overlap seen. */
typedef int (*fl_body_stage)(fl_system *sys, int s, int advance, int lo, int hi, double *overlap);

/* Specimen s's bonds (the bond pass) and bodies (stage, or NULL: their loads alone), in
 * blocks of bonds whose bodies follow while the bonds' loads are in the cache, or over
 * nthreads threads; then the sums over bonds and bodies (strain energy, tool and grip
 * loads), in index order on one thread, so that nothing depends on the number of
 * threads.  advance: 1 to move the damping state, plastic offsets and contact history
 * on.  Returns the first body that left the finite numbers, or -1. */
int fl_loads_pass(fl_system *sys, int s, int advance, fl_body_stage stage, int nthreads);

/* Specimen s's loads as fl_loads_pass gives them without advance on one thread, where
 * only bodies that bonds [range[2 k], range[2 k + 1]) (k < nrange) alone join have moved
 * since the last pass: those bonds evaluated again, the others' loads read from the rows
 * as that pass left them (the caller keeps them so), every body gathered and the sums
 * taken; where the vectorised law serves the pass (inline_pass), every bond, which its
 * vectors evaluate faster than a third of them one by one.  The columns of the static
 * solver's tangent by differences (newton.c). */
void fl_loads_pass_some(fl_system *sys, int s, const int *range, int nrange);

/* Bodies [lo, hi) of specimen s: their bond loads gathered in ascending bond order into
 * f, t, their tool contacts (shares in tool_share) and the point load added.  *overlap:
 * the largest contact overlap seen. */
void fl_loads_gather(fl_system *sys, int s, int advance, int lo, int hi, double *overlap);

/* Threads for the bonds and bodies of one specimen (1: a pass on the calling thread),
 * when the specimens are fewer than the threads and large enough to share. */
int fl_loads_threads(const fl_system *sys);

#endif
