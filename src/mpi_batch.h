/* mpi_batch.h: MPI for fiberlab's programs (a build with --with-mpi, run under
 * mpirun): starting and ending MPI, and one batch's specimens spread over the ranks.
 *
 * The rule (fiberlab-campaign(5), fiber-calibrate(1)): under mpirun with more than
 * one rank, fl_run_many gives each rank a contiguous block of the batch's specimens
 * and gathers every specimen's rows and figures on every rank, so each rank holds
 * what the serial run computes, bit for bit.  A campaign spreads its specimens (its
 * fits) over the ranks instead, and turns the spreading of batches off for the whole
 * run (fl_mpi_batch_spread(0)): a batch is spread at one level only.
 *
 * Without MPI the functions below are inline stubs of one process. */
#ifndef FL_MPI_BATCH_H
#define FL_MPI_BATCH_H

#include <stddef.h>

#include "run.h"

#ifdef HAVE_MPI
/* Start MPI when the program runs under mpirun (Open MPI's or PMI's environment);
 * otherwise nothing.  Batches are spread from then on. */
void fl_mpi_start(int *argc, char ***argv);
/* End MPI if fl_mpi_start started it. */
void fl_mpi_end(void);
/* This process's rank and the number of ranks (0 and 1 without mpirun). */
int fl_mpi_rank(void);
int fl_mpi_ranks(void);
/* 1: fl_run_many spreads a batch over the ranks; 0: every rank runs its batches
 * whole (a campaign, whose ranks fit different specimens). */
void fl_mpi_batch_spread(int on);

/* The block of a batch of nspec specimens that this rank runs: specimens [*first,
 * *first + *count).  Returns the ranks the batch is spread over: 1 when it is not
 * (spreading off, one rank, fewer than two specimens).  Rank r gets nspec / ranks
 * specimens, one more for r < nspec % ranks; ranks beyond nspec get none. */
int fl_mpi_batch_block(int nspec, int *first, int *count);

/* Gather the blocks into the whole batch on every rank.  curve and res hold this
 * rank's block (its count specimens of fl_mpi_batch_block; zero when none), rc and err
 * its status and message, fail_key where the serial run would meet its failure
 * (run.c: earlier failures have smaller keys).  On return curve and res hold all nspec specimens:
 * rows and per-specimen figures in specimen order, the sums and extremes over the
 * batch, and rank 0's other fields (the same on every rank).  The status is the
 * earliest failure's (smallest key, then lowest rank), with its message, and every
 * specimen keeps the rows all of them recorded (the fewest of any block), as in the
 * serial run, which stops there. */
int fl_mpi_batch_gather(int nspec, int count, int rc, double fail_key, fl_curve *curve, fl_result *res, char *err,
                        size_t errlen);
#else
static inline void fl_mpi_start(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
}
static inline void fl_mpi_end(void) {}
static inline int fl_mpi_rank(void) { return 0; }
static inline int fl_mpi_ranks(void) { return 1; }
static inline void fl_mpi_batch_spread(int on) { (void)on; }
#endif

#endif
