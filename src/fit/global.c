/* fit/global.c: the global stage of a calibration (global.h): a Sobol design over
 * the bounds, its costs in one batch, and short refinements of the best points. */
#include <config.h>

#include <gsl/gsl_qrng.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "global.h"
#include "fl_defs.h"

int fl_global_wanted(const fl_fit *fit)
{
  if (fit->solver.global != FL_GLOBAL_AUTO)
    return fit->solver.global == FL_GLOBAL_ON;
  for (int j = 0; j < fit->nfree; j++)
    if (strncmp(fit->free[j].path, "bond.buckling.", 14) == 0)
      return 1;
  return 0;
}

int fl_global_design(int p, int npoints, double *u)
{
  gsl_qrng *q = gsl_qrng_alloc(gsl_qrng_sobol, (unsigned)p);
  if (!q)
    return FL_ENOMEM;
  double s[FL_FIT_MAX_FREE];
  gsl_qrng_get(q, s); /* point 0: the corner at the lower bounds */
  for (int k = 0; k < npoints; k++) {
    gsl_qrng_get(q, s);
    for (int j = 0; j < p; j++) {
      double f = FL_GLOBAL_MARGIN + (1.0 - 2.0 * FL_GLOBAL_MARGIN) * s[j];
      u[(size_t)k * (size_t)p + (size_t)j] = log(f / (1.0 - f));
    }
  }
  gsl_qrng_free(q);
  return FL_OK;
}

typedef struct {
  double cost;
  int index; /* 0 the start, k design point k */
} ranked;

/* Lower cost first; equal costs in design order, so that the ranking is reproducible. */
static int cmp_ranked(const void *a, const void *b)
{
  const ranked *x = a, *y = b;
  if (x->cost != y->cost)
    return x->cost < y->cost ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

static void say(const fl_global_ops *ops, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const fl_global_ops *ops, const char *fmt, ...)
{
  if (!ops->log)
    return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(ops->log, "%s: global: ", ops->prog ? ops->prog : "fiber-calibrate");
  vfprintf(ops->log, fmt, ap);
  fputc('\n', ops->log);
  fflush(ops->log);
  va_end(ap);
}

/* "the start" or "point k", for the stage's lines. */
static const char *point_name(int index, char *buf, size_t len)
{
  if (index == 0)
    return "the start";
  snprintf(buf, len, "point %d", index);
  return buf;
}

int fl_global_run(int p, const double *u_start, int npoints, int nrefine, const fl_global_ops *ops,
                  fl_global_result *res)
{
  int total = npoints + 1, rc;
  memset(res, 0, sizeof *res);
  double *u = malloc((size_t)total * (size_t)p * sizeof *u), *cost = malloc((size_t)total * sizeof *cost);
  ranked *rank = malloc((size_t)total * sizeof *rank);
  if (!u || !cost || !rank) {
    rc = FL_ENOMEM;
    goto out;
  }
  /* row 0 the start, rows 1 ... npoints the design */
  memcpy(u, u_start, (size_t)p * sizeof *u);
  if ((rc = fl_global_design(p, npoints, u + p)))
    goto out;
  if ((rc = ops->costs(ops->ctx, total, u, cost)))
    goto out;
  res->points = total;
  int ran = 0;
  for (int k = 0; k < total; k++) {
    rank[k].cost = cost[k];
    rank[k].index = k;
    if (isfinite(cost[k]))
      ran++;
    else
      res->failed++;
  }
  if (ran == 0) {
    rc = FL_EUNSTABLE;
    goto out;
  }
  qsort(rank, (size_t)total, sizeof *rank, cmp_ranked);
  if (nrefine > ran)
    nrefine = ran;
  if (nrefine > FL_GLOBAL_MAX_REFINE)
    nrefine = FL_GLOBAL_MAX_REFINE;
  char name[32], best[512] = "";
  size_t used = 0;
  for (int r = 0; r < nrefine && used < sizeof best; r++)
    used += (size_t)snprintf(best + used, sizeof best - used, "%s%.6g (%s)", r ? ", " : "", rank[r].cost,
                             point_name(rank[r].index, name, sizeof name));
  say(ops, "%d points (%d of the design and the start), %d did not run; best costs %s", total, npoints,
      res->failed, best);
  int start_rank = -1;
  for (int k = 0; k < total; k++)
    if (rank[k].index == 0)
      start_rank = k;
  if (isfinite(cost[0]))
    say(ops, "the start has cost %.6g, rank %d of %d", cost[0], start_rank + 1, total);
  else
    say(ops, "the start did not run");
  /* refine the best */
  for (int r = 0; r < nrefine; r++) {
    int k = rank[r].index;
    res->design_index[r] = k;
    memcpy(res->u_start[r], u + (size_t)k * (size_t)p, (size_t)p * sizeof(double));
    res->cost_start[r] = cost[k];
    if ((rc = ops->refine(ops->ctx, r, res->u_start[r], FL_GLOBAL_REFINE_ITERATIONS, res->u_refined[r],
                          &res->cost_refined[r])))
      goto out;
    res->refined = r + 1;
    say(ops, "refined %s: cost %.6g -> %.6g", point_name(k, name, sizeof name), res->cost_start[r],
        res->cost_refined[r]);
    if (isfinite(res->cost_refined[r]) &&
        (!isfinite(res->cost_refined[res->winner]) || res->cost_refined[r] < res->cost_refined[res->winner]))
      res->winner = r;
  }
  if (!isfinite(res->cost_refined[res->winner])) {
    rc = FL_EUNSTABLE;
    goto out;
  }
  say(ops, "%s won (cost %.6g after at most %d iterations): the local fit goes on from it",
      point_name(res->design_index[res->winner], name, sizeof name), res->cost_refined[res->winner],
      FL_GLOBAL_REFINE_ITERATIONS);
out:
  free(u);
  free(cost);
  free(rank);
  return rc;
}
