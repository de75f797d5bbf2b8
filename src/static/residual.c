/* residual.c: the static solver's residual (fiberlab-model(7), THE STATIC SOLVER,
 * Equilibrium; History): every free body's force, gravity included, and torque, from the
 * loads of the engine's own evaluation of the specimen (loads.c), never from a copy of
 * the physics, evaluated
 * - without moving the history while Newton iterates: every bond and contact is
 *   evaluated from the state of the last converged increment, so a bond that yields,
 *   buckles or breaks in a trial gives its post-event loads by the return mapping from
 *   that state; once converged, the history moves on as an evaluation with advance 1
 *   there moves it.  Newton's iterates are evaluated with advance 1 (the same loads)
 *   and the history put back after each, the moved-on one kept aside
 *   (fl_static_trial_residual): the converged iterate's is committed without
 *   evaluating it again;
 * - with bond damping off (a_damp 0) and contact damping off (beta 0) (state.c); in a
 *   viscoelastic run the bonds' damping on, over the increment's time at the test's
 *   speed (fl_static_step_time);
 * - with each free body's velocity set to its displacement (and rotation vector) since
 *   the last converged state over a pseudo time step of DT_PSEUDO (that time in a
 *   viscoelastic run), and sys->dt set to it, so the tangential contact history takes
 *   exactly the slip of the increment. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "integrate.h"
#include "internal.h"
#include "loads.h"

/* Body i's velocity and angular velocity at the end of a step of the ring-down from
 * (x0, q0) to (x, q) by the trapezoidal rule: v = 2 dx / h - v_c, w = 2 theta / h - w_c
 * for the step's displacement dx and rotation vector theta. */
void fl_static_trapezoid_rates(const workspace *w, int i, fl_vec3 x, fl_quat q, fl_vec3 x0, fl_quat q0, fl_vec3 *v,
                               fl_vec3 *o)
{
  *v = fl_axpy(fl_scale(w->vc[i], -1.0), 2.0 / w->h, fl_sub(x, x0));
  *o = fl_axpy(fl_scale(w->oc[i], -1.0), 2.0 / w->h, fl_qlog(fl_qmul(q, fl_qconj(q0))));
}

/* Whether the loads may read free body i's angular velocity: a broken bond of its own
 * (its segments' contact, fl_bond_broken_contact) or a tool within reach
 * (fl_tool_beyond_reach). */
static int reads_rotation_rate(const fl_system *sys, int i)
{
  if (sys->nbroken[0] > 0) /* bonds broken or buckled so far */
    for (int a = sys->adj_start[i]; a < sys->adj_start[i + 1]; a++)
      if (sys->bstate[sys->adj_bond[a]].broken)
        return 1;
  for (int k = 0; k < sys->ntool; k++)
    if (!fl_tool_beyond_reach(&sys->tool[k], sys->x[i], sys->half_length[i], sys->radius[i]))
      return 1;
  return 0;
}

/* The free bodies' velocities: their displacement since the last converged state over
 * the pseudo step (zero when still); in a ring-down, the trapezoidal rule's
 * (fl_static_trapezoid_rates).  Out of the ring-down the bonds are undamped, and only
 * contacts read a velocity: a body that none can touch (reads_rotation_rate) is given
 * no angular velocity, which spares the rotation's logarithm (an arc tangent) on the
 * bodies away from the tools. */
void fl_static_increment_velocities(workspace *w)
{
  fl_system *sys = w->sys;
  double dt = DT_PSEUDO;
  if (w->visco && !w->dynamic) {
    fl_static_rate_step(w);
    dt = sys->dt;
  }
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    if (w->dynamic) {
      fl_static_trapezoid_rates(w, i, sys->x[i], sys->q[i], w->xc[i], w->qc[i], &sys->v[i], &sys->w[i]);
    } else {
      sys->v[i] = fl_scale(fl_sub(sys->x[i], w->xc[i]), 1.0 / dt);
      sys->w[i] = w->visco || reads_rotation_rate(sys, i)
                      ? fl_scale(fl_qlog(fl_qmul(sys->q[i], fl_qconj(w->qc[i]))), 1.0 / dt)
                      : fl_v3(0.0, 0.0, 0.0);
    }
  }
}

/* Body i's angular momentum with angular velocity o (world) in orientation q
 * (fl_momentum_of: a symmetric body). */
fl_vec3 fl_static_momentum(const fl_system *sys, int i, fl_quat q, fl_vec3 o)
{
  return fl_momentum_of(q, o, sys->inertia_axial[i], sys->inertia_trans[i]);
}

/* Evaluate the loads (advance 0) and the scaled residual into r: per free body,
 * (f + m g) / fs and t / ts.  In a ring-down, the trapezoidal rule's balance of momentum
 * over the step instead: (f + f_c) / 2 - m (v - v_c) / h and (t + t_c) / 2 - (L - L_c) / h,
 * the loads of the last converged step f_c, t_c (weight included) and its velocity and
 * angular momentum v_c, L_c.  colour: -1, every bond evaluated; else only the bonds of
 * the free bodies of that colour (fl_static_colour_residual).  Returns the largest
 * |component|. */
static double residual_advance(workspace *w, double *r, int advance, int colour)
{
  fl_system *sys = w->sys;
  fl_static_increment_velocities(w);
  if (colour < 0)
    fl_system_loads_specimen(sys, 0, advance);
  else
    fl_loads_pass_some(sys, 0, w->crange + 2 * (w->sys->nbond + 1) * colour, w->ncrange[colour]);
  w->st.evaluations++;
  double worst = 0.0;
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    fl_vec3 f = fl_axpy(sys->f[i], sys->mass[i], sys->gravity), t = sys->t[i];
    if (w->dynamic) {
      w->ft[i] = f;
      w->tt[i] = t;
      fl_vec3 dl =
          fl_sub(fl_static_momentum(sys, i, sys->q[i], sys->w[i]), fl_static_momentum(sys, i, w->qc[i], w->oc[i]));
      f = fl_axpy(fl_scale(fl_add(f, w->fc[i]), 0.5), -sys->mass[i] / w->h, fl_sub(sys->v[i], w->vc[i]));
      t = fl_axpy(fl_scale(fl_add(t, w->tc[i]), 0.5), -1.0 / w->h, dl);
    }
    double c[NDOF] = {f.x, f.y, f.z, t.x, t.y, t.z};
    for (int k = 0; k < NDOF; k++) {
      double rk = c[k] / (k < 3 ? w->fs : w->ts);
      r[NDOF * j + k] = rk;
      worst = larger(worst, fabs(rk));
    }
  }
  if (w->npin) { /* the pins' reactions are no part of the balance (pin.c) */
    fl_static_pin_project(w, r);
    worst = 0.0;
    for (int i = 0; i < w->n; i++)
      worst = larger(worst, fabs(r[i]));
  }
  return isfinite(worst) ? worst : HUGE_VAL;
}

/* The largest free-body force (N) and torque (N m) residual of the last evaluation, the
 * pins' reactions apart: only an output row needs them. */
void fl_static_residual_norms(const workspace *w, double *rf, double *rt)
{
  const fl_system *sys = w->sys;
  *rf = *rt = 0.0;
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    fl_vec3 f = fl_axpy(sys->f[i], sys->mass[i], sys->gravity), t = sys->t[i];
    if (w->npin) {
      fl_vec3 pf, pt;
      fl_static_pin_reaction(w, j, &pf, &pt);
      f = fl_sub(f, pf);
      t = fl_sub(t, pt);
    }
    *rf = larger(*rf, fl_norm(f));
    *rt = larger(*rt, fl_norm(t));
  }
}

/* The residual of the present state into r, by an evaluation that leaves the history as
 * it is (advance 0); the largest |component|. */
double fl_static_residual(workspace *w, double *r)
{
  return residual_advance(w, r, 0, -1);
}

/* The residual into r, as fl_static_residual gives it, of a tangent's column (newton.c):
 * where only the free bodies of the colour (every NCOLOUR-th from the colour's) have
 * moved since the last trial, whose bonds' loads the rows still hold (fl_static_trial_is_current,
 * and the rows of the bonds this evaluates put back before the next), only their
 * bonds are evaluated again: two thirds of a chain's. */
double fl_static_colour_residual(workspace *w, double *r, int colour)
{
  return residual_advance(w, r, 0, colour);
}

/* The residual of a Newton iterate, as fl_static_residual does, by an evaluation that
 * moves the history on (advance 1) and gives the same loads: the history it moved on to
 * is kept and the one before put back, so that fl_static_commit takes the kept one in
 * place of evaluating the converged state once more (an evaluation an increment). */
double fl_static_trial_residual(workspace *w, double *r)
{
  fl_system *sys = w->sys;
  size_t nxi = (size_t)sys->nbody * sys->ntool;
  fl_system_states_get(sys, 0, w->bpre);
  memcpy(w->xipre, sys->xi, nxi * sizeof *w->xipre);
  double overlap = sys->overlap[0];
  int nbroken = sys->nbroken[0];
  double nrm = residual_advance(w, r, 1, -1);
  fl_system_states_get(sys, 0, w->bt);
  memcpy(w->xit, sys->xi, nxi * sizeof *w->xit);
  w->overlap_t = sys->overlap[0];
  w->nbroken_t = sys->nbroken[0];
  fl_system_states_put(sys, 0, w->bpre);
  memcpy(sys->xi, w->xipre, nxi * sizeof *w->xipre);
  sys->overlap[0] = overlap;
  sys->nbroken[0] = nbroken;
  memcpy(w->xt, sys->x + w->first, (size_t)w->nf * sizeof *w->xt);
  memcpy(w->qt, sys->q + w->first, (size_t)w->nf * sizeof *w->qt);
  w->ut = w->u;
  w->crit_t = sys->limits[0].criterion;
  w->trial_eval = w->st.evaluations;
  return nrm;
}

/* Whether the last evaluation was the trial of the present state (the same bodies,
 * tools and limits). */
int fl_static_trial_is_current(const workspace *w)
{
  const fl_system *sys = w->sys;
  return w->trial_eval == w->st.evaluations && w->ut == w->u && w->crit_t == sys->limits[0].criterion &&
         memcmp(w->xt, sys->x + w->first, (size_t)w->nf * sizeof *w->xt) == 0 &&
         memcmp(w->qt, sys->q + w->first, (size_t)w->nf * sizeof *w->qt) == 0;
}

/* The Euclidean norm of r[0 .. n). */
double fl_static_norm2(const double *r, int n)
{
  double s = 0.0;
  for (int k = 0; k < n; k++)
    s += r[k] * r[k];
  return sqrt(s);
}

/* The largest-residual free body of the last evaluation. */
int fl_static_worst_body(workspace *w, const double *r)
{
  int best = w->first;
  double big = -1.0;
  for (int j = 0; j < w->nf; j++)
    for (int k = 0; k < NDOF; k++)
      if (fabs(r[NDOF * j + k]) > big) {
        big = fabs(r[NDOF * j + k]);
        best = w->first + j;
      }
  return best;
}
