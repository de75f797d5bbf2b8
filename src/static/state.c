/* state.c: the specimen's state as the static solver moves it: its free bodies saved
 * and restored, the tools at a path position, the loads' mode (static or explicit),
 * breaks on or off, the limits' margins, and the converged state committed (and logged,
 * for a run that keeps its beginning). */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrate.h"
#include "internal.h"
#include "test_kind.h"

/* Every body's position and orientation into x, q. */
void fl_static_save_state(workspace *w, fl_vec3 *x, fl_quat *q)
{
  memcpy(x, w->sys->x, (size_t)w->sys->nbody * sizeof *x);
  memcpy(q, w->sys->q, (size_t)w->sys->nbody * sizeof *q);
}

/* The free bodies' positions and orientations from x, q. */
void fl_static_load_state(workspace *w, const fl_vec3 *x, const fl_quat *q)
{
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    w->sys->x[i] = x[i];
    w->sys->q[i] = q[i];
  }
}

/* Place the nose or the moving grip at path position u. */
void fl_static_apply_position(workspace *w, double u)
{
  fl_system *sys = w->sys;
  w->u = u;
  const fl_test_type *type = w->type;
  if (type->load_at) {
    type->load_at(sys, &w->exp->test, u);
    return;
  }
  if (type->drive == FL_DRIVE_NOSES) {
    for (int k = 2; k < sys->ntool; k++) { /* the noses */
      sys->tool[k].point.y = w->nose_y0 - u;
      sys->tool[k].vel = fl_v3(0.0, -(u - w->uc) / fl_static_step_time(w), 0.0);
    }
    return;
  }
  double disp = type->drive == FL_DRIVE_PULL   ? u
                : type->drive == FL_DRIVE_PUSH ? -u
                                               : 0.0,
         ang = type->drive == FL_DRIVE_TURN ? u : 0.0;
  fl_quat qg = fl_qexp(fl_v3(ang, 0.0, 0.0));
  sys->grip_disp = disp;
  sys->grip_angle = ang;
  /* the grip's speed over the increment, where the bonds' damping reads it */
  double rate = w->visco ? (u - w->uc) / fl_static_step_time(w) : 0.0;
  fl_vec3 wg = fl_v3(type->drive == FL_DRIVE_TURN ? rate : 0.0, 0.0, 0.0);
  double vg = type->drive == FL_DRIVE_PULL ? rate : type->drive == FL_DRIVE_PUSH ? -rate : 0.0;
  for (int i = 0; i < sys->nbody; i++)
    if (sys->motion[i] == FL_GRIP_MOVING)
      fl_integrate_grip(&sys->x[i], &sys->v[i], &sys->q[i], &sys->L[i], &sys->w[i], sys->x_ref[i], sys->q_ref[i], disp,
                        qg, wg, vg);
}

/* The time an increment from the last converged state to the present path position
 * takes: its length over the test's speed in a viscoelastic run (at least a millionth
 * of the Maxwell element's relaxation time, where the limit of the exact update is the
 * element's spring), else the pseudo step DT_PSEUDO. */
double fl_static_step_time(const workspace *w)
{
  if (!w->visco)
    return DT_PSEUDO;
  double tau = w->stab > 0.0 ? w->a_damp * w->stab : w->a_damp;
  return fmax(fabs(w->u - w->uc) / w->speed, 1e-6 * tau);
}

/* The bonds' damping over the present increment (viscoelastic runs): the Maxwell
 * element's exact update over fl_static_step_time, with the bodies' velocities their
 * displacement over it (fl_static_increment_velocities). */
void fl_static_rate_step(workspace *w)
{
  fl_system_set_step(w->sys, fl_static_step_time(w));
  fl_system_set_damping(w->sys, 0, w->a_damp, w->stab);
  w->sys->damping[0].capped = 1;
}

/* Loads as the static solver sees them: no damping (the bonds' at the test's speed in
 * a viscoelastic run), and the slip of the increment. */
void fl_static_mode_static(workspace *w)
{
  fl_system *sys = w->sys;
  sys->dt = DT_PSEUDO;
  sys->damping[0].a_damp = 0.0;
  sys->damping[0].decay = 0.0;
  sys->damping[0].dt = DT_PSEUDO;
  if (w->visco)
    fl_static_rate_step(w);
  for (int k = 0; k < sys->ntool; k++)
    sys->law[k].beta = 0.0;
}

/* Loads as the explicit engine sees them, for a relaxation. */
void fl_static_mode_explicit(workspace *w)
{
  fl_system *sys = w->sys;
  sys->dt = w->dt_explicit;
  sys->damping[0] = w->damping;
  for (int k = 0; k < sys->ntool; k++)
    sys->law[k].beta = w->beta[k];
}

/* The free bodies at rest. */
void fl_static_still(workspace *w)
{
  fl_system *sys = w->sys;
  for (int i = 0; i < sys->nbody; i++)
    if (sys->motion[i] == FL_FREE)
      sys->v[i] = sys->w[i] = sys->L[i] = fl_v3(0.0, 0.0, 0.0);
}

/* Breaks on or off.  Off, a bond past its limit keeps its elastic loads: an increment
 * then never meets the jump of a break, and fl_static_locate_break finds where the
 * first bond reaches its limit. */
void fl_static_breakage(workspace *w, int on)
{
  if (w->locate)
    w->sys->limits[0].criterion = on ? w->criterion : FL_CRIT_NONE;
}

/* A bond's utilisation of a limit in its present configuration: 1 on the limit.
 * damped: the bond's Maxwell element is in st and counts (fl_bond_buckling_use). */
typedef double (*bond_use)(const fl_bond *, const fl_bond_limits *, const fl_body *, const fl_body *,
                           const fl_bond_state *, int damped, double *phi, double *m);

/* fl_bond_utilisation as a bond_use: the breaking criteria read the elastic loads. */
static double break_use(const fl_bond *bd, const fl_bond_limits *lim, const fl_body *b1, const fl_body *b2,
                        const fl_bond_state *st, int damped, double *phi, double *m)
{
  (void)damped;
  *phi = *m = NAN;
  return fl_bond_utilisation(bd, lim, b1, b2, st);
}

/* The largest use of the bonds in the present state, less 1: negative while every bond
 * is below it, -1 when none can reach it.  damped: each bond's Maxwell element counts,
 * read into a copy of its state.  phi and m (NULL: none): the bending angles and
 * moments of plastic bonds below buckling already worked out for the present state, per
 * bond, an angle not a number where it was not (their use: fl_buckling_plastic_use).
 * phi_at and m_at (NULL: none): where the bonds' own angles and moments go, those that
 * use gives for every bond (not a number where it gives none), in place of phi and m. */
static double margin(workspace *w, const fl_bond_limits *lim, bond_use use, int damped, const double *phi,
                     const double *m, double *phi_at, double *m_at)
{
  fl_system *sys = w->sys;
  double worst = 0.0;
  for (int b = 0; b < sys->nbond; b++) {
    double u = phi && !isnan(phi[b]) ? fl_buckling_plastic_use(&lim->buckling, phi[b], m[b]) : NAN;
    if (isnan(u)) {
      fl_body b1 = {sys->x[sys->b1[b]], sys->q[sys->b1[b]], fl_v3(0, 0, 0), fl_v3(0, 0, 0)};
      fl_body b2 = {sys->x[sys->b2[b]], sys->q[sys->b2[b]], fl_v3(0, 0, 0), fl_v3(0, 0, 0)};
      fl_bond_state st = sys->bstate[b];
      if (damped)
        fl_system_damp_get(sys, 0, b, &st);
      double pb, mb;
      u = use(&sys->bond[b], lim, &b1, &b2, &st, damped, &pb, &mb);
      if (phi_at) {
        phi_at[b] = pb;
        m_at[b] = mb;
      }
    }
    worst = fmax(worst, u);
  }
  return worst - 1.0;
}

/* Of the breaking limit (fl_bond_utilisation, with the criterion that trials run
 * without). */
double fl_static_break_margin(workspace *w)
{
  fl_bond_limits lim = w->sys->limits[0];
  lim.criterion = w->criterion;
  return margin(w, &lim, break_use, 0, NULL, NULL, NULL, NULL);
}

/* Of the buckling point (fl_bond_buckling_use): -1 also when every bond that can
 * buckle has.  fresh: the last evaluation was an advancing one of the present state, so
 * the bonds the vectorised law served there have their angles and moments in buckle_phi
 * and buckle_m (system.h), the others an angle not a number. */
double fl_static_buckle_margin(workspace *w, int fresh)
{
  const fl_system *sys = w->sys;
  /* in a viscoelastic run the envelope caps the Maxwell element's moment with the
   * elastic one (fl_bond_damp_cap), so the element counts: the vectorised law's angles
   * and moments leave it out, and the bonds' own take their place (for the log of a
   * kept beginning, fl_static_commit) */
  if (w->visco)
    return margin(w, &sys->limits[0], fl_bond_buckling_use_at, 1, NULL, NULL, fresh ? sys->buckle_phi : NULL,
                  sys->buckle_m);
  return margin(w, &sys->limits[0], fl_bond_buckling_use_at, 0, fresh ? sys->buckle_phi : NULL, sys->buckle_m, NULL,
                NULL);
}

/* Append a commit's bending angles phi and moments m to lg; past PREFIX_BYTES, or
 * when memory runs out, the log goes bad (its run keeps no more states). */
void fl_static_log_commit(commit_log *lg, const double *phi, const double *m)
{
  size_t nb = (size_t)lg->nbond;
  if (!lg->bad && (double)(lg->n + 1) * (double)nb * 2.0 * sizeof *lg->phi > PREFIX_BYTES)
    lg->bad = 1;
  if (!lg->bad && lg->n == lg->cap) {
    int cap = lg->cap ? 2 * lg->cap : 256;
    double *p = realloc(lg->phi, (size_t)cap * nb * sizeof *p);
    if (p)
      lg->phi = p;
    double *q = realloc(lg->m, (size_t)cap * nb * sizeof *q);
    if (q)
      lg->m = q;
    if (p && q)
      lg->cap = cap;
    else
      lg->bad = 1;
  }
  if (lg->bad)
    return;
  memcpy(lg->phi + (size_t)lg->n * nb, phi, nb * sizeof *phi);
  memcpy(lg->m + (size_t)lg->n * nb, m, nb * sizeof *m);
  lg->n++;
}

/* Make the present state the converged one: one evaluation with advance 1 moves the
 * history on (plastic offsets, buckling, breakage, contact history), or the trial's
 * history where the last evaluation was the present state's (fl_static_trial_residual). */
void fl_static_commit(workspace *w)
{
  fl_system *sys = w->sys;
  if (fl_static_trial_is_current(w)) {
    /* the loads are the trial's, and so is the history it moved on to */
    fl_system_states_put(sys, 0, w->bt);
    memcpy(sys->xi, w->xit, (size_t)sys->nbody * sys->ntool * sizeof *w->xit);
    sys->overlap[0] = w->overlap_t;
    sys->nbroken[0] = w->nbroken_t;
  } else {
    fl_static_increment_velocities(w);
    fl_system_loads_specimen(sys, 0, 1);
  }
  w->trial_eval = -1;
  fl_static_still(w);
  fl_vec3 *x = w->xh[NHIST - 1];
  fl_quat *q = w->qh[NHIST - 1];
  for (int k = NHIST - 1; k > 0; k--) {
    w->xh[k] = w->xh[k - 1];
    w->qh[k] = w->qh[k - 1];
    w->uh[k] = w->uh[k - 1];
  }
  w->xh[0] = w->xc;
  w->qh[0] = w->qc;
  w->uh[0] = w->uc;
  w->xc = x;
  w->qc = q;
  w->have_prev = w->have_prev < NHIST ? w->have_prev + 1 : NHIST;
  fl_static_save_state(w, w->xc, w->qc);
  w->uc = w->u;
  fl_system_states_get(sys, 0, w->bc);
  memcpy(w->xic, sys->xi, (size_t)sys->nbody * sys->ntool * sizeof *w->xic);
  w->overlap_c = sys->overlap[0];
  w->nbroken_c = sys->nbroken[0];
  if (w->locate)
    w->g_c = fl_static_break_margin(w);
  if (w->buckles)
    w->gb_c = fl_static_buckle_margin(w, 1);
  if (w->log)
    fl_static_log_commit(w->log, w->buckle_phi, w->buckle_m);
  for (int k = 2; w->type->drive == FL_DRIVE_NOSES && k < sys->ntool; k++)
    sys->tool[k].vel = fl_v3(0.0, 0.0, 0.0);
}

/* The free bodies and the history back to the last converged state. */
void fl_static_restore_state(workspace *w)
{
  fl_system *sys = w->sys;
  fl_static_load_state(w, w->xc, w->qc);
  fl_system_states_put(sys, 0, w->bc);
  memcpy(sys->xi, w->xic, (size_t)sys->nbody * sys->ntool * sizeof *w->xic);
  sys->overlap[0] = w->overlap_c;
  sys->nbroken[0] = w->nbroken_c;
}

/* Back to the last converged state, at rest, the tools where they were. */
void fl_static_restore(workspace *w)
{
  fl_static_restore_state(w);
  fl_static_still(w);
  fl_static_apply_position(w, w->uc);
}
