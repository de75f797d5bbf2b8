/* run.c: a virtual test on a batch of specimens: the specimens built, the rows a
 * solver (solver.h) advances to one after another, the figures worked out from them;
 * a batch spread over MPI ranks, and simulation.solver auto's fallback to the
 * explicit engine. */
#include <config.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "build.h"
#include "fl_defs.h"
#include "run.h"
#include "cantilever.h"
#include "measure.h"
#include "mpi_batch.h"
#include "path.h"
#include "solver.h"
#include "test_kind.h"

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

/* Build specimens [s0, s0 + nspec) of the batch led by lead into sys, with the batch's
 * time step (critical > 0: its stability bound, for a block that cannot see all of
 * it), their damping over it, and the threads of hooks.  FL_OK, or a status with a
 * message in err (sys then freed). */
static int build_block(const fl_experiment *lead, const fl_experiment *const *exps, int nspec, int s0,
                       double critical, const fl_run_hooks *hooks, fl_system *sys, fl_build_info *info, char *err,
                       size_t errlen)
{
  int rc = fl_build_block(lead, exps, nspec, s0, sys, info);
  if (rc) {
    snprintf(err, errlen, "cannot build the specimens: %s", fl_strerror(rc));
    return rc;
  }
  if (critical > 0.0)
    info->critical_step = critical;
  const fl_sim_def *sim = &lead->sim;
  double dt = sim->time_step > 0.0 ? sim->time_step : sim->safety * info->critical_step;
  if (sim->time_step > 0.0 && dt > info->critical_step && !sim->force_time_step) {
    snprintf(err, errlen,
             "simulation.time_step: %g s is above the stability bound %.4g s; allowed: a step up to %.4g s, auto "
             "(%.4g s with safety %g), or force_time_step: true",
             dt, info->critical_step, info->critical_step, sim->safety * info->critical_step, sim->safety);
    fl_system_free(sys);
    return FL_ETIMESTEP;
  }
  fl_system_set_step(sys, dt);
  for (int s = 0; s < nspec; s++)
    fl_system_set_damping(sys, s, exps[s]->bond.damping, exps[s]->bond.damping_stabilization);
  sys->threads = (hooks && hooks->threads > 1) ? hooks->threads : 1;
  return FL_OK;
}

/* The curve's columns for np rows of nspec specimens, zeroed, and res->spec.  FL_OK, or
 * FL_ENOMEM with a message in err (what was allocated stays for fl_curve_free). */
static int curve_alloc(fl_curve *curve, fl_result *res, int nspec, int np, char *err, size_t errlen)
{
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
  if (!curve->time || !curve->x || !curve->y || !curve->support || !curve->midspan || !curve->kinetic || !curve->strain ||
      !curve->broken || !curve->yielded || !res->spec) {
    snprintf(err, errlen, "out of memory for %zu curve rows", nrow);
    return FL_ENOMEM;
  }
  return FL_OK;
}

/* What the result says of the run before it runs: the test, the specimens as built,
 * the time step and speed, the buckling envelope, the solver. */
static void result_head(fl_result *res, const fl_experiment *exp, int nspec, const fl_system *sys,
                        const fl_build_info *info, double speed, enum fl_solver solver)
{
  res->kind = exp->test.kind;
  res->specimens = nspec;
  res->segments = sys->nbody;
  res->time_step = sys->dt;
  res->critical_step = info->critical_step;
  res->length = info->length;
  res->speed = speed;
  res->centre_is_segment = info->centre_is_segment;
  /* a spring's stiffness does not grow with its overlap: the bound holds at any */
  res->overlap_ref = exp->test.contact == FL_CONTACT_HERTZ ? info->contact_overlap_ref : HUGE_VAL;
  res->buckling = (int)exp->bond.buckling.type;
  res->bk_fmax = exp->bond.buckling.max_force;
  res->bk_fmin = exp->bond.buckling.min_force;
  res->bk_umin = exp->bond.buckling.displacement_at_min_force;
  res->bk_slope = exp->bond.buckling.slope_after_min_force;
  res->solver = solver;
}

/* Each specimen's figures from its np rows (the first leg ending before row
 * leg_first_end; first: the first leg's end, m or rad) and the bonds of sys, and the
 * batch's sums and largest kinetic over strain energy. */
static void result_figures(fl_result *res, const fl_curve *curve, const fl_system *sys, int np, int leg_first_end,
                           double first)
{
  for (int s = 0; s < curve->nspec; s++) {
    const double *x = curve->x + (size_t)s * np, *y = curve->y + (size_t)s * np;
    fl_specimen_result *sr = &res->spec[s];
    sr->failure_row = -1;
    for (int i = 0; i < np && sr->failure_row < 0; i++)
      if (curve->yielded[(size_t)s * np + i] > 0)
        sr->failure_row = i;
    /* the initial stiffness comes from the elastic part of the first leg */
    int elastic_end = sr->failure_row > 2 && sr->failure_row < leg_first_end ? sr->failure_row : leg_first_end;
    fl_measure_figures(x, y, np, elastic_end, sr);
    fl_system_count(sys, s, &sr->broken, &sr->yielded);
    for (int b = 0; b < sys->nbond; b++)
      sr->buckled += sys->bstate[(size_t)s * sys->nbond + b].buckled;
    res->bonds_broken += sr->broken;
    res->bonds_yielded += sr->yielded;
    if (res->vibration) {
      sr->initial_stiffness = NAN; /* rows in free vibration: no quasi-static figure */
      fl_cantilever_tip_decrement(curve, s, np, sr);
      continue;
    }
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
}

/* The rig's warnings: bending tools in Hertz contact whose indentation at the peak
 * takes more than FL_HERTZ_SHARE_WARN of the displacement there (the worst specimen). */
static void rig_warnings(fl_result *res, const fl_experiment *const *exps, const fl_system *sys)
{
  double worst = 0.0, dent = 0.0;
  int at = -1;
  res->warnings[0] = '\0';
  if (!fl_test_bends(res->kind))
    return;
  for (int s = 0; s < res->specimens; s++) {
    const fl_specimen_result *sr = &res->spec[s];
    if (exps[s]->test.contact != FL_CONTACT_HERTZ || !(sr->peak > 0.0) || !(sr->x_at_peak > 0.0))
      continue;
    double d = fl_measure_indentation(sys, s, sr->peak);
    if (d / sr->x_at_peak > worst) {
      worst = d / sr->x_at_peak;
      dent = d;
      at = s;
    }
  }
  if (at >= 0 && worst > FL_HERTZ_SHARE_WARN)
    snprintf(res->warnings, sizeof res->warnings,
             "test.contact hertz: the tools' indentation at the peak (%.4g N) is %.3g mm, %.3g %% of the "
             "displacement there (%.4g mm%s): the start of the curve bends with it; consider the specimen's own "
             "modulus across its section (test.contact_modulus), or test.contact linear or rigid, with "
             "test.compliance (fiberlab-model(7), Tool contacts)",
             res->spec[at].peak, 1e3 * dent, 100.0 * worst, 1e3 * res->spec[at].x_at_peak,
             res->specimens > 1 ? ", the worst specimen" : "");
}

/* fl_run_many for specimens [s0, s0 + nspec) of a batch led by lead (its exps[0]):
 * one block of a batch spread over MPI ranks (s0 0 and lead exps[0]: the whole
 * batch).  critical > 0: the batch's stability bound, for a block that cannot see
 * all of it.  *fail_key orders failures as the serial run meets them (gather_blocks):
 * -1 before the run; the explicit solver's 2 n at the output row of step n, 2 n + 1
 * after step n; the static solver's the batch's number of the failed specimen. */
static int run_block(const fl_experiment *lead, const fl_experiment *const *exps, int nspec, int s0,
                     double critical, const fl_run_hooks *hooks, fl_curve *curve, fl_result *res, char *err,
                     size_t errlen, double *fail_key)
{
  const fl_experiment *exp = lead;
  const fl_test_def *t = &exp->test;
  fl_system sys;
  fl_build_info info;
  memset(curve, 0, sizeof *curve);
  memset(res, 0, sizeof *res);
  *fail_key = -1.0;
  int rc = build_block(lead, exps, nspec, s0, critical, hooks, &sys, &info, err, errlen);
  if (rc)
    return rc;
  int gpu = hooks && hooks->gpu;
  enum fl_solver solver = fl_solver_resolve(exp, gpu);
  const fl_solver_type *type = fl_solver_type_of(solver, gpu);

  double target = fl_test_target(t);
  /* Quasi-static rule: loading at a constant rate from 0 to the maximum would take 20
   * periods of the test's lowest elastic mode; each leg starts and ends with a cosine
   * ramp of one period. */
  double first = (t->ncycles > 0 && t->cycles[0] > 0.0) ? t->cycles[0] : target;
  double speed = t->speed > 0.0 ? t->speed : target / (20.0 * info.first_period);
  fl_path_schedule p;
  fl_path_schedule_make(&p, t, speed, info.first_period);
  int point = 0; /* output rows recorded */
  void *work = NULL;
  if ((rc = curve_alloc(curve, res, nspec, exp->sim.output_points, err, errlen)))
    goto out;
  result_head(res, exp, nspec, &sys, &info, speed, solver);
  res->device = type == &fl_solver_explicit_cuda;

  /* the output rows: the solver advances from one to the next */
  fl_solver_setup setup = {exps, nspec, s0, &sys, &info, hooks, &p, first, curve, res, fl_system_step};
  fl_solver_status st = {0, -1, 0, -1.0};
  double t0 = now();
  rc = type->create(&work, &setup, err, errlen);
  if (rc) { /* nothing run: no rows */
    fl_curve_free(curve);
    fl_result_free(res);
    goto out;
  }
  while (rc == FL_OK && !st.done)
    rc = type->advance(work, &st, err, errlen);
  int read_rc = type->read(work); /* the measurements, also those of a failed run */
  rc = rc ? rc : read_rc;
  point = st.rows;
  *fail_key = st.fail_key;
  if (rc)
    goto out;
  curve->npoints = point;
  int leg_first_end = st.leg_first_end;
  if (fl_test_rings(t)) {
    /* the loading path brought the tip to its deflection: release it, and the rows
     * become the ring-down */
    rc = type->ringdown(exps, nspec, s0, &sys, &info, hooks, curve, res, err, errlen);
    point = curve->npoints;
    if (rc)
      goto out;
    leg_first_end = point;
  }
  compact_rows(curve, exp->sim.output_points);
  res->steps = sys.step;
  for (int s = 0; s < nspec; s++)
    if (sys.overlap[s] > res->max_overlap)
      res->max_overlap = sys.overlap[s];
  res->wall_time = now() - t0;
  for (int s = 0; s < nspec; s++)
    fl_measure_compliance(curve, s, point, fl_measure_series_compliance(exps[s]), &res->spec[s]);
  result_figures(res, curve, &sys, point, leg_first_end < 0 ? point : leg_first_end, first);
  rig_warnings(res, exps, &sys);
out:
  /* An unstable or interrupted run keeps the rows it recorded, for a partial curve. */
  if ((rc == FL_EUNSTABLE || rc == FL_EINTERRUPT) && curve->time) {
    curve->npoints = point;
    compact_rows(curve, exp->sim.output_points);
    res->kind = t->kind;
    res->specimens = nspec;
  }
  type->free(&work);
  fl_system_free(&sys);
  return rc;
}

#ifdef HAVE_MPI
/* Gather the blocks of a batch spread over the ranks into the whole batch on every rank.
 * curve and res hold this rank's block (its count specimens of fl_mpi_batch_block; zero
 * when none), rc and err its status and message, fail_key where the serial run would
 * meet its failure (run_block).  On return curve and res hold all nspec specimens: rows
 * and per-specimen figures in specimen order, the sums and extremes over the batch, and
 * rank 0's other fields (the same on every rank).  The status is the earliest failure's,
 * with its message, and every specimen keeps the rows all of them recorded (the fewest
 * of any block), as in the serial run, which stops there. */
static int gather_blocks(int nspec, int count, int rc, double fail_key, fl_curve *curve, fl_result *res, char *err,
                         size_t errlen)
{
  int rows;
  int status = fl_mpi_batch_failure(rc, fail_key, curve->time != NULL, err, errlen, &rows);
  if (!rows) { /* it failed before its rows existed: no rows, no figures */
    fl_curve_free(curve);
    fl_result_free(res);
    return status;
  }
  /* the rows every specimen recorded: all of them, or up to the earliest failure (the
   * explicit solver's blocks stop together in the serial run; the static solver's
   * specimens each as far as they got) */
  int npl = curve->npoints, np = fl_mpi_batch_rows(count > 0 && curve->time ? npl : INT_MAX);
  double **dcols[] = {&curve->time, &curve->x, &curve->y, &curve->support, &curve->midspan, &curve->kinetic,
                      &curve->strain};
  int **icols[] = {&curve->broken, &curve->yielded};
  for (size_t k = 0; k < sizeof dcols / sizeof *dcols; k++)
    *dcols[k] = fl_mpi_batch_doubles(*dcols[k], nspec, count, npl, np);
  for (size_t k = 0; k < sizeof icols / sizeof *icols; k++)
    *icols[k] = fl_mpi_batch_ints(*icols[k], nspec, count, npl, np);
  curve->nspec = nspec;
  curve->npoints = np;
  fl_specimen_result *spec = fl_mpi_batch_records(res->spec, sizeof *spec, nspec, count);
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
  fl_mpi_batch_sum_ints(iv, 3);
  fl_mpi_batch_sum_longs(lv, 5);
  fl_mpi_batch_max_doubles(dv, 5);
  /* the fields every block shares (rank 0 always has specimens) */
  fl_mpi_batch_from_first(res, sizeof *res);
  res->spec = spec;
  res->specimens = nspec;
  for (int k = 0; k < 5; k++) {
    if (k < 3)
      *isum[k] = iv[k];
    *lsum[k] = lv[k];
    *dmax[k] = dv[k];
  }
  return status;
}

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
  return gather_blocks(nspec, count, rc, key, curve, res, err, errlen);
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
  if (!(hooks && hooks->sample) && !fl_test_rings(t) &&
      fl_mpi_batch_block(nspec, &first, &count) > 1)
    return run_spread(exps, nspec, first, count, hooks, curve, res, err, errlen);
#endif
  return run_block(exps[0], exps, nspec, 0, -1.0, hooks, curve, res, err, errlen, &key);
}

/* auto's fallback (solver.h): where its static run finds no equilibrium, the explicit
 * engine runs the whole batch instead, and the result says why.  An interrupted run is
 * not run again. */
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
