/* engine.c: the CPU engine's explicit step over a batch of specimens (fiberlab-model(7),
 * Time integration), in two passes as the CUDA engine takes it: the load evaluation's
 * bond pass and body pass (loads.c), the body pass taking each free body's split step
 * of integrate.h once its loads are gathered, then the kinematic grips.  Specimens run
 * in parallel (OpenMP), or, for fewer specimens than threads, the bonds and bodies of
 * each; every sum keeps a fixed order, so results are identical for any thread count.
 * The free bodies go through a vectorised loop that reads the arrays in place, built for
 * AVX-512, AVX2 and the baseline, all giving the same bits as the general step. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "fl_defs.h"
#include "integrate.h"
#include "loads.h"
#include "simd.h"
#include "system.h"

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

/* The step's body stage (fl_body_stage) over bodies [lo, hi) of specimen s: each body's
 * loads (fl_loads_gather), and the free bodies integrated.  A chain without tools
 * gathers its inner bodies' loads inside the vectorised step.  *overlap: the largest
 * contact overlap seen.  Returns the first free body that left the finite numbers, or
 * nbody. */
static int body_step(fl_system *sys, int s, int advance, int lo, int hi, double *overlap)
{
  int nbody = sys->nbody;
  /* tools and a point load: every body through body_gather */
  if (!sys->adj_chain || sys->ntool > 0 || sys->pload.body >= 0) {
    fl_loads_gather(sys, s, advance, lo, hi, overlap);
    return body_integrate(sys, s, lo, hi, 0);
  }
  /* [lo, a) and [e, hi): the chain's end bodies; [a, e): its inner ones */
  int a = lo < 1 ? (hi < 1 ? hi : 1) : lo;
  int e = hi > nbody - 1 ? (a > nbody - 1 ? a : nbody - 1) : hi;
  fl_loads_gather(sys, s, advance, lo, a, overlap);
  fl_loads_gather(sys, s, advance, e, hi, overlap);
  int bad = body_integrate(sys, s, lo, a, 0), bd = body_integrate(sys, s, a, e, 1);
  bad = bd < bad ? bd : bad;
  bd = body_integrate(sys, s, e, hi, 0);
  return bd < bad ? bd : bad;
}


/* One step of specimen s: the pass with the free bodies integrated in it (body_step),
 * then the moving grip's bodies, whose load the pass took. */
static int step_pass(fl_system *sys, int s, const fl_grip_motion *gm, int nthreads)
{
  int bad = fl_loads_pass(sys, s, 1, body_step, nthreads), nbody = sys->nbody;
  size_t base = (size_t)s * sys->nbody;
  const unsigned char *moving = memchr(sys->motion, FL_GRIP_MOVING, (size_t)nbody);
  for (int i = moving ? (int)(moving - sys->motion) : nbody; i < nbody; i++)
    if (sys->motion[i] == FL_GRIP_MOVING) {
      size_t k = base + i;
      fl_integrate_grip(&sys->x[k], &sys->v[k], &sys->q[k], &sys->L[k], &sys->w[k], sys->x_ref[i], sys->q_ref[i],
                        gm->disp, gm->qg, gm->wg, sys->grip_speed);
    }
  return bad;
}

int fl_system_step(fl_system *sys, int *bad_spec, int *bad_bond)
{
  fl_grip_motion gm = fl_system_grip_motion(sys);
  int first_bad_spec = -1, first_bad_body = -1;
  if (!sys->adj_ready)
    fl_system_adjacency(sys);
  if (sys->body_dt != sys->dt)
    fl_system_body_rows(sys);
  int inner = fl_loads_threads(sys);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(sys->threads) if (inner == 1 && sys->threads > 1 && sys->nspec > 1)
#endif
  for (int s = 0; s < sys->nspec; s++) {
    int bad = step_pass(sys, s, &gm, inner);
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
