/* gpu.h: the CUDA engine's C interface (gpu/engine.cu).  The host builds an fl_system
 * as for the CPU engine; the GPU engine keeps a copy in device memory (structure of
 * arrays, cudaMalloc) and advances it with the same physics headers (bond.h,
 * contact.h, integrate.h).  Loads are gathered per body in a fixed order, so a GPU
 * run repeats bit for bit. */
#ifndef FL_GPU_H
#define FL_GPU_H

#include <stddef.h>

#include "system.h"
#include "track.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_gpu fl_gpu;

/* 1 when the build has CUDA and a device answers; otherwise 0 and a reason in msg. */
int fl_gpu_available(char *msg, size_t len);
/* Device name and memory bandwidth (GB/s, from clock and bus width), for reports. */
int fl_gpu_describe(char *name, size_t len, double *bandwidth_gbs);

/* Copy sys (after fl_build, the bond lists and the time step) to the device, in the
 * host's layout (system.h). */
int fl_gpu_create(fl_gpu **gpu, const fl_system *sys, char *msg, size_t len);
/* The explicit solver's watch of every step on the device (track.h), so that the host
 * waits for it only at output rows.  Put the host's watch tr of every specimen of a
 * test of kind (again after the host changed it). */
int fl_gpu_track_put(fl_gpu *gpu, enum fl_test_kind kind, const fl_track *tr);
/* Step n (from time tm and path position pos) on the device with the host's grip, tool
 * and point-load motion, without waiting: the step, the host's bookkeeping
 * (fl_system_step_end), the measured loads and the watch, and with box > 0 the check
 * that every body ends it within box of the origin (m).  FL_OK, or an error when a
 * kernel did not start (fl_gpu_error). */
int fl_gpu_step(fl_gpu *gpu, fl_system *sys, long n, double tm, double pos, double box);
/* Wait for the device and copy the watch back into tr, with the first step at which a
 * body left the finite numbers, or the box after a step that checked it (*bad_step,
 * -1: none), its specimen and the bond it is reported at (as the CPU solver reports
 * them). */
int fl_gpu_track_get(fl_gpu *gpu, const fl_system *sys, fl_track *tr, long *bad_step, int *bad_spec, int *bad_bond);
/* An output row: the loads of the state after the last step evaluated on the device
 * without moving it on (as fl_system_loads(sys, 0)), and copied into sys only what a
 * row measures: the bodies' places (x, q), the loads on the held bodies (f, t), each
 * specimen's tool, grip and point loads, strain energy, overlap and broken count; and
 * each specimen's kinetic energy (fl_system_kinetic) and bond counts (fl_system_count)
 * into kinetic, broken and yielded (nspec each). */
int fl_gpu_row(fl_gpu *gpu, fl_system *sys, double *kinetic, int *broken, int *yielded);
/* A look at the watch without waiting for the device: the first step at which a body
 * failed (*bad_step, -1: none) as the last look's copy found it, if that copy is done,
 * and a new copy on its way behind the steps launched so far.  A failure shows a look
 * or two after its step (fl_gpu_track_get then says where). */
int fl_gpu_look(fl_gpu *gpu, long *bad_step);
/* Copy the device state (bodies, bond states and their rows, contact history, counters)
 * to sys. */
int fl_gpu_download(fl_gpu *gpu, fl_system *sys);
/* Evaluate n bonds on the device (for the CPU-versus-GPU check): loads[i] for
 * bond[i] between b1[i] and b2[i] with state st[i] (advanced), damping dm[i], limits
 * lim[i] (criterion none and buckling none: elastic). */
int fl_gpu_eval_bonds(int n, const fl_bond *bond, const fl_bond_damping *dm, const fl_bond_limits *lim,
                      const fl_body *b1, const fl_body *b2, fl_bond_state *st, fl_bond_loads *loads);

/* One kernel as the device's compiler built it, for the benchmark. */
typedef struct {
  const char *name;
  int registers;    /* a thread */
  long local_bytes; /* a thread's local memory: stack and spills */
} fl_gpu_kernel;
/* The engine's kernels, at most max into k; how many (0 without a device). */
int fl_gpu_kernels(fl_gpu_kernel *k, int max);
/* Bytes a bond update moves through device memory on the common path, for sys's
 * layout (a chain or any bonds, definitions uniform or not, shared by the batch or
 * not): each array element once for each kernel that reads or writes it, a body's
 * state once for its bonds and a bond once for its two bodies, what the batch shares
 * once for the batch (sys NULL: 0; -1 in a build without the engine). */
double fl_gpu_bytes_per_update(const fl_system *sys);
/* Bytes an output row copies back from the device for sys's layout, the watch included:
 * whole 0, fl_gpu_row's (every row but the last); whole 1, the whole state
 * (fl_gpu_download: the last row, and every row before the device evaluated them)
 * (sys NULL: 0; -1 in a build without the engine). */
double fl_gpu_row_bytes(const fl_system *sys, int whole);
/* The last CUDA error a call on gpu met ("CUDA: what: why"), for the caller's message:
 * a kernel's fault shows at the next call that waits for the device. */
const char *fl_gpu_error(const fl_gpu *gpu);
void fl_gpu_free(fl_gpu **gpu);

#ifdef __cplusplus
}
#endif

#endif
