/* system.c: allocation, construction and the stability bound of a fl_system. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fl_defs.h"
#include "integrate.h"
#include "system.h"

/* Every array of a fl_system and its length, from the sizes nb (bodies), ns
 * (specimens), nsb (ns nb), nbd (bonds) and nt (tools) in scope: one list for the
 * allocation, the copy and the freeing. */
#define FL_SYSTEM_ARRAYS(X)                                                                                   \
  X(mass, nb) X(inertia_axial, nb) X(inertia_trans, nb) X(half_length, nb) X(radius, nb) X(motion, nb)        \
  X(x_ref, nb) X(q_ref, nb) X(x, nsb) X(q, nsb) X(v, nsb) X(w, nsb) X(L, nsb) X(f, nsb) X(t, nsb)             \
  X(b1, nbd + 1) X(b2, nbd + 1) X(bond, ns * nbd + 1) X(damping, ns) X(law, ns * nt + 1) X(limits, ns)        \
  X(bstate, ns * nbd + 1) X(xi, nsb * nt + 1) X(tool_force, ns * nt + 1) X(grip_force, ns)                    \
  X(grip_torque, ns) X(strain_energy, ns) X(overlap, ns) X(nbroken, ns) X(pload_force, ns)                    \
  X(adj_start, nb + 1) X(adj_bond, 2 * nbd + 1) X(adj_side, 2 * nbd + 1)                                      \
  X(bond_load, FL_LOAD_ROWS * ns * nbd + 1) X(bond_def, FL_DEF_ROWS * ns * nbd + 1)                         \
  X(state_row, FL_STATE_ROWS * ns * nbd + 1) X(body_row, FL_BODY_ROWS * nb) X(tool_share, nsb * nt + 1)

int fl_system_alloc(fl_system *sys, int nspec, int nbody, int nbond, int ntool)
{
  memset(sys, 0, sizeof *sys);
  if (nspec < 1 || nbody < 1 || nbond < 0 || ntool < 0 || ntool > FL_MAX_TOOLS)
    return FL_EINPUT;
  size_t nb = (size_t)nbody, ns = (size_t)nspec, nsb = ns * nb, nbd = (size_t)nbond, nt = (size_t)ntool;
  sys->nspec = nspec;
  sys->nbody = nbody;
  sys->nbond = nbond;
  sys->ntool = ntool;
  int ok = 1;
#define X(field, n) FL_ARRAY_ALLOC(sys->field, n, ok);
  FL_SYSTEM_ARRAYS(X)
#undef X
  sys->pload.body = -1;
  sys->threads = 1;
  sys->inline_law = 1;
  sys->inline_static = 0;
  if (!ok) {
    fl_system_free(sys);
    return FL_ENOMEM;
  }
  for (size_t i = 0; i < nb; i++)
    sys->q_ref[i] = fl_qid();
  for (size_t i = 0; i < nsb; i++)
    sys->q[i] = fl_qid();
  for (int s = 0; s < nspec; s++) /* no bond broken, yielded or buckled */
    for (size_t b = 0; b < nbd; b++)
      fl_system_state_row(sys, s, FL_STATE_LIVE)[b] = 1.0;
  return FL_OK;
}

void fl_system_free(fl_system *sys)
{
#define X(field, n) free(sys->field);
  FL_SYSTEM_ARRAYS(X)
#undef X
  memset(sys, 0, sizeof *sys);
}

int fl_system_copy(fl_system *dst, const fl_system *src)
{
  if (dst->nspec != src->nspec || dst->nbody != src->nbody || dst->nbond != src->nbond || dst->ntool != src->ntool)
    return FL_EINPUT;
  size_t nb = (size_t)src->nbody, ns = (size_t)src->nspec, nsb = ns * nb, nbd = (size_t)src->nbond,
         nt = (size_t)src->ntool;
  fl_system own = *dst;
  *dst = *src;
#define X(field, n) FL_ARRAY_COPY(dst->field, own.field, src->field, n);
  FL_SYSTEM_ARRAYS(X)
#undef X
  dst->buckle_phi = own.buckle_phi;
  dst->buckle_m = own.buckle_m;
  return FL_OK;
}

int fl_system_extract(const fl_system *src, int s, fl_system *dst)
{
  int rc = fl_system_alloc(dst, 1, src->nbody, src->nbond, src->ntool);
  if (rc)
    return rc;
  size_t nb = (size_t)src->nbody, nd = (size_t)src->nbond, nt = (size_t)src->ntool;
  size_t ob = (size_t)s * nb, od = (size_t)s * nd, ot = (size_t)s * nt;
  memcpy(dst->mass, src->mass, nb * sizeof *dst->mass);
  memcpy(dst->inertia_axial, src->inertia_axial, nb * sizeof *dst->inertia_axial);
  memcpy(dst->inertia_trans, src->inertia_trans, nb * sizeof *dst->inertia_trans);
  memcpy(dst->half_length, src->half_length, nb * sizeof *dst->half_length);
  memcpy(dst->radius, src->radius, nb * sizeof *dst->radius);
  memcpy(dst->motion, src->motion, nb * sizeof *dst->motion);
  memcpy(dst->x_ref, src->x_ref, nb * sizeof *dst->x_ref);
  memcpy(dst->q_ref, src->q_ref, nb * sizeof *dst->q_ref);
  memcpy(dst->x, src->x + ob, nb * sizeof *dst->x);
  memcpy(dst->q, src->q + ob, nb * sizeof *dst->q);
  memcpy(dst->v, src->v + ob, nb * sizeof *dst->v);
  memcpy(dst->w, src->w + ob, nb * sizeof *dst->w);
  memcpy(dst->L, src->L + ob, nb * sizeof *dst->L);
  memcpy(dst->b1, src->b1, nd * sizeof *dst->b1);
  memcpy(dst->b2, src->b2, nd * sizeof *dst->b2);
  memcpy(dst->bond, src->bond + od, nd * sizeof *dst->bond);
  memcpy(dst->bstate, src->bstate + od, nd * sizeof *dst->bstate);
  memcpy(dst->state_row, fl_system_state_row(src, s, 0), FL_STATE_ROWS * nd * sizeof *dst->state_row);
  memcpy(dst->tool, src->tool, sizeof dst->tool);
  memcpy(dst->law, src->law + ot, nt * sizeof *dst->law);
  memcpy(dst->xi, src->xi + ob * nt, nb * nt * sizeof *dst->xi);
  dst->grip_disp = src->grip_disp;
  dst->grip_angle = src->grip_angle;
  dst->dt = src->dt;
  dst->damping[0] = src->damping[s];
  dst->limits[0] = src->limits[s];
  dst->gravity = src->gravity;
  dst->overlap[0] = src->overlap[s];
  dst->nbroken[0] = src->nbroken[s];
  dst->pload = src->pload;
  dst->pload_force[0] = src->pload_force[s];
  return FL_OK;
}

double fl_system_pload_displacement(const fl_system *sys, int s)
{
  const fl_point_load *pl = &sys->pload;
  if (pl->body < 0)
    return 0.0;
  size_t k = (size_t)s * sys->nbody + pl->body;
  fl_vec3 arm, p_ref = fl_add(sys->x_ref[pl->body], fl_qrot(sys->q_ref[pl->body], pl->arm));
  return fl_point_load_travel(pl, sys->x[k], sys->q[k], p_ref, &arm);
}

fl_section fl_section_hollow(double r_out, double r_in)
{
  fl_section s;
  s.area = FL_PI * (r_out * r_out - r_in * r_in);
  s.inertia = FL_PI * (pow(r_out, 4) - pow(r_in, 4)) / 4.0;
  s.polar = 2.0 * s.inertia;
  return s;
}

void fl_system_set_segment(fl_system *sys, int i, double r_out, double r_in, double h, double density)
{
  fl_section sec = fl_section_hollow(r_out, r_in);
  double m = density * sec.area * h, rr = r_out * r_out + r_in * r_in;
  sys->mass[i] = m;
  sys->inertia_axial[i] = m * rr / 2.0;
  sys->inertia_trans[i] = m * (3.0 * rr + h * h) / 12.0;
  sys->half_length[i] = h / 2.0;
  sys->radius[i] = r_out;
  sys->adj_ready = 0; /* the body step's quotients */
}

void fl_system_bond_chain(fl_system *sys, int s, int b, int i, int j, const fl_side_stiffness *s1,
                          const fl_side_stiffness *s2)
{
  /* Contact point midway between the bonded lengths, fixed in both body frames. */
  fl_vec3 c = fl_scale(fl_add(sys->x_ref[i], sys->x_ref[j]), 0.5);
  fl_bond bd = fl_bond_make(sys->x_ref[i], sys->q_ref[i], sys->x_ref[j], sys->q_ref[j], c, *s1, *s2);
  sys->b1[b] = i;
  sys->b2[b] = j;
  sys->adj_ready = 0;
  for (int k = s < 0 ? 0 : s; k < (s < 0 ? sys->nspec : s + 1); k++)
    sys->bond[(size_t)k * sys->nbond + b] = bd;
}

void fl_system_reset(fl_system *sys)
{
  for (int s = 0; s < sys->nspec; s++)
    for (int i = 0; i < sys->nbody; i++) {
      size_t k = (size_t)s * sys->nbody + i;
      sys->x[k] = sys->x_ref[i];
      sys->q[k] = sys->q_ref[i];
      sys->v[k] = sys->w[k] = sys->L[k] = sys->f[k] = sys->t[k] = fl_v3(0, 0, 0);
    }
  memset(sys->bstate, 0, (size_t)sys->nspec * sys->nbond * sizeof *sys->bstate);
  for (size_t k = 0; k < (size_t)sys->nspec * sys->nbond; k++)
    sys->bstate[k].strength = 1.0;
  for (int s = 0; s < sys->nspec; s++)
    fl_system_damping_clear(sys, s);
  memset(sys->overlap, 0, (size_t)sys->nspec * sizeof *sys->overlap);
  memset(sys->nbroken, 0, (size_t)sys->nspec * sizeof *sys->nbroken);
  memset(sys->xi, 0, (size_t)sys->nspec * sys->nbody * sys->ntool * sizeof *sys->xi);
  sys->grip_disp = sys->grip_angle = 0.0;
  sys->step = 0;
  fl_system_adjacency(sys);
}

void fl_system_states_get(const fl_system *sys, int s, fl_bond_state *st)
{
  memcpy(st, sys->bstate + (size_t)s * sys->nbond, (size_t)sys->nbond * sizeof *st);
  for (int b = 0; b < sys->nbond; b++)
    fl_system_damp_get(sys, s, b, &st[b]);
}

void fl_system_states_put(fl_system *sys, int s, const fl_bond_state *st)
{
  fl_bond_state *to = sys->bstate + (size_t)s * sys->nbond;
  memcpy(to, st, (size_t)sys->nbond * sizeof *st);
  for (int b = 0; b < sys->nbond; b++)
    fl_system_damp_put(sys, s, b, &to[b]);
}

void fl_system_damping_clear(fl_system *sys, int s)
{
  /* rows FL_STATE_FD to FL_STATE_TD + 2, the ones before FL_STATE_LIVE */
  memset(fl_system_state_row(sys, s, FL_STATE_FD), 0, (size_t)FL_STATE_LIVE * sys->nbond * sizeof *sys->state_row);
}

/* The definitions' rows (system.h), one set when every specimen has the same bonds. */
static void bond_defs(fl_system *sys)
{
  size_t nd = (size_t)sys->nbond;
  sys->def_shared = 1;
  for (int s = 1; s < sys->nspec && sys->def_shared; s++)
    for (size_t b = 0; b < nd && sys->def_shared; b++) {
      const fl_bond *p = &sys->bond[b], *o = &sys->bond[(size_t)s * nd + b];
      /* field by field: the structure's padding is not compared */
      sys->def_shared = memcmp(&p->r1, &o->r1, sizeof p->r1) == 0 && memcmp(&p->r2, &o->r2, sizeof p->r2) == 0 &&
                        memcmp(&p->q0, &o->q0, sizeof p->q0) == 0 && memcmp(&p->s1, &o->s1, sizeof p->s1) == 0 &&
                        memcmp(&p->s2, &o->s2, sizeof p->s2) == 0 && p->oblique == o->oblique;
    }
  int nsets = sys->def_shared ? 1 : sys->nspec;
  fl_bond_state fresh;
  memset(&fresh, 0, sizeof fresh);
  sys->def_uniform = 1;
  for (int s = 0; s < nsets; s++) {
    double *row = sys->bond_def + (size_t)s * FL_DEF_ROWS * nd;
    for (size_t b = 0; b < nd; b++) {
      const fl_bond *bd = &sys->bond[(size_t)s * nd + b];
      fl_bond_inline_def d = fl_bond_inline_make(bd);
      double v[FL_DEF_ROWS] = {d.r1.x, d.r1.y, d.r1.z, d.r2.x, d.r2.y,   d.r2.z,   d.q0.w, d.q0.x, d.q0.y,
                               d.q0.z, d.ks1,  d.kd1,  d.ks2,  d.kd2,  d.kt_eff, d.kb_eff, fl_bond_is_inline(bd, &fresh)};
      for (int r = 0; r < FL_DEF_ROWS; r++) {
        row[(size_t)r * nd + b] = v[r];
        /* q0 and the stiffnesses, bit for bit, as the law would read them */
        if (r >= FL_DEF_Q0 && memcmp(&row[(size_t)r * nd + b], &row[(size_t)r * nd], sizeof v[r]) != 0)
          sys->def_uniform = 0;
      }
    }
  }
}

void fl_system_body_rows(fl_system *sys)
{
  size_t nb = (size_t)sys->nbody;
  for (size_t i = 0; i < nb; i++) {
    fl_body_quotients k = fl_integrate_quotients(sys->mass[i], sys->inertia_axial[i], sys->inertia_trans[i], sys->dt);
    double v[FL_BODY_ROWS] = {k.dtm, k.dti, k.rit, k.di, k.dtdi};
    for (int r = 0; r < FL_BODY_ROWS; r++)
      sys->body_row[r * nb + i] = v[r];
  }
  sys->body_dt = sys->dt;
}

int fl_system_adjacency(fl_system *sys)
{
  int nb = sys->nbody, nd = sys->nbond;
  int *start = sys->adj_start;
  memset(start, 0, ((size_t)nb + 1) * sizeof *start);
  for (int b = 0; b < nd; b++) {
    start[sys->b1[b] + 1]++;
    start[sys->b2[b] + 1]++;
  }
  for (int i = 0; i < nb; i++)
    start[i + 1] += start[i];
  /* Fill in ascending bond order, side 1 before side 2 (the order the loads were always
   * summed in), with start[i] as body i's cursor; it ends at body i + 1's start, so a
   * shift by one restores the starts. */
  for (int b = 0; b < nd; b++) {
    int i = sys->b1[b], j = sys->b2[b];
    sys->adj_bond[start[i]] = b;
    sys->adj_side[start[i]++] = 1;
    sys->adj_bond[start[j]] = b;
    sys->adj_side[start[j]++] = 2;
  }
  for (int i = nb; i > 0; i--)
    start[i] = start[i - 1];
  start[0] = 0;
  sys->adj_ordered = 1;
  for (int i = 1, prev = -1; i <= nb; i++) {
    int last = start[i] > start[i - 1] ? sys->adj_bond[start[i] - 1] : -1; /* body i - 1's */
    if (last < prev)
      sys->adj_ordered = 0;
    prev = last > prev ? last : prev;
  }
  sys->adj_chain = 1;
  for (int b = 0; b < nd; b++)
    if (sys->b1[b] != b || sys->b2[b] != b + 1)
      sys->adj_chain = 0;
  bond_defs(sys);
  fl_system_body_rows(sys);
  for (int s = 0; s < sys->nspec; s++) {
    double *live = fl_system_state_row(sys, s, FL_STATE_LIVE);
    const fl_bond_state *st = sys->bstate + (size_t)s * nd;
    for (int b = 0; b < nd; b++)
      live[b] = (st[b].broken | st[b].yielded | st[b].buckled) == 0 ? 1.0 : 0.0;
  }
  sys->adj_ready = 1;
  return FL_OK;
}

/* Stable-step factor of one mode of angular frequency omega under the Maxwell-
 * stabilised stiffness-proportional damping: (2/omega') (sqrt(1 + z^2) - z), where the
 * Maxwell branch adds at most k/s of stiffness (omega') and its damping falls off as
 * 1 / (1 + (omega tau)^2).  For s = 0 this is the plain dashpot bound. */
static double damped_bound(double omega, double a_damp, double stab)
{
  double tau = a_damp * stab, x2 = (omega * tau) * (omega * tau);
  double om = omega;
  if (stab > 0.0)
    om = omega * sqrt(1.0 + (x2 / (1.0 + x2)) / stab);
  double z = 0.5 * a_damp * omega * omega / om / (1.0 + x2);
  return 2.0 / om * (sqrt(1.0 + z * z) - z);
}

double fl_system_critical_step(const fl_system *sys, int s, double a_damp, double stab, double kc)
{
  /* Gershgorin bound on the mass-normalised stiffness of the linearised chain, per body
   * and direction: translation, bending rotation, twist. */
  int n = sys->nbody;
  double *rt = calloc((size_t)n, sizeof *rt), *rr = calloc((size_t)n, sizeof *rr),
         *rw = calloc((size_t)n, sizeof *rw);
  double best = HUGE_VAL;
  if (!rt || !rr || !rw)
    goto done;
  for (int b = 0; b < sys->nbond; b++) {
    const fl_bond *bd = &sys->bond[(size_t)s * sys->nbond + b];
    int i = sys->b1[b], j = sys->b2[b];
    double ka = fl_series(bd->s1.k_axial, bd->s2.k_axial), ks = fl_series(bd->s1.k_shear, bd->s2.k_shear);
    double kt = fl_series(bd->s1.k_twist, bd->s2.k_twist), kb = fl_series(bd->s1.k_bend, bd->s2.k_bend);
    double k = ka > ks ? ka : ks;
    double di = fl_norm(bd->r1), dj = fl_norm(bd->r2);
    double mi = sys->mass[i], mj = sys->mass[j], Ii = sys->inertia_trans[i], Ij = sys->inertia_trans[j];
    /* translation rows */
    rt[i] += k / mi + k / sqrt(mi * mj) + ks * di / sqrt(mi * Ii) + ks * dj / sqrt(mi * Ij);
    rt[j] += k / mj + k / sqrt(mi * mj) + ks * dj / sqrt(mj * Ij) + ks * di / sqrt(mj * Ii);
    /* bending rotation rows */
    rr[i] += (kb + ks * di * di) / Ii + (kb + ks * di * dj) / sqrt(Ii * Ij) + ks * di / sqrt(mi * Ii)
             + ks * di / sqrt(Ii * mj);
    rr[j] += (kb + ks * dj * dj) / Ij + (kb + ks * di * dj) / sqrt(Ii * Ij) + ks * dj / sqrt(mj * Ij)
             + ks * dj / sqrt(Ij * mi);
    /* twist rows */
    rw[i] += kt / sys->inertia_axial[i] + kt / sqrt(sys->inertia_axial[i] * sys->inertia_axial[j]);
    rw[j] += kt / sys->inertia_axial[j] + kt / sqrt(sys->inertia_axial[i] * sys->inertia_axial[j]);
  }
  for (int i = 0; i < n; i++) {
    if (sys->motion[i] != FL_FREE)
      continue;
    double hl = sys->half_length[i], r = sys->radius[i];
    rt[i] += kc / sys->mass[i];
    rr[i] += kc * (hl * hl + r * r) / sys->inertia_trans[i];
    double w2 = rt[i];
    if (rr[i] > w2)
      w2 = rr[i];
    if (rw[i] > w2)
      w2 = rw[i];
    if (w2 > 0.0) {
      double dt = damped_bound(sqrt(w2), a_damp, stab);
      if (dt < best)
        best = dt;
    }
  }
done:
  free(rt);
  free(rr);
  free(rw);
  return best;
}

void fl_system_set_step(fl_system *sys, double dt) { sys->dt = dt; }

void fl_system_set_damping(fl_system *sys, int s, double a_damp, double stab)
{
  for (int k = s < 0 ? 0 : s; k < (s < 0 ? sys->nspec : s + 1); k++) {
    sys->damping[k].a_damp = a_damp;
    sys->damping[k].dt = sys->dt;
    sys->damping[k].decay = (stab > 0.0 && a_damp > 0.0) ? exp(-sys->dt / (a_damp * stab)) : 0.0;
  }
}

fl_grip_motion fl_system_grip_motion(const fl_system *sys)
{
  fl_grip_motion gm;
  gm.disp = sys->grip_disp + sys->grip_speed * sys->dt;
  gm.angle = sys->grip_angle + sys->grip_omega * sys->dt;
  gm.qg = fl_qexp(fl_v3(gm.angle, 0, 0));
  gm.wg = fl_v3(sys->grip_omega, 0, 0);
  return gm;
}

void fl_system_step_end(fl_system *sys, const fl_grip_motion *gm)
{
  sys->grip_disp = gm->disp;
  sys->grip_angle = gm->angle;
  for (int k = 0; k < sys->ntool; k++)
    sys->tool[k].point = fl_axpy(sys->tool[k].point, sys->dt, sys->tool[k].vel);
  sys->step++;
}

int fl_system_body_bond(const fl_system *sys, int i)
{
  for (int b = 0; b < sys->nbond; b++)
    if (sys->b1[b] == i || sys->b2[b] == i)
      return b;
  return -1;
}

int fl_system_outside(const fl_system *sys, double box, int *bad_spec, int *bad_bond)
{
  for (int s = 0; s < sys->nspec; s++)
    for (int i = 0; i < sys->nbody; i++)
      if (fl_norm(sys->x[(size_t)s * sys->nbody + i]) > box) {
        *bad_spec = s;
        *bad_bond = i > 0 ? i - 1 : 0;
        return FL_EUNSTABLE;
      }
  return FL_OK;
}
