/* engine.cu: the CUDA engine.  The same physics as the CPU engine (src/engine.c), from
 * the same headers: bond.h (bond law, limits, buckling), contact.h (tool contacts),
 * integrate.h (rigid-body step).  Bodies and bonds live in device memory as the arrays
 * of fl_system (cudaMalloc).  One step is three kernels: every bond of every specimen
 * (one thread each), every body (gathers its bonds' loads in ascending bond order, then
 * its tool contacts, then integrates: no atomics on floating-point data, so runs repeat
 * bit for bit), and, when asked, one thread per specimen summing what the test
 * measures.  Each kernel is a thin wrapper around a host and device function of one
 * index (what one thread does), launched through FL_LAUNCH, so that the tests' host
 * shim of the CUDA runtime (tests/cuda/cuda_runtime.h) runs this file unchanged on the
 * CPU, every index in order. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "fl_defs.h"
}
#include "bond.h"
#include "contact.h"
#include "integrate.h"
extern "C" {
#include "system.h" /* after the physics headers: its own functions (system.c) are C */
}
#include "gpu.h"

/* A launch of kernel over blocks of threads on stream; the host shim defines it as a
 * loop over the blocks and threads. */
#ifndef FL_LAUNCH
#define FL_LAUNCH(kernel, blocks, threads, stream, ...) kernel<<<(blocks), (threads), 0, (stream)>>>(__VA_ARGS__)
#endif

/* Threads a block for a launch over n indices: at most 256, a whole number of warps,
 * no more than n needs (which spares the host shim's loop the idle threads); and
 * the blocks that cover n. */
static inline unsigned block_threads(size_t n)
{
  return n >= 256 ? 256u : n == 0 ? 32u : (unsigned)((n + 31) / 32 * 32);
}
static inline unsigned blocks_for(size_t n, unsigned threads)
{
  return (unsigned)((n + threads - 1) / threads);
}

/* The index of the calling thread over the whole launch. */
__device__ static inline size_t thread_index(void)
{
  return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

/* Device arrays, passed to kernels by value. */
struct fl_gpu_dev {
  int nspec, nbody, nbond, ntool;
  /* per body, shared */
  const double *mass, *ia, *it, *hl, *radius;
  const unsigned char *motion;
  const fl_vec3 *x_ref;
  const fl_quat *q_ref;
  const int *adj_start;          /* body i's bonds: adj_bond[adj_start[i] .. adj_start[i + 1]) */
  const int *adj_bond;           /* in ascending order */
  const unsigned char *adj_side; /* 1: the body is the bond's body 1 */
  const int *b1, *b2;            /* per bond, shared */
  /* per specimen and body */
  fl_vec3 *x, *v, *w, *L;
  fl_quat *q;
  fl_vec3 *f, *t;    /* loads of the step, for the measurement */
  fl_vec3 *gt;       /* moving-grip bodies: t + x x f about the origin, before the step */
  double *ov;        /* largest tool overlap of the step */
  fl_vec3 *xi;       /* contact history, (s * nbody + i) * ntool + k */
  fl_vec3 *tshare;   /* force on tool k from body i, same index */
  /* per specimen and bond */
  const fl_bond *bond;
  fl_bond_state *st;
  fl_vec3 *bf, *bt1, *bt2;
  double *be;
  /* per specimen */
  const fl_bond_damping *damping;
  const fl_bond_limits *limits;
  const fl_contact_law *law; /* s * ntool + k */
  int *nbroken;
  int *bad;                  /* first body that left the finite numbers, or nbody */
  double *energy, *overlap;
  fl_vec3 *grip_force, *grip_torque, *tool_force;
  double *pload_force;       /* the point load of the step along its direction, N */
  fl_track *track;           /* the explicit solver's watch of every step (track.h) */
  long *bad_step;            /* the first step a body left the finite numbers, or -1 */
  int *bad_body;             /* that body */
};

struct fl_gpu {
  fl_gpu_dev d;
  enum fl_test_kind kind; /* the test the watch measures (fl_gpu_track_put) */
  int *bad_host;    /* nspec: the step's bad[] on the host */
  void *blocks[64]; /* every cudaMalloc, for freeing */
  int nblocks;
  char err[256];    /* the last CUDA error, for messages (fl_gpu_error) */
  size_t nsb, nsd;  /* specimen x body, specimen x bond */
};

/* What a step's body kernel takes from the host, by value: the tools where they are,
 * the point load, gravity, the time step, and the moving grip's motion over the step. */
struct fl_step_args {
  fl_tool tool[FL_MAX_TOOLS];
  fl_point_load pl;
  fl_vec3 g;
  double dt;
  double disp, vg; /* the grip's displacement at the step's end (m) and speed (m/s) */
  fl_quat qg;      /* its turn */
  fl_vec3 wg;      /* its angular velocity, rad/s */
};

/* Bond idx (specimen idx / nbond): its loads into bf, bt1, bt2, be and its state moved
 * on.  Returns the bond's new breaks and buckles. */
FL_HD static inline int bond_at(const fl_gpu_dev &d, size_t idx)
{
  int s = (int)(idx / d.nbond), b = (int)(idx - (size_t)s * d.nbond);
  size_t base = (size_t)s * d.nbody;
  int i = d.b1[b], j = d.b2[b];
  fl_body bi = {d.x[base + i], d.q[base + i], d.v[base + i], d.w[base + i]};
  fl_body bj = {d.x[base + j], d.q[base + j], d.v[base + j], d.w[base + j]};
  const fl_bond_limits *lim = &d.limits[s];
  if (lim->criterion == FL_CRIT_NONE && lim->buckling.type == FL_BUCKLING_NONE)
    lim = NULL;
  fl_bond_state next = d.st[idx];
  fl_bond_loads ld;
  fl_bond_eval(&d.bond[idx], &d.damping[s], lim, &bi, &bj, &next, &ld);
  int events = (next.broken - d.st[idx].broken) + (next.buckled - d.st[idx].buckled);
  d.st[idx] = next;
  d.bf[idx] = ld.force;
  d.bt1[idx] = ld.torque1;
  d.bt2[idx] = ld.torque2;
  d.be[idx] = ld.energy;
  return events;
}

__global__ void k_bonds(fl_gpu_dev d)
{
  size_t idx = thread_index();
  if (idx >= (size_t)d.nspec * d.nbond)
    return;
  int events = bond_at(d, idx);
  if (events)
    atomicAdd(&d.nbroken[idx / d.nbond], events); /* integer: order-independent */
}

/* Body k (specimen k / nbody): its bonds' loads gathered in ascending bond order, its
 * tool contacts, and its step.  Returns 0 when a free body left the finite numbers. */
FL_HD static inline int body_at(const fl_gpu_dev &d, size_t k, const fl_step_args &a)
{
  int s = (int)(k / d.nbody), i = (int)(k - (size_t)s * d.nbody);
  size_t bb = (size_t)s * d.nbond;
  fl_vec3 f = fl_v3(0.0, 0.0, 0.0), t = fl_v3(0.0, 0.0, 0.0);
  for (int n = d.adj_start[i]; n < d.adj_start[i + 1]; n++) {
    size_t bi = bb + d.adj_bond[n];
    if (d.adj_side[n]) {
      f = fl_add(f, d.bf[bi]);
      t = fl_add(t, d.bt1[bi]);
    } else {
      f = fl_sub(f, d.bf[bi]);
      t = fl_add(t, d.bt2[bi]);
    }
  }
  d.ov[k] = 0.0;
  if (d.motion[i] == FL_FREE && d.ntool > 0)
    fl_contact_tools(d.law + (size_t)s * d.ntool, a.tool, d.ntool, d.x[k], d.q[k], d.v[k], d.w[k], d.hl[i],
                     d.radius[i], a.dt, d.xi + k * d.ntool, 1, &f, &t, d.tshare + k * d.ntool, &d.ov[k]);
  if (i == a.pl.body) { /* the cantilever's tip load, as the CPU engine's gather adds it */
    fl_vec3 arm, p_ref = fl_add(d.x_ref[i], fl_qrot(d.q_ref[i], a.pl.arm));
    double load = fl_point_load_value(&a.pl, d.x[k], d.q[k], p_ref, &arm);
    fl_vec3 fp = fl_scale(a.pl.dir, load);
    f = fl_add(f, fp);
    t = fl_add(t, fl_cross(arm, fp));
    d.pload_force[s] = load;
  }
  d.f[k] = f;
  d.t[k] = t;
  if (d.motion[i] == FL_GRIP_MOVING)
    d.gt[k] = fl_add(t, fl_cross(d.x[k], f));
  if (d.motion[i] == FL_FREE)
    return fl_integrate_free(&d.x[k], &d.v[k], &d.q[k], &d.L[k], &d.w[k], f, t, a.g, d.mass[i], d.ia[i], d.it[i],
                             a.dt);
  if (d.motion[i] == FL_GRIP_MOVING)
    fl_integrate_grip(&d.x[k], &d.v[k], &d.q[k], &d.L[k], &d.w[k], d.x_ref[i], d.q_ref[i], a.disp, a.qg, a.wg, a.vg);
  return 1;
}

__global__ void k_bodies(fl_gpu_dev d, fl_step_args a)
{
  size_t k = thread_index();
  if (k >= (size_t)d.nspec * d.nbody)
    return;
  if (!body_at(d, k, a))
    atomicMin(&d.bad[k / d.nbody], (int)(k % d.nbody));
}

/* What the test measures of specimen s, summed in body order as on the CPU. */
FL_HD static inline void measure_at(const fl_gpu_dev &d, int s)
{
  size_t base = (size_t)s * d.nbody, bb = (size_t)s * d.nbond;
  double e = 0.0, ov = d.overlap[s];
  for (int b = 0; b < d.nbond; b++)
    e += d.be[bb + b];
  fl_vec3 gf = fl_v3(0.0, 0.0, 0.0), gt = fl_v3(0.0, 0.0, 0.0);
  fl_vec3 tf[FL_MAX_TOOLS];
  for (int k = 0; k < d.ntool; k++)
    tf[k] = fl_v3(0.0, 0.0, 0.0);
  for (int i = 0; i < d.nbody; i++) {
    size_t k = base + i;
    if (d.motion[i] == FL_GRIP_MOVING) {
      gf = fl_add(gf, d.f[k]);
      gt = fl_add(gt, d.gt[k]);
    }
    if (d.motion[i] == FL_FREE) {
      for (int m = 0; m < d.ntool; m++)
        tf[m] = fl_add(tf[m], d.tshare[k * d.ntool + m]);
      if (d.ov[k] > ov)
        ov = d.ov[k];
    }
  }
  d.energy[s] = e;
  d.overlap[s] = ov;
  d.grip_force[s] = gf;
  d.grip_torque[s] = gt;
  for (int m = 0; m < d.ntool; m++)
    d.tool_force[(size_t)s * d.ntool + m] = tf[m];
}

__global__ void k_measure(fl_gpu_dev d)
{
  size_t s = thread_index();
  if (s < (size_t)d.nspec)
    measure_at(d, (int)s);
}

/* The explicit solver's watch of the step just taken (track.h), of specimen s, after
 * measure_at: the first step a body left the finite numbers (then bad[] is cleared for
 * the next step), and the peak, the first touch and the first event, so that the host
 * need not wait for the device at every step. */
FL_HD static inline void track_at(const fl_gpu_dev &d, int s, enum fl_test_kind kind, const fl_point_load &pl, long n,
                                  double tm, double pos)
{
  if (d.bad[s] < d.nbody) {
    if (d.bad_step[s] < 0) {
      d.bad_step[s] = n;
      d.bad_body[s] = d.bad[s];
    }
    d.bad[s] = d.nbody;
  }
  double y = fl_track_load(kind, d.tool_force + (size_t)s * d.ntool, d.ntool, d.grip_force[s], d.grip_torque[s],
                           d.pload_force[s]);
  fl_track *tr = &d.track[s];
  if (!fl_track_step(tr, fl_test_bends(kind), y, d.nbroken[s], tm, pos, n))
    return;
  if (kind == FL_TEST_CANTILEVER) { /* the tip's displacement after the step (fl_measure_x) */
    size_t k = (size_t)s * d.nbody + pl.body;
    fl_vec3 arm, p_ref = fl_add(d.x_ref[pl.body], fl_qrot(d.q_ref[pl.body], pl.arm));
    tr->x_at_peak = fl_point_load_travel(&pl, d.x[k], d.q[k], p_ref, &arm);
  } else {
    tr->x_at_peak = fl_track_travel(tr->touch, pos);
  }
}

__global__ void k_track(fl_gpu_dev d, enum fl_test_kind kind, fl_point_load pl, long n, double tm, double pos)
{
  size_t s = thread_index();
  if (s < (size_t)d.nspec)
    track_at(d, (int)s, kind, pl, n, tm, pos);
}

/* Bond i of fl_gpu_eval_bonds' arrays. */
FL_HD static inline void eval_bond_at(int i, const fl_bond *bond, const fl_bond_damping *dm,
                                      const fl_bond_limits *lim, const fl_body *b1, const fl_body *b2,
                                      fl_bond_state *st, fl_bond_loads *out)
{
  const fl_bond_limits *l = &lim[i];
  if (l->criterion == FL_CRIT_NONE && l->buckling.type == FL_BUCKLING_NONE)
    l = NULL;
  fl_bond_eval(&bond[i], &dm[i], l, &b1[i], &b2[i], &st[i], &out[i]);
}

__global__ void k_eval_bonds(int n, const fl_bond *bond, const fl_bond_damping *dm, const fl_bond_limits *lim,
                             const fl_body *b1, const fl_body *b2, fl_bond_state *st, fl_bond_loads *out)
{
  size_t i = thread_index();
  if (i < (size_t)n)
    eval_bond_at((int)i, bond, dm, lim, b1, b2, st, out);
}

/* ---- host side -------------------------------------------------------------------- */

static int cuda_fail(cudaError_t e, const char *what, char *msg, size_t len)
{
  if (msg)
    snprintf(msg, len, "CUDA: %s: %s", what, cudaGetErrorString(e));
  return e == cudaErrorMemoryAllocation ? FL_ENOMEM : FL_EIO;
}

/* FL_OK for cudaSuccess; else the error kept in g (fl_gpu_error) and FL_EIO, or
 * FL_ENOMEM.  A kernel's fault shows at the next call that waits for it. */
static int check(fl_gpu *g, cudaError_t e, const char *what)
{
  if (e == cudaSuccess)
    return FL_OK;
  cudaGetLastError(); /* a launch's error is reported once, here */
  return cuda_fail(e, what, g ? g->err : NULL, g ? sizeof g->err : 0);
}

/* The device this process runs on: the ranks of an MPI run on one node take its
 * devices in turn by their rank on the node, which Open MPI, MPICH, MVAPICH and Slurm
 * put in the environment (no MPI: rank 0, the first device).  *dev and *count: the
 * device taken and the devices seen.  0, or an error with a message. */
static cudaError_t select_device(int *dev, int *count, char *msg, size_t len)
{
  static const char *const local_rank[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                           "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"};
  *dev = *count = 0;
  cudaError_t e = cudaGetDeviceCount(count);
  if (e != cudaSuccess || *count == 0) {
    snprintf(msg, len, "no CUDA device answers (%s)", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    cudaGetLastError();
    return e != cudaSuccess ? e : cudaErrorInvalidDevice;
  }
  long rank = 0;
  for (size_t k = 0; k < sizeof local_rank / sizeof *local_rank; k++) {
    const char *v = getenv(local_rank[k]);
    char *end;
    long r = v ? strtol(v, &end, 10) : -1;
    if (v && *v && !*end && r >= 0) {
      rank = r;
      break;
    }
  }
  *dev = (int)(rank % *count);
  e = cudaSetDevice(*dev);
  if (e != cudaSuccess) {
    snprintf(msg, len, "CUDA: cannot take device %d of %d: %s", *dev, *count, cudaGetErrorString(e));
    cudaGetLastError();
  }
  return e;
}

extern "C" int fl_gpu_available(char *msg, size_t len)
{
  int dev, n;
  if (select_device(&dev, &n, msg, len) != cudaSuccess)
    return 0;
  /* A device answers; it must also hold code it can run: this build's machine code is
   * for one architecture (NVCCFLAGS, sm_90 by default), with PTX that only devices of at
   * least that compute capability can compile.  Asking for a kernel's attributes loads
   * the module for the current device and fails if no image in it fits. */
  cudaFuncAttributes fa;
  cudaError_t e = cudaFuncGetAttributes(&fa, k_bonds);
  if (e != cudaSuccess) {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, dev) == cudaSuccess)
      snprintf(msg, len, "the CUDA device %s (compute capability %d.%d) cannot run this build's code (%s)", p.name,
               p.major, p.minor, cudaGetErrorString(e));
    else
      snprintf(msg, len, "the CUDA device cannot run this build's code (%s)", cudaGetErrorString(e));
    cudaGetLastError(); /* clear the error, so that a CPU fallback starts clean */
    return 0;
  }
  return 1;
}

extern "C" int fl_gpu_describe(char *name, size_t len, double *bandwidth_gbs)
{
  cudaDeviceProp p;
  int dev = 0, n = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceCount(&n) != cudaSuccess ||
      cudaGetDeviceProperties(&p, dev) != cudaSuccess)
    return FL_EIO;
  snprintf(name, len, "%s (device %d of %d)", p.name, dev, n);
  int clock_khz = 0, bus_bits = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, dev);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev);
  *bandwidth_gbs = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9; /* double data rate */
  return FL_OK;
}

/* Allocate and copy n bytes (src may be NULL: zeroed). */
/* Allocate n bytes (at least 8) on the device and copy n bytes of src there (src
 * NULL: zeroed). */
static int put(fl_gpu *g, void **dst, const void *src, size_t n, char *msg, size_t len)
{
  if (g->nblocks == (int)(sizeof g->blocks / sizeof *g->blocks)) {
    snprintf(msg, len, "CUDA: more device arrays than the engine keeps");
    return FL_ELIMIT;
  }
  cudaError_t e = cudaMalloc(dst, n > 8 ? n : 8);
  if (e != cudaSuccess)
    return cuda_fail(e, "cudaMalloc", msg, len);
  g->blocks[g->nblocks++] = *dst;
  e = src ? cudaMemcpy(*dst, src, n, cudaMemcpyHostToDevice) : cudaMemset(*dst, 0, n > 8 ? n : 8);
  return e == cudaSuccess ? FL_OK : cuda_fail(e, "copy to the device", msg, len);
}

/* put() into g->d.field, or to fail: with the status in rc. */
#define PUT(field, src, n)                                                                                      \
  do {                                                                                                          \
    void *p_ = NULL;                                                                                            \
    if ((rc = put(g, &p_, (src), (n), msg, len)) != FL_OK)                                                      \
      goto fail;                                                                                                \
    *(void **)&g->d.field = p_;                                                                                 \
  } while (0)

extern "C" int fl_gpu_create(fl_gpu **out, const fl_system *sys, char *msg, size_t len)
{
  *out = NULL;
  int dev, ndev;
  cudaError_t e = select_device(&dev, &ndev, msg, len);
  if (e != cudaSuccess)
    return e == cudaErrorMemoryAllocation ? FL_ENOMEM : FL_EIO;
  fl_gpu *g = (fl_gpu *)calloc(1, sizeof *g);
  if (!g)
    return FL_ENOMEM;
  int rc = FL_ENOMEM;
  int *start = NULL, *list = NULL, *fill = NULL;
  unsigned char *side = NULL;
  fl_bond_state *whole = NULL;
  long *none = NULL;
  const size_t v3 = sizeof(fl_vec3);
  int nb = sys->nbody, nd = sys->nbond, ns = sys->nspec, nt = sys->ntool;
  g->d.nspec = ns;
  g->d.nbody = nb;
  g->d.nbond = nd;
  g->d.ntool = nt;
  g->nsb = (size_t)ns * nb;
  g->nsd = (size_t)ns * nd;
  g->bad_host = (int *)malloc((size_t)ns * sizeof(int));
  /* each body's bonds, in ascending bond order */
  start = (int *)calloc((size_t)nb + 1, sizeof(int));
  list = (int *)malloc(2 * (size_t)nd * sizeof(int) + 8);
  side = (unsigned char *)malloc(2 * (size_t)nd + 8);
  fill = (int *)calloc((size_t)nb + 1, sizeof(int));
  whole = (fl_bond_state *)malloc(g->nsd * sizeof(fl_bond_state) + 8);
  none = (long *)malloc((size_t)ns * sizeof(long));
  if (!g->bad_host || !start || !list || !side || !fill || !whole || !none)
    goto fail;
  for (int b = 0; b < nd; b++)
    start[sys->b1[b] + 1]++, start[sys->b2[b] + 1]++;
  for (int i = 0; i < nb; i++)
    start[i + 1] += start[i];
  for (int b = 0; b < nd; b++) {
    int i = sys->b1[b], j = sys->b2[b];
    list[start[i] + fill[i]] = b, side[start[i] + fill[i]++] = 1;
    list[start[j] + fill[j]] = b, side[start[j] + fill[j]++] = 0;
  }
  PUT(mass, sys->mass, nb * sizeof(double));
  PUT(ia, sys->inertia_axial, nb * sizeof(double));
  PUT(it, sys->inertia_trans, nb * sizeof(double));
  PUT(hl, sys->half_length, nb * sizeof(double));
  PUT(radius, sys->radius, nb * sizeof(double));
  PUT(motion, sys->motion, nb);
  PUT(x_ref, sys->x_ref, nb * v3);
  PUT(q_ref, sys->q_ref, nb * sizeof(fl_quat));
  PUT(adj_start, start, ((size_t)nb + 1) * sizeof(int));
  PUT(adj_bond, list, 2 * (size_t)nd * sizeof(int));
  PUT(adj_side, side, 2 * (size_t)nd);
  PUT(b1, sys->b1, nd * sizeof(int));
  PUT(b2, sys->b2, nd * sizeof(int));
  PUT(x, sys->x, g->nsb * v3);
  PUT(v, sys->v, g->nsb * v3);
  PUT(w, sys->w, g->nsb * v3);
  PUT(L, sys->L, g->nsb * v3);
  PUT(q, sys->q, g->nsb * sizeof(fl_quat));
  PUT(f, NULL, g->nsb * v3);
  PUT(t, NULL, g->nsb * v3);
  PUT(gt, NULL, g->nsb * v3);
  PUT(ov, NULL, g->nsb * sizeof(double));
  PUT(xi, sys->xi, g->nsb * nt * v3);
  PUT(tshare, NULL, g->nsb * nt * v3);
  PUT(bond, sys->bond, g->nsd * sizeof(fl_bond));
  /* the bonds' whole states: the host keeps their damping state in rows of its own */
  for (int s = 0; s < ns; s++)
    fl_system_states_get(sys, s, whole + (size_t)s * nd);
  PUT(st, whole, g->nsd * sizeof(fl_bond_state));
  PUT(bf, NULL, g->nsd * v3);
  PUT(bt1, NULL, g->nsd * v3);
  PUT(bt2, NULL, g->nsd * v3);
  PUT(be, NULL, g->nsd * sizeof(double));
  PUT(damping, sys->damping, ns * sizeof(fl_bond_damping));
  PUT(limits, sys->limits, ns * sizeof(fl_bond_limits));
  PUT(law, sys->law, (size_t)ns * nt * sizeof(fl_contact_law));
  PUT(nbroken, sys->nbroken, ns * sizeof(int));
  for (int s = 0; s < ns; s++) /* no body lost yet */
    g->bad_host[s] = nb, none[s] = -1;
  PUT(bad, g->bad_host, ns * sizeof(int));
  PUT(energy, NULL, ns * sizeof(double));
  PUT(overlap, sys->overlap, ns * sizeof(double));
  PUT(grip_force, NULL, ns * v3);
  PUT(grip_torque, NULL, ns * v3);
  PUT(tool_force, NULL, (size_t)ns * nt * v3);
  PUT(pload_force, sys->pload_force, ns * sizeof(double));
  PUT(track, NULL, ns * sizeof(fl_track));
  PUT(bad_step, none, ns * sizeof(long));
  PUT(bad_body, NULL, ns * sizeof(int));
  *out = g;
  rc = FL_OK;
fail:
  free(start), free(list), free(side), free(fill), free(whole), free(none);
  if (rc != FL_OK)
    fl_gpu_free(&g);
  return rc;
}

/* Copy n bytes back from the device (waiting for it), the error kept in g. */
static int get(fl_gpu *g, void *dst, const void *src, size_t n)
{
  return n == 0 ? FL_OK : check(g, cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost), "copy from the device");
}

/* The bond and body kernels of one step with the grip's motion gm (no wait). */
static void launch_step(fl_gpu *g, const fl_system *sys, const fl_grip_motion *gm)
{
  fl_gpu_dev d = g->d;
  fl_step_args a;
  memcpy(a.tool, sys->tool, sizeof a.tool);
  a.pl = sys->pload;
  a.g = sys->gravity;
  a.dt = sys->dt;
  a.disp = gm->disp;
  a.vg = sys->grip_speed;
  a.qg = gm->qg;
  a.wg = gm->wg;
  size_t nd = g->nsd, nb = g->nsb;
  if (nd > 0)
    FL_LAUNCH(k_bonds, blocks_for(nd, block_threads(nd)), block_threads(nd), 0, d);
  FL_LAUNCH(k_bodies, blocks_for(nb, block_threads(nb)), block_threads(nb), 0, d, a);
}

extern "C" int fl_gpu_step(fl_gpu *g, fl_system *sys, int *bad_spec, int *bad_bond)
{
  fl_gpu_dev d = g->d;
  fl_grip_motion gm = fl_system_grip_motion(sys);
  /* bad[s] = nbody: no body lost */
  int *fill = g->bad_host;
  for (int s = 0; s < d.nspec; s++)
    fill[s] = d.nbody;
  int rc = check(g, cudaMemcpy(d.bad, fill, (size_t)d.nspec * sizeof(int), cudaMemcpyHostToDevice), "copy to the device");
  if (rc)
    return rc;
  launch_step(g, sys, &gm);
  if ((rc = check(g, cudaGetLastError(), "a step's kernels")) || (rc = get(g, fill, d.bad, (size_t)d.nspec * sizeof(int))))
    return rc;
  fl_system_step_end(sys, &gm);
  for (int s = 0; s < d.nspec; s++)
    if (fill[s] < d.nbody) {
      *bad_spec = s;
      *bad_bond = fl_system_body_bond(sys, fill[s]);
      return FL_EUNSTABLE;
    }
  return FL_OK;
}

extern "C" int fl_gpu_track_put(fl_gpu *g, enum fl_test_kind kind, const fl_track *tr)
{
  g->kind = kind;
  return check(g, cudaMemcpy(g->d.track, tr, (size_t)g->d.nspec * sizeof *tr, cudaMemcpyHostToDevice),
               "copy to the device");
}

extern "C" int fl_gpu_step_tracked(fl_gpu *g, fl_system *sys, long n, double tm, double pos)
{
  fl_gpu_dev d = g->d;
  fl_grip_motion gm = fl_system_grip_motion(sys);
  launch_step(g, sys, &gm);
  size_t ns = (size_t)d.nspec;
  FL_LAUNCH(k_measure, blocks_for(ns, block_threads(ns)), block_threads(ns), 0, d);
  FL_LAUNCH(k_track, blocks_for(ns, block_threads(ns)), block_threads(ns), 0, d, g->kind, sys->pload, n, tm, pos);
  fl_system_step_end(sys, &gm);
  return check(g, cudaGetLastError(), "a step's kernels");
}

extern "C" int fl_gpu_track_get(fl_gpu *g, const fl_system *sys, fl_track *tr, long *bad_step, int *bad_spec,
                                int *bad_bond)
{
  fl_gpu_dev d = g->d;
  size_t ns = (size_t)d.nspec;
  long *step = (long *)malloc(ns * sizeof(long));
  if (!step)
    return FL_ENOMEM;
  int rc = get(g, tr, d.track, ns * sizeof *tr);
  if (rc == FL_OK)
    rc = get(g, step, d.bad_step, ns * sizeof(long));
  if (rc == FL_OK)
    rc = get(g, g->bad_host, d.bad_body, ns * sizeof(int));
  *bad_step = -1;
  for (size_t s = 0; rc == FL_OK && s < ns; s++)
    if (step[s] >= 0 && (*bad_step < 0 || step[s] < *bad_step)) {
      *bad_step = step[s];
      *bad_spec = (int)s;
      *bad_bond = fl_system_body_bond(sys, g->bad_host[s]);
    }
  free(step);
  return rc;
}

extern "C" int fl_gpu_download(fl_gpu *g, fl_system *sys)
{
  fl_gpu_dev d = g->d;
  size_t v3 = sizeof(fl_vec3);
  if (get(g, sys->x, d.x, g->nsb * v3) || get(g, sys->v, d.v, g->nsb * v3) || get(g, sys->w, d.w, g->nsb * v3) ||
      get(g, sys->L, d.L, g->nsb * v3) || get(g, sys->q, d.q, g->nsb * sizeof(fl_quat)) ||
      get(g, sys->xi, d.xi, g->nsb * d.ntool * v3) || get(g, sys->bstate, d.st, g->nsd * sizeof(fl_bond_state)) ||
      get(g, sys->nbroken, d.nbroken, d.nspec * sizeof(int)) || get(g, sys->overlap, d.overlap, d.nspec * sizeof(double)))
    return FL_EIO;
  /* the damping state and the flags into the host's rows (whole states came down) */
  for (int s = 0; s < d.nspec; s++)
    for (int b = 0; b < d.nbond; b++)
      fl_system_damp_put(sys, s, b, &sys->bstate[(size_t)s * d.nbond + b]);
  return FL_OK;
}

extern "C" int fl_gpu_eval_bonds(int n, const fl_bond *bond, const fl_bond_damping *dm, const fl_bond_limits *lim,
                                 const fl_body *b1, const fl_body *b2, fl_bond_state *st, fl_bond_loads *loads)
{
  if (n <= 0)
    return FL_OK;
  void *p[7] = {0};
  size_t sz[7] = {sizeof *bond, sizeof *dm, sizeof *lim, sizeof *b1, sizeof *b2, sizeof *st, sizeof *loads};
  const void *src[7] = {bond, dm, lim, b1, b2, st, NULL};
  int rc = FL_OK;
  for (int k = 0; k < 7 && rc == FL_OK; k++) {
    if (cudaMalloc(&p[k], sz[k] * (size_t)n + 8) != cudaSuccess)
      rc = FL_ENOMEM;
    else if (src[k] && cudaMemcpy(p[k], src[k], sz[k] * (size_t)n, cudaMemcpyHostToDevice) != cudaSuccess)
      rc = FL_EIO;
  }
  if (rc == FL_OK) {
    FL_LAUNCH(k_eval_bonds, blocks_for((size_t)n, block_threads((size_t)n)), block_threads((size_t)n), 0, n, (const fl_bond *)p[0], (const fl_bond_damping *)p[1],
              (const fl_bond_limits *)p[2], (const fl_body *)p[3], (const fl_body *)p[4], (fl_bond_state *)p[5],
              (fl_bond_loads *)p[6]);
    if (cudaGetLastError() != cudaSuccess || get(NULL, st, p[5], sizeof *st * (size_t)n) ||
        get(NULL, loads, p[6], sizeof *loads * (size_t)n))
      rc = FL_EIO;
  }
  for (int k = 0; k < 7; k++)
    if (p[k])
      cudaFree(p[k]);
  return rc;
}

extern "C" const char *fl_gpu_error(const fl_gpu *g) { return g && g->err[0] ? g->err : "CUDA: no error recorded"; }

extern "C" void fl_gpu_free(fl_gpu **gpu)
{
  if (!gpu || !*gpu)
    return;
  for (int k = 0; k < (*gpu)->nblocks; k++)
    cudaFree((*gpu)->blocks[k]);
  free((*gpu)->bad_host);
  free(*gpu);
  *gpu = NULL;
}
