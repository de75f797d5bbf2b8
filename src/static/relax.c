/* relax.c: the relaxation after a snap (fiberlab-model(7), THE STATIC SOLVER, Events):
 * where no equilibrium lies near the last one (after a break or a buckle), the explicit
 * engine moves the specimen from the last state with the tools held still and kinetic
 * damping until it rests, and Newton polishes the result. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define RELAX_CHECK 100 /* steps of a relaxation between checks of the residual at rest, */
#define RELAX_REST 1e-2 /* the residual at rest from which Newton polishes */
#define RELAX_RETRY 500 /* and after a Newton that failed from one, steps before the next */

/* The residual of the present state as an equilibrium of its own history: still
 * bodies, no slip, and in a viscoelastic run no time for the bonds' damping to relax
 * in (the relaxation's own steps moved it on). */
static double still_residual(workspace *w)
{
  fl_vec3 *xc = w->xc;
  fl_quat *qc = w->qc;
  double uc = w->uc;
  w->xc = w->sys->x;
  w->qc = w->sys->q;
  w->uc = w->u;
  fl_static_mode_static(w);
  double nrm = fl_static_residual(w, w->rp);
  w->xc = xc;
  w->qc = qc;
  w->uc = uc;
  return nrm;
}

/* A viscoelastic run's bonds' damping relaxed over the time of the increment to u,
 * whose snap the relaxation then follows (the increment's time passes before it). */
static void relax_damping(workspace *w, double u)
{
  double tau = w->stab > 0.0 ? w->a_damp * w->stab : 0.0;
  double e = tau > 0.0 ? exp(-fabs(u - w->uc) / w->speed / tau) : 0.0;
  double *d = fl_system_state_row(w->sys, 0, FL_STATE_FD);
  for (size_t i = 0; i < (size_t)FL_STATE_LIVE * w->sys->nbond; i++)
    d[i] *= e;
}

/* From the last converged state, with the tools held at position u: the explicit
 * engine with kinetic damping (the free bodies stop whenever the kinetic energy passes
 * a peak) until the specimen rests, then Newton from there.  A broken specimen whose
 * kinetic energy grows without a peak for a period of its lowest mode falls (its pieces
 * leave the tools) and finds no rest.  Returns 1 when converged. */
int fl_static_relax(workspace *w, double u, double time, int *iterations)
{
  fl_system *sys = w->sys;
  w->st.relaxations++;
  fl_static_apply_position(w, u);
  for (int k = 2; w->type->drive == FL_DRIVE_NOSES && k < sys->ntool; k++)
    sys->tool[k].vel = fl_v3(0.0, 0.0, 0.0);
  sys->grip_speed = sys->grip_omega = 0.0;
  fl_static_still(w);
  if (w->visco) /* the bonds' damping is the material's, its stress kept through a snap */
    relax_damping(w, u);
  else
    fl_system_damping_clear(sys, 0);
  long max_steps = (long)ceil(time / w->dt_explicit), retry = 0, calm = 0;
  long falling = (long)ceil(w->period / w->dt_explicit); /* steps of a period without a peak */
  double ke_prev = 0.0;
  int ok = 0;
  fl_vec3 *keep_v = malloc((size_t)sys->nbody * 3 * sizeof *keep_v); /* velocities kept over a check */
  if (!keep_v)
    max_steps = 0;
  for (long n = 1; n <= max_steps; n++) {
    fl_static_mode_explicit(w);
    int bs, bb;
    if (w->step(sys, &bs, &bb) != FL_OK)
      break;
    double ke = fl_system_kinetic(sys, 0);
    if (ke < ke_prev) {
      fl_static_still(w);
      ke = 0.0;
      calm = n;
    }
    ke_prev = ke;
    if (sys->nbroken[0] > 0 && n - calm > falling)
      break; /* broken, and gathering speed for a whole period: pieces falling off the tools */
    if (n % RELAX_CHECK == 0) {
      /* the residual with the bodies stopped where they are */
      memcpy(keep_v, sys->v, (size_t)sys->nbody * sizeof *keep_v);
      memcpy(keep_v + sys->nbody, sys->w, (size_t)sys->nbody * sizeof *keep_v);
      memcpy(keep_v + 2 * sys->nbody, sys->L, (size_t)sys->nbody * sizeof *keep_v);
      double nrm = still_residual(w);
      if (nrm < RELAX_REST && n >= retry) {
        /* the rest state, its history committed by the engine's own steps, becomes the
         * converged state Newton polishes from */
        fl_static_still(w);
        fl_static_save_state(w, w->xc, w->qc);
        w->uc = u;
        w->have_prev = 0;
        fl_system_states_get(sys, 0, w->bc);
        memcpy(w->xic, sys->xi, (size_t)sys->nbody * sys->ntool * sizeof *w->xic);
        w->overlap_c = sys->overlap[0];
        w->nbroken_c = sys->nbroken[0];
        fl_static_mode_static(w);
        fl_static_apply_position(w, u);
        if (fl_static_newton(w, iterations)) {
          ok = 1;
          break;
        }
        fl_static_load_state(w, w->xc, w->qc);
        retry = n + RELAX_RETRY; /* Newton failed from this rest: the next try later */
      }
      memcpy(sys->v, keep_v, (size_t)sys->nbody * sizeof *keep_v);
      memcpy(sys->w, keep_v + sys->nbody, (size_t)sys->nbody * sizeof *keep_v);
      memcpy(sys->L, keep_v + 2 * sys->nbody, (size_t)sys->nbody * sizeof *keep_v);
    }
  }
  free(keep_v);
  fl_static_mode_static(w);
  w->lu_valid = 0;
  return ok;
}
