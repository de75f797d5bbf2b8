/* cuda_runtime.h (tests): a host shim of the part of the CUDA runtime that
 * gpu/engine.cu uses, so that g++ compiles the engine, unchanged, for the CPU and the
 * tests run its kernels there (tests/gpu-shim.sh).  Device memory is host memory from
 * malloc, filled with a poison byte (0xff: every double a NaN, every index -1) so that
 * a read of memory the engine never wrote shows; copies are memcpy; a launch
 * (FL_LAUNCH) runs the kernel for every block and every thread in turn, in index
 * order, on the calling thread; the atomics are plain read-modify-writes.
 *
 * With FL_SHIM_ULP=N in the environment (N >= 1), one result in N of sin, cos and
 * atan2 in the engine (a deterministic pseudo-random choice by the argument's bits) is
 * moved by one unit in the last place, up or down, as a device's maths library may
 * round them (gpu/README.md, Accuracy).
 *
 * With FL_SHIM_FAIL=malloc:N or copy:N the N-th cudaMalloc, or the N-th copy from the
 * device, fails as a device that ran out of memory or met a kernel's fault would: the
 * engine's error paths under test. */
#ifndef FL_CUDA_SHIM_H
#define FL_CUDA_SHIM_H

/* every header the engine includes, before the maths names are taken over below */
#include <cmath>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __maxnreg__(...)

/* ---- launches ------------------------------------------------------------------- */

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
typedef dim3 uint3;

/* the thread a kernel body runs as */
inline dim3 blockIdx, threadIdx, blockDim, gridDim;

typedef int cudaError_t;
enum {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorIllegalAddress = 700,
  cudaErrorInvalidDevice = 101,
  cudaErrorNotReady = 600
};
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
typedef struct fl_shim_stream *cudaStream_t;

/* what the shim has seen: launches, threads run, bytes allocated */
struct fl_shim_counts {
  long launches;
  long threads;
  size_t bytes;
  long downloads;    /* copies from the device to the host */
  size_t down_bytes; /* and their bytes */
};
inline fl_shim_counts fl_shim_count;
inline cudaError_t fl_shim_last = cudaSuccess; /* for cudaGetLastError */
inline long fl_shim_calls = 0; /* sin, cos, atan2 results seen */
inline long fl_shim_moved = 0; /* and moved by an ulp */
inline long fl_shim_locked = 0; /* host arrays page-locked and not yet unlocked */
inline long fl_shim_locks = 0;  /* page-lockings in all */

/* What the shim saw, on the standard error at exit. */
inline void fl_shim_report(void)
{
  fprintf(stderr, "cuda shim: %ld launches, %ld threads, %zu bytes allocated, %ld downloads of %zu bytes, %ld host "
                  "arrays page-locked%s; sin, cos, atan2: %ld results, %ld moved by an ulp\n",
          fl_shim_count.launches, fl_shim_count.threads, fl_shim_count.bytes, fl_shim_count.downloads,
          fl_shim_count.down_bytes, fl_shim_locks,
          fl_shim_locked ? " (SOME LEFT LOCKED)" : "", fl_shim_calls, fl_shim_moved);
}

template <typename F> inline void fl_shim_launch(dim3 grid, dim3 block, cudaStream_t, F body)
{
  /* a device refuses an empty grid and more than 1024 threads a block */
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.x * block.y * block.z > 1024 ||
      grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535) {
    fl_shim_last = cudaErrorInvalidConfiguration;
    return;
  }
  if (fl_shim_count.launches++ == 0)
    atexit(fl_shim_report);
  gridDim = grid;
  blockDim = block;
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++)
        for (unsigned tz = 0; tz < block.z; tz++)
          for (unsigned ty = 0; ty < block.y; ty++)
            for (unsigned tx = 0; tx < block.x; tx++) {
              blockIdx = dim3(bx, by, bz);
              threadIdx = dim3(tx, ty, tz);
              fl_shim_count.threads++;
              body();
            }
}
/* The engine's launch: on the device kernel<<<blocks, threads, 0, stream>>>(...). */
#define FL_LAUNCH(kernel, blocks, threads, stream, ...)                                                           \
  fl_shim_launch(dim3(blocks), dim3(threads), (cudaStream_t)(stream), [&]() { kernel(__VA_ARGS__); })

/* ---- memory --------------------------------------------------------------------- */

#define FL_SHIM_POISON 0xff

/* 1 when this call of kind ("malloc" or "copy") is the one FL_SHIM_FAIL names */
inline bool fl_shim_fails(const char *kind, long *count)
{
  const char *e = getenv("FL_SHIM_FAIL");
  size_t n = strlen(kind);
  ++*count;
  return e && strncmp(e, kind, n) == 0 && e[n] == ':' && atol(e + n + 1) == *count;
}
inline long fl_shim_mallocs = 0, fl_shim_copies = 0;

inline cudaError_t cudaMalloc(void **p, size_t n)
{
  if (fl_shim_fails("malloc", &fl_shim_mallocs)) {
    *p = NULL;
    return fl_shim_last = cudaErrorMemoryAllocation;
  }
  *p = malloc(n ? n : 1);
  if (!*p)
    return fl_shim_last = cudaErrorMemoryAllocation;
  memset(*p, FL_SHIM_POISON, n);
  fl_shim_count.bytes += n;
  return cudaSuccess;
}
template <typename T> inline cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }
inline cudaError_t cudaMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
template <typename T> inline cudaError_t cudaMallocHost(T **p, size_t n) { return cudaMalloc((void **)p, n); }
inline cudaError_t cudaFree(void *p)
{
  free(p);
  return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void *p) { return cudaFree(p); }
/* page-locking the host's memory in place: nothing to do on the host alone */
enum { cudaHostRegisterDefault = 0 };
inline cudaError_t cudaHostRegister(void *p, size_t n, unsigned)
{
  if (!p || !n)
    return fl_shim_last = cudaErrorInvalidValue;
  fl_shim_locked++;
  fl_shim_locks++;
  return cudaSuccess;
}
inline cudaError_t cudaHostUnregister(void *p)
{
  if (!p)
    return fl_shim_last = cudaErrorInvalidValue;
  fl_shim_locked--;
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind k)
{
  if (n && (!dst || !src))
    return fl_shim_last = cudaErrorInvalidValue;
  if (k == cudaMemcpyDeviceToHost && fl_shim_fails("copy", &fl_shim_copies))
    return cudaErrorIllegalAddress; /* as a kernel's fault shows at the next copy */
  if (k == cudaMemcpyDeviceToHost)
    fl_shim_count.downloads++, fl_shim_count.down_bytes += n;
  memmove(dst, src, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind k, cudaStream_t = 0)
{
  return cudaMemcpy(dst, src, n, k);
}
inline cudaError_t cudaMemset(void *p, int v, size_t n)
{
  if (n && !p)
    return fl_shim_last = cudaErrorInvalidValue;
  memset(p, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t = 0) { return cudaMemset(p, v, n); }

/* ---- streams, devices, errors --------------------------------------------------------- */

inline cudaError_t cudaStreamCreate(cudaStream_t *s)
{
  *s = (cudaStream_t)malloc(1);
  return *s ? cudaSuccess : cudaErrorMemoryAllocation;
}
enum { cudaStreamDefault = 0, cudaStreamNonBlocking = 1 };
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) { return cudaStreamCreate(s); }
inline cudaError_t cudaStreamDestroy(cudaStream_t s)
{
  free(s);
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }

/* An event: what a stream did before it was recorded.  The shim's work is done at
 * once, but as a busy device's, an event is not ready at the first query after it
 * was recorded, so that a caller's path for work still under way runs too (and that
 * answer stays for cudaGetLastError until cleared). */
typedef struct fl_shim_event *cudaEvent_t;
struct fl_shim_event {
  int queries; /* since the last record */
};
enum { cudaEventDefault = 0, cudaEventDisableTiming = 2 };
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned)
{
  *e = (cudaEvent_t)calloc(1, sizeof **e);
  return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t = 0)
{
  if (!e)
    return fl_shim_last = cudaErrorInvalidValue;
  e->queries = 0;
  return cudaSuccess;
}
inline cudaError_t cudaEventQuery(cudaEvent_t e)
{
  if (!e)
    return fl_shim_last = cudaErrorInvalidValue;
  if (e->queries++ == 0)
    return fl_shim_last = cudaErrorNotReady; /* kept for cudaGetLastError, as the runtime keeps it */
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e)
{
  free(e);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
inline cudaError_t cudaGetLastError(void)
{
  cudaError_t e = fl_shim_last;
  fl_shim_last = cudaSuccess;
  return e;
}
inline cudaError_t cudaPeekAtLastError(void) { return fl_shim_last; }
inline const char *cudaGetErrorString(cudaError_t e)
{
  switch (e) {
  case cudaSuccess: return "no error";
  case cudaErrorInvalidValue: return "invalid argument";
  case cudaErrorMemoryAllocation: return "out of memory";
  case cudaErrorInvalidConfiguration: return "invalid configuration argument";
  case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
  case cudaErrorNotReady: return "device not ready";
  default: return "unknown error";
  }
}
/* FL_SHIM_DEVICES=N: as many devices (1 without it), for the choice by local rank */
inline cudaError_t cudaGetDeviceCount(int *n)
{
  const char *e = getenv("FL_SHIM_DEVICES");
  *n = e ? atoi(e) : 1;
  return cudaSuccess;
}
inline int fl_shim_device = 0;
inline cudaError_t cudaSetDevice(int d)
{
  int n;
  cudaGetDeviceCount(&n);
  if (d < 0 || d >= n)
    return fl_shim_last = cudaErrorInvalidDevice;
  fl_shim_device = d;
  return cudaSuccess;
}
inline cudaError_t cudaGetDevice(int *d)
{
  *d = fl_shim_device;
  return cudaSuccess;
}
struct cudaDeviceProp {
  char name[256];
  int major, minor;
  size_t totalGlobalMem;
  int multiProcessorCount;
};
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int)
{
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "host shim of the CUDA runtime");
  p->major = 9;
  p->totalGlobalMem = (size_t)1 << 30;
  p->multiProcessorCount = 1;
  return cudaSuccess;
}
enum cudaDeviceAttr { cudaDevAttrMemoryClockRate, cudaDevAttrGlobalMemoryBusWidth };
inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr, int)
{
  *v = 0;
  return cudaSuccess;
}
struct cudaFuncAttributes {
  int numRegs;
  size_t localSizeBytes, sharedSizeBytes, constSizeBytes;
  int maxThreadsPerBlock;
};
template <typename T> inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, T)
{
  memset(a, 0, sizeof *a);
  a->maxThreadsPerBlock = 1024;
  return cudaSuccess;
}

/* ---- atomics: the threads run one at a time ----------------------------------------- */

inline int atomicAdd(int *p, int v)
{
  int old = *p;
  *p = old + v;
  return old;
}
inline int atomicMin(int *p, int v)
{
  int old = *p;
  *p = v < old ? v : old;
  return old;
}
inline int atomicMax(int *p, int v)
{
  int old = *p;
  *p = v > old ? v : old;
  return old;
}
inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v)
{
  unsigned long long old = *p;
  *p = v > old ? v : old;
  return old;
}

/* ---- the maths library as a device may round it ----------------------------------- */

inline long fl_shim_ulp = -1; /* -1: not read yet; 0: exact */

/* one result in N, chosen by the bits of the arguments (and of which function), moved
 * one ulp up or down */
inline double fl_shim_round(double r, double a, double b, unsigned fn)
{
  if (fl_shim_ulp < 0) {
    const char *e = getenv("FL_SHIM_ULP");
    fl_shim_ulp = e ? strtol(e, NULL, 10) : 0;
    if (fl_shim_ulp < 0)
      fl_shim_ulp = 0;
  }
  fl_shim_calls++;
  if (fl_shim_ulp == 0 || !std::isfinite(r))
    return r;
  uint64_t ua, ub;
  memcpy(&ua, &a, sizeof ua);
  memcpy(&ub, &b, sizeof ub);
  uint64_t h = ua * 0x9e3779b97f4a7c15ULL ^ (ub + fn) * 0xc2b2ae3d27d4eb4fULL;
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 29;
  if (h % (uint64_t)fl_shim_ulp != 0)
    return r;
  fl_shim_moved++;
  return nextafter(r, (h >> 40) & 1 ? INFINITY : -INFINITY);
}
inline double fl_shim_sin(double x) { return fl_shim_round(sin(x), x, 0.0, 1); }
inline double fl_shim_cos(double x) { return fl_shim_round(cos(x), x, 0.0, 2); }
inline double fl_shim_atan2(double y, double x) { return fl_shim_round(atan2(y, x), y, x, 3); }
#define sin(x) fl_shim_sin(x)
#define cos(x) fl_shim_cos(x)
#define atan2(y, x) fl_shim_atan2(y, x)

#endif
