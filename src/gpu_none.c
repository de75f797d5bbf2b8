/* gpu_none.c: the CUDA engine's interface (gpu.h) in a build without CUDA: no device
 * answers, and every entry that would need one fails with a message saying so.  A
 * build with --with-cuda links gpu/engine.cu in its place, and the tests' host shim of
 * the CUDA runtime links the same file compiled for the CPU (tests/gpu-shim.sh). */
#include <config.h>

#include <stdio.h>

#include "fl_defs.h"
#include "gpu.h"

static const char none[] = "this fiberlab was built without CUDA";

int fl_gpu_available(char *msg, size_t len)
{
  snprintf(msg, len, "%s", none);
  return 0;
}

int fl_gpu_describe(char *name, size_t len, double *bandwidth_gbs)
{
  snprintf(name, len, "none");
  *bandwidth_gbs = 0.0;
  return FL_EINPUT;
}

int fl_gpu_create(fl_gpu **gpu, const fl_system *sys, char *msg, size_t len)
{
  (void)sys;
  *gpu = NULL;
  snprintf(msg, len, "%s", none);
  return FL_EINPUT;
}

int fl_gpu_track_put(fl_gpu *gpu, enum fl_test_kind kind, const fl_track *tr)
{
  (void)gpu, (void)kind, (void)tr;
  return FL_EINPUT;
}

int fl_gpu_step(fl_gpu *gpu, fl_system *sys, long n, double tm, double pos, double box)
{
  (void)gpu, (void)sys, (void)n, (void)tm, (void)pos, (void)box;
  return FL_EINPUT;
}

int fl_gpu_track_get(fl_gpu *gpu, const fl_system *sys, fl_track *tr, long *bad_step, int *bad_spec, int *bad_bond)
{
  (void)gpu, (void)sys, (void)tr, (void)bad_spec, (void)bad_bond;
  *bad_step = -1;
  return FL_EINPUT;
}

int fl_gpu_download(fl_gpu *gpu, fl_system *sys)
{
  (void)gpu, (void)sys;
  return FL_EINPUT;
}

int fl_gpu_look(fl_gpu *gpu, long *bad_step)
{
  (void)gpu;
  *bad_step = -1;
  return FL_EINPUT;
}

int fl_gpu_row(fl_gpu *gpu, fl_system *sys, double *kinetic, int *broken, int *yielded)
{
  (void)gpu, (void)sys, (void)kinetic, (void)broken, (void)yielded;
  return FL_EINPUT;
}

int fl_gpu_eval_bonds(int n, const fl_bond *bond, const fl_bond_damping *dm, const fl_bond_limits *lim,
                      const fl_body *b1, const fl_body *b2, fl_bond_state *st, fl_bond_loads *loads)
{
  (void)n, (void)bond, (void)dm, (void)lim, (void)b1, (void)b2, (void)st, (void)loads;
  return FL_EINPUT;
}

const char *fl_gpu_error(const fl_gpu *gpu)
{
  (void)gpu;
  return none;
}

double fl_gpu_row_bytes(const fl_system *sys, int whole)
{
  (void)sys, (void)whole;
  return -1.0;
}

int fl_gpu_kernels(fl_gpu_kernel *k, int max)
{
  (void)k, (void)max;
  return 0;
}

double fl_gpu_bytes_per_update(const fl_system *sys)
{
  (void)sys;
  return -1.0;
}

void fl_gpu_free(fl_gpu **gpu)
{
  if (gpu)
    *gpu = NULL;
}
