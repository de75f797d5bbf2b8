/* fit/state.c: the working state of one calibration (state.h): set up, freed, and the
 * lines it logs. */
#include <config.h>

#include <gsl/gsl_blas.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "param.h"
#include "state.h"
#include "run.h" /* fl_prefix_cache_new */

const char *const fl_cal_buckling_keys[4] = {"bond.buckling.max_force", "bond.buckling.min_force",
                                             "bond.buckling.displacement_at_min_force",
                                             "bond.buckling.slope_after_min_force"};

int fl_cal_state_init(fl_cal_state *st, fl_fit *fit, const fl_calibrate_opts *opts, double t0)
{
  int p = fit->nfree, n = fit->npoints;
  memset(st, 0, sizeof *st);
  st->drop_item = -1;
  st->drop_js = -1;
  st->fit = fit;
  st->t0 = t0;
  st->opts = opts;
  st->n = n;
  st->p = p;
  st->item = calloc((size_t)fit->ndata, sizeof *st->item);
  st->prefix = fl_prefix_cache_new(); /* none: nothing shared */
  for (int j = 0; j < p; j++)
    for (int k = 0; k < 4; k++)
      st->envelope[j] |= strcmp(fit->free[j].path, fl_cal_buckling_keys[k]) == 0;
  st->last_u = gsl_vector_alloc((size_t)p);
  st->last_f = gsl_vector_alloc((size_t)n);
  st->bj = gsl_matrix_alloc((size_t)n, (size_t)p);
  st->bu = gsl_vector_alloc((size_t)p);
  st->bf = gsl_vector_alloc((size_t)n);
  return st->item && st->last_u && st->last_f && st->bj && st->bu && st->bf ? 0 : -1;
}

void fl_cal_state_free(fl_cal_state *st)
{
  for (int k = 0; k < FL_GLOBAL_MAX_REFINE; k++)
    if (st->gw[k])
      gsl_multifit_nlinear_free(st->gw[k]);
  free(st->design_u);
  free(st->design_f);
  if (st->last_u)
    gsl_vector_free(st->last_u);
  if (st->last_f)
    gsl_vector_free(st->last_f);
  if (st->bj)
    gsl_matrix_free(st->bj);
  if (st->bu)
    gsl_vector_free(st->bu);
  if (st->bf)
    gsl_vector_free(st->bf);
  free(st->ybuf);
  free(st->fbuf);
  free(st->item);
  fl_prefix_cache_free(st->prefix);
}

void fl_cal_note(const fl_cal_state *st, const char *fmt, ...)
{
  if (!st->opts || !st->opts->log)
    return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(st->opts->log, "%s: ", st->opts->prog ? st->opts->prog : "fiber-calibrate");
  vfprintf(st->opts->log, fmt, ap);
  fputc('\n', st->opts->log);
  va_end(ap);
}

int fl_cal_stopped(const fl_cal_state *st)
{
  return st->opts->stop && *st->opts->stop;
}

double fl_cal_cost(const gsl_vector *f)
{
  double chi = gsl_blas_dnrm2(f);
  return 0.5 * chi * chi;
}

double fl_cal_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void fl_cal_progress(const fl_cal_state *st, int iter, const gsl_vector *u, const gsl_vector *f)
{
  FILE *log = st->opts->log;
  fprintf(log, "%s: iteration %d: cost %.6g,", st->opts->prog ? st->opts->prog : "fiber-calibrate", iter,
          fl_cal_cost(f));
  for (int j = 0; j < st->p; j++)
    fprintf(log, " %s %.6g%s", st->fit->free[j].path,
            fl_param_from_u(&st->fit->free[j], gsl_vector_get(u, (size_t)j), NULL), j + 1 < st->p ? "," : "");
  /* elapsed time, and the most that is left: the iterations up to solver.max_iterations
   * at the mean time of those so far */
  double t = fl_cal_now(), elapsed = t - st->t0;
  fprintf(log, " (%ld simulations, %.1f s elapsed", st->simulations, elapsed);
  if (iter > st->iter0) {
    int left = st->fit->solver.max_iterations - iter;
    double per = (t - st->t_iter0) / (iter - st->iter0);
    fprintf(log, ", %.3g s per iteration, at most %d more: about %.3g s left at most", per, left, per * left);
  }
  fprintf(log, ")\n");
  fflush(log);
}
