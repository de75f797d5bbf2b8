/* engine.c: the CPU engine's explicit step (MODEL.md section 9) over a batch of
 * specimens: bond loads, tool contacts, the split step of integrate.h (leapfrog
 * translation, exact free rotation between torque kicks), kinematic grips.  Specimens
 * are independent, so they run in parallel (OpenMP) with results identical for any
 * thread count. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "fl_defs.h"
#include "integrate.h"
#include "system.h"

static inline fl_body body_at(const fl_system *sys, size_t k)
{
  fl_body b;
  b.x = sys->x[k];
  b.q = sys->q[k];
  b.v = sys->v[k];
  b.w = sys->w[k];
  return b;
}

/* Bonds and contacts of specimen s: fills f, t, strain energy, tool and grip loads.
 * advance: 1 to move the damping state, plastic offsets and contact history on. */
static void specimen_loads(fl_system *sys, int s, int advance)
{
  size_t base = (size_t)s * sys->nbody;
  fl_vec3 *FL_RESTRICT f = sys->f + base;
  fl_vec3 *FL_RESTRICT t = sys->t + base;
  fl_bond_state *st = sys->bstate + (size_t)s * sys->nbond;
  const fl_bond_limits *lim =
      (sys->limits[s].criterion != FL_CRIT_NONE || sys->limits[s].buckling.type != FL_BUCKLING_NONE) ? &sys->limits[s]
                                                                                                       : NULL;
  const fl_bond *bond = sys->bond + (size_t)s * sys->nbond;
  double energy = 0.0;
  memset(f, 0, (size_t)sys->nbody * sizeof *f);
  memset(t, 0, (size_t)sys->nbody * sizeof *t);

  for (int b = 0; b < sys->nbond; b++) {
    int i = sys->b1[b], j = sys->b2[b];
    fl_body bi = body_at(sys, base + i), bj = body_at(sys, base + j);
    fl_bond_loads ld;
    if (advance) {
      int events = st[b].broken + st[b].buckled;
      fl_bond_eval(&bond[b], &sys->damping[s], lim, &bi, &bj, &st[b], &ld);
      sys->nbroken[s] += st[b].broken + st[b].buckled - events;
    } else {
      fl_bond_state scratch = st[b]; /* evaluate without moving the state on */
      fl_bond_eval(&bond[b], &sys->damping[s], lim, &bi, &bj, &scratch, &ld);
    }
    f[i] = fl_add(f[i], ld.force);
    f[j] = fl_sub(f[j], ld.force);
    t[i] = fl_add(t[i], ld.torque1);
    t[j] = fl_add(t[j], ld.torque2);
    energy += ld.energy;
  }
  sys->strain_energy[s] = energy;

  /* The load the specimen puts on the moving grip: minus the bond loads its bodies take.
   * Bonds between two gripped bodies cancel in the sum. */
  fl_vec3 gf = fl_v3(0, 0, 0), gt = fl_v3(0, 0, 0);
  for (int i = 0; i < sys->nbody; i++)
    if (sys->motion[i] == FL_GRIP_MOVING) {
      gf = fl_add(gf, f[i]);
      gt = fl_add(gt, fl_add(t[i], fl_cross(sys->x[base + i], f[i])));
    }
  sys->grip_force[s] = gf;
  sys->grip_torque[s] = gt;

  fl_vec3 *tf = sys->tool_force + (size_t)s * sys->ntool;
  for (int k = 0; k < sys->ntool; k++)
    tf[k] = fl_v3(0, 0, 0);
  for (int i = 0; i < sys->nbody && sys->ntool > 0; i++) {
    if (sys->motion[i] != FL_FREE)
      continue;
    size_t kb = base + i;
    fl_vec3 share[FL_MAX_TOOLS];
    fl_contact_tools(sys->law + (size_t)s * sys->ntool, sys->tool, sys->ntool, sys->x[kb], sys->q[kb], sys->v[kb],
                     sys->w[kb], sys->half_length[i], sys->radius[i], sys->dt, sys->xi + kb * sys->ntool, advance,
                     &f[i], &t[i], share, &sys->overlap[s]);
    for (int k = 0; k < sys->ntool; k++)
      tf[k] = fl_add(tf[k], share[k]);
  }
}

void fl_system_loads_specimen(fl_system *sys, int s, int advance) { specimen_loads(sys, s, advance); }

void fl_system_loads(fl_system *sys, int advance_damping)
{
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(sys->threads) if (sys->threads > 1 && sys->nspec > 1)
#endif
  for (int s = 0; s < sys->nspec; s++)
    specimen_loads(sys, s, advance_damping);
}

/* One step of specimen s; returns the first body that left the finite numbers, or -1. */
static int specimen_step(fl_system *sys, int s, double disp, fl_quat qg, fl_vec3 wg)
{
  int bad = -1;
  specimen_loads(sys, s, 1);
  size_t base = (size_t)s * sys->nbody;
  for (int i = 0; i < sys->nbody; i++) {
    size_t k = base + i;
    if (sys->motion[i] == FL_FREE) {
      if (!fl_integrate_free(&sys->x[k], &sys->v[k], &sys->q[k], &sys->L[k], &sys->w[k], sys->f[k], sys->t[k],
                             sys->gravity, sys->mass[i], sys->inertia_axial[i], sys->inertia_trans[i], sys->dt) &&
          bad < 0)
        bad = i;
    } else if (sys->motion[i] == FL_GRIP_MOVING) {
      fl_integrate_grip(&sys->x[k], &sys->v[k], &sys->q[k], &sys->L[k], &sys->w[k], sys->x_ref[i], sys->q_ref[i], disp,
                        qg, wg, sys->grip_speed);
    }
  }
  return bad;
}

int fl_system_step(fl_system *sys, int *bad_spec, int *bad_bond)
{
  double dt = sys->dt;
  double disp = sys->grip_disp + sys->grip_speed * dt;
  double ang = sys->grip_angle + sys->grip_omega * dt;
  fl_quat qg = fl_qexp(fl_v3(ang, 0, 0));
  fl_vec3 wg = fl_v3(sys->grip_omega, 0, 0);
  int first_bad_spec = -1, first_bad_body = -1;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(sys->threads) if (sys->threads > 1 && sys->nspec > 1)
#endif
  for (int s = 0; s < sys->nspec; s++) {
    int bad = specimen_step(sys, s, disp, qg, wg);
    if (bad >= 0) {
#ifdef _OPENMP
#pragma omp critical(fl_bad)
#endif
      if (first_bad_spec < 0 || s < first_bad_spec) {
        first_bad_spec = s;
        first_bad_body = bad;
      }
    }
  }
  sys->grip_disp = disp;
  sys->grip_angle = ang;
  for (int k = 0; k < sys->ntool; k++)
    sys->tool[k].point = fl_axpy(sys->tool[k].point, dt, sys->tool[k].vel);
  sys->step++;
  if (first_bad_spec >= 0) {
    *bad_spec = first_bad_spec;
    *bad_bond = -1;
    for (int b = 0; b < sys->nbond; b++)
      if (sys->b1[b] == first_bad_body || sys->b2[b] == first_bad_body) {
        *bad_bond = b;
        break;
      }
    return FL_EUNSTABLE;
  }
  return FL_OK;
}

void fl_system_count(const fl_system *sys, int s, int *broken, int *yielded)
{
  const fl_bond_state *st = sys->bstate + (size_t)s * sys->nbond;
  int nb = 0, ny = 0;
  for (int b = 0; b < sys->nbond; b++) {
    nb += st[b].broken;
    ny += st[b].yielded || st[b].buckled;
  }
  *broken = nb;
  *yielded = ny;
}

double fl_system_kinetic(const fl_system *sys, int s)
{
  double e = 0.0;
  size_t base = (size_t)s * sys->nbody;
  for (int i = 0; i < sys->nbody; i++) {
    if (sys->motion[i] != FL_FREE)
      continue;
    size_t k = base + i;
    e += 0.5 * sys->mass[i] * fl_dot(sys->v[k], sys->v[k]) + 0.5 * fl_dot(sys->w[k], sys->L[k]);
  }
  return e;
}
