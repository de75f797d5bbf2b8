/* engine.c: the CPU engine's explicit step (MODEL.md section 9) over a batch of
 * specimens, in two passes as the CUDA engine takes it: a bond pass (every bond's
 * force, torques and energy into arrays) and a body pass (each body gathers its bonds
 * in ascending bond order, adds its tool contacts, and takes the split step of
 * integrate.h), then the kinematic grips.  Specimens run in parallel (OpenMP), or, for
 * fewer specimens than threads, the bonds and bodies of each; every sum keeps a fixed
 * order, so results are identical for any thread count. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "fl_defs.h"
#include "integrate.h"
#include "system.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static inline fl_body body_at(const fl_system *sys, size_t k)
{
  fl_body b;
  b.x = sys->x[k];
  b.q = sys->q[k];
  b.v = sys->v[k];
  b.w = sys->w[k];
  return b;
}

/* The moving grip's position in the step being taken. */
typedef struct {
  double disp; /* m */
  fl_quat qg;  /* turn about x */
  fl_vec3 wg;  /* rad/s */
} grip_motion;

/* Rows of a chunk's structure of arrays for the vectorised law: what it reads (both
 * bodies, the bond's definition, its damping state) and what it writes. */
enum {
  IN_X1 = 0, IN_Q1 = 3, IN_V1 = 7, IN_W1 = 10, IN_X2 = 13, IN_Q2 = 16, IN_V2 = 20, IN_W2 = 23, IN_R1 = 26,
  IN_R2 = 29, IN_Q0 = 32, IN_K = 36, IN_FD = 44, IN_TD = 47, IN_ROWS = 50
};
enum { OUT_FD = 0, OUT_TD = 3, OUT_F = 6, OUT_T1 = 9, OUT_T2 = 12, OUT_E = 15, OUT_OK = 16, OUT_ROWS = 17 };
#define FL_INLINE_CHUNK 128
/* a row's length in memory: not a power of two, so that the rows of one bond do not
 * all fall in the same few sets of the L1 cache */
#define FL_ROW (FL_INLINE_CHUNK + 8)

static inline fl_vec3 row3(double (*a)[FL_ROW], int r, int k) { return fl_v3(a[r][k], a[r + 1][k], a[r + 2][k]); }
static inline void put3(double (*a)[FL_ROW], int r, int k, fl_vec3 v)
{
  a[r][k] = v.x;
  a[r + 1][k] = v.y;
  a[r + 2][k] = v.z;
}
static inline void put_body(double (*a)[FL_ROW], int r, int k, const fl_system *sys, size_t i)
{
  put3(a, r, k, sys->x[i]);
  a[r + 3][k] = sys->q[i].w;
  a[r + 4][k] = sys->q[i].x;
  a[r + 5][k] = sys->q[i].y;
  a[r + 6][k] = sys->q[i].z;
  put3(a, r + 7, k, sys->v[i]);
  put3(a, r + 10, k, sys->w[i]);
}
static inline fl_body row_body(double (*a)[FL_ROW], int r, int k)
{
  fl_body b;
  b.x = row3(a, r, k);
  b.q = fl_q(a[r + 3][k], a[r + 4][k], a[r + 5][k], a[r + 6][k]);
  b.v = row3(a, r + 7, k);
  b.w = row3(a, r + 10, k);
  return b;
}

/* Bonds [lo, hi) of specimen s (advancing, no limits, damped) through the vectorised
 * law, a chunk at a time: copied into the chunk's structure of arrays, evaluated, copied
 * out; the bonds the law does not serve (fl_bond_is_inline) or gives back (large
 * angles) through fl_bond_eval. */
FL_CLONES static void bond_pass_inline(fl_system *sys, int s, int lo, int hi)
{
  size_t base = (size_t)s * sys->nbody, bb = (size_t)s * sys->nbond;
  const fl_bond *FL_RESTRICT bond = sys->bond + bb;
  fl_bond_state *FL_RESTRICT st = sys->bstate + bb;
  const fl_bond_damping dm = sys->damping[s];
  double in[IN_ROWS][FL_ROW], out[OUT_ROWS][FL_ROW]; /* 73 kB */
  for (int c = lo; c < hi; c += FL_INLINE_CHUNK) {
    int n = hi - c < FL_INLINE_CHUNK ? hi - c : FL_INLINE_CHUNK;
    for (int k = 0; k < n; k++) {
      int b = c + k;
      const fl_bond *bd = &bond[b];
      put_body(in, IN_X1, k, sys, base + sys->b1[b]);
      put_body(in, IN_X2, k, sys, base + sys->b2[b]);
      put3(in, IN_R1, k, bd->r1);
      put3(in, IN_R2, k, bd->r2);
      in[IN_Q0][k] = bd->q0.w;
      in[IN_Q0 + 1][k] = bd->q0.x;
      in[IN_Q0 + 2][k] = bd->q0.y;
      in[IN_Q0 + 3][k] = bd->q0.z;
      in[IN_K][k] = bd->s1.k_axial;
      in[IN_K + 1][k] = bd->s1.k_shear;
      in[IN_K + 2][k] = bd->s1.k_twist;
      in[IN_K + 3][k] = bd->s1.k_bend;
      in[IN_K + 4][k] = bd->s2.k_axial;
      in[IN_K + 5][k] = bd->s2.k_shear;
      in[IN_K + 6][k] = bd->s2.k_twist;
      in[IN_K + 7][k] = bd->s2.k_bend;
      put3(in, IN_FD, k, st[b].fd);
      put3(in, IN_TD, k, st[b].td);
      out[OUT_OK][k] = fl_bond_is_inline(bd, &st[b]);
    }
#ifdef _OPENMP
#pragma omp simd
#endif
    for (int k = 0; k < n; k++) {
      fl_bond bd;
      bd.r1 = row3(in, IN_R1, k);
      bd.r2 = row3(in, IN_R2, k);
      bd.q0 = fl_q(in[IN_Q0][k], in[IN_Q0 + 1][k], in[IN_Q0 + 2][k], in[IN_Q0 + 3][k]);
      bd.s1.k_axial = in[IN_K][k];
      bd.s1.k_shear = in[IN_K + 1][k];
      bd.s1.k_twist = in[IN_K + 2][k];
      bd.s1.k_bend = in[IN_K + 3][k];
      bd.s2.k_axial = in[IN_K + 4][k];
      bd.s2.k_shear = in[IN_K + 5][k];
      bd.s2.k_twist = in[IN_K + 6][k];
      bd.s2.k_bend = in[IN_K + 7][k];
      bd.oblique = 0;
      fl_bond_inline_loads ld = fl_bond_eval_inline(bd, dm, row_body(in, IN_X1, k), row_body(in, IN_X2, k),
                                                    row3(in, IN_FD, k), row3(in, IN_TD, k));
      put3(out, OUT_FD, k, ld.fd);
      put3(out, OUT_TD, k, ld.td);
      put3(out, OUT_F, k, ld.force);
      put3(out, OUT_T1, k, ld.torque1);
      put3(out, OUT_T2, k, ld.torque2);
      out[OUT_E][k] = ld.energy;
      out[OUT_OK][k] = ld.ok ? out[OUT_OK][k] : 0.0;
    }
    for (int k = 0; k < n; k++) {
      int b = c + k;
      fl_bond_loads ld;
      if (out[OUT_OK][k] != 0.0) {
        st[b].fd = row3(out, OUT_FD, k);
        st[b].td = row3(out, OUT_TD, k);
        ld.force = row3(out, OUT_F, k);
        ld.torque1 = row3(out, OUT_T1, k);
        ld.torque2 = row3(out, OUT_T2, k);
        ld.energy = out[OUT_E][k];
      } else {
        fl_body bi = body_at(sys, base + sys->b1[b]), bj = body_at(sys, base + sys->b2[b]);
        fl_bond_eval(&bond[b], &dm, NULL, &bi, &bj, &st[b], &ld);
      }
      sys->bond_force[bb + b] = ld.force;
      sys->bond_torque1[bb + b] = ld.torque1;
      sys->bond_torque2[bb + b] = ld.torque2;
      sys->bond_energy[bb + b] = ld.energy;
    }
  }
}

/* Bond pass over bonds [lo, hi) of specimen s: each bond's loads into the bond arrays.
 * Returns the bonds that broke or buckled in it. */
static int bond_pass(fl_system *sys, int s, int advance, const fl_bond_limits *lim, int lo, int hi)
{
  if (advance && !lim && sys->damping[s].a_damp > 0.0 && sys->inline_law) {
    bond_pass_inline(sys, s, lo, hi);
    return 0;
  }
  size_t base = (size_t)s * sys->nbody, bb = (size_t)s * sys->nbond;
  const fl_bond *bond = sys->bond + bb;
  fl_bond_state *st = sys->bstate + bb;
  fl_vec3 *FL_RESTRICT bf = sys->bond_force + bb;
  fl_vec3 *FL_RESTRICT bt1 = sys->bond_torque1 + bb;
  fl_vec3 *FL_RESTRICT bt2 = sys->bond_torque2 + bb;
  double *FL_RESTRICT be = sys->bond_energy + bb;
  int events = 0;
  for (int b = lo; b < hi; b++) {
    fl_body bi = body_at(sys, base + sys->b1[b]), bj = body_at(sys, base + sys->b2[b]);
    fl_bond_loads ld;
    if (advance) {
      int before = st[b].broken + st[b].buckled;
      fl_bond_eval(&bond[b], &sys->damping[s], lim, &bi, &bj, &st[b], &ld);
      events += st[b].broken + st[b].buckled - before;
    } else {
      fl_bond_state scratch = st[b]; /* evaluate without moving the state on */
      fl_bond_eval(&bond[b], &sys->damping[s], lim, &bi, &bj, &scratch, &ld);
    }
    bf[b] = ld.force;
    bt1[b] = ld.torque1;
    bt2[b] = ld.torque2;
    be[b] = ld.energy;
  }
  return events;
}

/* Rows of a chunk's structure of arrays for the vectorised body step. */
enum {
  BI_X = 0, BI_V = 3, BI_Q = 6, BI_L = 10, BI_F = 13, BI_T = 16, BI_M = 19, BI_IA = 20, BI_IT = 21, BI_ROWS = 22
};
enum { BO_X = 0, BO_V = 3, BO_L = 6, BO_W = 9, BO_Q = 12, BO_OK = 16, BO_ROWS = 17 };

/* Body pass over bodies [lo, hi) of specimen s: gather each body's bond loads in
 * ascending bond order into f, t, add its tool contacts (shares in tool_share), and
 * with gm, integrate the free bodies (a chunk at a time through the vectorised step,
 * the rest through fl_integrate_free).  *overlap: the largest contact overlap seen.
 * Returns the first free body that left the finite numbers, or nbody. */
FL_CLONES static int body_pass(fl_system *sys, int s, int advance, const grip_motion *gm, int lo, int hi,
                               double *overlap)
{
  size_t base = (size_t)s * sys->nbody, bb = (size_t)s * sys->nbond;
  const fl_vec3 *FL_RESTRICT bf = sys->bond_force + bb;
  const fl_vec3 *FL_RESTRICT bt1 = sys->bond_torque1 + bb;
  const fl_vec3 *FL_RESTRICT bt2 = sys->bond_torque2 + bb;
  const int *start = sys->adj_start, *adj = sys->adj_bond;
  const unsigned char *side = sys->adj_side;
  const fl_vec3 g = sys->gravity;
  const double dt = sys->dt;
  int bad = sys->nbody;
  double in[BI_ROWS][FL_ROW], out[BO_ROWS][FL_ROW];
  for (int c = lo; c < hi; c += FL_INLINE_CHUNK) {
    int n = hi - c < FL_INLINE_CHUNK ? hi - c : FL_INLINE_CHUNK;
    for (int m = 0; m < n; m++) {
      int i = c + m;
      size_t k = base + i;
      fl_vec3 f = fl_v3(0, 0, 0), t = fl_v3(0, 0, 0);
      for (int a = start[i]; a < start[i + 1]; a++) {
        int b = adj[a];
        if (side[a] == 1) {
          f = fl_add(f, bf[b]);
          t = fl_add(t, bt1[b]);
        } else {
          f = fl_sub(f, bf[b]);
          t = fl_add(t, bt2[b]);
        }
      }
      if (sys->ntool > 0 && sys->motion[i] == FL_FREE)
        fl_contact_tools(sys->law + (size_t)s * sys->ntool, sys->tool, sys->ntool, sys->x[k], sys->q[k], sys->v[k],
                         sys->w[k], sys->half_length[i], sys->radius[i], sys->dt, sys->xi + k * sys->ntool, advance,
                         &f, &t, sys->tool_share + k * sys->ntool, overlap);
      if (i == sys->pload.body) {
        const fl_point_load *pl = &sys->pload;
        fl_vec3 arm, p_ref = fl_add(sys->x_ref[i], fl_qrot(sys->q_ref[i], pl->arm));
        double load = fl_point_load_value(pl, sys->x[k], sys->q[k], p_ref, &arm);
        fl_vec3 fl = fl_scale(pl->dir, load);
        f = fl_add(f, fl);
        t = fl_add(t, fl_cross(arm, fl));
        sys->pload_force[s] = load;
      }
      sys->f[k] = f;
      sys->t[k] = t;
      put3(in, BI_X, m, sys->x[k]);
      put3(in, BI_V, m, sys->v[k]);
      in[BI_Q][m] = sys->q[k].w;
      in[BI_Q + 1][m] = sys->q[k].x;
      in[BI_Q + 2][m] = sys->q[k].y;
      in[BI_Q + 3][m] = sys->q[k].z;
      put3(in, BI_L, m, sys->L[k]);
      put3(in, BI_F, m, f);
      put3(in, BI_T, m, t);
      in[BI_M][m] = sys->mass[i];
      in[BI_IA][m] = sys->inertia_axial[i];
      in[BI_IT][m] = sys->inertia_trans[i];
    }
    if (!gm)
      continue;
#ifdef _OPENMP
#pragma omp simd
#endif
    for (int m = 0; m < n; m++) {
      fl_free_step r = fl_integrate_free_inline(
          row3(in, BI_X, m), row3(in, BI_V, m), fl_q(in[BI_Q][m], in[BI_Q + 1][m], in[BI_Q + 2][m], in[BI_Q + 3][m]),
          row3(in, BI_L, m), row3(in, BI_F, m), row3(in, BI_T, m), g, in[BI_M][m], in[BI_IA][m], in[BI_IT][m], dt);
      put3(out, BO_X, m, r.x);
      put3(out, BO_V, m, r.v);
      put3(out, BO_L, m, r.L);
      put3(out, BO_W, m, r.w);
      out[BO_Q][m] = r.q.w;
      out[BO_Q + 1][m] = r.q.x;
      out[BO_Q + 2][m] = r.q.y;
      out[BO_Q + 3][m] = r.q.z;
      out[BO_OK][m] = r.ok;
    }
    for (int m = 0; m < n; m++) {
      int i = c + m;
      size_t k = base + i;
      if (sys->motion[i] != FL_FREE)
        continue;
      if (out[BO_OK][m] != 0.0) {
        sys->x[k] = row3(out, BO_X, m);
        sys->v[k] = row3(out, BO_V, m);
        sys->L[k] = row3(out, BO_L, m);
        sys->w[k] = row3(out, BO_W, m);
        sys->q[k] = fl_q(out[BO_Q][m], out[BO_Q + 1][m], out[BO_Q + 2][m], out[BO_Q + 3][m]);
      } else if (!fl_integrate_free(&sys->x[k], &sys->v[k], &sys->q[k], &sys->L[k], &sys->w[k], sys->f[k], sys->t[k], g,
                                    sys->mass[i], sys->inertia_axial[i], sys->inertia_trans[i], dt) &&
                 bad == sys->nbody) {
        bad = i;
      }
    }
  }
  return bad;
}

/* Bonds a block of the one-thread pass: their loads (80 bytes each) stay in the cache
 * until their bodies gather them. */
#define FL_BLOCK_BONDS 512

/* Threads for the bonds and bodies of one specimen of n bonds: below some thousands of
 * bonds a step is too short to share. */
static int inner_threads(const fl_system *sys)
{
  if (sys->threads <= 1 || sys->nspec >= sys->threads || sys->nbond < 2048)
    return 1;
  return sys->threads;
}

/* Loads of specimen s (bond pass, body pass), and with gm the step: free bodies
 * integrated in the body pass, the moving grip's bodies after the grip's load is
 * taken.  The sums over bonds and bodies (energy, tool and grip loads) run in index
 * order on one thread, so nothing depends on the number of threads.  Returns the first
 * body that left the finite numbers, or -1. */
static int specimen_pass(fl_system *sys, int s, int advance, const grip_motion *gm, int nthreads)
{
  size_t base = (size_t)s * sys->nbody;
  const fl_bond_limits *lim =
      (sys->limits[s].criterion != FL_CRIT_NONE || sys->limits[s].buckling.type != FL_BUCKLING_NONE) ? &sys->limits[s]
                                                                                                       : NULL;
  int events = 0, bad = sys->nbody, nbond = sys->nbond, nbody = sys->nbody;
  double overlap = sys->overlap[s];
  if (nthreads > 1) {
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads)
    {
      int nt = omp_get_num_threads(), me = omp_get_thread_num();
      int ev = bond_pass(sys, s, advance, lim, (int)((long)nbond * me / nt), (int)((long)nbond * (me + 1) / nt));
#pragma omp barrier
      double ov = overlap;
      int bd = body_pass(sys, s, advance, gm, (int)((long)nbody * me / nt), (int)((long)nbody * (me + 1) / nt), &ov);
#pragma omp critical(fl_specimen_pass)
      {
        events += ev;
        if (bd < bad)
          bad = bd;
        if (ov > overlap)
          overlap = ov;
      }
    }
#endif
  } else if (sys->adj_ordered) {
    /* A block of bonds, then the bodies whose last bond it holds, while the block's
     * loads are still in the cache: no body is read by a later bond. */
    const int *start = sys->adj_start, *adj = sys->adj_bond;
    int done = 0;
    for (int lo = 0; lo < nbond; lo += FL_BLOCK_BONDS) {
      int hi = nbond - lo < FL_BLOCK_BONDS ? nbond : lo + FL_BLOCK_BONDS, upto = done;
      events += bond_pass(sys, s, advance, lim, lo, hi);
      while (upto < nbody && (start[upto + 1] == start[upto] || adj[start[upto + 1] - 1] < hi))
        upto++;
      int bd = body_pass(sys, s, advance, gm, done, upto, &overlap);
      if (bd < bad)
        bad = bd;
      done = upto;
    }
    int bd = body_pass(sys, s, advance, gm, done, nbody, &overlap);
    if (bd < bad)
      bad = bd;
  } else {
    events = bond_pass(sys, s, advance, lim, 0, nbond);
    bad = body_pass(sys, s, advance, gm, 0, nbody, &overlap);
  }
  if (advance)
    sys->nbroken[s] += events;
  sys->overlap[s] = overlap;

  const double *be = sys->bond_energy + (size_t)s * nbond;
  double energy = 0.0;
  for (int b = 0; b < nbond; b++)
    energy += be[b];
  sys->strain_energy[s] = energy;

  fl_vec3 *tf = sys->tool_force + (size_t)s * sys->ntool;
  for (int k = 0; k < sys->ntool; k++)
    tf[k] = fl_v3(0, 0, 0);
  for (int i = 0; i < nbody && sys->ntool > 0; i++)
    if (sys->motion[i] == FL_FREE)
      for (int k = 0; k < sys->ntool; k++)
        tf[k] = fl_add(tf[k], sys->tool_share[(base + i) * sys->ntool + k]);

  /* The load the specimen puts on the moving grip: minus the bond loads its bodies take.
   * Bonds between two gripped bodies cancel in the sum.  Taken before the grip moves. */
  fl_vec3 gf = fl_v3(0, 0, 0), gt = fl_v3(0, 0, 0);
  for (int i = 0; i < nbody; i++)
    if (sys->motion[i] == FL_GRIP_MOVING) {
      size_t k = base + i;
      gf = fl_add(gf, sys->f[k]);
      gt = fl_add(gt, fl_add(sys->t[k], fl_cross(sys->x[k], sys->f[k])));
      if (gm)
        fl_integrate_grip(&sys->x[k], &sys->v[k], &sys->q[k], &sys->L[k], &sys->w[k], sys->x_ref[i], sys->q_ref[i],
                          gm->disp, gm->qg, gm->wg, sys->grip_speed);
    }
  sys->grip_force[s] = gf;
  sys->grip_torque[s] = gt;
  return bad < nbody ? bad : -1;
}

/* Bonds and contacts of specimen s on the calling thread: fills f, t, strain energy,
 * tool and grip loads.  advance: 1 to move the damping state, plastic offsets and
 * contact history on. */
static void specimen_loads(fl_system *sys, int s, int advance)
{
  if (!sys->adj_ready)
    fl_system_adjacency(sys);
  specimen_pass(sys, s, advance, NULL, 1);
}

void fl_system_loads_specimen(fl_system *sys, int s, int advance) { specimen_loads(sys, s, advance); }

void fl_system_loads(fl_system *sys, int advance_damping)
{
  if (!sys->adj_ready)
    fl_system_adjacency(sys);
  int inner = inner_threads(sys);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(sys->threads) if (inner == 1 && sys->threads > 1 && sys->nspec > 1)
#endif
  for (int s = 0; s < sys->nspec; s++)
    specimen_pass(sys, s, advance_damping, NULL, inner);
}

int fl_system_step(fl_system *sys, int *bad_spec, int *bad_bond)
{
  double dt = sys->dt;
  grip_motion gm;
  gm.disp = sys->grip_disp + sys->grip_speed * dt;
  double ang = sys->grip_angle + sys->grip_omega * dt;
  gm.qg = fl_qexp(fl_v3(ang, 0, 0));
  gm.wg = fl_v3(sys->grip_omega, 0, 0);
  int first_bad_spec = -1, first_bad_body = -1;
  if (!sys->adj_ready)
    fl_system_adjacency(sys);
  int inner = inner_threads(sys);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(sys->threads) if (inner == 1 && sys->threads > 1 && sys->nspec > 1)
#endif
  for (int s = 0; s < sys->nspec; s++) {
    int bad = specimen_pass(sys, s, 1, &gm, inner);
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
  sys->grip_disp = gm.disp;
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
