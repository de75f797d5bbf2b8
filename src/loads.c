/* loads.c: the load evaluation of a batch's specimens, which both solvers use
 * (fiberlab-model(7), Engines; THE STATIC SOLVER, Equilibrium): a bond pass (every
 * bond's force, torques and energy into arrays), a body pass (each body gathers its
 * bonds in ascending bond order and adds its tool contacts and the point load), and the
 * sums a test measures.  The common bond goes through a vectorised loop that reads the
 * arrays in place, built for AVX-512, AVX2 and the baseline, all giving the same bits as
 * the general law (fl_bond_eval). */
#include <config.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fl_defs.h"
#include "integrate.h"
#include "loads.h"
#include "simd.h"

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
  fl_vec3 crit;              /* limited builds: the coefficients of |force|, |moment| and the bending
                              * angle in a bound of the limits' criterion (limit_bound) */
  const double *inv_limit;   /* and per bond from the pass's lo, 1 / its limit */
} bond_args;

/* A bond whose bound of its criterion is below this fraction of its limit is within it
 * to more than the rounding of the bound and of the criterion's own value. */
#define FL_SERVED_USE (1.0 - 1e-9)

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

/* Bonds [lo, hi) through fl_bond_eval_inline.  chain (a constant): bond b joins bodies
 * b and b + 1, so the bodies are read by stride, which vectorises (the general case
 * reads b1, b2, which GCC does not vectorise without gathers).  uni (a constant): every
 * bond has the first column's q0 and stiffnesses, read once (sys->def_uniform).  redo[b - lo]
 * is 1 where the law did not serve the bond (fl_bond_is_inline, or a large angle), for
 * fl_bond_eval to take it again from the state it had. */
FL_ALWAYS_INLINE static inline int bond_kernel(const bond_args *a, int lo, int hi, double *FL_RESTRICT redo,
                                               const int chain, const int uni, const int write,
                                               const int plastic, const int limited, const fl_vec3 env,
                                               double *FL_RESTRICT phi)
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
  const fl_vec3 crit = a->crit;
  const double *FL_RESTRICT inv_limit = a->inv_limit;
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
    /* limited: a bound of the limit's criterion below its limit (fl_bond_yield leaves the
     * bond as it is) */
    if (limited)
      ok &= (crit.x * ld.f_size + crit.y * ld.m_size + crit.z * ld.phi) * inv_limit[b - lo] < FL_SERVED_USE;
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
 * (phi_b, kb) not served.  limited: bonds near their elastic limit not served
 * (bond_args' crit). */
typedef int (*bond_kernel_fn)(const bond_args *, int, int, double *, fl_vec3, double *);
#define BOND_KERNEL_ONE(name, target, chain, uni, write, plastic, limited)                                  \
  target FL_SCHEDULE static int name(const bond_args *a, int lo, int hi, double *redo, fl_vec3 env,         \
                                     double *phi)                                                            \
  {                                                                                                          \
    return bond_kernel(a, lo, hi, redo, chain, uni, write, plastic, limited, env, phi);                      \
  }
/* The eight chain builds of one instruction set and one value of limited, and the
 * sixteen's table by uni + 2 write + 4 plastic + 8 limited. */
#define BOND_KERNEL_EIGHT(name, target, limited)                                                           \
  BOND_KERNEL_ONE(name##_0, target, 1, 0, 0, 0, limited)                                                   \
  BOND_KERNEL_ONE(name##_1, target, 1, 1, 0, 0, limited)                                                   \
  BOND_KERNEL_ONE(name##_2, target, 1, 0, 1, 0, limited)                                                   \
  BOND_KERNEL_ONE(name##_3, target, 1, 1, 1, 0, limited)                                                   \
  BOND_KERNEL_ONE(name##_4, target, 1, 0, 0, 1, limited)                                                   \
  BOND_KERNEL_ONE(name##_5, target, 1, 1, 0, 1, limited)                                                   \
  BOND_KERNEL_ONE(name##_6, target, 1, 0, 1, 1, limited)                                                   \
  BOND_KERNEL_ONE(name##_7, target, 1, 1, 1, 1, limited)
#define BOND_KERNEL_BUILD(name, target)                                                                    \
  BOND_KERNEL_EIGHT(name##_u, target, 0)                                                                   \
  BOND_KERNEL_EIGHT(name##_l, target, 1)                                                                   \
  static const bond_kernel_fn name[16] = {name##_u_0, name##_u_1, name##_u_2, name##_u_3, name##_u_4,       \
                                          name##_u_5, name##_u_6, name##_u_7, name##_l_0, name##_l_1,       \
                                          name##_l_2, name##_l_3, name##_l_4, name##_l_5, name##_l_6,       \
                                          name##_l_7};
#if FL_HAVE_ISA
BOND_KERNEL_BUILD(bond_kernel_avx512, FL_TARGET_AVX512)
BOND_KERNEL_BUILD(bond_kernel_avx2, FL_TARGET_AVX2)
#endif
BOND_KERNEL_BUILD(bond_kernel_base, )
/* any bonds: one at a time (uni 0), by 2 write + 4 plastic + 8 limited as above */
#define BOND_KERNEL_ANY(limited)                                                                            \
  BOND_KERNEL_ONE(bond_kernel_any_##limited##_0, , 0, 0, 0, 0, limited)                                    \
  BOND_KERNEL_ONE(bond_kernel_any_##limited##_2, , 0, 0, 1, 0, limited)                                    \
  BOND_KERNEL_ONE(bond_kernel_any_##limited##_4, , 0, 0, 0, 1, limited)                                    \
  BOND_KERNEL_ONE(bond_kernel_any_##limited##_6, , 0, 0, 1, 1, limited)
BOND_KERNEL_ANY(0)
BOND_KERNEL_ANY(1)
static const bond_kernel_fn bond_kernel_any[16] = {
    bond_kernel_any_0_0, bond_kernel_any_0_0, bond_kernel_any_0_2, bond_kernel_any_0_2,
    bond_kernel_any_0_4, bond_kernel_any_0_4, bond_kernel_any_0_6, bond_kernel_any_0_6,
    bond_kernel_any_1_0, bond_kernel_any_1_0, bond_kernel_any_1_2, bond_kernel_any_1_2,
    bond_kernel_any_1_4, bond_kernel_any_1_4, bond_kernel_any_1_6, bond_kernel_any_1_6};

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
         (!lim || lim->buckling.type == FL_BUCKLING_NONE || lim->buckling.type == FL_BUCKLING_PLASTIC);
}

/* The larger of a and b, or b where it is not a number (a section without a modulus
 * then serves no bond). */
static double bound_max(double a, double b)
{
  return b > a || b != b ? b : a;
}

/* Coefficients (cf, cm, ca) such that cf |F| + cm |M| + ca phi bounds the value that
 * lim's criterion (fl_bond_criterion_value, fl_bond_yield_value) gives a bond of force
 * F, moment M and bending angle phi, unyielded, on either side: each stress is at most
 * the force's or the moment's size over the section's area or modulus, and a von Mises
 * sum of squares at most the sum of its roots.  (0, 0, 0) without a criterion. */
static fl_vec3 limit_bound(const fl_bond_limits *lim)
{
  fl_vec3 c = fl_v3(0.0, 0.0, 0.0);
  const double r3 = sqrt(3.0);
  for (int side = 0; side < 2; side++) {
    const fl_side_section *sc = side == 0 ? &lim->sec1 : &lim->sec2;
    double ia = 1.0 / sc->area, ri = sc->radius / sc->inertia, rj = sc->radius / sc->polar, cf = 0.0, cm = 0.0,
           ca = 0.0;
    switch (lim->criterion) {
    case FL_CRIT_BENDING_STRESS: cm = ri; break;
    case FL_CRIT_AXIAL_STRESS: cf = ia; cm = ri; break;
    case FL_CRIT_FORCE_STRESS: cf = ia; break;
    case FL_CRIT_VON_MISES: cf = ia * (1.0 + 4.0 * r3 * sc->kshape / 3.0); cm = ri + r3 * rj; break;
    case FL_CRIT_BENDING_ANGLE: ca = 1.0; break;
    default: break;
    }
    c = fl_v3(bound_max(c.x, cf), bound_max(c.y, cm), bound_max(c.z, ca));
  }
  return c;
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
  const int limited = lim && lim->criterion != FL_CRIT_NONE;
  const int variant = (uni != 0) + 2 * write + 4 * plastic + 8 * limited;
  double inv_limit[FL_INLINE_CHUNK];
  a.crit = limited ? limit_bound(lim) : fl_v3(0.0, 0.0, 0.0);
  a.inv_limit = inv_limit;
  for (int c = lo; c < hi; c += FL_INLINE_CHUNK) {
    int n = hi - c < FL_INLINE_CHUNK ? hi - c : FL_INLINE_CHUNK, nredo;
    for (int k = 0; k < n && limited; k++)
      inv_limit[k] = 1.0 / fl_bond_limit(lim, &st[c + k]);
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

void fl_loads_gather(fl_system *sys, int s, int advance, int lo, int hi, double *overlap)
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


/* Bonds a block of the one-thread pass: their loads (80 bytes each) stay in the cache
 * until their bodies gather them. */
#define FL_BLOCK_BONDS 512

/* below some thousands of bonds a step is too short to share */
int fl_loads_threads(const fl_system *sys)
{
  if (sys->threads <= 1 || sys->nspec >= sys->threads || sys->nbond < 2048)
    return 1;
  return sys->threads;
}


/* Bodies [lo, hi) of specimen s through stage, or their loads alone. */
static inline int bodies(fl_system *sys, int s, int advance, fl_body_stage stage, int lo, int hi, double *overlap)
{
  if (stage)
    return stage(sys, s, advance, lo, hi, overlap);
  fl_loads_gather(sys, s, advance, lo, hi, overlap);
  return sys->nbody;
}

/* Specimen s's limits, or NULL when its bonds have none. */
static const fl_bond_limits *pass_limits(const fl_system *sys, int s)
{
  const fl_bond_limits *l = &sys->limits[s];
  return l->criterion != FL_CRIT_NONE || l->buckling.type != FL_BUCKLING_NONE ? l : NULL;
}

/* The end of a pass over specimen s: the bonds that broke or buckled in it (events) and
 * the largest overlap seen, then the sums over bonds and bodies in index order. */
static void pass_sums(fl_system *sys, int s, int advance, int events, double overlap)
{
  size_t base = (size_t)s * sys->nbody;
  const int nbond = sys->nbond, nbody = sys->nbody;
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
   * Bonds between two gripped bodies cancel in the sum.  Taken before the grip moves
   * (a step moves it after the pass). */
  fl_vec3 gf = fl_v3(0, 0, 0), gt = fl_v3(0, 0, 0);
  const unsigned char *moving = memchr(sys->motion, FL_GRIP_MOVING, (size_t)nbody);
  for (int i = moving ? (int)(moving - sys->motion) : nbody; i < nbody; i++)
    if (sys->motion[i] == FL_GRIP_MOVING) {
      size_t k = base + i;
      gf = fl_add(gf, sys->f[k]);
      gt = fl_add(gt, fl_add(sys->t[k], fl_cross(sys->x[k], sys->f[k])));
    }
  sys->grip_force[s] = gf;
  sys->grip_torque[s] = gt;
}

int fl_loads_pass(fl_system *sys, int s, int advance, fl_body_stage stage, int nthreads)
{
  const fl_bond_limits *lim = pass_limits(sys, s);
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
      int bd = bodies(sys, s, advance, stage, (int)((long)nbody * me / nt), (int)((long)nbody * (me + 1) / nt), &ov);
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
      int bd = bodies(sys, s, advance, stage, done, upto, &overlap);
      if (bd < bad)
        bad = bd;
      done = upto;
    }
    int bd = bodies(sys, s, advance, stage, done, nbody, &overlap);
    if (bd < bad)
      bad = bd;
  } else {
    events = bond_pass(sys, s, advance, lim, 0, nbond);
    bad = bodies(sys, s, advance, stage, 0, nbody, &overlap);
  }
  pass_sums(sys, s, advance, events, overlap);
  return bad < nbody ? bad : -1;
}


void fl_loads_pass_some(fl_system *sys, int s, const int *range, int nrange)
{
  const fl_bond_limits *lim = pass_limits(sys, s);
  double overlap = sys->overlap[s];
  if (inline_pass(sys, s, 0, lim))
    bond_pass(sys, s, 0, lim, 0, sys->nbond);
  else
    for (int k = 0; k < nrange; k++)
      bond_pass(sys, s, 0, lim, range[2 * k], range[2 * k + 1]);
  fl_loads_gather(sys, s, 0, 0, sys->nbody, &overlap);
  pass_sums(sys, s, 0, 0, overlap);
}

void fl_system_loads_specimen(fl_system *sys, int s, int advance)
{
  if (!sys->adj_ready)
    fl_system_adjacency(sys);
  fl_loads_pass(sys, s, advance, NULL, 1);
}

void fl_system_loads(fl_system *sys, int advance_damping)
{
  if (!sys->adj_ready)
    fl_system_adjacency(sys);
  int inner = fl_loads_threads(sys);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(sys->threads) if (inner == 1 && sys->threads > 1 && sys->nspec > 1)
#endif
  for (int s = 0; s < sys->nspec; s++)
    fl_loads_pass(sys, s, advance_damping, NULL, inner);
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
