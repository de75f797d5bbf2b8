/* engine.c: the CPU engine's explicit step (MODEL.md section 9) over a batch of
 * specimens: bond loads, tool contacts, leapfrog translation, angular momentum and
 * exponential-map rotation, kinematic grips.  Specimens are independent, so they run
 * in parallel (OpenMP) with results identical for any thread count. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "fl_defs.h"
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
    fl_bond_state next = st[b];
    fl_bond_eval(&bond[b], &sys->damping[s], lim, &bi, &bj, &next, &ld);
    if (advance) {
      sys->nbroken[s] += (next.broken - st[b].broken) + (next.buckled - st[b].buckled);
      st[b] = next;
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

  for (int k = 0; k < sys->ntool; k++)
    sys->tool_force[(size_t)s * sys->ntool + k] = fl_v3(0, 0, 0);
  for (int i = 0; i < sys->nbody && sys->ntool > 0; i++) {
    if (sys->motion[i] != FL_FREE)
      continue;
    size_t kb = base + i;
    fl_vec3 a = fl_qrot(sys->q[kb], fl_v3(1, 0, 0));
    double hl = sys->half_length[i], r = sys->radius[i];
    for (int k = 0; k < sys->ntool; k++) {
      const fl_tool *tool = &sys->tool[k];
      fl_vec3 *xi = &sys->xi[kb * sys->ntool + k];
      fl_vec3 rel = fl_sub(sys->x[kb], tool->point);
      fl_vec3 rp = fl_axpy(rel, -fl_dot(rel, tool->axis), tool->axis);
      double reach = hl + r + tool->radius;
      if (fl_dot(rp, rp) > reach * reach) {
        if (advance)
          *xi = fl_v3(0, 0, 0);
        continue;
      }
      fl_vec3 fc = fl_v3(0, 0, 0), tc = fl_v3(0, 0, 0);
      fl_vec3 hist = *xi;
      double delta =
          fl_contact_tool(&sys->law[(size_t)s * sys->ntool + k], tool, sys->x[kb], a, hl, r, sys->v[kb], sys->w[kb], sys->dt, &hist, &fc, &tc);
      if (advance) {
        *xi = hist;
        if (delta > sys->overlap[s])
          sys->overlap[s] = delta;
      }
      f[i] = fl_add(f[i], fc);
      t[i] = fl_add(t[i], tc);
      fl_vec3 *tf = &sys->tool_force[(size_t)s * sys->ntool + k];
      *tf = fl_sub(*tf, fc);
    }
  }
}

void fl_system_loads(fl_system *sys, int advance_damping)
{
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(sys->threads) if (sys->threads > 1 && sys->nspec > 1)
#endif
  for (int s = 0; s < sys->nspec; s++)
    specimen_loads(sys, s, advance_damping);
}

/* w = R diag(1/Ia, 1/It, 1/It) R^T L for a body symmetric about its x axis. */
static inline fl_vec3 omega_of(fl_quat q, fl_vec3 L, double ia, double it)
{
  /* body x axis in world: the first column of R(q) */
  fl_vec3 a = fl_v3(1.0 - 2.0 * (q.y * q.y + q.z * q.z), 2.0 * (q.x * q.y + q.w * q.z), 2.0 * (q.x * q.z - q.w * q.y));
  return fl_axpy(fl_scale(L, 1.0 / it), (1.0 / ia - 1.0 / it) * fl_dot(a, L), a);
}

/* One step of specimen s; returns the first body that left the finite numbers, or -1. */
static int specimen_step(fl_system *sys, int s, double disp, fl_quat qg, fl_vec3 wg)
{
  double dt = sys->dt;
  int bad = -1;
  specimen_loads(sys, s, 1);
  size_t base = (size_t)s * sys->nbody;
  for (int i = 0; i < sys->nbody; i++) {
    size_t k = base + i;
    if (sys->motion[i] == FL_FREE) {
      double m = sys->mass[i], ia = sys->inertia_axial[i], it = sys->inertia_trans[i];
      sys->v[k] = fl_axpy(sys->v[k], dt / m, sys->f[k]);
      sys->x[k] = fl_axpy(sys->x[k], dt, sys->v[k]);
      sys->L[k] = fl_axpy(sys->L[k], dt, sys->t[k]);
      fl_vec3 w = omega_of(sys->q[k], sys->L[k], ia, it);
      sys->q[k] = fl_qnormalize(fl_qmul(fl_qexp(fl_scale(w, dt)), sys->q[k]));
      sys->w[k] = omega_of(sys->q[k], sys->L[k], ia, it);
      if (bad < 0 && !(isfinite(sys->x[k].x) && isfinite(sys->x[k].y) && isfinite(sys->x[k].z) &&
                       isfinite(sys->w[k].x) && isfinite(sys->w[k].y) && isfinite(sys->w[k].z)))
        bad = i;
    } else if (sys->motion[i] == FL_GRIP_MOVING) {
      fl_vec3 xr = fl_add(sys->x_ref[i], fl_v3(disp, 0, 0));
      sys->x[k] = fl_qrot(qg, xr);
      sys->q[k] = fl_qmul(qg, sys->q_ref[i]);
      sys->w[k] = wg;
      sys->v[k] = fl_add(fl_v3(sys->grip_speed, 0, 0), fl_cross(wg, sys->x[k]));
      sys->L[k] = fl_v3(0, 0, 0);
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
