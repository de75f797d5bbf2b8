/* cantilever.c: a vibration cantilever's ring-down after the release: the first mode's
 * shape and tip displacement, its extremes and figures, and the explicit engine's steps
 * (fiber-cantilever(1)); the test itself is src/kind/cantilever.c. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cantilever.h"
#include "fl_defs.h"

/* The Euler-Bernoulli first mode shape at xi = x / L in [0, 1]. */
static double first_shape(double xi)
{
  double b = FL_CANTILEVER_BETA1 * xi;
  return cosh(b) - cos(b) - FL_CANTILEVER_SIGMA1 * (sinh(b) - sin(b));
}

void fl_cantilever_mode_shape(const fl_system *sys, const fl_build_info *info, double *phi)
{
  /* The clamp holds the bond at its face rigidly on its clamped side (build.h's
   * FL_CLAMP_RIGID): the chain bends from the face, over the free length. */
  int ng = info->clamped, n = sys->nbody;
  double le = info->gauge;
  double x0 = 0.5 * (sys->x_ref[ng - 1].x + sys->x_ref[ng].x); /* the clamp's face */
  for (int i = 0; i < n; i++)
    phi[i] = i < ng ? 0.0 : first_shape((sys->x_ref[i].x - x0) / le);
  phi[n] = first_shape(1.0);
}

double fl_cantilever_first_mode(const fl_system *sys, const fl_build_info *info, const double *phi, int s)
{
  int n = sys->nbody;
  double num = 0.0, den = 0.0;
  size_t base = (size_t)s * sys->nbody;
  for (int i = info->clamped; i < n; i++) {
    double defl = sys->x_ref[i].y - sys->x[base + i].y;
    num += sys->mass[i] * phi[i] * defl;
    den += sys->mass[i] * phi[i] * phi[i];
  }
  return den > 0.0 ? num / den * phi[n] : 0.0;
}

int fl_ring_track_add(fl_ring_track *k, double t, double x)
{
  if (k->have == 3) {
    memmove(k->t, k->t + 1, 2 * sizeof *k->t);
    memmove(k->x, k->x + 1, 2 * sizeof *k->x);
    k->have = 2;
  }
  k->t[k->have] = t;
  k->x[k->have] = x;
  k->have++;
  double te, xe;
  int kind = k->have == 3 ? fl_extreme3(k->t, k->x, &te, &xe) : 0;
  if (!kind || kind == k->last)
    return FL_OK;
  if (k->ne == k->cap) {
    int cap = k->cap ? 2 * k->cap : 256;
    double *a = realloc(k->te, (size_t)cap * sizeof *a);
    if (!a)
      return FL_ENOMEM;
    k->te = a;
    double *b = realloc(k->xe, (size_t)cap * sizeof *b);
    if (!b)
      return FL_ENOMEM;
    k->xe = b;
    k->cap = cap;
  }
  k->te[k->ne] = te;
  k->xe[k->ne] = xe;
  k->ne++;
  k->last = kind;
  return FL_OK;
}

void fl_ring_figures(const fl_ringdown *rd, fl_specimen_result *sr)
{
  /* fiberlab-model(7), The first mode's damping: b = delta f, zeta = delta / sqrt(4 pi^2
   * + delta^2); their errors carried from those of f and delta, taken as independent */
  double f = rd->frequency, d = rd->log_decrement, w = 4.0 * FL_PI * FL_PI + d * d;
  sr->frequency = f;
  sr->log_decrement = d;
  sr->frequency_se = rd->frequency_se;
  sr->log_decrement_se = rd->log_decrement_se;
  sr->decay_rate = d * f;
  sr->decay_rate_se = hypot(f * rd->log_decrement_se, d * rd->frequency_se);
  sr->damping_ratio = d / sqrt(w);
  sr->damping_ratio_se = 4.0 * FL_PI * FL_PI / (w * sqrt(w)) * rd->log_decrement_se;
}

void fl_cantilever_tip_decrement(const fl_curve *c, int s, int np, fl_specimen_result *sr)
{
  const double *t = c->time + (size_t)s * np, *x = c->x + (size_t)s * np;
  double *te = malloc(((size_t)np + 1) * sizeof *te), *xe = malloc(((size_t)np + 1) * sizeof *xe);
  fl_ringdown rd;
  double span = np >= 2 ? t[np - 1] - t[0] : 0.0;
  sr->tip_log_decrement = NAN;
  sr->ring_rows_per_period = span > 0.0 && sr->frequency > 0.0 ? (np - 1) / (span * sr->frequency) : NAN;
  if (te && xe && sr->ring_rows_per_period >= FL_RING_CSV_MIN_ROWS &&
      fl_ringdown_fit(te, xe, fl_ringdown_extremes(t, x, np, te, xe), &rd) == FL_OK && rd.frequency > 0.0)
    sr->tip_log_decrement = rd.log_decrement;
  free(te);
  free(xe);
}

int fl_cantilever_rows_warning(const fl_result *res, int output_points, char *buf, size_t len)
{
  for (int s = 0; res->vibration && s < res->specimens; s++) {
    double rows = res->spec[s].ring_rows_per_period;
    if (!(rows < FL_RING_CSV_MIN_ROWS))
      continue;
    /* the first frequency and decrement come from every step and stand; the rows do not */
    snprintf(buf, len, "specimen %d's ring-down is written at %.3g rows a period, too few for its peaks: the CSV "
             "and the plot miss them, and tip_logarithmic_decrement is null; set simulation.output_points to at "
             "least %.0f (%d rows a period)", s + 1, rows, ceil(output_points * FL_RING_CSV_MIN_ROWS / rows),
             FL_RING_CSV_MIN_ROWS);
    return 1;
  }
  return 0;
}

void fl_ring_track_done(fl_ring_track *k, fl_specimen_result *sr)
{
  fl_ringdown rd;
  /* a ring too short to measure has no figures (null in the summary), never 0 */
  sr->frequency = sr->log_decrement = sr->frequency_se = sr->log_decrement_se = NAN;
  sr->decay_rate = sr->decay_rate_se = sr->damping_ratio = sr->damping_ratio_se = NAN;
  if (k->ne >= FL_RING_MIN_EXTREMES && fl_ringdown_fit(k->te, k->xe, k->ne, &rd) == FL_OK && rd.frequency > 0.0)
    fl_ring_figures(&rd, sr);
  sr->extremes = k->ne;
  free(k->te);
  free(k->xe);
  k->te = k->xe = NULL;
  k->ne = k->cap = 0;
}

void fl_cantilever_release(int nspec, fl_system *sys, fl_result *res)
{
  res->vibration = 1;
  for (int s = 0; s < nspec; s++)
    res->spec[s].release_x = fl_system_pload_displacement(sys, s);
  sys->pload.force = sys->pload.spring = sys->pload.anchor = 0.0;
}

void fl_cantilever_ring_row(const fl_system *sys, int s, const fl_build_info *info, const double *phi, double tm,
                            fl_curve *curve, size_t r)
{
  curve->time[r] = tm;
  curve->x[r] = fl_system_pload_displacement(sys, s);
  curve->y[r] = sys->pload_force[s];
  curve->support[r] = fl_cantilever_first_mode(sys, info, phi, s);
  curve->kinetic[r] = fl_system_kinetic(sys, s);
  curve->strain[r] = sys->strain_energy[s];
  fl_system_count(sys, s, &curve->broken[r], &curve->yielded[r]);
}

int fl_cantilever_ringdown(const fl_experiment *const *exps, int nspec, int s0, fl_system *sys,
                           const fl_build_info *info, const fl_run_hooks *hooks, fl_curve *curve, fl_result *res,
                           char *err, size_t errlen)
{
  (void)s0; /* a ring-down is not spread over MPI ranks: the batch is whole here */
  const fl_experiment *exp = exps[0];
  int np = exp->sim.output_points, rc = FL_OK;
  double ring = exp->test.ring_periods * info->first_period, dt = sys->dt;
  double steps_needed = ceil(ring / dt);
  if (steps_needed > FL_MAX_STEPS) {
    snprintf(err, errlen,
             "test.ring_periods: the ring-down needs %.3g time steps of %.3g s; allowed: at most %.0e (fewer periods, "
             "or fewer segments)",
             steps_needed, dt, FL_MAX_STEPS);
    return FL_ELIMIT;
  }
  long nsteps = (long)steps_needed;
  fl_ring_track *tr = calloc((size_t)nspec, sizeof *tr);
  double *phi = malloc(((size_t)sys->nbody + 1) * sizeof *phi);
  if (!tr || !phi) {
    free(tr);
    free(phi);
    snprintf(err, errlen, "out of memory for %d specimens", nspec);
    return FL_ENOMEM;
  }
  fl_cantilever_mode_shape(sys, info, phi);
  fl_cantilever_release(nspec, sys, res);
  fl_system_set_step(sys, dt);
  for (int s = 0; s < nspec; s++)
    fl_system_set_damping(sys, s, exps[s]->bond.damping, exps[s]->bond.damping_stabilization);
  curve->npoints = np;
  int point = 0;
  double box = 10.0 * exp->fiber.length_m;
  for (long n = 0; n <= nsteps; n++) {
    double tm = n * dt;
    for (int s = 0; s < nspec && rc == FL_OK; s++)
      rc = fl_ring_track_add(&tr[s], tm, fl_cantilever_first_mode(sys, info, phi, s));
    if (rc) {
      snprintf(err, errlen, "out of memory for the ring-down's extremes");
      goto out;
    }
    if (point < np && tm + 0.5 * dt >= point * ring / (np - 1)) {
      fl_system_loads(sys, 0);
      for (int s = 0; s < nspec; s++)
        fl_cantilever_ring_row(sys, s, info, phi, tm, curve, (size_t)s * np + point);
      point++;
    }
    if (n == nsteps)
      break;
    int bs = 0, bb = 0;
    rc = fl_system_step(sys, &bs, &bb);
    if (rc == FL_OK && (n & 1023) == 0)
      rc = fl_system_outside(sys, box, &bs, &bb);
    if (rc) {
      snprintf(err, errlen,
               "unstable in the ring-down at step %ld (t = %.6g s after the release), specimen %d, bond %d: a body "
               "left the finite numbers or the bounding box; likely cause: time step too large for the stiffness "
               "or damping (lower simulation.safety or bond.damping, raise bond.damping_stabilization)",
               n + 1, tm + dt, bs, bb);
      goto out;
    }
    if (hooks && hooks->stop && *hooks->stop) {
      snprintf(err, errlen, "interrupted in the ring-down at step %ld of %ld", n + 1, nsteps);
      rc = FL_EINTERRUPT;
      goto out;
    }
    if (hooks && hooks->progress && (n & 4095) == 0)
      hooks->progress(hooks->ctx, (double)n / nsteps);
  }
  for (int s = 0; s < nspec; s++)
    fl_ring_track_done(&tr[s], &res->spec[s]);
out:
  curve->npoints = point;
  for (int s = 0; s < nspec; s++) {
    free(tr[s].te);
    free(tr[s].xe);
  }
  free(tr);
  free(phi);
  return rc;
}
