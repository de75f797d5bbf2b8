/* mpi_batch.c: MPI's start and end, and a batch's specimens spread over the ranks
 * (mpi_batch.h).  Compiled only in a build with --with-mpi. */
#include <config.h>

#include <float.h>
#include <limits.h>
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

/* A column of cnt specimens with npl rows each, cut to their first np rows (np <= npl:
 * a rank that ran past the batch's first failure), gathered over the ranks into a new
 * array of nspec * np in specimen order; NULL when out of memory. */
static void *gather_column(void *col, size_t size, MPI_Datatype type, int cnt, int npl, int np, const int *counts,
                           const int *displs, size_t total)
{
  char *src = col, *cut = NULL;
  if (npl != np && cnt > 0) {
    if (!(cut = malloc((size_t)cnt * np * size)))
      return NULL;
    for (int s = 0; s < cnt; s++)
      memcpy(cut + (size_t)s * np * size, src + (size_t)s * npl * size, (size_t)np * size);
    src = cut;
  }
  void *all = malloc(total ? total * size : 1);
  if (all && MPI_Allgatherv(src, cnt * np, type, all, counts, displs, type, MPI_COMM_WORLD) != MPI_SUCCESS) {
    free(all);
    all = NULL;
  }
  free(cut);
  return all;
}

int fl_mpi_batch_gather(int nspec, int count, int rc, double fail_key, fl_curve *curve, fl_result *res, char *err,
                        size_t errlen)
{
  /* the earliest failure, if any: the serial run stops there */
  struct {
    double key;
    int rank;
  } mine = {rc ? fail_key : DBL_MAX, rank}, worst;
  MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
  int status = FL_OK, np;
  if (worst.key < DBL_MAX) {
    int head[2] = {rc, curve->time != NULL};
    MPI_Bcast(head, 2, MPI_INT, worst.rank, MPI_COMM_WORLD);
    MPI_Bcast(err, (int)errlen, MPI_CHAR, worst.rank, MPI_COMM_WORLD);
    status = head[0];
    if (!head[1]) { /* it failed before its rows existed: no rows, no figures */
      fl_curve_free(curve);
      fl_result_free(res);
      return status;
    }
  }
  /* the rows every specimen recorded: all of them, or up to the earliest failure (the
   * explicit solver's blocks stop together in the serial run; the static solver's
   * specimens each as far as they got) */
  int mine_np = count > 0 && curve->time ? curve->npoints : INT_MAX;
  MPI_Allreduce(&mine_np, &np, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

  int *counts = malloc((size_t)ranks * 2 * sizeof *counts), *displs = counts + ranks;
  int *scounts = malloc((size_t)ranks * 2 * sizeof *scounts), *sdispls = scounts + ranks;
  if (!counts || !scounts)
    MPI_Abort(MPI_COMM_WORLD, 1);
  int bytes = (int)sizeof(fl_specimen_result);
  for (int r = 0; r < ranks; r++) {
    int f, c;
    block_of(nspec, ranks, r, &f, &c);
    counts[r] = c * np;
    displs[r] = f * np;
    scounts[r] = c * bytes;
    sdispls[r] = f * bytes;
  }
  size_t total = (size_t)nspec * np;
  double **dcols[] = {&curve->time, &curve->x, &curve->y, &curve->support, &curve->midspan, &curve->kinetic,
                      &curve->strain};
  int **icols[] = {&curve->broken, &curve->yielded};
  int npl = curve->npoints;
  for (size_t k = 0; k < sizeof dcols / sizeof *dcols; k++) {
    double *all = gather_column(*dcols[k], sizeof(double), MPI_DOUBLE, count, npl, np, counts, displs, total);
    if (!all)
      MPI_Abort(MPI_COMM_WORLD, 1);
    free(*dcols[k]);
    *dcols[k] = all;
  }
  for (size_t k = 0; k < sizeof icols / sizeof *icols; k++) {
    int *all = gather_column(*icols[k], sizeof(int), MPI_INT, count, npl, np, counts, displs, total);
    if (!all)
      MPI_Abort(MPI_COMM_WORLD, 1);
    free(*icols[k]);
    *icols[k] = all;
  }
  curve->nspec = nspec;
  curve->npoints = np;

  fl_specimen_result *spec = malloc((size_t)nspec * sizeof *spec);
  if (!spec || MPI_Allgatherv(res->spec, count * bytes, MPI_BYTE, spec, scounts, sdispls, MPI_BYTE,
                              MPI_COMM_WORLD) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  /* sums and extremes over the batch (integers and maxima: exact in any order) */
  int *isum[] = {&res->bonds_broken, &res->bonds_yielded, &res->events};
  long *lsum[] = {&res->increments, &res->newton_iterations, &res->tangents, &res->cutbacks, &res->relaxations};
  double *dmax[] = {&res->max_overlap, &res->ke_ratio, &res->wall_time, &res->residual_force, &res->residual_torque};
  int iv[3];
  long lv[5];
  double dv[5];
  for (int k = 0; k < 5; k++) {
    if (k < 3)
      iv[k] = *isum[k];
    lv[k] = *lsum[k];
    dv[k] = *dmax[k];
  }
  MPI_Allreduce(MPI_IN_PLACE, iv, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, lv, 5, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, dv, 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  /* the fields every block shares (rank 0 always has specimens) */
  fl_result head = *res;
  MPI_Bcast(&head, (int)sizeof head, MPI_BYTE, 0, MPI_COMM_WORLD);
  free(res->spec);
  *res = head;
  res->spec = spec;
  res->specimens = nspec;
  for (int k = 0; k < 5; k++) {
    if (k < 3)
      *isum[k] = iv[k];
    *lsum[k] = lv[k];
    *dmax[k] = dv[k];
  }
  free(counts);
  free(scounts);
  return status;
}
