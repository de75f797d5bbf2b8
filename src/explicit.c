/* explicit.c: the explicit solver (solver.h): the specimens stepped in time along the
 * loading path's schedule, on the CPU engine (engine.c) or the CUDA engine
 * (gpu/engine.cu), which differ only in how a step is taken, where it is watched and
 * how the state comes back to the host.  Between output rows every step is watched
 * (track.h: the peak and where it is, the first touch, the first break or buckle) for
 * instability too: on the host for the CPU engine, on the device for the CUDA engine,
 * whose host waits for it only at the rows (every 1024 steps it looks at the watch
 * without waiting).  At a row it records every specimen's measurements: the CUDA
 * engine evaluates the row on the device and sends back only what the row measures,
 * and its whole state at the end. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cantilever.h"
#include "fl_defs.h"
#include "gpu.h"
#include "measure.h"
#include "solver.h"
#include "test_kind.h"
#include "track.h"

/* ---- the engines ------------------------------------------------------------- */

/* Where a step found the run unstable. */
typedef struct {
  long step; /* the step, from 0 */
  int spec;  /* the specimen */
  int bond;  /* the bond it is reported at, or -1 */
} failure;

/* How a step is taken and watched.  The host keeps the step's bookkeeping (the grips,
 * the tools, the step count: fl_system_step_end). */
typedef struct {
  /* Make the engine's copy of sys; FL_OK or a status with a message. */
  int (*open)(void **dev, fl_system *sys, char *err, size_t errlen);
  /* Take step n from time tm (s) and path position pos, and watch it into tr (one per
   * specimen, track.h) for a test of kind; with box > 0, check that every body ends it
   * within box of the origin (m).  FL_OK, FL_EUNSTABLE with *fail (the CUDA engine:
   * every 1024 steps, for a failure that a look before found), FL_EIO when the device
   * failed. */
  int (*step)(void *dev, fl_system *sys, enum fl_test_kind kind, long n, double tm, double pos, double box,
              fl_track *tr, failure *fail);
  /* The engine's state into sys and its watch into tr: FL_OK, FL_EUNSTABLE with *fail
   * (a failure since the last sync), FL_EIO. */
  int (*sync)(void *dev, fl_system *sys, fl_track *tr, failure *fail);
  /* An output row: the loads of the state evaluated without moving it on
   * (fl_system_loads(sys, 0)) and what the row measures in sys (measure.h), each
   * specimen's kinetic energy into kin and its broken bonds into cnt, its yielded ones
   * into cnt + nspec, and the watch into tr; returns as sync. */
  int (*row)(void *dev, fl_system *sys, fl_track *tr, failure *fail, double *kin, int *cnt);
  /* The engine's whole state into sys, after a row (for a hook or a message): FL_OK or
   * FL_EIO. */
  int (*state)(void *dev, fl_system *sys);
  /* The host's watch tr back to the engine (after an output row changed it). */
  int (*put)(void *dev, enum fl_test_kind kind, const fl_track *tr);
  /* Why the engine's last call failed, for the message ("" when it cannot say). */
  const char *(*why)(const void *dev);
  void (*close)(void **dev);
} engine;

static int cpu_open(void **dev, fl_system *sys, char *err, size_t errlen)
{
  (void)sys, (void)err, (void)errlen;
  *dev = NULL;
  return FL_OK;
}

/* The CPU engine's step, watched on the host from the loads it leaves in sys. */
static int cpu_step(void *dev, fl_system *sys, enum fl_test_kind kind, long n, double tm, double pos, double box,
                    fl_track *tr, failure *fail)
{
  (void)dev;
  fail->step = n;
  int rc = fl_system_step(sys, &fail->spec, &fail->bond);
  for (int s = 0; s < sys->nspec; s++)
    if (fl_track_step(&tr[s], fl_test_bends(kind), fl_run_measured(sys, kind, s), sys->nbroken[s], tm, pos, n))
      tr[s].x_at_peak = fl_measure_x(sys, kind, s, tr[s].touch, pos);
  if (rc == FL_OK && box > 0.0)
    rc = fl_system_outside(sys, box, &fail->spec, &fail->bond);
  return rc;
}

static int cpu_sync(void *dev, fl_system *sys, fl_track *tr, failure *fail)
{
  (void)dev, (void)sys, (void)tr, (void)fail;
  return FL_OK;
}

/* The row on the host, from the state in sys. */
static void host_row(fl_system *sys, double *kin, int *cnt)
{
  fl_system_loads(sys, 0);
  for (int s = 0; s < sys->nspec; s++) {
    kin[s] = fl_system_kinetic(sys, s);
    fl_system_count(sys, s, &cnt[s], &cnt[sys->nspec + s]);
  }
}

static int cpu_row(void *dev, fl_system *sys, fl_track *tr, failure *fail, double *kin, int *cnt)
{
  (void)dev, (void)tr, (void)fail;
  host_row(sys, kin, cnt);
  return FL_OK;
}

static int cpu_state(void *dev, fl_system *sys)
{
  (void)dev, (void)sys;
  return FL_OK;
}

static int cpu_put(void *dev, enum fl_test_kind kind, const fl_track *tr)
{
  (void)dev, (void)kind, (void)tr;
  return FL_OK;
}

static const char *cpu_why(const void *dev)
{
  (void)dev;
  return "";
}

static void cpu_close(void **dev) { *dev = NULL; }

static const engine cpu_engine = {cpu_open, cpu_step, cpu_sync, cpu_row, cpu_state, cpu_put, cpu_why, cpu_close};

/* The CUDA engine: the device watches every step itself, and the host waits for it
 * only at a sync.  A build without CUDA links gpu_none.c, whose engine never opens. */
static int gpu_open(void **dev, fl_system *sys, char *err, size_t errlen)
{
  *dev = NULL;
  return fl_gpu_create((fl_gpu **)dev, sys, err, errlen);
}

static int gpu_sync(void *dev, fl_system *sys, fl_track *tr, failure *fail)
{
  int rc = fl_gpu_download((fl_gpu *)dev, sys);
  if (rc == FL_OK)
    rc = fl_gpu_track_get((fl_gpu *)dev, sys, tr, &fail->step, &fail->spec, &fail->bond);
  if (rc)
    return rc;
  return fail->step >= 0 ? FL_EUNSTABLE : FL_OK;
}

static int gpu_row(void *dev, fl_system *sys, fl_track *tr, failure *fail, double *kin, int *cnt)
{
  int rc = fl_gpu_row((fl_gpu *)dev, sys, kin, cnt, cnt + sys->nspec);
  if (rc == FL_OK)
    rc = fl_gpu_track_get((fl_gpu *)dev, sys, tr, &fail->step, &fail->spec, &fail->bond);
  if (rc)
    return rc;
  return fail->step >= 0 ? FL_EUNSTABLE : FL_OK;
}

static int gpu_state(void *dev, fl_system *sys) { return fl_gpu_download((fl_gpu *)dev, sys); }

static int gpu_step(void *dev, fl_system *sys, enum fl_test_kind kind, long n, double tm, double pos, double box,
                    fl_track *tr, failure *fail)
{
  (void)kind;
  int rc = fl_gpu_step((fl_gpu *)dev, sys, n, tm, pos, box);
  long bad = -1;
  if (rc == FL_OK && (n & 1023) == 0) /* a look at the watch, without waiting: has a body failed? */
    rc = fl_gpu_look((fl_gpu *)dev, &bad);
  if (rc == FL_OK && bad >= 0) { /* where */
    rc = fl_gpu_track_get((fl_gpu *)dev, sys, tr, &fail->step, &fail->spec, &fail->bond);
    if (rc == FL_OK && fail->step >= 0)
      rc = FL_EUNSTABLE;
  }
  return rc;
}

static int gpu_put(void *dev, enum fl_test_kind kind, const fl_track *tr)
{
  return fl_gpu_track_put((fl_gpu *)dev, kind, tr);
}

static const char *gpu_why(const void *dev) { return fl_gpu_error((const fl_gpu *)dev); }

static void gpu_close(void **dev) { fl_gpu_free((fl_gpu **)dev); }

static const engine gpu_engine = {gpu_open, gpu_step, gpu_sync, gpu_row, gpu_state, gpu_put, gpu_why, gpu_close};

/* ---- the solver --------------------------------------------------------------- */

typedef struct {
  fl_solver_setup su;
  const engine *eng;
  void *dev;          /* the engine's state */
  const fl_test_def *t;
  const fl_test_type *type; /* its kind's table */
  double dt;          /* s */
  long n, nsteps;     /* the next step; steps to the path's end */
  int np;             /* rows planned */
  int stepping;       /* 1: step n - 1 is still to be taken (after its row) */
  double tm, pos;     /* step n's time (s) and path position (m or rad) */
  int leg;            /* and its leg */
  double box;         /* half the bounding box, m */
  double last_progress;
  double *work;       /* per specimen: work done on it, from the rows, J */
  double *kin;        /* per specimen: the row's kinetic energy, J */
  int *cnt;           /* the row's broken bonds per specimen, then its yielded ones */
  fl_track *track;    /* per specimen: the watch of every step */
} explicit_solver;

static void explicit_free(void **state)
{
  explicit_solver *x = *state;
  if (!x)
    return;
  if (x->eng)
    x->eng->close(&x->dev);
  free(x->work);
  free(x->kin);
  free(x->cnt);
  free(x->track);
  free(x);
  *state = NULL;
}

static int explicit_create(void **out, const fl_solver_setup *su, const engine *eng, char *err, size_t errlen)
{
  const fl_experiment *exp = su->exps[0];
  const fl_test_def *t = &exp->test;
  int nspec = su->nspec;
  explicit_solver *x = calloc(1, sizeof *x);
  *out = x;
  if (!x) {
    snprintf(err, errlen, "out of memory for %d specimens", nspec);
    return FL_ENOMEM;
  }
  x->su = *su;
  x->t = t;
  x->type = fl_test_type_of(t->kind);
  x->dt = su->sys->dt;
  /* the step limit before a device is opened and filled */
  double steps_needed = ceil(su->path->total / x->dt);
  if (steps_needed > FL_MAX_STEPS) {
    snprintf(err, errlen,
             "the test needs %.3g time steps of %.3g s; allowed: at most %.0e (shorten the test, raise its speed, "
             "or use fewer segments)",
             steps_needed, x->dt, FL_MAX_STEPS);
    return FL_ELIMIT;
  }
  int rc = eng->open(&x->dev, su->sys, err, errlen);
  if (rc)
    return rc;
  x->eng = eng;
  x->nsteps = (long)steps_needed;
  x->np = exp->sim.output_points;
  x->work = calloc((size_t)nspec, sizeof(double));
  x->track = calloc((size_t)nspec, sizeof *x->track);
  x->kin = calloc((size_t)nspec, sizeof *x->kin);
  x->cnt = calloc(2 * (size_t)nspec, sizeof *x->cnt);
  if (!x->work || !x->track || !x->kin || !x->cnt) {
    snprintf(err, errlen, "out of memory for %d specimens", nspec);
    return FL_ENOMEM;
  }
  /* a test that moves grips or a load measures from the start; one that moves noses
   * from their first touch, which comes after the specimen has settled on the supports
   * under its weight */
  for (int s = 0; s < nspec; s++) {
    x->track[s].event_time = -1.0;
    x->track[s].touch = x->type->drive == FL_DRIVE_NOSES ? -1.0 : 0.0;
  }
  if ((rc = eng->put(x->dev, t->kind, x->track))) {
    if (rc == FL_ENOMEM)
      snprintf(err, errlen, "out of memory for %d specimens", nspec);
    else
      snprintf(err, errlen, "cannot copy the specimens to the GPU: %s", eng->why(x->dev));
    return rc;
  }
  double target = fl_test_target(t);
  /* the box the specimen stays in: the path's end widens it where the path moves a
   * tool or a grip along a length */
  int along = x->type->drive != FL_DRIVE_TURN && x->type->drive != FL_DRIVE_LOAD;
  x->box = 10.0 * (exp->fiber.length_m + (along ? target : 0.0));
  x->last_progress = -1.0;
  return FL_OK;
}

static int explicit_create_cpu(void **out, const fl_solver_setup *su, char *err, size_t errlen)
{
  return explicit_create(out, su, &cpu_engine, err, errlen);
}

static int explicit_create_cuda(void **out, const fl_solver_setup *su, char *err, size_t errlen)
{
  *out = NULL;
  return explicit_create(out, su, &gpu_engine, err, errlen);
}

/* The message of a step that found the run unstable. */
static int unstable(explicit_solver *x, int rc, const failure *f, fl_solver_status *st, char *err, size_t errlen)
{
  double tm = f->step * x->dt;
  snprintf(err, errlen,
           "unstable at step %ld (t = %.6g s), specimen %d, bond %d: a body %s; likely cause: time step too "
           "large for the stiffness or damping (lower simulation.safety or bond.damping, raise "
           "bond.damping_stabilization)",
           f->step + 1, tm + x->dt, x->su.s0 + f->spec, f->bond,
           rc == FL_EUNSTABLE ? "left the finite numbers or the bounding box" : "");
  st->fail_key = 2.0 * f->step + 1.0;
  return rc;
}

/* The message of a copy from the device that failed with rc at step n. */
static int copy_failed(explicit_solver *x, int rc, fl_solver_status *st, char *err, size_t errlen)
{
  snprintf(err, errlen, "cannot copy the state back from the GPU: %s", x->eng->why(x->dev));
  st->fail_key = 2.0 * x->n;
  return rc;
}

/* The engine's state and watch on the host at step n (row: only what an output row
 * measures, engine.row), or why not. */
static int sync(explicit_solver *x, int row, fl_solver_status *st, char *err, size_t errlen)
{
  failure f = {x->n, 0, 0};
  int rc = row ? x->eng->row(x->dev, x->su.sys, x->track, &f, x->kin, x->cnt)
               : x->eng->sync(x->dev, x->su.sys, x->track, &f);
  if (rc == FL_EUNSTABLE)
    return unstable(x, rc, &f, st, err, errlen);
  return rc ? copy_failed(x, rc, st, err, errlen) : FL_OK;
}

/* Record the output row st->rows of every specimen at step n, and check that the run
 * is still stable: kinetic energy far above the work put in, once loading is under
 * way, is an instability. */
static int record(explicit_solver *x, fl_solver_status *st, char *err, size_t errlen)
{
  fl_system *sys = x->su.sys;
  fl_curve *curve = x->su.curve;
  const fl_build_info *info = x->su.info;
  enum fl_test_kind kind = x->t->kind;
  int np = x->np, point = st->rows;
  long n = x->n;
  double tm = x->tm, pos = x->pos;
  /* the last row's state is the run's: whole on the host, for the outputs and a
   * ring-down */
  int last = n == x->nsteps;
  int rc = sync(x, !last, st, err, errlen);
  if (rc)
    return rc;
  if (last)
    host_row(sys, x->kin, x->cnt);
  if (x->leg > 0 && st->leg_first_end < 0)
    st->leg_first_end = point;
  for (int s = 0; s < x->su.nspec; s++) {
    fl_track *tr = &x->track[s];
    size_t r = (size_t)s * np + point;
    double y = fl_measure_row_counted(sys, kind, s, info->span, curve, r, x->cnt[s], x->cnt[x->su.nspec + s]);
    double react = fl_measure_reaction(sys, kind, s);
    curve->time[r] = tm;
    double xs = fl_measure_x(sys, kind, s, tr->touch, pos);
    curve->x[r] = xs;
    curve->kinetic[r] = x->kin[s];
    /* after a break or a buckle, a row may set the peak again once the ringing has
     * had two periods of the lowest mode to settle and the run is quasi-static: little
     * kinetic energy, and the two ends of the specimen carry the same load (the
     * pieces of a broken specimen can ring with little kinetic energy) */
    if (sys->nbroken[s] > 0 && tm >= tr->event_time + 2.0 * info->first_period &&
        curve->kinetic[r] <= 0.05 * curve->strain[r] && y > tr->peak && fl_measure_balanced(y, react)) {
      tr->peak = y;
      tr->x_at_peak = xs;
    }
    if (point > 0) {
      size_t q = r - 1;
      x->work[s] += 0.5 * (curve->y[q] + y) * (xs - curve->x[q]);
    }
    /* Energy jump: kinetic energy far above the work put in, once loading is under way. */
    if (x->leg == 0 && fabs(pos) >= 0.1 * fabs(x->su.first) &&
        curve->kinetic[r] > 100.0 * (fabs(x->work[s]) + curve->strain[r])) {
      if (!last && (rc = x->eng->state(x->dev, sys))) /* the bodies' velocities */
        return copy_failed(x, rc, st, err, errlen);
      int worst = 0;
      double wk = -1.0;
      for (int i = 0; i < sys->nbody; i++) {
        size_t k = (size_t)s * sys->nbody + i;
        double e = 0.5 * sys->mass[i] * fl_dot(sys->v[k], sys->v[k]);
        if (e > wk) {
          wk = e;
          worst = i;
        }
      }
      snprintf(err, errlen,
               "unstable at step %ld (t = %.6g s), specimen %d, bond %d: kinetic energy %.3g J is over 100 "
               "times the work done %.3g J; likely cause: time step too large for the stiffness or damping "
               "(lower simulation.safety or bond.damping, raise bond.damping_stabilization)",
               n, tm, x->su.s0 + s, worst > 0 ? worst - 1 : 0, curve->kinetic[r], x->work[s]);
      st->fail_key = 2.0 * n;
      return FL_EUNSTABLE;
    }
  }
  if (x->eng->put(x->dev, kind, x->track)) {
    snprintf(err, errlen, "cannot copy the state to the GPU: %s", x->eng->why(x->dev));
    st->fail_key = 2.0 * n;
    return FL_EIO;
  }
  st->rows = point + 1;
  const fl_run_hooks *hooks = x->su.hooks;
  if (hooks && hooks->sample) { /* the whole system */
    if (!last && (rc = x->eng->state(x->dev, sys)))
      return copy_failed(x, rc, st, err, errlen);
    hooks->sample(hooks->ctx, sys, point, pos);
  }
  return FL_OK;
}

/* Take step n with the tool and grip rates that reach the next prescribed position
 * exactly; the engine watches it. */
static int step(explicit_solver *x, fl_solver_status *st, char *err, size_t errlen)
{
  fl_system *sys = x->su.sys;
  const fl_run_hooks *hooks = x->su.hooks;
  enum fl_test_kind kind = x->t->kind;
  long n = x->n;
  double dt = x->dt, tm = x->tm, pos = x->pos;
  double rate = (fl_path_schedule_position(x->su.path, tm + dt, NULL) - pos) / dt;
  fl_test_drive_rate(sys, x->type->drive, rate);
  failure f = {n, 0, 0};
  int rc = x->eng->step(x->dev, sys, kind, n, tm, pos, (n & 1023) == 0 ? x->box : 0.0, x->track, &f);
  if (rc != FL_OK && rc != FL_EUNSTABLE) {
    snprintf(err, errlen, "the GPU step failed at step %ld: %s", n + 1, x->eng->why(x->dev));
    st->fail_key = 2.0 * n + 1.0;
    return rc;
  }
  if (rc)
    return unstable(x, rc, &f, st, err, errlen);
  if (hooks && hooks->stop && *hooks->stop) {
    rc = sync(x, 0, st, err, errlen); /* a failure the device saw comes first */
    if (rc)
      return rc;
    snprintf(err, errlen, "interrupted at step %ld of %ld", n + 1, x->nsteps);
    st->fail_key = 2.0 * n + 1.0;
    return FL_EINTERRUPT;
  }
  if (hooks && hooks->progress && (n & 4095) == 0) {
    double fr = (double)n / x->nsteps;
    if (fr - x->last_progress >= 0.001) {
      hooks->progress(hooks->ctx, fr);
      x->last_progress = fr;
    }
  }
  return FL_OK;
}

/* Step until a step's time reaches the next output row's, and record it there. */
static int explicit_advance(void *state, fl_solver_status *st, char *err, size_t errlen)
{
  explicit_solver *x = state;
  const fl_solver_setup *su = &x->su;
  for (;;) {
    if (x->stepping) {
      int rc = step(x, st, err, errlen);
      if (rc)
        return rc;
      x->n++;
    }
    x->stepping = 1;
    x->tm = x->n * x->dt;
    x->leg = 0;
    x->pos = fl_path_schedule_position(su->path, x->tm, &x->leg);
    if (x->type->load_at)
      x->type->load_at(su->sys, x->t, x->pos);
    int recorded = 0;
    double t_out = st->rows * su->path->total / (x->np - 1);
    if (st->rows < x->np && x->tm + 0.5 * x->dt >= t_out) {
      int rc = record(x, st, err, errlen);
      if (rc)
        return rc;
      recorded = 1;
    }
    if (x->n == x->nsteps) {
      if (!recorded) { /* the state at the end, and a failure after the last row */
        int rc = sync(x, 0, st, err, errlen);
        if (rc)
          return rc;
      }
      st->done = 1;
      if (su->hooks && su->hooks->progress)
        su->hooks->progress(su->hooks->ctx, 1.0);
      return FL_OK;
    }
    if (recorded)
      return FL_OK;
  }
}

/* The peaks watched into the result. */
static int explicit_read(void *state)
{
  explicit_solver *x = state;
  for (int s = 0; s < x->su.nspec; s++) {
    x->su.res->spec[s].peak = x->track[s].peak;
    x->su.res->spec[s].x_at_peak = x->track[s].x_at_peak;
  }
  return FL_OK;
}

/* Both step a ring-down on the CPU (fl_cantilever_ringdown), from the state of the
 * loading path's last row (a device's is copied back at the rows). */
const fl_solver_type fl_solver_explicit_cpu = {"explicit", explicit_create_cpu, explicit_advance, explicit_read,
                                               explicit_free, fl_cantilever_ringdown};
const fl_solver_type fl_solver_explicit_cuda = {"explicit", explicit_create_cuda, explicit_advance, explicit_read,
                                                explicit_free, fl_cantilever_ringdown};
