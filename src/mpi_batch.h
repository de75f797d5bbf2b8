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

/* Gathering the blocks into the whole batch on every rank, part by part (run.c knows
 * what a curve and a result are made of; these know only numbers and bytes).  count:
 * this rank's specimens (fl_mpi_batch_block), zero when none. */
/* The earliest failure over the ranks (the smallest fail_key, then the lowest rank; rc
 * FL_OK: none here), as the serial run, which stops there, meets it: its status is
 * returned and its message left in err on every rank, and *rows says whether it had
 * recorded rows (has_rows, its curve allocated).  FL_OK and *rows 1 when no rank
 * failed. */
int fl_mpi_batch_failure(int rc, double fail_key, int has_rows, char *err, size_t errlen, int *rows);
/* The fewest rows over the ranks (npoints: this rank's, or INT_MAX when it has none to
 * give). */
int fl_mpi_batch_rows(int npoints);
/* A column of the block's rows, count specimens of npl rows each, cut to their first np
 * (np <= npl: a rank that ran past the batch's first failure), gathered in specimen
 * order into a new array of nspec * np; col is freed. */
double *fl_mpi_batch_doubles(double *col, int nspec, int count, int npl, int np);
int *fl_mpi_batch_ints(int *col, int nspec, int count, int npl, int np);
/* The block's records of size bytes, one a specimen, gathered in specimen order into a
 * new array of nspec; rec is freed. */
void *fl_mpi_batch_records(void *rec, size_t size, int nspec, int count);
/* Every rank's n values summed (integers: exact in any order), or their largest. */
void fl_mpi_batch_sum_ints(int *v, int n);
void fl_mpi_batch_sum_longs(long *v, int n);
void fl_mpi_batch_max_doubles(double *v, int n);
/* bytes at p as rank 0 has them, on every rank. */
void fl_mpi_batch_from_first(void *p, size_t bytes);
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
