/* run.c: virtual 3-point bending, tension and torsion tests on a batch of specimens. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "build.h"
#include "fl_defs.h"
#include "gpu.h"
#include "run.h"
#include "static.h"
#include "cantilever.h"
#include "compression.h"
#include "measure.h"
#include "mpi_batch.h"
#include "path.h"

/* ---- results --------------------------------------------------------------- */

void fl_curve_free(fl_curve *c)
{
  free(c->time);
  free(c->x);
  free(c->y);
  free(c->support);
  free(c->midspan);
  free(c->kinetic);
  free(c->strain);
  free(c->broken);
  free(c->yielded);
  memset(c, 0, sizeof *c);
}

void fl_result_free(fl_result *r)
{
  free(r->spec);
  memset(r, 0, sizeof *r);
}

/* Rows were written at s * planned + p; close the gaps when fewer were recorded
 * (curve->npoints of them). */
static void compact_rows(fl_curve *curve, int planned)
{
  int np = curve->npoints, nspec = curve->nspec;
  if (np == planned)
    return;
  double *cols[] = {curve->time, curve->x, curve->y, curve->support, curve->kinetic, curve->strain, curve->midspan};
  for (int c = 0; c < 7; c++)
    for (int s = 0; s < nspec; s++)
      memmove(cols[c] + (size_t)s * np, cols[c] + (size_t)s * planned, (size_t)np * sizeof(double));
  for (int s = 0; s < nspec; s++) {
    memmove(curve->broken + (size_t)s * np, curve->broken + (size_t)s * planned, (size_t)np * sizeof(int));
    memmove(curve->yielded + (size_t)s * np, curve->yielded + (size_t)s * planned, (size_t)np * sizeof(int));
  }
}

/* ---- running ----------------------------------------------------------------- */

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The static solver's branch on specimens [s0, s0 + nspec) of a batch: what every
 * specimen's solve did, summed into res; *fail_key the first that failed (the
 * specimens are solved independently, and the serial run reports the first). */
static int run_static(const fl_experiment *const *exps, int nspec, int s0, fl_system *sys, const fl_build_info *info,
                      const fl_run_hooks *hooks, fl_curve *curve, fl_result *res, int *leg_first_end,
                      double *fail_key, char *err, size_t errlen)
{
  fl_static_stats *st = calloc((size_t)nspec, sizeof *st);
  if (!st) {
    snprintf(err, errlen, "out of memory for %d specimens", nspec);
    return FL_ENOMEM;
  }
  int failed;
  int rc = fl_static_run(exps, nspec, s0, sys, info, hooks, curve, res, st, leg_first_end, &failed, err, errlen);
  if (rc)
    *fail_key = failed >= 0 ? s0 + failed : -1.0;
  for (int s = 0; s < nspec; s++) {
    res->increments += st[s].increments;
    res->newton_iterations += st[s].newton;
    res->tangents += st[s].tangents;
    res->cutbacks += st[s].cutbacks;
    res->unknowns_per_body = st[s].unknowns > res->unknowns_per_body ? st[s].unknowns : res->unknowns_per_body;
    res->relaxations += st[s].relaxations;
    res->events += st[s].events;
    double P = st[s].load_scale, L = st[s].length_scale;
    double fs = exps[0]->test.kind == FL_TEST_TORSION ? P / L : P;
    double ts = exps[0]->test.kind == FL_TEST_TORSION ? P : P * L;
    res->residual_force = fmax(res->residual_force, st[s].residual_force / fs);
    res->residual_torque = fmax(res->residual_torque, st[s].residual_torque / ts);
  }
  free(st);
  return rc;
}

int fl_run(const fl_experiment *exp, int nspec, const fl_run_hooks *hooks, fl_curve *curve, fl_result *res,
           char *err, size_t errlen)
{
  const fl_experiment **exps = malloc((size_t)nspec * sizeof *exps);
  if (!exps) {
    memset(curve, 0, sizeof *curve);
    memset(res, 0, sizeof *res);
    snprintf(err, errlen, "out of memory for %d specimens", nspec);
    return FL_ENOMEM;
  }
  for (int s = 0; s < nspec; s++)
    exps[s] = exp;
  int rc = fl_run_many(exps, nspec, hooks, curve, res, err, errlen);
  free(exps);
  return rc;
}

/* fl_run_many for specimens [s0, s0 + nspec) of a batch led by lead (its exps[0]):
 * one block of a batch spread over MPI ranks (s0 0 and lead exps[0]: the whole
 * batch).  critical > 0: the batch's stability bound, for a block that cannot see
 * all of it.  *fail_key orders failures as the serial run meets them (mpi_batch.h):
 * -1 before the run; the explicit solver's 2 n at the output row of step n, 2 n + 1
 * after step n; the static solver's the batch's number of the failed specimen. */
static int run_block(const fl_experiment *lead, const fl_experiment *const *exps, int nspec, int s0,
                     double critical, const fl_run_hooks *hooks, fl_curve *curve, fl_result *res, char *err,
                     size_t errlen, double *fail_key)
{
  const fl_experiment *exp = lead;
  fl_system sys;
  fl_build_info info;
  const fl_test_def *t = &exp->test;
  int rc = fl_build_block(lead, exps, nspec, s0, &sys, &info);
  memset(curve, 0, sizeof *curve);
  memset(res, 0, sizeof *res);
  *fail_key = -1.0;
  if (rc) {
    snprintf(err, errlen, "cannot build the specimens: %s", fl_strerror(rc));
    return rc;
  }
  if (critical > 0.0)
    info.critical_step = critical;
  double dt = exp->sim.time_step > 0.0 ? exp->sim.time_step : exp->sim.safety * info.critical_step;
  if (exp->sim.time_step > 0.0 && dt > info.critical_step && !exp->sim.force_time_step) {
    snprintf(err, errlen,
             "simulation.time_step: %g s is above the stability bound %.4g s; allowed: a step up to %.4g s, auto "
             "(%.4g s with safety %g), or force_time_step: true",
             dt, info.critical_step, info.critical_step, exp->sim.safety * info.critical_step, exp->sim.safety);
    fl_system_free(&sys);
    return FL_ETIMESTEP;
  }
  fl_system_set_step(&sys, dt);
  for (int s = 0; s < nspec; s++)
    fl_system_set_damping(&sys, s, exps[s]->bond.damping, exps[s]->bond.damping_stabilization);
  sys.threads = (hooks && hooks->threads > 1) ? hooks->threads : 1;
  enum fl_solver solver = fl_solver_resolve(exp, hooks && hooks->gpu);
  if (solver == FL_SOLVER_STATIC && hooks && hooks->gpu) {
    snprintf(err, errlen, "simulation.solver: static runs on the CPU only; allowed on the GPU: explicit | auto");
    fl_system_free(&sys);
    return FL_EINPUT;
  }
  if (hooks && hooks->gpu && sys.pload.body >= 0) {
    snprintf(err, errlen, "test.kind: a %s test runs on the CPU only; allowed on the GPU: bend3pt | tension | torsion",
             fl_test_kind_name(t->kind));
    fl_system_free(&sys);
    return FL_EINPUT;
  }
  fl_gpu *gpu = NULL;
  if (hooks && hooks->gpu) {
#ifdef HAVE_CUDA
    rc = fl_gpu_create(&gpu, &sys, err, errlen);
    if (rc) {
      fl_system_free(&sys);
      return rc;
    }
#else
    snprintf(err, errlen, "this fiberlab was built without CUDA");
    fl_system_free(&sys);
    return FL_EINPUT;
#endif
  }

  double target = fl_test_target(t);
  /* Quasi-static rule: loading at a constant rate from 0 to the maximum would take 20
   * periods of the test's lowest elastic mode; each leg starts and ends with a cosine
   * ramp of one period. */
  double first = (t->ncycles > 0 && t->cycles[0] > 0.0) ? t->cycles[0] : target;
  double speed = t->speed > 0.0 ? t->speed : target / (20.0 * info.first_period);
  fl_path_schedule p;
  fl_path_schedule_make(&p, t, speed, info.first_period);
  double steps_needed = ceil(p.total / dt);
  if (solver == FL_SOLVER_EXPLICIT && steps_needed > FL_MAX_STEPS) {
    snprintf(err, errlen,
             "the test needs %.3g time steps of %.3g s; allowed: at most %.0e (shorten the test, raise its speed, "
             "or use fewer segments)",
             steps_needed, dt, FL_MAX_STEPS);
    fl_system_free(&sys);
    return FL_ELIMIT;
  }
  long nsteps = (long)steps_needed;
  int np = exp->sim.output_points;

  size_t nrow = (size_t)nspec * np;
  curve->nspec = nspec;
  curve->npoints = np;
  curve->time = calloc(nrow, sizeof(double));
  curve->x = calloc(nrow, sizeof(double));
  curve->y = calloc(nrow, sizeof(double));
  curve->support = calloc(nrow, sizeof(double));
  curve->midspan = calloc(nrow, sizeof(double));
  curve->kinetic = calloc(nrow, sizeof(double));
  curve->strain = calloc(nrow, sizeof(double));
  curve->broken = calloc(nrow, sizeof(int));
  curve->yielded = calloc(nrow, sizeof(int));
  res->spec = calloc((size_t)nspec, sizeof *res->spec);
  int point = 0; /* output rows recorded */
  double *work = calloc((size_t)nspec, sizeof(double));
  double *event_time = malloc((size_t)nspec * sizeof(double)); /* first break or buckle, s */
  double *touch = malloc((size_t)nspec * sizeof(double));      /* bend3pt: nose position at first touch */
  if (!curve->time || !curve->x || !curve->y || !curve->support || !curve->midspan || !curve->kinetic || !curve->strain ||
      !curve->broken || !curve->yielded || !res->spec || !work || !event_time || !touch) {
    rc = FL_ENOMEM;
    snprintf(err, errlen, "out of memory for %zu curve rows", nrow);
    goto out;
  }

  res->kind = t->kind;
  res->specimens = nspec;
  res->segments = sys.nbody;
  res->time_step = dt;
  res->critical_step = info.critical_step;
  res->length = fl_test_bends(t->kind) ? info.span : info.gauge;
  res->speed = speed;
  res->centre_is_segment = info.centre_is_segment;
  res->overlap_ref = info.contact_overlap_ref;
  res->buckling = (int)exp->bond.buckling.type;
  res->bk_fmax = exp->bond.buckling.max_force;
  res->bk_fmin = exp->bond.buckling.min_force;
  res->bk_umin = exp->bond.buckling.displacement_at_min_force;
  res->bk_slope = exp->bond.buckling.slope_after_min_force;

  for (int s = 0; s < nspec; s++)
    event_time[s] = -1.0;
  /* tension and torsion measure from the start; bend3pt from the nose's first touch,
   * which comes after the specimen has settled on the supports under its weight */
  for (int s = 0; s < nspec; s++)
    touch[s] = fl_test_bends(t->kind) ? -1.0 : 0.0;
  double t0 = now(), last_progress = -1.0;
  double box = 10.0 * (exp->fiber.length_m + (t->kind == FL_TEST_TORSION || t->kind == FL_TEST_CANTILEVER ? 0.0 : target));
  int leg_first_end = -1;
  double pos = 0.0;
  res->solver = solver;
  if (solver == FL_SOLVER_STATIC) {
    if (t->kind == FL_TEST_CANTILEVER && t->mode == FL_MODE_VIBRATION && np > 11)
      curve->npoints = 11; /* the loading path is not recorded: a few rows will do */
    rc = run_static(exps, nspec, s0, &sys, &info, hooks, curve, res, &leg_first_end, fail_key, err, errlen);
    point = curve->npoints;
    if (rc)
      goto out;
    goto figures;
  }
  for (long n = 0; n <= nsteps; n++) {
    double tm = n * dt;
    int leg = 0;
    pos = fl_path_schedule_position(&p, tm, &leg);
    if (t->kind == FL_TEST_CANTILEVER)
      fl_cantilever_drive(&sys, t, pos);
    /* Record when this step's time reaches the next output time. */
    double t_out = point * p.total / (np - 1);
    if (point < np && tm + 0.5 * dt >= t_out) {
#ifdef HAVE_CUDA
      if (gpu && fl_gpu_download(gpu, &sys)) {
        snprintf(err, errlen, "cannot copy the state back from the GPU");
        rc = FL_EIO;
        *fail_key = 2.0 * n;
        goto out;
      }
#endif
      fl_system_loads(&sys, 0);
      if (leg > 0 && leg_first_end < 0)
        leg_first_end = point;
      for (int s = 0; s < nspec; s++) {
        size_t r = (size_t)s * np + point;
        double y = fl_run_measured(&sys, t->kind, s);
        double react = fl_measure_reaction(&sys, t->kind, s);
        if (fl_test_bends(t->kind))
          curve->support[r] = react;
        if (t->kind == FL_TEST_BEND4PT)
          curve->midspan[r] = fl_run_midspan_deflection(&sys, s, info.span);
        if (t->kind == FL_TEST_COMPRESSION)
          curve->midspan[r] = fl_compression_lateral(&sys, s);
        curve->time[r] = tm;
        double xs = fl_measure_x(&sys, t->kind, s, touch[s], pos);
        curve->x[r] = xs;
        curve->y[r] = y;
        curve->kinetic[r] = fl_system_kinetic(&sys, s);
        curve->strain[r] = sys.strain_energy[s];
        fl_system_count(&sys, s, &curve->broken[r], &curve->yielded[r]);
        /* after a break or a buckle, a row may set the peak again once the ringing has
         * had two periods of the lowest mode to settle and the run is quasi-static: little
         * kinetic energy, and the two ends of the specimen carry the same load (the
         * pieces of a broken specimen can ring with little kinetic energy) */
        if (sys.nbroken[s] > 0 && tm >= event_time[s] + 2.0 * info.first_period &&
            curve->kinetic[r] <= 0.05 * curve->strain[r] && y > res->spec[s].peak && fl_measure_balanced(y, react)) {
          res->spec[s].peak = y;
          res->spec[s].x_at_peak = xs;
        }
        if (point > 0) {
          size_t q = r - 1;
          work[s] += 0.5 * (curve->y[q] + y) * (xs - curve->x[q]);
        }
        /* Energy jump: kinetic energy far above the work put in, once loading is under way. */
        if (leg == 0 && fabs(pos) >= 0.1 * fabs(first) && curve->kinetic[r] > 100.0 * (fabs(work[s]) + curve->strain[r])) {
          int worst = 0;
          double wk = -1.0;
          for (int i = 0; i < sys.nbody; i++) {
            size_t k = (size_t)s * sys.nbody + i;
            double e = 0.5 * sys.mass[i] * fl_dot(sys.v[k], sys.v[k]);
            if (e > wk) {
              wk = e;
              worst = i;
            }
          }
          snprintf(err, errlen,
                   "unstable at step %ld (t = %.6g s), specimen %d, bond %d: kinetic energy %.3g J is over 100 "
                   "times the work done %.3g J; likely cause: time step too large for the stiffness or damping "
                   "(lower simulation.safety or bond.damping, raise bond.damping_stabilization)",
                   n, tm, s0 + s, worst > 0 ? worst - 1 : 0, curve->kinetic[r], work[s]);
          rc = FL_EUNSTABLE;
          *fail_key = 2.0 * n;
          goto out;
        }
      }
      point++;
      if (hooks && hooks->sample)
        hooks->sample(hooks->ctx, &sys, point - 1, pos);
    }
    if (n == nsteps)
      break;
    /* Tool and grip rates that reach the next prescribed position exactly. */
    double rate = (fl_path_schedule_position(&p, tm + dt, NULL) - pos) / dt;
    if (fl_test_bends(t->kind))
      for (int k = 2; k < sys.ntool; k++)
        sys.tool[k].vel = fl_v3(0, -rate, 0);
    else if (t->kind == FL_TEST_TENSION)
      sys.grip_speed = rate;
    else if (t->kind == FL_TEST_COMPRESSION)
      sys.grip_speed = -rate;
    else
      sys.grip_omega = rate;
    int bs = 0, bb = 0;
#ifdef HAVE_CUDA
    if (gpu) {
      rc = fl_gpu_step(gpu, &sys, 1, &bs, &bb);
      if (rc == FL_OK && (n & 1023) == 0)
        rc = fl_gpu_download(gpu, &sys);
      if (rc == FL_EIO) {
        snprintf(err, errlen, "the GPU step failed at step %ld", n + 1);
        *fail_key = 2.0 * n + 1.0;
        goto out;
      }
    } else
#endif
      rc = fl_system_step(&sys, &bs, &bb);
    /* The peak from every step's loads (evaluated at this step's start, at pos), not
     * only from the output rows, until a bond breaks or buckles: what follows at once
     * is the ringing of the released energy, not the strength.  Later rows count again
     * once the run is quasi-static (below). */
    for (int s = 0; s < nspec; s++) {
      if (sys.nbroken[s] > 0) {
        if (event_time[s] < 0.0)
          event_time[s] = tm;
        continue;
      }
      double y = fl_run_measured(&sys, t->kind, s);
      if (fl_test_bends(t->kind) && touch[s] < 0.0 && y > 0.0)
        touch[s] = pos; /* the nose's first touch: displacement counts from here */
      if (y > res->spec[s].peak || n == 0) {
        res->spec[s].peak = y;
        res->spec[s].x_at_peak = fl_measure_x(&sys, t->kind, s, touch[s], pos);
      }
    }
    if (rc == FL_OK && (n & 1023) == 0)
      rc = fl_system_outside(&sys, box, &bs, &bb);
    if (rc) {
      snprintf(err, errlen,
               "unstable at step %ld (t = %.6g s), specimen %d, bond %d: a body %s; likely cause: time step too "
               "large for the stiffness or damping (lower simulation.safety or bond.damping, raise "
               "bond.damping_stabilization)",
               n + 1, tm + dt, s0 + bs, bb, rc == FL_EUNSTABLE ? "left the finite numbers or the bounding box" : "");
      *fail_key = 2.0 * n + 1.0;
      goto out;
    }
    if (hooks && hooks->stop && *hooks->stop) {
      snprintf(err, errlen, "interrupted at step %ld of %ld", n + 1, nsteps);
      rc = FL_EINTERRUPT;
      *fail_key = 2.0 * n + 1.0;
      goto out;
    }
    if (hooks && hooks->progress && (n & 4095) == 0) {
      double fr = (double)n / nsteps;
      if (fr - last_progress >= 0.001) {
        hooks->progress(hooks->ctx, fr);
        last_progress = fr;
      }
    }
  }
  if (hooks && hooks->progress)
    hooks->progress(hooks->ctx, 1.0);
  curve->npoints = point;
figures:
  if (t->kind == FL_TEST_CANTILEVER && t->mode == FL_MODE_VIBRATION) {
    /* the loading path brought the tip to its deflection: release it, and the rows
     * become the ring-down */
    rc = fl_cantilever_ringdown(exps, nspec, &sys, &info, hooks, curve, res, err, errlen);
    point = curve->npoints;
    if (rc)
      goto out;
    leg_first_end = point;
  }
  np = point;
  compact_rows(curve, exp->sim.output_points);
  res->steps = sys.step;
  for (int s = 0; s < nspec; s++)
    if (sys.overlap[s] > res->max_overlap)
      res->max_overlap = sys.overlap[s];
  res->wall_time = now() - t0;
  if (leg_first_end < 0)
    leg_first_end = np;
  for (int s = 0; s < nspec; s++) {
    const double *x = curve->x + (size_t)s * np, *y = curve->y + (size_t)s * np;
    fl_specimen_result *sr = &res->spec[s];
    sr->failure_row = -1;
    for (int i = 0; i < np && sr->failure_row < 0; i++)
      if (curve->yielded[(size_t)s * np + i] > 0)
        sr->failure_row = i;
    /* the initial stiffness comes from the elastic part of the first leg */
    int elastic_end = sr->failure_row > 2 && sr->failure_row < leg_first_end ? sr->failure_row : leg_first_end;
    fl_measure_figures(x, y, np, elastic_end, sr);
    fl_system_count(&sys, s, &sr->broken, &sr->yielded);
    for (int b = 0; b < sys.nbond; b++)
      sr->buckled += sys.bstate[(size_t)s * sys.nbond + b].buckled;
    res->bonds_broken += sr->broken;
    res->bonds_yielded += sr->yielded;
    if (res->vibration)
      continue; /* rows in free vibration: no quasi-static figure */
    int quasi_end = sr->failure_row >= 0 && sr->failure_row < leg_first_end ? sr->failure_row : leg_first_end;
    for (int i = 0; i < quasi_end; i++) {
      size_t r = (size_t)s * np + i;
      if (fabs(curve->x[r]) >= 0.1 * fabs(first) && curve->strain[r] > 0.0) {
        double q = curve->kinetic[r] / curve->strain[r];
        if (q > res->ke_ratio)
          res->ke_ratio = q;
      }
    }
  }
out:
  /* An unstable or interrupted run keeps the rows it recorded, for a partial curve. */
  if ((rc == FL_EUNSTABLE || rc == FL_EINTERRUPT) && curve->time) {
    curve->npoints = point;
    compact_rows(curve, exp->sim.output_points);
    res->kind = t->kind;
    res->specimens = nspec;
  }
  free(work);
  free(event_time);
  free(touch);
#ifdef HAVE_CUDA
  fl_gpu_free(&gpu);
#else
  (void)gpu;
#endif
  fl_system_free(&sys);
  return rc;
}

#ifdef HAVE_MPI
/* A batch spread over MPI ranks (mpi_batch.h): this rank's block, then the whole
 * batch gathered.  Every rank takes the serial run's time step: the stability bound
 * of a probe built (not run) with each run of one experiment in the batch as one
 * specimen (a bound is a minimum, which repeated specimens do not change; a
 * calibration's batch is a few experiments, a strength batch one).  Strengths are drawn by the
 * batch's specimen numbers (fl_build_block), so each specimen is the serial run's. */
static int run_spread(const fl_experiment *const *exps, int nspec, int first, int count, const fl_run_hooks *hooks,
                      fl_curve *curve, fl_result *res, char *err, size_t errlen)
{
  const fl_experiment **uniq = malloc((size_t)nspec * sizeof *uniq);
  int nu = 0, rc = FL_OK;
  double critical = -1.0, key = -1.0;
  fl_run_hooks h = hooks ? *hooks : (fl_run_hooks){0};
  memset(curve, 0, sizeof *curve);
  memset(res, 0, sizeof *res);
  if (!uniq) {
    rc = FL_ENOMEM;
    snprintf(err, errlen, "out of memory for %d specimens", nspec);
  }
  for (int s = 0; uniq && s < nspec; s++)
    if (s == 0 || exps[s] != exps[s - 1])
      uniq[nu++] = exps[s];
  if (rc == FL_OK) {
    fl_system probe;
    fl_build_info info;
    rc = fl_build_block(exps[0], uniq, nu, 0, &probe, &info);
    if (rc)
      snprintf(err, errlen, "cannot build the specimens: %s", fl_strerror(rc));
    else
      fl_system_free(&probe);
    critical = info.critical_step;
  }
  if (fl_mpi_rank() != 0)
    h.progress = NULL; /* rank 0 reports */
  if (rc == FL_OK && count > 0)
    rc = run_block(exps[0], exps + first, count, first, critical, &h, curve, res, err, errlen, &key);
  free(uniq);
  return fl_mpi_batch_gather(nspec, count, rc, key, curve, res, err, errlen);
}
#endif

static int run_dispatch(const fl_experiment *const *exps, int nspec, const fl_run_hooks *hooks, fl_curve *curve,
                        fl_result *res, char *err, size_t errlen)
{
  double key;
#ifdef HAVE_MPI
  /* spread over the ranks: a batch's specimens share only the time step and the
   * loading path (not a ring-down's, which follows the batch, or a run whose sample
   * hook looks at the whole system) */
  const fl_test_def *t = &exps[0]->test;
  int first, count;
  if (!(hooks && hooks->sample) && !(t->kind == FL_TEST_CANTILEVER && t->mode == FL_MODE_VIBRATION) &&
      fl_mpi_batch_block(nspec, &first, &count) > 1)
    return run_spread(exps, nspec, first, count, hooks, curve, res, err, errlen);
#endif
  return run_block(exps[0], exps, nspec, 0, -1.0, hooks, curve, res, err, errlen, &key);
}

/* simulation.solver auto takes the static solver where it serves; where it fails
 * (FL_EUNSTABLE: no equilibrium found, as for a specimen whose buckled or broken bonds
 * leave a mechanism that falls off its supports, or none on the supports under its
 * weight), the explicit engine runs the whole batch instead, and the result says why.
 * An interrupted run is not run again. */
int fl_run_many(const fl_experiment *const *exps, int nspec, const fl_run_hooks *hooks, fl_curve *curve,
                fl_result *res, char *err, size_t errlen)
{
  int rc = run_dispatch(exps, nspec, hooks, curve, res, err, errlen);
  if (rc != FL_EUNSTABLE || res->solver != FL_SOLVER_STATIC || exps[0]->sim.solver != FL_SOLVER_AUTO ||
      (hooks && hooks->stop && *hooks->stop))
    return rc;
  char why[sizeof res->static_fallback];
  snprintf(why, sizeof why, "%s", err);
  fl_experiment *alt = malloc((size_t)nspec * sizeof *alt);
  const fl_experiment **ptr = malloc((size_t)nspec * sizeof *ptr);
  if (!alt || !ptr) {
    free(alt);
    free(ptr);
    return rc; /* the static solver's failure stands */
  }
  for (int s = 0; s < nspec; s++) {
    if (s > 0 && exps[s] == exps[s - 1]) { /* specimens that share a definition keep sharing it */
      ptr[s] = ptr[s - 1];
      continue;
    }
    alt[s] = *exps[s];
    alt[s].sim.solver = FL_SOLVER_EXPLICIT;
    ptr[s] = &alt[s];
  }
  fl_curve_free(curve);
  fl_result_free(res);
  rc = run_dispatch(ptr, nspec, hooks, curve, res, err, errlen);
  snprintf(res->static_fallback, sizeof res->static_fallback, "%s", why);
  if (rc && rc != FL_EINTERRUPT) { /* both failed: the static solver's reason first */
    char msg[2048];
    snprintf(msg, sizeof msg, "%s; then, on the explicit engine (simulation.solver auto): %s", why, err);
    snprintf(err, errlen, "%s", msg);
  }
  free(alt);
  free(ptr);
  return rc;
}
