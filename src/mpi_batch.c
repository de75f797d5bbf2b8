/* mpi_batch.c: MPI's start and end, and a batch's specimens spread over the ranks and
 * gathered back (mpi_batch.h).  Compiled only in a build with --with-mpi. */
#include <config.h>

#include <float.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl_defs.h"
#include "mpi_batch.h"

static int started = 0;         /* 1: fl_mpi_start called MPI_Init */
static int rank = 0, ranks = 1; /* in MPI_COMM_WORLD */
static int spread = 0;          /* 1: fl_run_many spreads its batches */

void fl_mpi_start(int *argc, char ***argv)
{
  if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK") && !getenv("PMI_SIZE"))
    return; /* not under mpirun: one process, no MPI */
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  started = 1;
  spread = 1;
}

void fl_mpi_end(void)
{
  if (started)
    MPI_Finalize();
  started = 0;
}

int fl_mpi_rank(void) { return rank; }
int fl_mpi_ranks(void) { return ranks; }
void fl_mpi_batch_spread(int on) { spread = on; }

/* Rank r's block of nspec specimens over n ranks. */
static void block_of(int nspec, int n, int r, int *first, int *count)
{
  int q = nspec / n, m = nspec % n;
  *count = q + (r < m);
  *first = r * q + (r < m ? r : m);
}

int fl_mpi_batch_block(int nspec, int *first, int *count)
{
  *first = 0;
  *count = nspec;
  if (!spread || ranks < 2 || nspec < 2)
    return 1;
  block_of(nspec, ranks, rank, first, count);
  return ranks;
}

/* The displacements of every rank's block in an array of nspec items of per_spec
 * elements: counts[r], displs[r] (2 ranks ints, freed by the caller). */
static int *blocks_of(int nspec, int per_spec)
{
  int *counts = malloc((size_t)ranks * 2 * sizeof *counts);
  if (!counts)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (int r = 0; r < ranks; r++) {
    int f, c;
    block_of(nspec, ranks, r, &f, &c);
    counts[r] = c * per_spec;
    counts[ranks + r] = f * per_spec;
  }
  return counts;
}

/* A column of cnt specimens with npl rows each, cut to their first np rows (np <= npl:
 * a rank that ran past the batch's first failure), gathered over the ranks into a new
 * array of nspec * np in specimen order; col freed.  Out of memory: abort. */
static void *gather_column(void *col, size_t size, MPI_Datatype type, int nspec, int cnt, int npl, int np)
{
  char *src = col, *cut = NULL;
  if (npl != np && cnt > 0) {
    if (!(cut = malloc((size_t)cnt * np * size)))
      MPI_Abort(MPI_COMM_WORLD, 1);
    for (int s = 0; s < cnt; s++)
      memcpy(cut + (size_t)s * np * size, src + (size_t)s * npl * size, (size_t)np * size);
    src = cut;
  }
  size_t total = (size_t)nspec * np;
  int *counts = blocks_of(nspec, np);
  void *all = malloc(total ? total * size : 1);
  if (!all || MPI_Allgatherv(src, cnt * np, type, all, counts, counts + ranks, type, MPI_COMM_WORLD) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  free(counts);
  free(cut);
  free(col);
  return all;
}

double *fl_mpi_batch_doubles(double *col, int nspec, int count, int npl, int np)
{
  return gather_column(col, sizeof(double), MPI_DOUBLE, nspec, count, npl, np);
}

int *fl_mpi_batch_ints(int *col, int nspec, int count, int npl, int np)
{
  return gather_column(col, sizeof(int), MPI_INT, nspec, count, npl, np);
}

void *fl_mpi_batch_records(void *rec, size_t size, int nspec, int count)
{
  int bytes = (int)size;
  int *counts = blocks_of(nspec, bytes);
  void *all = malloc((size_t)nspec * size);
  if (!all ||
      MPI_Allgatherv(rec, count * bytes, MPI_BYTE, all, counts, counts + ranks, MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  free(counts);
  free(rec);
  return all;
}

int fl_mpi_batch_failure(int rc, double fail_key, int has_rows, char *err, size_t errlen, int *rows)
{
  struct {
    double key;
    int rank;
  } mine = {rc ? fail_key : DBL_MAX, rank}, worst;
  MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
  *rows = 1;
  if (worst.key == DBL_MAX)
    return FL_OK;
  int head[2] = {rc, has_rows};
  MPI_Bcast(head, 2, MPI_INT, worst.rank, MPI_COMM_WORLD);
  MPI_Bcast(err, (int)errlen, MPI_CHAR, worst.rank, MPI_COMM_WORLD);
  *rows = head[1];
  return head[0];
}

int fl_mpi_batch_rows(int npoints)
{
  int np;
  MPI_Allreduce(&npoints, &np, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return np;
}

void fl_mpi_batch_sum_ints(int *v, int n) { MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD); }
void fl_mpi_batch_sum_longs(long *v, int n) { MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD); }
void fl_mpi_batch_max_doubles(double *v, int n)
{
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}
void fl_mpi_batch_from_first(void *p, size_t bytes) { MPI_Bcast(p, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD); }
