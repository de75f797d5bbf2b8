/* workspace.c: the workspace of one specimen: sized from the specimen (its load and
 * length scales, difference steps, the planar reduction), allocated, freed and copied,
 * and a batch's specimen taken out into it and put back. */
#include <config.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "fl_defs.h"
#include "internal.h"
#include "test_kind.h"

#define TOL 1e-9            /* converged: residual below TOL times its scale */
#define RELAX_PERIODS 100.0 /* longest relaxation, in periods of the lowest bending mode ... */
#define SNAP_PERIODS 10.0   /* ... and after an event: a specimen not at rest by then falls */
#define SOLVE_CHECKS 2      /* a workspace's first solves, checked against GSL's own */

/* A test whose specimen, tools, grips, gravity and point load all lie in the x-y plane
 * (every test but torsion, on a straight or in-plane curved fiber): a mirror image in
 * z leaves it as it is, so its equilibria have no out-of-plane translation or turn, and
 * the loads it evaluates have none either (exactly: every z product is of zeros).  The
 * solver then differences and steps x, y and the turn about z only: half the residual
 * evaluations per tangent, and no out-of-plane rigid modes (a weightless chain on
 * frictionless rollers slides and spins along its rollers freely) for Newton to lose in
 * rounding.  The out-of-plane residuals stay in the convergence test all the same. */
static int planar_problem(const fl_system *one, const fl_test_type *type)
{
  if (type->drive == FL_DRIVE_TURN || one->gravity.z != 0.0)
    return 0;
  for (int i = 0; i < one->nbody; i++)
    if (one->x_ref[i].z != 0.0 || one->q_ref[i].x != 0.0 || one->q_ref[i].y != 0.0 || one->x[i].z != 0.0 ||
        one->q[i].x != 0.0 || one->q[i].y != 0.0 || one->v[i].z != 0.0 || one->w[i].x != 0.0 || one->w[i].y != 0.0)
      return 0;
  for (int k = 0; k < one->ntool; k++)
    if (one->tool[k].axis.x != 0.0 || one->tool[k].axis.y != 0.0 || one->tool[k].vel.z != 0.0)
      return 0;
  if (one->pload.body >= 0 && (one->pload.dir.z != 0.0 || one->pload.arm.z != 0.0))
    return 0;
  return 1;
}

/* Every array of a workspace and its length, from nb (bodies), nbd (bonds + 1), nxi
 * (bodies times tools + 1), nf (free bodies), n and m in scope, the NHIST histories
 * xh and qh apart: one list for allocating, freeing and copying a workspace. */
#define WORKSPACE_ARRAYS(X)                                                                                   \
  X(xc, nb) X(xs, nb) X(qc, nb) X(qs, nb) X(rot, NHIST * nf + 1) X(bc, nbd) X(bpre, nbd) X(bt, nbd)           \
  X(buckle_phi, nbd) X(buckle_m, nbd) X(xic, nxi) X(xipre, nxi) X(xit, nxi) X(xt, nf + 1) X(qt, nf + 1)       \
  X(r, n + 1) X(rp, n + 1) X(dx, n + 1) X(vc, nb) X(oc, nb) X(fc, nb) X(tc, nb) X(ft, nb) X(tt, nb) X(fp, nb) \
  X(tp, nb) X(ys, 2 * m) X(ulast, m) X(upd_s, MAX_UPDATES * m) X(upd_a, MAX_UPDATES * m) X(pin_u, NPIN * m)    \
  X(pin_r, NPIN * n) X(pin_b, NPIN * m) X(ks, m * (2 * NDOF) + 1) X(mode, m + 1) X(xb, nb) X(qb, nb)             \
  X(crange, NCOLOUR * 2 * nbd) X(rows0, FL_LOAD_ROWS * nbd)

void fl_static_workspace_free(workspace *w)
{
#define X(field, count) free(w->field);
  WORKSPACE_ARRAYS(X)
#undef X
  for (int k = 0; k < NHIST; k++) {
    free(w->xh[k]);
    free(w->qh[k]);
  }
  if (w->ab)
    gsl_matrix_free(w->ab);
  if (w->abs)
    gsl_matrix_free(w->abs);
  if (w->piv)
    gsl_vector_uint_free(w->piv);
  if (w->bv)
    gsl_vector_free(w->bv);
  if (w->xv)
    gsl_vector_free(w->xv);
  fl_system_free(w->sys);
}

/* The workspace's arrays and GSL's band storage, for its sizes (nf, n, m, hb) on its
 * system.  FL_OK, or FL_ENOMEM (what was allocated stays for fl_static_workspace_free). */
static int workspace_alloc(workspace *w)
{
  const fl_system *one = w->sys;
  size_t snb = (size_t)one->nbody, nbd = (size_t)one->nbond + 1, nxi = snb * (size_t)one->ntool + 1,
         nf = (size_t)w->nf, n = (size_t)w->n, m = (size_t)w->m, nb = snb;
  int ok = 1;
#define X(field, count) FL_ARRAY_ALLOC(w->field, count, ok);
  WORKSPACE_ARRAYS(X)
#undef X
  for (int k = 0; k < NHIST; k++) {
    FL_ARRAY_ALLOC(w->xh[k], snb, ok);
    FL_ARRAY_ALLOC(w->qh[k], snb, ok);
  }
  if (w->m > 2 * w->hb) {
    w->ab = gsl_matrix_alloc((size_t)w->m, 3 * (size_t)w->hb + 1);
    w->abs = gsl_matrix_alloc((size_t)w->m, 3 * (size_t)w->hb + 1);
    w->piv = gsl_vector_uint_alloc((size_t)w->m);
    w->bv = gsl_vector_alloc((size_t)w->m);
    w->xv = gsl_vector_alloc((size_t)w->m);
  }
  return ok && w->ab && w->abs && w->piv && w->bv && w->xv ? FL_OK : FL_ENOMEM;
}

/* The tangent's colours (newton.c): for each, the ranges of the bonds that join one of
 * its free bodies (every NCOLOUR-th from the colour's), for fl_static_colour_residual. */
static void colour_ranges(workspace *w)
{
  fl_system *sys = w->sys;
  if (!sys->adj_ready)
    fl_system_adjacency(sys);
  const int nbond = sys->nbond;
  for (int c = 0; c < NCOLOUR; c++) {
    int *range = w->crange + 2 * (nbond + 1) * c, n = 0, open = 0;
    for (int b = 0; b < nbond; b++) {
      int mine = 0;
      for (int e = 0; e < 2 && !mine; e++) {
        int j = (e ? sys->b2[b] : sys->b1[b]) - w->first;
        mine = j >= 0 && j < w->nf && j % NCOLOUR == c;
      }
      if (mine && !open)
        range[2 * n] = b;
      else if (!mine && open)
        range[2 * n++ + 1] = b;
      open = mine;
    }
    if (open)
      range[2 * n++ + 1] = nbond;
    w->ncrange[c] = n;
  }
}

/* A workspace for the specimen in one (of definition exp, as built: info), at rest in
 * its present state, breaks off.  FL_OK, or FL_ENOMEM (free it all the same). */
int fl_static_workspace_init(workspace *w, fl_system *one, const fl_experiment *exp, const fl_build_info *info,
                             const fl_run_hooks *hooks)
{
  memset(w, 0, sizeof *w);
  w->sys = one;
  w->kind = exp->test.kind;
  w->type = fl_test_type_of(w->kind);
  w->exp = exp;
  int nb = one->nbody;
  w->first = -1;
  for (int i = 0; i < nb; i++)
    if (one->motion[i] == FL_FREE) {
      if (w->first < 0)
        w->first = i;
      w->nf++;
    }
  w->n = NDOF * w->nf;
  /* the test's elastic load at the path's end, by beam theory: the scale the
   * convergence test takes its tolerance from */
  double L = info->length;
  double P = w->type->load_scale(exp, info);
  w->st.length_scale = L;
  if (w->type->angular) { /* the scale is a torque */
    w->ts = P;
    w->fs = P / L;
  } else {
    w->fs = P;
    w->ts = P * L;
  }
  /* The loads cannot come closer to balance than the stiffest spring times the
   * spacing of the numbers that hold the positions (|x| DBL_EPSILON). */
  double kmax = 0.0, xmax = 0.0;
  for (int b = 0; b < one->nbond; b++) {
    const fl_bond *bd = &one->bond[b];
    kmax = fmax(kmax, fmax(fl_series(bd->s1.k_axial, bd->s2.k_axial), fl_series(bd->s1.k_shear, bd->s2.k_shear)));
  }
  for (int k = 0; k < one->ntool; k++) /* a rigid tool's penalty (kind/bend.c) may be stiffer */
    kmax = fmax(kmax, one->law[k].k_n);
  for (int i = 0; i < nb; i++)
    xmax = fmax(xmax, fabs(one->x_ref[i].x) + fabs(one->x_ref[i].y) + fabs(one->x_ref[i].z));
  w->floor = kmax * xmax * DBL_EPSILON / w->fs;
  w->hx = 4e-9 * info->h;
  w->seg = info->h;
  /* the tests whose path may bifurcate (their kind's critical load) */
  w->watch = w->type->critical_load != NULL;
  w->critical = w->watch ? w->type->critical_load(exp, info) : 0.0;
  w->reg = REG_MIN;
  /* the test suite's check of the reduction solves all six unknowns everywhere */
  w->planar = !(hooks && hooks->options & FL_RUN_CHECK_ALL_UNKNOWNS) && planar_problem(one, w->type);
  w->st.unknowns = w->nu = w->planar ? 3 : NDOF;
  for (int a = 0; a < w->nu; a++)
    w->dof[a] = w->planar ? (a < 2 ? a : 5) : a; /* planar: x, y and the turn about z */
  w->m = w->nu * w->nf;
  w->hb = 2 * w->nu - 1;
  w->hr = 1e-8;
  w->reach = 0.1 * exp->fiber.outer_radius_m;
  if (w->type->drive == FL_DRIVE_NOSES)
    w->nose_y0 = one->tool[2].point.y;
  for (int k = 0; k < one->ntool; k++)
    w->beta[k] = one->law[k].beta;
  w->damping = one->damping[0];
  w->a_damp = exp->bond.damping;
  w->stab = exp->bond.damping_stabilization;
  w->visco = exp->sim.viscoelastic && w->a_damp > 0.0 && exp->test.speed > 0.0;
  w->damping.capped = w->visco; /* the relaxations' too */
  w->speed = exp->test.speed;
  w->dt_explicit = one->dt;
  w->relax_time = RELAX_PERIODS * info->first_period;
  w->period = info->first_period;
  w->snap_time = SNAP_PERIODS * info->first_period;
  if (workspace_alloc(w))
    return FL_ENOMEM;
  colour_ranges(w);
  w->colours = !(hooks && hooks->options & FL_RUN_CHECK_FULL_TANGENT);
  w->trial_eval = -1;
  w->own_solve = 1;
  w->solve_checks = SOLVE_CHECKS;
  w->tol = TOL;
  w->criterion = one->limits[0].criterion;
  w->locate = w->criterion != FL_CRIT_NONE && one->limits[0].post == FL_POST_TOTAL_BREAKAGE;
  fl_static_breakage(w, 0);
  fl_static_mode_static(w);
  fl_static_still(w);
  fl_static_save_state(w, w->xc, w->qc);
  fl_system_states_get(one, 0, w->bc);
  memcpy(w->xic, one->xi, (size_t)nb * one->ntool * sizeof *w->xic);
  w->overlap_c = one->overlap[0];
  w->nbroken_c = one->nbroken[0];
  w->g_c = w->locate ? fl_static_break_margin(w) : -1.0;
  w->buckles = one->limits[0].buckling.type != FL_BUCKLING_NONE;
  w->gb_c = w->buckles ? fl_static_buckle_margin(w, 0) : -1.0;
  w->max_newton = MAX_NEWTON;
  fl_static_pin_init(w);
  fl_static_pin_modes(w);
  /* on rollers without friction (or rotating ones, which take no tangential load) only
   * the contacts' curvature holds a bent specimen along its axis: there the secants
   * drift the chain along that soft slide, and Newton stalls a few increments later
   * (tests/static-collapse.yaml at 0.5 mm) */
  w->updates = !(w->type->drive == FL_DRIVE_NOSES && (exp->test.friction == 0.0 || exp->test.rollers == FL_ROLLERS_ROTATING));
  return FL_OK;
}

/* Copy src's state into dst, a workspace of a specimen of the same sizes: its system
 * (fl_system_copy) and every array.  dst keeps its own arrays, system, experiment and
 * log, and what its own batch set: the explicit time step (the smallest bound over a
 * batch), the damping over it and the relaxation times (from the batch's first period).
 * 0 when the sizes differ. */
int fl_static_workspace_copy(workspace *dst, const workspace *src)
{
  fl_system *sys = dst->sys;
  if (dst->n != src->n || dst->m != src->m || fl_system_copy(sys, src->sys))
    return 0;
  size_t nb = (size_t)sys->nbody, nbd = (size_t)sys->nbond + 1, nxi = nb * (size_t)sys->ntool + 1, nf = (size_t)dst->nf,
         n = (size_t)dst->n, m = (size_t)dst->m;
  workspace own = *dst;
  *dst = *src;
  dst->sys = own.sys;
  dst->exp = own.exp;
  dst->log = own.log;
  dst->dt_explicit = own.dt_explicit;
  dst->step = own.step;
  dst->damping = own.damping; /* its decay over that step */
  memcpy(dst->beta, own.beta, sizeof dst->beta);
  dst->relax_time = own.relax_time;
  dst->period = own.period;
  dst->snap_time = own.snap_time;
#define X(field, count) FL_ARRAY_COPY(dst->field, own.field, src->field, count);
  WORKSPACE_ARRAYS(X)
#undef X
  for (int k = 0; k < NHIST; k++) {
    FL_ARRAY_COPY(dst->xh[k], own.xh[k], src->xh[k], nb);
    FL_ARRAY_COPY(dst->qh[k], own.qh[k], src->qh[k], nb);
  }
  dst->ab = own.ab;
  dst->abs = own.abs;
  dst->piv = own.piv;
  dst->bv = own.bv;
  dst->xv = own.xv;
  gsl_matrix_memcpy(dst->ab, src->ab);
  gsl_matrix_memcpy(dst->abs, src->abs);
  gsl_vector_uint_memcpy(dst->piv, src->piv);
  gsl_vector_memcpy(dst->bv, src->bv);
  gsl_vector_memcpy(dst->xv, src->xv);
  return 1;
}

/* Specimen job->s of the batch in its own system one, and the solver's workspace on
 * it.  Returns 1, or 0 with job->status and job->err set (nothing left allocated). */
int fl_static_job_workspace(fl_system *batch, specimen_job *job, fl_system *one, workspace *w)
{
  if (fl_system_extract(batch, job->s, one)) {
    job->status = FL_ENOMEM;
    snprintf(job->err, job->errlen, "out of memory for the static solver");
    return 0;
  }
  one->inline_static = 1; /* its own: the vectorised law for its evaluations too */
  if (fl_static_workspace_init(w, one, job->exp, job->info, job->hooks)) {
    fl_static_workspace_free(w);
    job->status = FL_ENOMEM;
    snprintf(job->err, job->errlen, "out of memory for the static solver");
    return 0;
  }
  one->buckle_phi = w->buckle_phi;
  one->buckle_m = w->buckle_m;
  w->step = job->step;
  return 1;
}

/* The specimen's final state back into the batch as specimen s, for the counts of the
 * result; its bonds broken, yielded or buckled into w->st.events. */
void fl_static_put_back(fl_system *batch, int s, workspace *w)
{
  const fl_system *one = w->sys;
  size_t nb = (size_t)one->nbody, nt = (size_t)one->ntool, k = (size_t)s;
  memcpy(batch->x + k * nb, one->x, nb * sizeof *one->x);
  memcpy(batch->q + k * nb, one->q, nb * sizeof *one->q);
  fl_system_states_get(one, 0, w->bc);
  fl_system_states_put(batch, s, w->bc);
  memcpy(batch->xi + k * nb * nt, one->xi, nb * nt * sizeof *one->xi);
  batch->overlap[k] = one->overlap[0];
  batch->nbroken[k] = one->nbroken[0];
  int broken;
  fl_system_count(one, 0, &broken, &w->st.events);
}
