/* adapter.c: the static solver behind the solvers' seam (solver.h): its table,
 * fl_solver_static. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

typedef struct {
  fl_solver_setup su;
} static_solver;

static int static_create(void **out, const fl_solver_setup *su, char *err, size_t errlen)
{
  *out = NULL;
  if (su->hooks && su->hooks->gpu) {
    snprintf(err, errlen, "simulation.solver: static runs on the CPU only; allowed on the GPU: explicit | auto");
    return FL_EINPUT;
  }
  static_solver *w = malloc(sizeof *w);
  if (!w) {
    snprintf(err, errlen, "out of memory for %d specimens", su->nspec);
    return FL_ENOMEM;
  }
  w->su = *su;
  const fl_test_def *t = &su->exps[0]->test;
  if (fl_test_rings(t) && su->curve->npoints > 11)
    su->curve->npoints = 11; /* the loading path is not recorded: a few rows will do */
  *out = w;
  return FL_OK;
}

/* The whole path at once, every specimen on its own: what every specimen's solve did,
 * summed into the result; fail_key the first that failed (the specimens are solved
 * independently, and the serial run reports the first). */
static int static_advance(void *state, fl_solver_status *status, char *err, size_t errlen)
{
  const fl_solver_setup *su = &((static_solver *)state)->su;
  const fl_experiment *const *exps = su->exps;
  int nspec = su->nspec, s0 = su->s0;
  fl_result *res = su->res;
  fl_static_stats *st = calloc((size_t)nspec, sizeof *st);
  status->done = 1;
  if (!st) {
    snprintf(err, errlen, "out of memory for %d specimens", nspec);
    return FL_ENOMEM;
  }
  int failed;
  int rc = fl_static_run(su, st, &status->leg_first_end, &failed, err, errlen);
  status->rows = su->curve->npoints;
  if (rc)
    status->fail_key = failed >= 0 ? s0 + failed : -1.0;
  for (int s = 0; s < nspec; s++) {
    res->increments += st[s].increments;
    res->newton_iterations += st[s].newton;
    res->tangents += st[s].tangents;
    res->cutbacks += st[s].cutbacks;
    res->unknowns_per_body = st[s].unknowns > res->unknowns_per_body ? st[s].unknowns : res->unknowns_per_body;
    res->relaxations += st[s].relaxations;
    res->events += st[s].events;
    double P = st[s].load_scale, L = st[s].length_scale;
    int torque = fl_test_type_of(exps[0]->test.kind)->angular; /* the scale is a torque */
    double fs = torque ? P / L : P;
    double ts = torque ? P : P * L;
    res->residual_force = fmax(res->residual_force, st[s].residual_force / fs);
    res->residual_torque = fmax(res->residual_torque, st[s].residual_torque / ts);
    res->pinned = st[s].pinned > res->pinned ? st[s].pinned : res->pinned;
    res->pin_force = fmax(res->pin_force, st[s].pin_force / fs);
    res->stability_checks += st[s].stability_checks;
    res->bifurcations += st[s].bifurcations;
    res->unstable_rows += st[s].unstable_rows;
  }
  free(st);
  return rc;
}

/* The specimens' states are in setup->sys already (the driver puts them back). */
static int static_read(void *state)
{
  (void)state;
  return FL_OK;
}

static void static_free(void **state)
{
  free(*state);
  *state = NULL;
}

const fl_solver_type fl_solver_static = {"static",    static_create, static_advance, static_read, static_free,
                                         fl_static_ringdown};
