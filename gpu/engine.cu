/* engine.cu: the CUDA engine (its kernels in kernels.cuh).  The same physics as the CPU engine (src/engine.c), from
 * the same headers: bond.h (bond law, limits, buckling), contact.h (tool contacts),
 * integrate.h (rigid-body step), and the same arrays: the state lives in device memory
 * in the layout of fl_system (system.h), so that a download is a copy; the bodies'
 * state and the damping state twice, before and after the step.  One step:
 *  - k_step: one thread per body of every specimen the common bond may serve (damped,
 *    without limits): each of the body's bonds through the vectorised law
 *    fl_bond_eval_inline (on the definitions' rows, shared by the specimens), from the
 *    state before the step, summed in ascending bond order, and the body's step into
 *    the state after it.  A bond's two bodies both evaluate it, so that its loads
 *    never go through memory; where a bond needs the general law, its bodies are left
 *    marked for
 *  - k_bonds_general: the marked bonds (every bond of the other specimens) through
 *    fl_bond_eval on the bond's whole state, loads into rows (kept apart from the
 *    common bond, whose registers the general law would otherwise set);
 *  - k_bodies: the marked bodies (every body of the other specimens): their bonds'
 *    loads gathered from the rows in ascending bond order (no floating-point atomics:
 *    runs repeat bit for bit), their tool contacts, the point load and their step;
 *  - k_watch: one thread per specimen: the tool and grip loads the test measures
 *    (summed in body order over the bodies that can carry them) and the explicit
 *    solver's watch (track.h), so that the host waits for the device only at the
 *    output rows.
 * At an output row, k_row_bonds, k_row_bodies and k_row_specimens evaluate the loads
 * from the state without moving it on, as the CPU engine's fl_system_loads (advance 0)
 * does, and what the row measures of each specimen (its tool, grip and held bodies'
 * loads, strain and kinetic energy, bond counts), which with the bodies' places is all
 * that comes back; the whole state only at the end (fl_gpu_download).  Each kernel is a thin wrapper around a function of one index (what one
 * thread does), launched through FL_LAUNCH, so that the tests' host shim of the CUDA
 * runtime (tests/cuda/cuda_runtime.h) runs this file unchanged on the CPU, every index
 * in order: no thread reads what another writes in the same launch. */
#include <cuda_runtime.h>
#include <stdint.h>
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

/* Threads a block for a launch over n indices: at most cap, a whole number of warps,
 * no more than n needs (which spares the host shim's loop the idle threads); and
 * the blocks that cover n. */
static inline unsigned block_threads(size_t n, unsigned cap = 256)
{
  return n >= cap ? cap : n == 0 ? 32u : (unsigned)((n + 31) / 32 * 32);
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

/* The load rows a bond writes for its bodies: the force on body 1 and the torques on
 * both (fl_load_row's first nine), and its energy (only at an output row). */
enum { LOAD_ROWS = FL_LOAD_ROWS };

/* A body's state, structure of arrays, index s * nbody + i. */
struct body_set {
  fl_vec3 *x, *v, *w, *L;
  fl_quat *q;
};

/* What a step's bodies leave for the watch of that step (watch_at), kept twice: the
 * step's bodies write one set while the watch of the step before reads the other. */
struct step_news {
  int *bad;                  /* the first body that left the finite numbers this step, or nbody */
  int *out;                  /* the first body outside the box after this step, or nbody */
  int *touch_lo, *touch_hi;  /* s * ntool + k: the bodies that touched tool k this step */
  fl_vec3 *tshare;           /* force of body i on tool k, (s * nbody + i) * ntool + k */
  fl_vec3 *grip_f, *grip_t;  /* s * ngrip + j: the grip's body j's force and torque about the origin */
  double *pload_force;       /* the point load of the step along its direction, N */
  int *events;               /* the bonds broken or buckled in the step */
};

/* What an output row measures of a specimen (k_row_specimens), as fl_system_loads and
 * the host's counts leave it in fl_system. */
struct row_figs {
  fl_vec3 tool[FL_MAX_TOOLS]; /* the tools' loads (tool_force), N */
  fl_vec3 grip_f, grip_t;     /* the moving grip's force and torque (grip_force, grip_torque) */
  double pload;               /* the point load (pload_force), N */
  double energy;              /* strain energy (strain_energy), J */
  double kinetic;             /* kinetic energy of the free bodies (fl_system_kinetic), J */
  double overlap;             /* the largest tool overlap so far, m */
  int nbroken;                /* bonds broken or buckled so far */
  int broken, yielded;        /* fl_system_count */
  int pad;
};

/* Device arrays, passed to kernels by value.  "rows": structure of arrays as system.h
 * lays them out, row r of specimen s at (s * ROWS + r) * nbond.  What a step reads of
 * the bodies and the damping state it reads from "now" and writes into "next" (the
 * host swaps the two after the step): a body's thread evaluates its own bonds from
 * its neighbours' state while they step (see step_at). */
struct fl_gpu_dev {
  int nspec, nbody, nbond, ntool;
  int chain;                 /* bond b joins bodies b and b + 1 (adj_chain) */
  int def_shared;            /* one set of definitions for every specimen */
  int def_uniform;           /* q0 and the stiffnesses those of the first bond */
  int quot_uniform;          /* every body has the first one's quotients */
  int ngrip;                 /* bodies the moving grip holds */
  /* per body, shared */
  const double *quot;        /* the free step's quotients, FL_BODY_ROWS rows of nbody */
  const double *mass, *ia, *it, *hl, *radius;
  const unsigned char *motion;
  const fl_vec3 *x_ref;
  const fl_quat *q_ref;
  const int *adj_start;      /* body i's bonds: adj_bond[adj_start[i] .. adj_start[i + 1]) */
  const int *adj_bond;       /* in ascending order */
  const unsigned char *adj_side; /* 1: the body is the bond's body 1; 2: its body 2 */
  const int *grip_slot;      /* body i's place among the moving grip's bodies, or -1 */
  const int *b1, *b2;        /* per bond */
  const double *def;         /* the definitions' rows (FL_DEF_ROWS), one set or per specimen */
  const fl_bond *bond;       /* the whole definitions, for the general law, likewise */
  /* per specimen and body, index s * nbody + i */
  body_set now, next;        /* the state before the step, and after it */
  fl_vec3 *xi;               /* contact history, (s * nbody + i) * ntool + k */
  unsigned char *body_redo;  /* 1: the step left the body to k_bodies */
  /* per specimen and bond */
  double *srow, *srow_next;  /* the state rows (FL_STATE_ROWS), before and after the step;
                              * the live row the same in both */
  fl_bond_state *st;         /* the rest of the state, index s * nbond + b (fd, td 0) */
  double *load;              /* LOAD_ROWS rows: the loads k_bodies gathers */
  unsigned char *bond_redo;  /* 1: the common law did not serve the bond this step */
  /* per specimen */
  const unsigned char *common; /* 1: damped and without limits, the common law may serve it */
  const fl_bond_damping *damping;
  const fl_bond_limits *limits;
  const fl_contact_law *law; /* s * ntool + k */
  int *nbroken;              /* bonds broken or buckled so far */
  double *overlap;           /* the largest tool overlap so far, m (kept by its bits) */
  step_news news, news_before; /* this step's, and the step's before (for its watch) */
  fl_track *track;           /* the explicit solver's watch of every step (track.h) */
  long *bad_step;            /* the first step a body failed, or -1 */
  int *bad_body;             /* that body, */
  int *bad_box;              /* 1: it left the box, 0: the finite numbers */
  /* an output row's evaluation */
  fl_vec3 *row_f, *row_t;    /* body k's loads, s * nbody + i */
  fl_vec3 *row_share;        /* body k's force on tool m, k * ntool + m */
  int nheld;                 /* bodies the fixed grip or the clamp holds */
  const int *held;           /* their indices, ascending */
  fl_vec3 *held_ft;          /* (s * nheld + j) * 2: held body j's force, then its torque */
  row_figs *figs;            /* per specimen */
};

/* What a step's body kernel takes from the host, by value: the tools where they are,
 * the point load, gravity, the time step, the moving grip's motion over the step, and
 * the bounding box. */
struct fl_step_args {
  fl_tool tool[FL_MAX_TOOLS];
  fl_point_load pl;
  fl_vec3 g;
  double dt;
  double disp, vg; /* the grip's displacement at the step's end (m) and speed (m/s) */
  fl_quat qg;      /* its turn */
  fl_vec3 wg;      /* its angular velocity, rad/s */
  double box;      /* > 0: check every body within this distance of the origin, m */
};

/* The watch of step n (from time tm and path position pos) of a test of kind. */
struct watch_args {
  enum fl_test_kind kind;
  fl_point_load pl;
  long n;
  double tm, pos;
};

struct fl_gpu {
  fl_gpu_dev d;
  enum fl_test_kind kind; /* the test the watch measures (fl_gpu_track_put) */
  int any_common;         /* some specimen's bonds may take the common law */
  cudaStream_t stream;    /* every launch and copy of the steps, in order */
  watch_args pending;     /* the last step's watch, not launched yet (pending.n >= 0) */
  long *host_long;        /* nspec longs, pinned: a download's staging */
  fl_track *host_track;   /* nspec watches, pinned */
  row_figs *host_figs;    /* nspec rows' figures, pinned */
  fl_vec3 *host_held;     /* the held bodies' loads, pinned */
  int *held;              /* the held bodies (fl_gpu_dev's held), on the host */
  long *host_look;        /* nspec longs, pinned: the first failed steps, as a look left them */
  cudaEvent_t look_done;  /* recorded after the look's copy */
  int look_pending;       /* 1: a look's copy is under way */
  void *blocks[96];       /* every cudaMalloc, for freeing */
  int nblocks;
  void *pinned[5];        /* every cudaMallocHost */
  void *locked[8];        /* the host's arrays the downloads fill, page-locked in place */
  int nlocked;
  size_t nsb, nsd;        /* specimen x body, specimen x bond */
  char err[256];          /* the last CUDA error, for messages (fl_gpu_error) */
};

#include "kernels.cuh" /* the kernels: what one thread of each does */

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
  cudaError_t e = cudaFuncGetAttributes(&fa, k_step);
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

/* The host arrays fl_gpu_create fills before they go to the device. */
struct staging {
  double *quot;        /* the free step's quotients */
  int *grip_slot;      /* nbody */
  unsigned char *common; /* nspec */
  int *lo, *hi;        /* nspec * ntool: no body touched a tool yet */
  int *none_int;       /* nspec: nbody, no body lost */
  long *none_long;     /* nspec: -1, no failure */
  int *held;           /* the bodies the fixed grip or the clamp holds, ascending */
  int nheld;
};

static void staging_free(staging *t)
{
  free(t->quot), free(t->grip_slot), free(t->common), free(t->lo), free(t->hi), free(t->none_int), free(t->none_long);
  free(t->held);
}

/* What the device needs that sys does not hold as it is: the quotients of the free
 * step at sys->dt, the grip's bodies, the specimens the common law may serve, the
 * starting values of the counts.  Sets g->d.ngrip, g->d.quot_uniform and
 * g->any_common. */
static int staging_fill(fl_gpu *g, const fl_system *sys, staging *t)
{
  size_t nb = (size_t)sys->nbody, ns = (size_t)sys->nspec, nt = (size_t)sys->ntool;
  memset(t, 0, sizeof *t);
  t->quot = (double *)malloc(FL_BODY_ROWS * nb * sizeof(double));
  t->grip_slot = (int *)malloc(nb * sizeof(int));
  t->common = (unsigned char *)malloc(ns);
  t->lo = (int *)malloc((ns * nt + 1) * sizeof(int));
  t->hi = (int *)malloc((ns * nt + 1) * sizeof(int));
  t->none_int = (int *)malloc(ns * sizeof(int));
  t->none_long = (long *)malloc(ns * sizeof(long));
  t->held = (int *)malloc(nb * sizeof(int) + 1);
  if (!t->quot || !t->grip_slot || !t->common || !t->lo || !t->hi || !t->none_int || !t->none_long || !t->held)
    return FL_ENOMEM;
  for (size_t i = 0; i < nb; i++) {
    fl_body_quotients k = fl_integrate_quotients(sys->mass[i], sys->inertia_axial[i], sys->inertia_trans[i], sys->dt);
    double v[FL_BODY_ROWS] = {k.dtm, k.dti, k.rit, k.di, k.dtdi};
    for (int r = 0; r < FL_BODY_ROWS; r++)
      t->quot[r * nb + i] = v[r];
    t->grip_slot[i] = sys->motion[i] == FL_GRIP_MOVING ? g->d.ngrip++ : -1;
    if (sys->motion[i] == FL_GRIP_FIXED)
      t->held[t->nheld++] = (int)i;
  }
  g->d.quot_uniform = 1; /* to the bit: then the step reads the first column only */
  for (size_t i = 1; i < nb; i++)
    for (int r = 0; r < FL_BODY_ROWS; r++)
      g->d.quot_uniform &= memcmp(&t->quot[r * nb + i], &t->quot[r * nb], sizeof(double)) == 0;
  for (size_t s = 0; s < ns; s++) {
    const fl_bond_limits *l = &sys->limits[s];
    /* the CPU engine's inline_pass for an advancing step */
    t->common[s] = sys->inline_law && sys->damping[s].a_damp > 0.0 && l->criterion == FL_CRIT_NONE &&
                   l->buckling.type == FL_BUCKLING_NONE;
    g->any_common |= t->common[s];
    t->none_int[s] = sys->nbody;
    t->none_long[s] = -1;
  }
  for (size_t k = 0; k < ns * nt; k++)
    t->lo[k] = sys->nbody, t->hi[k] = -1;
  return FL_OK;
}

/* One set of a step's news on the device, with nothing to tell yet. */
static int put_news(fl_gpu *g, step_news *w, const fl_system *sys, const staging *t, char *msg, size_t len)
{
  size_t ns = (size_t)sys->nspec, nt = (size_t)sys->ntool, v3 = sizeof(fl_vec3);
  struct {
    void **to;
    const void *from;
    size_t n;
  } all[] = {{(void **)&w->bad, t->none_int, ns * sizeof(int)},
             {(void **)&w->out, t->none_int, ns * sizeof(int)},
             {(void **)&w->touch_lo, t->lo, ns * nt * sizeof(int)},
             {(void **)&w->touch_hi, t->hi, ns * nt * sizeof(int)},
             {(void **)&w->tshare, NULL, g->nsb * nt * v3},
             {(void **)&w->grip_f, NULL, ns * g->d.ngrip * v3},
             {(void **)&w->grip_t, NULL, ns * g->d.ngrip * v3},
             {(void **)&w->pload_force, sys->pload_force, ns * sizeof(double)},
             {(void **)&w->events, NULL, ns * sizeof(int)}};
  for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
    int rc = put(g, all[k].to, all[k].from, all[k].n, msg, len);
    if (rc != FL_OK)
      return rc;
  }
  return FL_OK;
}

extern "C" int fl_gpu_create(fl_gpu **out, const fl_system *sys, char *msg, size_t len)
{
  *out = NULL;
  int dev, ndev;
  cudaError_t e = select_device(&dev, &ndev, msg, len);
  if (e != cudaSuccess)
    return e == cudaErrorMemoryAllocation ? FL_ENOMEM : FL_EIO;
  if (!sys->adj_ready) {
    snprintf(msg, len, "the specimens' bond lists are not built (fl_system_adjacency)");
    return FL_EINPUT;
  }
  fl_gpu *g = (fl_gpu *)calloc(1, sizeof *g);
  if (!g)
    return FL_ENOMEM;
  staging t;
  int rc = staging_fill(g, sys, &t);
  const size_t v3 = sizeof(fl_vec3);
  int nb = sys->nbody, nd = sys->nbond, ns = sys->nspec, nt = sys->ntool;
  size_t nsets = sys->def_shared ? 1 : (size_t)ns;
  if (rc != FL_OK)
    goto fail;
  g->d.nspec = ns;
  g->d.nbody = nb;
  g->d.nbond = nd;
  g->d.ntool = nt;
  g->d.chain = sys->adj_chain;
  g->d.def_shared = sys->def_shared;
  g->d.def_uniform = sys->def_uniform;
  g->nsb = (size_t)ns * nb;
  g->nsd = (size_t)ns * nd;
  g->pending.n = -1;
  /* pinned: the host waits on them at every row; the steps' own stream, which does
   * not wait for other work on the device */
  if ((rc = check(g, cudaMallocHost((void **)&g->host_long, (size_t)ns * sizeof(long)), "cudaMallocHost")) ||
      (rc = check(g, cudaMallocHost((void **)&g->host_track, (size_t)ns * sizeof(fl_track)), "cudaMallocHost")) ||
      (rc = check(g, cudaMallocHost((void **)&g->host_figs, (size_t)ns * sizeof(row_figs)), "cudaMallocHost")) ||
      (rc = check(g, cudaMallocHost((void **)&g->host_held, (size_t)ns * t.nheld * 2 * v3 + 8), "cudaMallocHost")) ||
      (rc = check(g, cudaMallocHost((void **)&g->host_look, (size_t)ns * sizeof(long)), "cudaMallocHost")) ||
      (rc = check(g, cudaEventCreateWithFlags(&g->look_done, cudaEventDisableTiming), "cudaEventCreateWithFlags")) ||
      (rc = check(g, cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"))) {
    snprintf(msg, len, "%s", g->err);
    goto fail;
  }
  g->pinned[0] = g->host_long, g->pinned[1] = g->host_track, g->pinned[2] = g->host_figs, g->pinned[3] = g->host_held;
  g->pinned[4] = g->host_look;
  PUT(quot, t.quot, FL_BODY_ROWS * (size_t)nb * sizeof(double));
  PUT(mass, sys->mass, nb * sizeof(double));
  PUT(ia, sys->inertia_axial, nb * sizeof(double));
  PUT(it, sys->inertia_trans, nb * sizeof(double));
  PUT(hl, sys->half_length, nb * sizeof(double));
  PUT(radius, sys->radius, nb * sizeof(double));
  PUT(motion, sys->motion, nb);
  PUT(x_ref, sys->x_ref, nb * v3);
  PUT(q_ref, sys->q_ref, nb * sizeof(fl_quat));
  PUT(adj_start, sys->adj_start, ((size_t)nb + 1) * sizeof(int));
  PUT(adj_bond, sys->adj_bond, 2 * (size_t)nd * sizeof(int));
  PUT(adj_side, sys->adj_side, 2 * (size_t)nd);
  PUT(grip_slot, t.grip_slot, nb * sizeof(int));
  PUT(b1, sys->b1, nd * sizeof(int));
  PUT(b2, sys->b2, nd * sizeof(int));
  PUT(def, sys->bond_def, nsets * FL_DEF_ROWS * nd * sizeof(double));
  PUT(bond, sys->bond, nsets * nd * sizeof(fl_bond));
  /* both sets of the bodies' state alike: a body held still is never written */
  PUT(now.x, sys->x, g->nsb * v3);
  PUT(now.v, sys->v, g->nsb * v3);
  PUT(now.w, sys->w, g->nsb * v3);
  PUT(now.L, sys->L, g->nsb * v3);
  PUT(now.q, sys->q, g->nsb * sizeof(fl_quat));
  PUT(next.x, sys->x, g->nsb * v3);
  PUT(next.v, sys->v, g->nsb * v3);
  PUT(next.w, sys->w, g->nsb * v3);
  PUT(next.L, sys->L, g->nsb * v3);
  PUT(next.q, sys->q, g->nsb * sizeof(fl_quat));
  PUT(xi, sys->xi, g->nsb * nt * v3);
  PUT(srow, sys->state_row, FL_STATE_ROWS * g->nsd * sizeof(double));
  PUT(srow_next, sys->state_row, FL_STATE_ROWS * g->nsd * sizeof(double));
  PUT(st, sys->bstate, g->nsd * sizeof(fl_bond_state));
  PUT(load, NULL, LOAD_ROWS * g->nsd * sizeof(double));
  PUT(bond_redo, NULL, g->nsd);
  PUT(body_redo, NULL, g->nsb);
  PUT(common, t.common, ns);
  PUT(damping, sys->damping, ns * sizeof(fl_bond_damping));
  PUT(limits, sys->limits, ns * sizeof(fl_bond_limits));
  PUT(law, sys->law, (size_t)ns * nt * sizeof(fl_contact_law));
  PUT(nbroken, sys->nbroken, ns * sizeof(int));
  PUT(overlap, sys->overlap, ns * sizeof(double));
  if ((rc = put_news(g, &g->d.news, sys, &t, msg, len)) || (rc = put_news(g, &g->d.news_before, sys, &t, msg, len)))
    goto fail;
  PUT(track, NULL, ns * sizeof(fl_track));
  PUT(bad_step, t.none_long, ns * sizeof(long));
  PUT(bad_body, NULL, ns * sizeof(int));
  PUT(bad_box, NULL, ns * sizeof(int));
  g->d.nheld = t.nheld;
  g->held = t.held, t.held = NULL; /* the host's copy */
  PUT(held, g->held, (size_t)g->d.nheld * sizeof(int));
  PUT(held_ft, NULL, (size_t)ns * t.nheld * 2 * v3);
  PUT(row_f, NULL, g->nsb * v3);
  PUT(row_t, NULL, g->nsb * v3);
  PUT(row_share, NULL, g->nsb * nt * v3);
  PUT(figs, NULL, ns * sizeof(row_figs));
  *out = g;
  rc = FL_OK;
fail:
  staging_free(&t);
  if (rc != FL_OK)
    fl_gpu_free(&g);
  return rc;
}

/* Copy n bytes back from the device after the steps' work so far (on their stream),
 * without waiting for it: the error kept in g. */
static int get_async(fl_gpu *g, void *dst, const void *src, size_t n)
{
  return n == 0 ? FL_OK
                : check(g, cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, g->stream), "copy from the device");
}

/* Wait for the steps' stream: a kernel's fault shows here. */
static int wait_steps(fl_gpu *g) { return check(g, cudaStreamSynchronize(g->stream), "the steps' kernels"); }

/* get_async, and wait for the copy. */
static int get(fl_gpu *g, void *dst, const void *src, size_t n)
{
  int rc = get_async(g, dst, src, n);
  return rc == FL_OK ? wait_steps(g) : rc;
}

/* Launch the watch of the last step, where no step has taken it along yet. */
static int watch_flush(fl_gpu *g)
{
  if (g->pending.n < 0)
    return FL_OK;
  size_t ns = (size_t)g->d.nspec;
  FL_LAUNCH(k_watch, blocks_for(ns, block_threads(ns)), block_threads(ns), g->stream, g->d, g->pending);
  g->pending.n = -1;
  return check(g, cudaGetLastError(), "the watch's kernel");
}

extern "C" int fl_gpu_track_put(fl_gpu *g, enum fl_test_kind kind, const fl_track *tr)
{
  int rc = watch_flush(g); /* the steps so far watched, before the host's watch replaces it */
  if (rc != FL_OK)
    return rc;
  g->kind = kind;
  return check(g,
               cudaMemcpyAsync(g->d.track, tr, (size_t)g->d.nspec * sizeof *tr, cudaMemcpyHostToDevice, g->stream),
               "copy to the device");
}

/* A step's arguments from the host's system (the grip's motion gm over the step). */
static fl_step_args step_args(const fl_system *sys, const fl_grip_motion &gm, double box)
{
  fl_step_args a;
  memcpy(a.tool, sys->tool, sizeof a.tool);
  a.pl = sys->pload;
  a.g = sys->gravity;
  a.dt = sys->dt;
  a.disp = gm.disp;
  a.vg = sys->grip_speed;
  a.qg = gm.qg;
  a.wg = gm.wg;
  a.box = box;
  return a;
}

extern "C" int fl_gpu_step(fl_gpu *g, fl_system *sys, long n, double tm, double pos, double box)
{
  const fl_gpu_dev &d = g->d;
  fl_grip_motion gm = fl_system_grip_motion(sys);
  fl_step_args a = step_args(sys, gm, box);
  size_t nd = g->nsd, nb = g->nsb, ns = (size_t)d.nspec;
  cudaStream_t st = g->stream;
  if (g->any_common)
    FL_LAUNCH(k_step, blocks_for(nb, block_threads(nb, K_STEP_THREADS)), block_threads(nb, K_STEP_THREADS), st, d, a);
  if (nd > 0)
    FL_LAUNCH(k_bonds_general, blocks_for(nd, block_threads(nd)), block_threads(nd), st, d);
  /* the bodies k_step left, and the watch of the step before */
  size_t nbw = nb + (g->pending.n >= 0 ? ns : 0);
  FL_LAUNCH(k_bodies, blocks_for(nbw, block_threads(nbw)), block_threads(nbw), st, d, a, g->pending);
  /* the state after the step is the next one's before; this step's news the next
   * one's news_before, for this step's watch */
  body_set bs = g->d.now;
  g->d.now = g->d.next, g->d.next = bs;
  double *rows = g->d.srow;
  g->d.srow = g->d.srow_next, g->d.srow_next = rows;
  step_news w = g->d.news;
  g->d.news = g->d.news_before, g->d.news_before = w;
  g->pending.kind = g->kind;
  g->pending.pl = sys->pload;
  g->pending.n = n;
  g->pending.tm = tm;
  g->pending.pos = pos;
  fl_system_step_end(sys, &gm);
  return check(g, cudaGetLastError(), "a step's kernels");
}

extern "C" int fl_gpu_track_get(fl_gpu *g, const fl_system *sys, fl_track *tr, long *bad_step, int *bad_spec,
                                int *bad_bond)
{
  const fl_gpu_dev &d = g->d;
  size_t ns = (size_t)d.nspec;
  *bad_step = -1;
  int rc = watch_flush(g);
  if (rc == FL_OK)
    rc = get_async(g, g->host_track, d.track, ns * sizeof *tr);
  if (rc == FL_OK)
    rc = get(g, g->host_long, d.bad_step, ns * sizeof(long));
  if (rc == FL_OK)
    memcpy(tr, g->host_track, ns * sizeof *tr);
  for (size_t s = 0; rc == FL_OK && s < ns; s++) /* the earliest step, then the first specimen */
    if (g->host_long[s] >= 0 && (*bad_step < 0 || g->host_long[s] < *bad_step)) {
      *bad_step = g->host_long[s];
      *bad_spec = (int)s;
    }
  if (rc != FL_OK || *bad_step < 0)
    return rc;
  /* the body, and the bond it is reported at: the first with it (the finite numbers),
   * or the one before it (the box), as the CPU solver reports them */
  int body = 0, box = 0;
  if ((rc = get(g, &body, d.bad_body + *bad_spec, sizeof body)) || (rc = get(g, &box, d.bad_box + *bad_spec, sizeof box)))
    return rc;
  *bad_bond = box ? (body > 0 ? body - 1 : 0) : fl_system_body_bond(sys, body);
  return FL_OK;
}

extern "C" int fl_gpu_look(fl_gpu *g, long *bad_step)
{
  size_t ns = (size_t)g->d.nspec;
  *bad_step = -1;
  if (g->look_pending) {
    cudaError_t e = cudaEventQuery(g->look_done);
    if (e == cudaErrorNotReady) { /* the device is still on the steps before it: the next look */
      cudaGetLastError();         /* not an error: cleared, so that the next launch's check passes */
      return FL_OK;
    }
    if (e != cudaSuccess)
      return check(g, e, "the steps' kernels");
    g->look_pending = 0;
    for (size_t s = 0; s < ns; s++)
      if (g->host_look[s] >= 0 && (*bad_step < 0 || g->host_look[s] < *bad_step))
        *bad_step = g->host_look[s];
    if (*bad_step >= 0)
      return FL_OK;
  }
  int rc = get_async(g, g->host_look, g->d.bad_step, ns * sizeof(long));
  if (rc == FL_OK)
    rc = check(g, cudaEventRecord(g->look_done, g->stream), "cudaEventRecord");
  g->look_pending = rc == FL_OK;
  return rc;
}

/* What a download copies: each device array into the host's own. */
struct download {
  void *to;
  const void *from;
  size_t n;
};

static int download_list(const fl_gpu *g, fl_system *sys, download *list)
{
  const fl_gpu_dev &d = g->d;
  size_t v3 = sizeof(fl_vec3);
  download all[] = {{sys->x, d.now.x, g->nsb * v3},
                    {sys->v, d.now.v, g->nsb * v3},
                    {sys->w, d.now.w, g->nsb * v3},
                    {sys->L, d.now.L, g->nsb * v3},
                    {sys->q, d.now.q, g->nsb * sizeof(fl_quat)},
                    {sys->bstate, d.st, g->nsd * sizeof(fl_bond_state)},
                    {sys->state_row, d.srow, FL_STATE_ROWS * g->nsd * sizeof(double)},
                    {sys->xi, d.xi, g->nsb * d.ntool * v3},
                    {sys->nbroken, d.nbroken, (size_t)d.nspec * sizeof(int)},
                    {sys->overlap, d.overlap, (size_t)d.nspec * sizeof(double)}};
  memcpy(list, all, sizeof all);
  return (int)(sizeof all / sizeof *all);
}

/* Page-lock the host's large arrays that the downloads fill, in place, so that they
 * go at the bus's full speed (where the system refuses, they stay pageable). */
static void lock_host(fl_gpu *g, fl_system *sys)
{
  download list[16] = {};
  int n = download_list(g, sys, list);
  for (int k = 0; k < n && g->nlocked < (int)(sizeof g->locked / sizeof *g->locked); k++) {
    if (list[k].n < ((size_t)1 << 18))
      continue; /* small: not worth a lock */
    if (cudaHostRegister(list[k].to, list[k].n, cudaHostRegisterDefault) == cudaSuccess)
      g->locked[g->nlocked++] = list[k].to;
    else
      cudaGetLastError();
  }
}

extern "C" int fl_gpu_download(fl_gpu *g, fl_system *sys)
{
  download list[16] = {};
  int n = download_list(g, sys, list);
  if (g->nlocked == 0 && g->nsd + g->nsb >= ((size_t)1 << 16))
    lock_host(g, sys); /* once, at the first download of a large system */
  for (int k = 0; k < n; k++) { /* in order on the steps' stream, then one wait */
    int rc = get_async(g, list[k].to, list[k].from, list[k].n);
    if (rc)
      return rc;
  }
  return wait_steps(g);
}

extern "C" int fl_gpu_row(fl_gpu *g, fl_system *sys, double *kinetic, int *broken, int *yielded)
{
  const fl_gpu_dev &d = g->d;
  size_t nd = g->nsd, nb = g->nsb, ns = (size_t)d.nspec, nh = ns * d.nheld * 2;
  int rc = watch_flush(g);
  if (rc != FL_OK)
    return rc;
  fl_grip_motion gm = fl_system_grip_motion(sys);
  fl_step_args a = step_args(sys, gm, 0.0);
  cudaStream_t st = g->stream;
  if (nd > 0)
    FL_LAUNCH(k_row_bonds, blocks_for(nd, block_threads(nd)), block_threads(nd), st, d);
  FL_LAUNCH(k_row_bodies, blocks_for(nb, block_threads(nb)), block_threads(nb), st, d, a);
  FL_LAUNCH(k_row_specimens, blocks_for(ns, block_threads(ns)), block_threads(ns), st, d);
  if ((rc = check(g, cudaGetLastError(), "an output row's kernels")))
    return rc;
  if (g->nlocked == 0 && nd + nb >= ((size_t)1 << 16))
    lock_host(g, sys); /* once, at the first row of a large system */
  if ((rc = get_async(g, g->host_figs, d.figs, ns * sizeof(row_figs))) ||
      (rc = get_async(g, g->host_held, d.held_ft, nh * sizeof(fl_vec3))) ||
      (rc = get_async(g, sys->x, d.now.x, nb * sizeof(fl_vec3))) ||
      (rc = get_async(g, sys->q, d.now.q, nb * sizeof(fl_quat))) || (rc = wait_steps(g)))
    return rc;
  for (size_t s = 0; s < ns; s++) {
    const row_figs &r = g->host_figs[s];
    for (int m = 0; m < d.ntool; m++)
      sys->tool_force[s * d.ntool + m] = r.tool[m];
    sys->grip_force[s] = r.grip_f;
    sys->grip_torque[s] = r.grip_t;
    if (sys->pload.body >= 0)
      sys->pload_force[s] = r.pload;
    sys->strain_energy[s] = r.energy;
    sys->overlap[s] = r.overlap;
    sys->nbroken[s] = r.nbroken;
    kinetic[s] = r.kinetic;
    broken[s] = r.broken;
    yielded[s] = r.yielded;
    for (int j = 0; j < d.nheld; j++) {
      size_t k = s * d.nbody + g->held[j], at = (s * d.nheld + j) * 2;
      sys->f[k] = g->host_held[at];
      sys->t[k] = g->host_held[at + 1];
    }
  }
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
    FL_LAUNCH(k_eval_bonds, blocks_for((size_t)n, block_threads((size_t)n)), block_threads((size_t)n), 0, n,
              (const fl_bond *)p[0], (const fl_bond_damping *)p[1], (const fl_bond_limits *)p[2], (const fl_body *)p[3],
              (const fl_body *)p[4], (fl_bond_state *)p[5], (fl_bond_loads *)p[6]);
    if (cudaGetLastError() != cudaSuccess || get(NULL, st, p[5], sizeof *st * (size_t)n) ||
        get(NULL, loads, p[6], sizeof *loads * (size_t)n))
      rc = FL_EIO;
  }
  for (int k = 0; k < 7; k++)
    if (p[k])
      cudaFree(p[k]);
  return rc;
}

extern "C" int fl_gpu_kernels(fl_gpu_kernel *k, int max)
{
  struct {
    const char *name;
    const void *fn;
  } all[] = {{"k_step", (const void *)k_step},
             {"k_bonds_general", (const void *)k_bonds_general},
             {"k_bodies", (const void *)k_bodies},
             {"k_watch", (const void *)k_watch},
             {"k_row_bonds", (const void *)k_row_bonds},
             {"k_row_bodies", (const void *)k_row_bodies},
             {"k_row_specimens", (const void *)k_row_specimens}};
  int n = 0;
  for (size_t i = 0; i < sizeof all / sizeof *all && n < max; i++) {
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, all[i].fn) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    k[n].name = all[i].name;
    k[n].registers = fa.numRegs;
    k[n].local_bytes = (long)fa.localSizeBytes;
    n++;
  }
  return n;
}

extern "C" double fl_gpu_bytes_per_update(const fl_system *sys)
{
  if (!sys)
    return 0.0;
  double ns = sys->nspec, per_body = sys->nbond > 0 ? (double)sys->nbody / sys->nbond : 1.0;
  double shared = sys->def_shared ? 1.0 / ns : 1.0; /* read once for the batch */
  double d = sizeof(double), v3 = sizeof(fl_vec3), q = sizeof(fl_quat);
  /* Every bond evaluated by both its bodies' threads in k_step (bond_common): what the
   * second thread reads of it, its neighbour in the warp read first, so it counts
   * once, as a body's state counts once for its bonds.  A bond: r1 and r2 (q0, the
   * stiffnesses and the flag where they vary), the live flag, the damping state read
   * and written (put_damping), and the two ends of any bonds (b1, b2). */
  double def = (6 + (sys->def_uniform ? 0 : FL_DEF_ROWS - FL_DEF_Q0)) * d * shared;
  double ends = sys->adj_chain ? 0.0 : 2 * sizeof(int);
  double bond = def + d + 2 * 6 * d + ends;
  /* k_bonds_general: the bond's redo flag (left 0 by k_step on the common path) */
  bond += 1;
  /* A body in k_step: its bond list (adj_start, adj_bond, adj_side; none for a
   * chain), its state read (x, q, v, w for its bonds, L for its step) and written
   * (x, v, q, L, w into the other set), its quotients (one column where every body's
   * are the same) and motion, shared by the batch; then in k_bodies its redo flag. */
  double lists = sys->adj_chain ? 0.0 : (sizeof(int) + 2 * (sizeof(int) + 1) / per_body) * shared;
  int uniform = 1;
  for (int i = 1; i < sys->nbody && uniform; i++)
    uniform = sys->mass[i] == sys->mass[0] && sys->inertia_axial[i] == sys->inertia_axial[0] &&
              sys->inertia_trans[i] == sys->inertia_trans[0];
  double quot = uniform ? 0.0 : FL_BODY_ROWS * d;
  double body = lists + (3 * v3 + q) + v3 + (4 * v3 + q) + (quot + 1) * shared + 1;
  return bond + body * per_body;
}

extern "C" double fl_gpu_row_bytes(const fl_system *sys, int whole)
{
  if (!sys)
    return 0.0;
  double ns = sys->nspec, nsb = ns * sys->nbody, nsd = ns * sys->nbond, v3 = sizeof(fl_vec3);
  double watch = ns * (sizeof(fl_track) + sizeof(long)); /* fl_gpu_track_get */
  if (whole) /* download_list */
    return watch + nsb * (4 * v3 + sizeof(fl_quat) + sys->ntool * v3) +
           nsd * (sizeof(fl_bond_state) + FL_STATE_ROWS * sizeof(double)) + ns * (sizeof(int) + sizeof(double));
  int nheld = 0;
  for (int i = 0; i < sys->nbody; i++)
    nheld += sys->motion[i] == FL_GRIP_FIXED;
  return watch + ns * (sizeof(row_figs) + nheld * 2 * v3) + nsb * (v3 + sizeof(fl_quat));
}

extern "C" const char *fl_gpu_error(const fl_gpu *g) { return g && g->err[0] ? g->err : "CUDA: no error recorded"; }

extern "C" void fl_gpu_free(fl_gpu **gpu)
{
  if (!gpu || !*gpu)
    return;
  fl_gpu *g = *gpu;
  if (g->stream)
    cudaStreamDestroy(g->stream); /* after its work, which the frees below wait for too */
  for (int k = 0; k < g->nblocks; k++)
    cudaFree(g->blocks[k]);
  if (g->look_done)
    cudaEventDestroy(g->look_done);
  for (int k = 0; k < 5; k++)
    if (g->pinned[k])
      cudaFreeHost(g->pinned[k]);
  for (int k = 0; k < g->nlocked; k++)
    cudaHostUnregister(g->locked[k]);
  free(g->held);
  free(g);
  *gpu = NULL;
}
