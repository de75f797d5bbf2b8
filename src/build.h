/* build.h: building a batch of specimens (build.c); fl_build and fl_build_many are
 * declared in run.h. */
#ifndef FL_BUILD_H
#define FL_BUILD_H

#include "run.h"

/* fl_build_many for specimens [first, first + nspec) of a batch whose geometry, test
 * and simulation come from lead (its exps[0]): strengths are drawn by the batch's
 * specimen numbers, so a block of an MPI-spread batch builds what the whole batch
 * would. */
int fl_build_block(const fl_experiment *lead, const fl_experiment *const *exps, int nspec, int first,
                   fl_system *sys, fl_build_info *info);

#endif
