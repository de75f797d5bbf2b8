/* engine.c: the CPU engine's explicit step (fiberlab-model(7), Time integration) over a batch of
 * specimens, in two passes as the CUDA engine takes it: a bond pass (every bond's
 * force, torques and energy into arrays) and a body pass (each body gathers its bonds
 * in ascending bond order, adds its tool contacts, and takes the split step of
 * integrate.h), then the kinematic grips.  Specimens run in parallel (OpenMP), or, for
 * fewer specimens than threads, the bonds and bodies of each; every sum keeps a fixed
 * order, so results are identical for any thread count.  The common bond and the free
 * bodies go through vectorised loops that read the arrays in place, built for AVX-512,
 * AVX2 and the baseline, all giving the same bits as the general law and step. */
#include <config.h>

#include <math.h>
#include <stdint.h>
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

/* The three builds of a vectorised loop: the kernel is an always-inline function, and
 * each wrapper compiles it for one instruction set.  Without contraction into fused
 * multiply-adds (-ffp-contract=off, Makefile.am) every width rounds each operation
 * alike, so the three give the same bits; fl_system_isa chooses among them.  clang
 * takes the vector width from min_vector_width, GCC from the target string. */
#if defined(__GNUC__) && defined(__x86_64__)
#define FL_TARGET_AVX2 __attribute__((target("avx2")))
#ifdef __clang__
#define FL_TARGET_AVX512 __attribute__((target("avx512f,avx512dq"), min_vector_width(512)))
#else
#define FL_TARGET_AVX512 __attribute__((target("avx512f,avx512dq,prefer-vector-width=512")))
#endif
#define FL_HAVE_ISA 1
#else
#define FL_HAVE_ISA 0
#endif
/* The wrappers take every call into themselves.  GCC also schedules this file's
 * instructions before register allocation, minding register pressure (the flags of
 * KERNEL_CFLAGS in configure.ac), for the vectorised loops. */
#if defined(__GNUC__)
#define FL_SCHEDULE __attribute__((flatten))
#else
#define FL_SCHEDULE
#endif

int fl_system_isa(const fl_system *sys)
{
#if FL_HAVE_ISA
  int best = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
                 ? FL_ISA_AVX512
                 : (__builtin_cpu_supports("avx2") ? FL_ISA_AVX2 : FL_ISA_BASE);
  return sys->isa == FL_ISA_AUTO || sys->isa > best ? best : sys->isa;
#else
  (void)sys;
  return FL_ISA_BASE;
#endif
}

/* Row r of specimen s's bond loads. */
static inline double *load_row(const fl_system *sys, int s, int r)
{
  return sys->bond_load + ((size_t)s * FL_LOAD_ROWS + r) * sys->nbond;
}

/* What the vectorised bond law reads and writes for one specimen: the bodies and the
 * bond state where the engine keeps them, the definitions and the loads by rows. */
typedef struct {
  const fl_vec3 *x, *v, *w; /* the specimen's bodies */
  const fl_quat *q;
  const int *b1, *b2;
  const double *def[FL_DEF_ROWS]; /* the specimen's bond definitions */
  double *state[FL_STATE_ROWS];    /* the specimen's bond state rows: the damping state
                                    * moved on, the live flags (doubles, as every array
                                    * of the loop: a narrower type would make the
                                    * compiler take many vectors of doubles at once) */
  fl_bond_damping dm;
  double *load[FL_LOAD_ROWS];
} bond_args;

/* The body arrays are read as arrays of doubles, member k of body i at [i * 3 + k] (or
 * [i * 4 + k] for q): GCC vectorises such strided loads and stores, not loads of whole
 * structures. */
/* take ? a : b to the bit, by masks: a selection GCC does not turn into a masked
 * store (which it cannot vectorise for a strided store). */
static inline double pick(int take, double a, double b)
{
  uint64_t ua, ub, m = -(uint64_t)(take != 0);
  memcpy(&ua, &a, sizeof ua);
  memcpy(&ub, &b, sizeof ub);
  ua = (ua & m) | (ub & ~m);
  memcpy(&a, &ua, sizeof a);
  return a;
}
static inline fl_vec3 pick3(int take, fl_vec3 a, fl_vec3 b)
{
  return fl_v3(pick(take, a.x, b.x), pick(take, a.y, b.y), pick(take, a.z, b.z));
}
static inline void put3_at(double *p, long at, fl_vec3 a)
{
  p[at] = a.x;
  p[at + 1] = a.y;
  p[at + 2] = a.z;
}
static inline fl_vec3 v3_at(const double *p, long at) { return fl_v3(p[at], p[at + 1], p[at + 2]); }
/* Column b of the definitions' rows. */
static inline fl_bond_inline_def def_column(const double *const *def, long b)
{
  fl_bond_inline_def d;
  d.r1 = fl_v3(def[FL_DEF_R1][b], def[FL_DEF_R1 + 1][b], def[FL_DEF_R1 + 2][b]);
  d.r2 = fl_v3(def[FL_DEF_R2][b], def[FL_DEF_R2 + 1][b], def[FL_DEF_R2 + 2][b]);
  d.q0 = fl_q(def[FL_DEF_Q0][b], def[FL_DEF_Q0 + 1][b], def[FL_DEF_Q0 + 2][b], def[FL_DEF_Q0 + 3][b]);
  d.ks1 = def[FL_DEF_KS1][b];
  d.kd1 = def[FL_DEF_KD1][b];
  d.ks2 = def[FL_DEF_KS2][b];
  d.kd2 = def[FL_DEF_KD2][b];
  d.kt_eff = def[FL_DEF_KT][b];
  d.kb_eff = def[FL_DEF_KB][b];
  return d;
}

/* Bonds or bodies a vectorised loop takes at a time: the length of its buffers of
 * flags, on the stack. */
#define FL_INLINE_CHUNK 256

/* Bonds [lo, hi) through fl_bond_eval_inline.  chain (a constant): bond b joins bodies
 * b and b + 1, so the bodies are read by stride, which vectorises (the general case
 * reads b1, b2, which GCC does not vectorise without gathers).  uni (a constant): every
 * bond has the first column's q0 and stiffnesses, read once (sys->def_uniform).  redo[b - lo]
 * is 1 where the law did not serve the bond (fl_bond_is_inline, or a large angle), for
 * fl_bond_eval to take it again from the state it had. */
FL_ALWAYS_INLINE static inline int bond_kernel(const bond_args *a, int lo, int hi, double *FL_RESTRICT redo,
                                               const int chain, const int uni, const int write,
                                               const int plastic, const fl_vec3 env, double *FL_RESTRICT phi)
{
  const double *FL_RESTRICT x = (const double *)a->x, *FL_RESTRICT v = (const double *)a->v,
                            *FL_RESTRICT w = (const double *)a->w, *FL_RESTRICT q = (const double *)a->q;
  const int *FL_RESTRICT b1 = a->b1, *FL_RESTRICT b2 = a->b2;
  double *FL_RESTRICT dx = a->state[FL_STATE_FD], *FL_RESTRICT dy = a->state[FL_STATE_FD + 1],
                      *FL_RESTRICT dz = a->state[FL_STATE_FD + 2];
  double *FL_RESTRICT ex = a->state[FL_STATE_TD], *FL_RESTRICT ey = a->state[FL_STATE_TD + 1],
                      *FL_RESTRICT ez = a->state[FL_STATE_TD + 2];
  const double *FL_RESTRICT live = a->state[FL_STATE_LIVE];
  /* the rows in locals, so that the loop reads them as plain arrays */
  const double *FL_RESTRICT r1x = a->def[FL_DEF_R1], *FL_RESTRICT r1y = a->def[FL_DEF_R1 + 1],
                            *FL_RESTRICT r1z = a->def[FL_DEF_R1 + 2];
  const double *FL_RESTRICT r2x = a->def[FL_DEF_R2], *FL_RESTRICT r2y = a->def[FL_DEF_R2 + 1],
                            *FL_RESTRICT r2z = a->def[FL_DEF_R2 + 2];
  const double *FL_RESTRICT q0w = a->def[FL_DEF_Q0], *FL_RESTRICT q0x = a->def[FL_DEF_Q0 + 1],
                            *FL_RESTRICT q0y = a->def[FL_DEF_Q0 + 2], *FL_RESTRICT q0z = a->def[FL_DEF_Q0 + 3];
  const double *FL_RESTRICT ks1 = a->def[FL_DEF_KS1], *FL_RESTRICT kd1 = a->def[FL_DEF_KD1],
                            *FL_RESTRICT ks2 = a->def[FL_DEF_KS2], *FL_RESTRICT kd2 = a->def[FL_DEF_KD2];
  const double *FL_RESTRICT kt = a->def[FL_DEF_KT], *FL_RESTRICT kb = a->def[FL_DEF_KB];
  double *FL_RESTRICT fx = a->load[FL_LOAD_FX], *FL_RESTRICT fy = a->load[FL_LOAD_FX + 1],
                      *FL_RESTRICT fz = a->load[FL_LOAD_FX + 2];
  double *FL_RESTRICT t1x = a->load[FL_LOAD_T1X], *FL_RESTRICT t1y = a->load[FL_LOAD_T1X + 1],
                      *FL_RESTRICT t1z = a->load[FL_LOAD_T1X + 2];
  double *FL_RESTRICT t2x = a->load[FL_LOAD_T2X], *FL_RESTRICT t2y = a->load[FL_LOAD_T2X + 1],
                      *FL_RESTRICT t2z = a->load[FL_LOAD_T2X + 2];
  double *FL_RESTRICT en = a->load[FL_LOAD_E];
  const double *FL_RESTRICT okd = a->def[FL_DEF_OK];
  const fl_bond_inline_def d0 = def_column(a->def, 0);
  const double ok0 = okd[0];
  const fl_bond_damping dm = a->dm;
  const long nq = (long)(sizeof(fl_quat) / sizeof(double));
  double nredo = 0.0; /* a count, in doubles as every value of the loop */
#ifdef _OPENMP
#pragma omp simd reduction(+ : nredo)
#endif
  for (int b = lo; b < hi; b++) {
    long i = chain ? b : b1[b], j = chain ? b + 1 : b2[b];
    fl_body bi, bj;
    bi.x = v3_at(x, 3 * i);
    bi.q = fl_q(q[nq * i], q[nq * i + 1], q[nq * i + 2], q[nq * i + 3]);
    bi.v = v3_at(v, 3 * i);
    bi.w = v3_at(w, 3 * i);
    bj.x = v3_at(x, 3 * j);
    bj.q = fl_q(q[nq * j], q[nq * j + 1], q[nq * j + 2], q[nq * j + 3]);
    bj.v = v3_at(v, 3 * j);
    bj.w = v3_at(w, 3 * j);
    fl_bond_inline_def bd = d0;
    double okb = ok0;
    bd.r1 = fl_v3(r1x[b], r1y[b], r1z[b]);
    bd.r2 = fl_v3(r2x[b], r2y[b], r2z[b]);
    if (!uni) {
      bd.q0 = fl_q(q0w[b], q0x[b], q0y[b], q0z[b]);
      bd.ks1 = ks1[b];
      bd.kd1 = kd1[b];
      bd.ks2 = ks2[b];
      bd.kd2 = kd2[b];
      bd.kt_eff = kt[b];
      bd.kb_eff = kb[b];
      okb = okd[b];
    }
    fl_vec3 fd = fl_v3(dx[b], dy[b], dz[b]), td = fl_v3(ex[b], ey[b], ez[b]);
    fl_bond_inline_loads ld = fl_bond_eval_inline(bd, dm, bi, bj, fd, td);
    /* fl_bond_is_inline: the definition's part made once, the state's in the live row */
    /* plastic buckling (env: the envelope's phi_b and kb): fl_bond_eval's is a bond bent
     * to its buckling angle or past it, or whose moment the envelope's elastic line
     * kb phi caps (fl_bond_buckle's own test, to the bit: a bond stiffer than the
     * envelope's, or one whose moment comes out a rounding above kb phi) */
    int ok = ld.ok & (okb != 0.0) & (live[b] != 0.0) &
             ((plastic == 0) | ((ld.phi < env.x) & (ld.m_el <= env.y * ld.phi)));
    if (write) {
      /* the damping state moved on; a bond the law did not serve keeps its state, for
       * fl_bond_eval */
      fd = pick3(ok, ld.fd, fd);
      td = pick3(ok, ld.td, td);
      dx[b] = fd.x;
      dy[b] = fd.y;
      dz[b] = fd.z;
      ex[b] = td.x;
      ey[b] = td.y;
      ez[b] = td.z;
    } /* else the state stays as it is (an evaluation that does not advance, or no damping) */
    if (plastic) {
      phi[b - lo] = ld.phi;
      phi[FL_INLINE_CHUNK + b - lo] = ld.m_el;
    }
    fx[b] = ld.force.x;
    fy[b] = ld.force.y;
    fz[b] = ld.force.z;
    t1x[b] = ld.torque1.x;
    t1y[b] = ld.torque1.y;
    t1z[b] = ld.torque1.z;
    t2x[b] = ld.torque2.x;
    t2y[b] = ld.torque2.y;
    t2z[b] = ld.torque2.z;
    en[b] = ld.energy;
    redo[b - lo] = ok ? 0.0 : 1.0;
    nredo += redo[b - lo];
  }
  return (int)nredo;
}

/* The bond law's builds: one function each for an instruction set and the loop's
 * constants (each its own, so that the compiler inlines the law's helpers into every
 * one), over a chain; and one over any bonds.  plastic: the bending angles into phi and
 * the bending moments into phi + FL_INLINE_CHUNK, bonds at or past the envelope env
 * (phi_b, kb) not served. */
typedef int (*bond_kernel_fn)(const bond_args *, int, int, double *, fl_vec3, double *);
#define BOND_KERNEL_ONE(name, target, chain, uni, write, plastic)                                           \
  target FL_SCHEDULE static int name(const bond_args *a, int lo, int hi, double *redo, fl_vec3 env,         \
                                     double *phi)                                                            \
  {                                                                                                          \
    return bond_kernel(a, lo, hi, redo, chain, uni, write, plastic, env, phi);                               \
  }
/* The eight chain builds of one instruction set, and their table by uni + 2 write +
 * 4 plastic. */
#define BOND_KERNEL_BUILD(name, target)                                                                    \
  BOND_KERNEL_ONE(name##_0, target, 1, 0, 0, 0)                                                            \
  BOND_KERNEL_ONE(name##_1, target, 1, 1, 0, 0)                                                            \
  BOND_KERNEL_ONE(name##_2, target, 1, 0, 1, 0)                                                            \
  BOND_KERNEL_ONE(name##_3, target, 1, 1, 1, 0)                                                            \
  BOND_KERNEL_ONE(name##_4, target, 1, 0, 0, 1)                                                            \
  BOND_KERNEL_ONE(name##_5, target, 1, 1, 0, 1)                                                            \
  BOND_KERNEL_ONE(name##_6, target, 1, 0, 1, 1)                                                            \
  BOND_KERNEL_ONE(name##_7, target, 1, 1, 1, 1)                                                            \
  static const bond_kernel_fn name[8] = {name##_0, name##_1, name##_2, name##_3,                            \
                                         name##_4, name##_5, name##_6, name##_7};
#if FL_HAVE_ISA
BOND_KERNEL_BUILD(bond_kernel_avx512, FL_TARGET_AVX512)
BOND_KERNEL_BUILD(bond_kernel_avx2, FL_TARGET_AVX2)
#endif
BOND_KERNEL_BUILD(bond_kernel_base, )
/* any bonds: one at a time (uni 0), by 2 write + 4 plastic as above */
BOND_KERNEL_ONE(bond_kernel_any_0, , 0, 0, 0, 0)
BOND_KERNEL_ONE(bond_kernel_any_2, , 0, 0, 1, 0)
BOND_KERNEL_ONE(bond_kernel_any_4, , 0, 0, 0, 1)
BOND_KERNEL_ONE(bond_kernel_any_6, , 0, 0, 1, 1)
static const bond_kernel_fn bond_kernel_any[8] = {bond_kernel_any_0, bond_kernel_any_0, bond_kernel_any_2,
                                                  bond_kernel_any_2, bond_kernel_any_4, bond_kernel_any_4,
                                                  bond_kernel_any_6, bond_kernel_any_6};

/* Store one bond's loads in the rows. */
static inline void put_load(double *const *load, int b, const fl_bond_loads *ld)
{
  load[FL_LOAD_FX][b] = ld->force.x;
  load[FL_LOAD_FX + 1][b] = ld->force.y;
  load[FL_LOAD_FX + 2][b] = ld->force.z;
  load[FL_LOAD_T1X][b] = ld->torque1.x;
  load[FL_LOAD_T1X + 1][b] = ld->torque1.y;
  load[FL_LOAD_T1X + 2][b] = ld->torque1.z;
  load[FL_LOAD_T2X][b] = ld->torque2.x;
  load[FL_LOAD_T2X + 1][b] = ld->torque2.y;
  load[FL_LOAD_T2X + 2][b] = ld->torque2.z;
  load[FL_LOAD_E][b] = ld->energy;
}

/* fl_bond_eval on bond b of specimen s with its damping state taken from the rows and,
 * with advance, the state it moves on to put back (else left as it was); counted in
 * envelope_reads where it may read a buckling envelope. */
static void bond_eval_rows(fl_system *sys, int s, int b, const fl_bond_limits *lim, int advance, fl_bond_loads *ld)
{
  size_t base = (size_t)s * sys->nbody, bb = (size_t)s * sys->nbond;
  fl_body bi = body_at(sys, base + sys->b1[b]), bj = body_at(sys, base + sys->b2[b]);
  fl_bond_state *st = &sys->bstate[bb + b];
  if (sys->inline_static && lim && lim->buckling.type != FL_BUCKLING_NONE)
    sys->envelope_reads++; /* one thread: the static solver's own system */
  if (advance) {
    fl_system_damp_get(sys, s, b, st);
    fl_bond_eval(&sys->bond[bb + b], &sys->damping[s], lim, &bi, &bj, st, ld);
    fl_system_damp_put(sys, s, b, st);
  } else {
    fl_bond_state scratch = *st; /* evaluate without moving the state on */
    fl_system_damp_get(sys, s, b, &scratch);
    fl_bond_eval(&sys->bond[bb + b], &sys->damping[s], lim, &bi, &bj, &scratch, ld);
  }
}

/* Whether the vectorised law serves specimen s's bonds in this pass: damped and
 * advancing without limits (the explicit engine's common bond); and on the static
 * solver's own system (inline_static), also undamped or not advancing (its Newton
 * iterates and tangent columns) and with limits that are no breaking or yield
 * criterion and no buckling or plastic buckling, whose envelope below its buckling
 * point is the elastic line. */
static int inline_pass(const fl_system *sys, int s, int advance, const fl_bond_limits *lim)
{
  if (!sys->inline_law)
    return 0;
  if (sys->damping[s].a_damp > 0.0 && advance && !lim)
    return 1;
  return sys->inline_static &&
         (!lim || (lim->criterion == FL_CRIT_NONE &&
                   (lim->buckling.type == FL_BUCKLING_NONE || lim->buckling.type == FL_BUCKLING_PLASTIC)));
}

/* Bonds [lo, hi) of specimen s through the vectorised law (inline_pass); the bonds it
 * does not serve or gives back through fl_bond_eval, from the state they had.  Damped
 * and advancing, it moves the damping state on; else the state stays (fl_bond_eval
 * leaves it so without damping, and works on a copy without advance).  With plastic
 * buckling a bond bent to its buckling angle phi_b or past it is not served; below it,
 * with advance, it keeps the largest angle it reached (phi_max) as fl_bond_buckle
 * would, and its moment is the elastic line's, which is the envelope's there to the
 * rounding of the bond's moment against kb phi.  Returns the bonds that broke or
 * buckled. */
static int bond_pass_inline(fl_system *sys, int s, int advance, const fl_bond_limits *lim, int lo, int hi)
{
  size_t base = (size_t)s * sys->nbody;
  bond_args a;
  a.x = sys->x + base;
  a.v = sys->v + base;
  a.w = sys->w + base;
  a.q = sys->q + base;
  a.b1 = sys->b1;
  a.b2 = sys->b2;
  const double *def = sys->bond_def + (sys->def_shared ? 0 : (size_t)s * FL_DEF_ROWS * sys->nbond);
  for (int r = 0; r < FL_DEF_ROWS; r++)
    a.def[r] = def + (size_t)r * sys->nbond;
  for (int r = 0; r < FL_STATE_ROWS; r++)
    a.state[r] = fl_system_state_row(sys, s, r);
  a.dm = sys->damping[s];
  for (int r = 0; r < FL_LOAD_ROWS; r++)
    a.load[r] = load_row(sys, s, r);
  int isa = fl_system_isa(sys), uni = sys->def_uniform, write = a.dm.a_damp > 0.0 && advance, events = 0;
  const int plastic = lim && lim->buckling.type == FL_BUCKLING_PLASTIC;
  const fl_vec3 env = plastic ? fl_v3(lim->buckling.phi_b, lim->buckling.kb, 0.0) : fl_v3(0.0, 0.0, 0.0);
  fl_bond_state *st = sys->bstate + (size_t)s * sys->nbond;
  double redo[FL_INLINE_CHUNK], phi_buf[2 * FL_INLINE_CHUNK];
  double *phi = plastic ? phi_buf : NULL, *m_el = phi_buf + FL_INLINE_CHUNK;
  const int known = s == 0 && advance && sys->buckle_phi; /* NaN already (bond_pass) */
  const int seen = sys->inline_static; /* one thread: the static solver's own system */
  const int variant = (uni != 0) + 2 * write + 4 * plastic;
  for (int c = lo; c < hi; c += FL_INLINE_CHUNK) {
    int n = hi - c < FL_INLINE_CHUNK ? hi - c : FL_INLINE_CHUNK, nredo;
    if (!sys->adj_chain)
      nredo = bond_kernel_any[variant](&a, c, c + n, redo, env, phi);
#if FL_HAVE_ISA
    else if (isa == FL_ISA_AVX512)
      nredo = bond_kernel_avx512[variant](&a, c, c + n, redo, env, phi);
    else if (isa == FL_ISA_AVX2)
      nredo = bond_kernel_avx2[variant](&a, c, c + n, redo, env, phi);
#endif
    else
      nredo = bond_kernel_base[variant](&a, c, c + n, redo, env, phi);
    (void)isa;
    for (int k = 0; k < n && (nredo > 0 || (plastic && (advance || seen))); k++) {
      int b = c + k;
      if (redo[k] != 0.0) {
        nredo--;
        fl_bond_loads ld;
        int before = st[b].broken + st[b].buckled;
        bond_eval_rows(sys, s, b, lim, advance, &ld);
        events += st[b].broken + st[b].buckled - before;
        put_load(a.load, b, &ld);
      } else if (plastic) {
        if (seen)
          sys->phi_seen = fmax(sys->phi_seen, phi[k]);
        if (!advance)
          continue;
        if (phi[k] >= st[b].phi_max)
          st[b].phi_max = phi[k];
        if (known) { /* a live bond: unbuckled (fl_buckling_plastic_use) */
          sys->buckle_phi[b] = phi[k];
          sys->buckle_m[b] = m_el[k];
        }
      }
    }
  }
  return events;
}

/* Bond pass over bonds [lo, hi) of specimen s: each bond's loads into the bond arrays.
 * Returns the bonds that broke or buckled in it. */
static int bond_pass(fl_system *sys, int s, int advance, const fl_bond_limits *lim, int lo, int hi)
{
  for (int b = lo; s == 0 && advance && sys->buckle_phi && b < hi; b++)
    sys->buckle_phi[b] = NAN; /* none known until the vectorised pass serves it */
  if (inline_pass(sys, s, advance, lim))
    return bond_pass_inline(sys, s, advance, lim, lo, hi);
  const fl_bond_state *st = sys->bstate + (size_t)s * sys->nbond;
  double *load[FL_LOAD_ROWS];
  for (int r = 0; r < FL_LOAD_ROWS; r++)
    load[r] = load_row(sys, s, r);
  int events = 0;
  for (int b = lo; b < hi; b++) {
    fl_bond_loads ld;
    int before = st[b].broken + st[b].buckled;
    bond_eval_rows(sys, s, b, lim, advance, &ld);
    events += st[b].broken + st[b].buckled - before;
    put_load(load, b, &ld);
  }
  return events;
}

/* What the vectorised body step reads and writes for one specimen. */
typedef struct {
  fl_vec3 *x, *v, *L, *w; /* the specimen's bodies */
  fl_quat *q;
  fl_vec3 *f, *t;         /* their loads of this step */
  const double *load[FL_LOAD_ROWS]; /* the specimen's bond loads */
  const double *quot[FL_BODY_ROWS]; /* the step's quotients, sys->body_row */
  const double *is_free; /* a chunk's bodies: 1 for a free one, index i - lo */
  fl_vec3 g;
  double dt;
} body_args;

/* Free bodies [lo, hi) through fl_integrate_free_inline, straight from the arrays; a
 * body moves on only where the step served it, and redo[i - lo] is 1 for a free body
 * it did not (fl_integrate_free takes it again).  gather (a constant): the bodies are
 * inner bodies of a chain without tools, whose loads are body i - 1's bond (as its
 * body 2) and then body i's (as its body 1), summed here in that order into f, t as
 * the general gather does; else f, t are given. */
FL_ALWAYS_INLINE static inline int body_kernel(const body_args *a, int lo, int hi, double *FL_RESTRICT redo,
                                               const int gather)
{
  const double *FL_RESTRICT fx = a->load[FL_LOAD_FX], *FL_RESTRICT fy = a->load[FL_LOAD_FX + 1],
                            *FL_RESTRICT fz = a->load[FL_LOAD_FX + 2];
  const double *FL_RESTRICT t1x = a->load[FL_LOAD_T1X], *FL_RESTRICT t1y = a->load[FL_LOAD_T1X + 1],
                            *FL_RESTRICT t1z = a->load[FL_LOAD_T1X + 2];
  const double *FL_RESTRICT t2x = a->load[FL_LOAD_T2X], *FL_RESTRICT t2y = a->load[FL_LOAD_T2X + 1],
                            *FL_RESTRICT t2z = a->load[FL_LOAD_T2X + 2];
  double *FL_RESTRICT x = (double *)a->x, *FL_RESTRICT v = (double *)a->v, *FL_RESTRICT L = (double *)a->L,
                      *FL_RESTRICT w = (double *)a->w, *FL_RESTRICT q = (double *)a->q;
  double *FL_RESTRICT f = (double *)a->f, *FL_RESTRICT t = (double *)a->t;
  const double *FL_RESTRICT dtm = a->quot[FL_BODY_DTM], *FL_RESTRICT dti = a->quot[FL_BODY_DTI],
                            *FL_RESTRICT rit = a->quot[FL_BODY_RIT], *FL_RESTRICT di = a->quot[FL_BODY_DI],
                            *FL_RESTRICT dtdi = a->quot[FL_BODY_DTDI];
  const double *FL_RESTRICT free_d = a->is_free;
  const fl_vec3 g = a->g;
  const double dt = a->dt;
  double nredo = 0.0; /* a count, in doubles as every value of the loop */
#ifdef _OPENMP
#pragma omp simd reduction(+ : nredo)
#endif
  for (int i = lo; i < hi; i++) {
    long k3 = 3L * i, k4 = 4L * i;
    fl_vec3 x0 = v3_at(x, k3), v0 = v3_at(v, k3), L0 = v3_at(L, k3), w0 = v3_at(w, k3);
    fl_quat q0 = fl_q(q[k4], q[k4 + 1], q[k4 + 2], q[k4 + 3]);
    fl_vec3 fi, ti;
    if (gather) {
      const fl_vec3 zero = fl_v3(0.0, 0.0, 0.0);
      fi = fl_add(fl_sub(zero, fl_v3(fx[i - 1], fy[i - 1], fz[i - 1])), fl_v3(fx[i], fy[i], fz[i]));
      ti = fl_add(fl_add(zero, fl_v3(t2x[i - 1], t2y[i - 1], t2z[i - 1])), fl_v3(t1x[i], t1y[i], t1z[i]));
      put3_at(f, k3, fi);
      put3_at(t, k3, ti);
    } else {
      fi = v3_at(f, k3);
      ti = v3_at(t, k3);
    }
    fl_body_quotients kq;
    kq.dtm = dtm[i];
    kq.dti = dti[i];
    kq.rit = rit[i];
    kq.di = di[i];
    kq.dtdi = dtdi[i];
    fl_free_step r = fl_integrate_free_inline(x0, v0, q0, L0, fi, ti, g, kq, dt);
    int is_free = free_d[i - lo] != 0.0, take = is_free & r.ok;
    put3_at(x, k3, pick3(take, r.x, x0));
    put3_at(v, k3, pick3(take, r.v, v0));
    put3_at(L, k3, pick3(take, r.L, L0));
    put3_at(w, k3, pick3(take, r.w, w0));
    q[k4] = pick(take, r.q.w, q0.w);
    q[k4 + 1] = pick(take, r.q.x, q0.x);
    q[k4 + 2] = pick(take, r.q.y, q0.y);
    q[k4 + 3] = pick(take, r.q.z, q0.z);
    redo[i - lo] = (is_free & !r.ok) ? 1.0 : 0.0;
    nredo += redo[i - lo];
  }
  return (int)nredo;
}

/* The body step's build for one instruction set: gather chooses the loop. */
#define BODY_KERNEL_BUILD(name, target)                                                \
  target FL_SCHEDULE static int name(const body_args *a, int lo, int hi, double *redo, int gather) \
  {                                                                                   \
    if (gather)                                                                       \
      return body_kernel(a, lo, hi, redo, 1);                                         \
    return body_kernel(a, lo, hi, redo, 0);                                           \
  }
#if FL_HAVE_ISA
BODY_KERNEL_BUILD(body_kernel_avx512, FL_TARGET_AVX512)
BODY_KERNEL_BUILD(body_kernel_avx2, FL_TARGET_AVX2)
#endif
BODY_KERNEL_BUILD(body_kernel_base, )

/* Gather the bond loads of bodies [lo, hi) of specimen s in ascending bond order into
 * f, t, and add their tool contacts (shares in tool_share) and the point load.
 * *overlap: the largest contact overlap seen. */
static void body_gather(fl_system *sys, int s, int advance, int lo, int hi, double *overlap)
{
  size_t base = (size_t)s * sys->nbody;
  const double *FL_RESTRICT fx = load_row(sys, s, FL_LOAD_FX), *FL_RESTRICT fy = load_row(sys, s, FL_LOAD_FX + 1),
                            *FL_RESTRICT fz = load_row(sys, s, FL_LOAD_FX + 2);
  const double *FL_RESTRICT t1x = load_row(sys, s, FL_LOAD_T1X), *FL_RESTRICT t1y = load_row(sys, s, FL_LOAD_T1X + 1),
                            *FL_RESTRICT t1z = load_row(sys, s, FL_LOAD_T1X + 2);
  const double *FL_RESTRICT t2x = load_row(sys, s, FL_LOAD_T2X), *FL_RESTRICT t2y = load_row(sys, s, FL_LOAD_T2X + 1),
                            *FL_RESTRICT t2z = load_row(sys, s, FL_LOAD_T2X + 2);
  const int *start = sys->adj_start, *adj = sys->adj_bond;
  const unsigned char *side = sys->adj_side;
  for (int i = lo; i < hi; i++) {
    size_t k = base + i;
    fl_vec3 f = fl_v3(0, 0, 0), t = fl_v3(0, 0, 0);
    for (int a = start[i]; a < start[i + 1]; a++) {
      int b = adj[a];
      if (side[a] == 1) {
        f = fl_add(f, fl_v3(fx[b], fy[b], fz[b]));
        t = fl_add(t, fl_v3(t1x[b], t1y[b], t1z[b]));
      } else {
        f = fl_sub(f, fl_v3(fx[b], fy[b], fz[b]));
        t = fl_add(t, fl_v3(t2x[b], t2y[b], t2z[b]));
      }
    }
    if (sys->ntool > 0 && sys->motion[i] == FL_FREE)
      fl_contact_tools(sys->law + (size_t)s * sys->ntool, sys->tool, sys->ntool, sys->x[k], sys->q[k], sys->v[k],
                       sys->w[k], sys->half_length[i], sys->radius[i], sys->dt, sys->xi + k * sys->ntool, advance, &f,
                       &t, sys->tool_share + k * sys->ntool, overlap);
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
  }
}

/* Integrate the free bodies of [lo, hi) of specimen s through the vectorised step, and
 * those it gives back through fl_integrate_free; gather: see body_kernel.  Returns the
 * first free body that left the finite numbers, or nbody. */
static int body_integrate(fl_system *sys, int s, int lo, int hi, int gather)
{
  size_t base = (size_t)s * sys->nbody;
  const fl_vec3 g = sys->gravity;
  const double dt = sys->dt;
  int bad = sys->nbody;
  body_args a;
  a.x = sys->x + base;
  a.v = sys->v + base;
  a.L = sys->L + base;
  a.w = sys->w + base;
  a.q = sys->q + base;
  a.f = sys->f + base;
  a.t = sys->t + base;
  for (int r = 0; r < FL_LOAD_ROWS; r++)
    a.load[r] = load_row(sys, s, r);
  for (int r = 0; r < FL_BODY_ROWS; r++)
    a.quot[r] = sys->body_row + (size_t)r * sys->nbody;
  double is_free[FL_INLINE_CHUNK];
  a.is_free = is_free;
  a.g = g;
  a.dt = dt;
  int isa = fl_system_isa(sys);
  double redo[FL_INLINE_CHUNK];
  for (int c = lo; c < hi; c += FL_INLINE_CHUNK) {
    int n = hi - c < FL_INLINE_CHUNK ? hi - c : FL_INLINE_CHUNK, nredo;
    for (int m = 0; m < n; m++)
      is_free[m] = sys->motion[c + m] == FL_FREE ? 1.0 : 0.0;
#if FL_HAVE_ISA
    if (isa == FL_ISA_AVX512)
      nredo = body_kernel_avx512(&a, c, c + n, redo, gather);
    else if (isa == FL_ISA_AVX2)
      nredo = body_kernel_avx2(&a, c, c + n, redo, gather);
    else
#endif
      nredo = body_kernel_base(&a, c, c + n, redo, gather);
    (void)isa;
    for (int m = 0; m < n && nredo > 0; m++) {
      int i = c + m;
      size_t k = base + i;
      nredo -= redo[m] != 0.0;
      if (redo[m] != 0.0 && !fl_integrate_free(&sys->x[k], &sys->v[k], &sys->q[k], &sys->L[k], &sys->w[k], sys->f[k],
                                               sys->t[k], g, sys->mass[i], sys->inertia_axial[i],
                                               sys->inertia_trans[i], dt) &&
          bad == sys->nbody)
        bad = i;
    }
  }
  return bad;
}

/* Body pass over bodies [lo, hi) of specimen s: each body's loads (body_gather), and
 * with gm the free bodies integrated.  A chain without tools gathers its inner bodies'
 * loads inside the vectorised step.  *overlap: the largest contact overlap seen.
 * Returns the first free body that left the finite numbers, or nbody. */
static int body_pass(fl_system *sys, int s, int advance, const fl_grip_motion *gm, int lo, int hi, double *overlap)
{
  int nbody = sys->nbody;
  /* tools and a point load: every body through body_gather */
  if (!gm || !sys->adj_chain || sys->ntool > 0 || sys->pload.body >= 0) {
    body_gather(sys, s, advance, lo, hi, overlap);
    return gm ? body_integrate(sys, s, lo, hi, 0) : nbody;
  }
  /* [lo, a) and [e, hi): the chain's end bodies; [a, e): its inner ones */
  int a = lo < 1 ? (hi < 1 ? hi : 1) : lo;
  int e = hi > nbody - 1 ? (a > nbody - 1 ? a : nbody - 1) : hi;
  body_gather(sys, s, advance, lo, a, overlap);
  body_gather(sys, s, advance, e, hi, overlap);
  int bad = body_integrate(sys, s, lo, a, 0), bd = body_integrate(sys, s, a, e, 1);
  bad = bd < bad ? bd : bad;
  bd = body_integrate(sys, s, e, hi, 0);
  return bd < bad ? bd : bad;
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
static int specimen_pass(fl_system *sys, int s, int advance, const fl_grip_motion *gm, int nthreads)
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
      if (sys->adj_chain) /* body i's last bond is i (the last body's, i - 1) */
        upto = hi == nbond ? nbody : hi;
      else
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

  const double *be = load_row(sys, s, FL_LOAD_E);
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
  const unsigned char *moving = memchr(sys->motion, FL_GRIP_MOVING, (size_t)nbody);
  for (int i = moving ? (int)(moving - sys->motion) : nbody; i < nbody; i++)
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
  fl_grip_motion gm = fl_system_grip_motion(sys);
  int first_bad_spec = -1, first_bad_body = -1;
  if (!sys->adj_ready)
    fl_system_adjacency(sys);
  if (sys->body_dt != sys->dt)
    fl_system_body_rows(sys);
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
  fl_system_step_end(sys, &gm);
  if (first_bad_spec >= 0) {
    *bad_spec = first_bad_spec;
    *bad_bond = fl_system_body_bond(sys, first_bad_body);
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
