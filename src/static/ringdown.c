/* ringdown.c: a vibration cantilever's ring-down on the static solver's equations
 * (fiberlab-model(7), THE STATIC SOLVER, The ring-down): implicit steps in time by the
 * trapezoidal rule, Newton on the balance of momentum over each step. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cantilever.h"
#include "integrate.h"
#include "track.h"
#include "internal.h"

#define RING_STEPS 200 /* a ring-down's time steps per period of the first mode */
#define RING_CUTS 8    /* and the halvings of one where Newton fails */
#define RING_TOL 1e-6  /* Newton's tolerance there, of the load scale */

/* The first guess of a step: the free bodies carried on by their velocities, the
 * accelerations of the last converged loads and the rate those changed at over the
 * step before, x_c + h v_c + h^2 a_c / 2 + h^3 (a_c - a_p) / (6 h_p) (and the same in
 * rotation, with the symmetric body's I^-1 t as its angular acceleration).  Inertia
 * makes the step's tangent 4 m / h^2: a guess off by dx leaves a residual of
 * 2 m dx / h^2, (omega h)^(k-2) of the elastic load for an error of order k in h, so
 * the third-order term saves an iteration a step. */
static void ring_predict(workspace *w)
{
  fl_system *sys = w->sys;
  double h = w->h, c3 = w->hp > 0.0 ? h * h * h / (6.0 * w->hp) : 0.0;
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    double ia = sys->inertia_axial[i], it = sys->inertia_trans[i];
    fl_vec3 acc = fl_scale(w->fc[i], 1.0 / sys->mass[i]);
    fl_vec3 jerk = fl_scale(fl_sub(w->fc[i], w->fp[i]), 1.0 / sys->mass[i]);
    fl_vec3 alpha = fl_omega_of(w->qc[i], w->tc[i], ia, it);
    fl_vec3 dalpha = fl_omega_of(w->qc[i], fl_sub(w->tc[i], w->tp[i]), ia, it);
    sys->x[i] = fl_axpy(fl_axpy(fl_axpy(w->xc[i], h, w->vc[i]), 0.5 * h * h, acc), c3, jerk);
    fl_vec3 rot = fl_axpy(fl_axpy(fl_scale(w->oc[i], h), 0.5 * h * h, alpha), c3, dalpha);
    sys->q[i] = fl_qnormalize(fl_qmul(fl_qexp(rot), w->qc[i]));
  }
}

/* The step's time step h: the bonds' damping steps with it (the Maxwell element's decay
 * over h), and the tangent, whose inertia is 4 m / h^2, is built afresh. */
static void ring_set_step(workspace *w, double h)
{
  if (h == w->h)
    return;
  w->hp = 0.0; /* no rate of the accelerations across a change of step */
  w->h = h;
  w->sys->dt = h;
  fl_system_set_damping(w->sys, 0, w->a_damp, w->stab);
  w->lu_valid = 0;
}

/* One step of h from the converged state by the trapezoidal rule: Newton on the
 * balance of momentum (residual_advance), then the history moved on and the step's
 * velocities, momenta and loads kept for the next.  Returns 1 when converged; else the
 * state is back at the last converged one. */
static int ring_step(workspace *w, double h, int *iterations)
{
  fl_system *sys = w->sys;
  ring_set_step(w, h);
  ring_predict(w);
  if (!fl_static_newton(w, iterations)) {
    fl_static_restore_state(w);
    w->lu_valid = 0;
    return 0;
  }
  if (!fl_static_trial_is_current(w))
    fl_static_trial_residual(w, w->r);
  fl_static_commit(w); /* takes the trial's history; leaves the bodies still */
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    /* the step's velocities, from the state before it (xh[0], qh[0] after the commit) */
    fl_vec3 v, o;
    fl_static_trapezoid_rates(w, i, w->xc[i], w->qc[i], w->xh[0][i], w->qh[0][i], &v, &o);
    w->vc[i] = sys->v[i] = v;
    w->oc[i] = sys->w[i] = o;
    sys->L[i] = fl_static_momentum(sys, i, w->qc[i], o);
    w->fp[i] = w->fc[i];
    w->tp[i] = w->tc[i];
    w->fc[i] = w->ft[i];
    w->tc[i] = w->tt[i];
  }
  w->hp = h;
  return 1;
}

/* A step of h, or where Newton fails, two of h / 2, down to RING_CUTS halvings. */
static int ring_advance(workspace *w, double h, int depth, int *iterations)
{
  if (ring_step(w, h, iterations))
    return 1;
  if (depth == RING_CUTS)
    return 0;
  w->st.cutbacks++;
  return ring_advance(w, 0.5 * h, depth + 1, iterations) && ring_advance(w, 0.5 * h, depth + 1, iterations);
}

/* One specimen's ring-down from its equilibrium at the release, in its own system. */
static void ring_specimen(fl_system *batch, specimen_job *job, fl_static_stats *out)
{
  fl_system one;
  workspace w;
  fl_ring_track tr = {0};
  job->rows = 0;
  job->steps = 0;
  if (!fl_static_job_workspace(batch, job, &one, &w))
    return;
  /* in time: the contacts' damping back on, the bonds' with the step (ring_set_step),
   * and breaks as they come (the path locates them; a step takes them as it finds them) */
  for (int k = 0; k < one.ntool; k++)
    one.law[k].beta = w.beta[k];
  fl_static_breakage(&w, 1);
  w.dynamic = 1;
  w.tol = RING_TOL;
  ring_set_step(&w, job->h);
  fl_static_residual(&w, w.r); /* the loads at the release, at rest */
  for (int i = 0; i < one.nbody; i++) {
    w.fc[i] = w.ft[i];
    w.tc[i] = w.tt[i];
  }
  size_t base = (size_t)job->s * job->np;
  fl_cantilever_ring_row(&one, 0, job->info, job->phi, 0.0, job->curve, base);
  job->rows = 1;
  if (fl_ring_track_add(&tr, 0.0, fl_cantilever_first_mode(&one, job->info, job->phi, 0)))
    goto nomem;
  for (int row = 1; row < job->np; row++) {
    for (int k = 0; k < job->per_row; k++) {
      int it = 0;
      double tm = ((double)(row - 1) * job->per_row + k + 1) * job->h;
      if (!ring_advance(&w, job->h, 0, &it)) {
        job->status = FL_EUNSTABLE;
        snprintf(job->err, job->errlen,
                 "static solver: ring-down: specimen %d: no convergence in the step to t = %.6g s after the release "
                 "(step %ld of %.4g s, halved %d times); body %d has the largest residual",
                 job->s0 + job->s, tm, job->steps + 1, job->h, RING_CUTS, fl_static_worst_body(&w, w.r));
        goto done;
      }
      job->steps++;
      if (fl_ring_track_add(&tr, tm, fl_cantilever_first_mode(&one, job->info, job->phi, 0)))
        goto nomem;
    }
    fl_cantilever_ring_row(&one, 0, job->info, job->phi, (double)row * job->per_row * job->h, job->curve,
                           base + (size_t)row);
    job->rows++;
    if (job->hooks && job->hooks->stop && *job->hooks->stop) {
      job->status = FL_EINTERRUPT;
      snprintf(job->err, job->errlen, "interrupted in the ring-down at row %d of %d", row + 1, job->np);
      goto done;
    }
    if (job->hooks && job->hooks->progress && job->s == 0)
      job->hooks->progress(job->hooks->ctx, (double)row / (job->np - 1));
  }
  fl_ring_track_done(&tr, &job->res->spec[job->s]);
  goto done;
nomem:
  job->status = FL_ENOMEM;
  snprintf(job->err, job->errlen, "out of memory for the ring-down's extremes");
done:
  free(tr.te);
  free(tr.xe);
  fl_static_put_back(batch, job->s, &w);
  *out = w.st;
  fl_static_workspace_free(&w);
}

int fl_static_ringdown(const fl_experiment *const *exps, int nspec, int s0, fl_system *sys, const fl_build_info *info,
                       const fl_run_hooks *hooks, fl_curve *curve, fl_result *res, char *err, size_t errlen)
{
  const fl_experiment *exp = exps[0];
  int np = exp->sim.output_points;
  /* steps a row: RING_STEPS a first period at least, from the periods a row, without
   * the period itself (with it, the rounding of a whole number of steps a row could
   * fall either way between two neighbouring stiffnesses: a jump in the frequency a
   * fit's differences would read) */
  double spacing = exp->test.ring_periods * info->first_period / (np - 1);
  int per_row = (int)ceil(exp->test.ring_periods * RING_STEPS / (np - 1) * (1.0 - 1e-12));
  per_row = per_row < 1 ? 1 : per_row;
  specimen_job *jobs = calloc((size_t)nspec, sizeof *jobs);
  fl_static_stats *stats = calloc((size_t)nspec, sizeof *stats);
  char *errs = calloc((size_t)nspec, 512);
  double *phi = malloc(((size_t)sys->nbody + 1) * sizeof *phi);
  if (!jobs || !stats || !errs || !phi) {
    free(jobs);
    free(stats);
    free(errs);
    free(phi);
    snprintf(err, errlen, "out of memory for the static solver");
    return FL_ENOMEM;
  }
  fl_cantilever_mode_shape(sys, info, phi);
  fl_cantilever_release(nspec, sys, res);
  for (int s = 0; s < nspec; s++) {
    specimen_job *j = &jobs[s];
    j->exp = exps[s];
    j->info = info;
    j->hooks = hooks;
    j->curve = curve;
    j->res = res;
    j->nspec = nspec;
    j->np = np;
    j->s = s;
    j->s0 = s0;
    j->err = errs + (size_t)s * 512;
    j->errlen = 512;
    j->phi = phi;
    j->per_row = per_row;
    j->h = spacing / per_row;
  }
  fl_static_run_jobs(sys, jobs, stats, nspec, hooks, ring_specimen);
  int rc = FL_OK, rows = np;
  for (int s = 0; s < nspec; s++) {
    rows = jobs[s].rows < rows ? jobs[s].rows : rows;
    if (jobs[s].status && rc == FL_OK) {
      rc = jobs[s].status;
      snprintf(err, errlen, "%s", jobs[s].err);
    }
    res->newton_iterations += stats[s].newton;
    res->tangents += stats[s].tangents;
    res->cutbacks += stats[s].cutbacks;
  }
  curve->npoints = rows;
  res->time_step = jobs[0].h;
  sys->step += jobs[0].steps;
  free(jobs);
  free(stats);
  free(errs);
  free(phi);
  return rc;
}
