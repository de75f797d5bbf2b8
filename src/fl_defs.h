/* fl_defs.h: qualifiers, constants and status codes shared by every fiberlab source,
 * host (gcc, C11) and device (nvcc, C++). */
#ifndef FL_DEFS_H
#define FL_DEFS_H

#ifdef __CUDACC__
#define FL_HD __host__ __device__
#else
#define FL_HD
#endif

#ifdef __cplusplus
#define FL_RESTRICT __restrict__
#else
#define FL_RESTRICT restrict
#endif

/* pi to more digits than a double holds: the nearest double, on every compiler */
#define FL_PI 3.14159265358979323846

/* A function that must be inlined into its loop for the loop to vectorise (the CPU's
 * concern: nvcc inlines device functions by itself). */
#if defined(__GNUC__) && !defined(__CUDACC__)
#define FL_ALWAYS_INLINE __attribute__((always_inline))
#else
#define FL_ALWAYS_INLINE
#endif

/* Status codes returned by library functions; fl_strerror() names them. */
enum fl_status {
  FL_OK = 0,          /* success */
  FL_EINPUT = -1,     /* bad input (YAML, option, value out of range) */
  FL_ENOMEM = -2,     /* allocation failed */
  FL_EIO = -3,        /* file could not be read or written */
  FL_EUNSTABLE = -4,  /* the run became unstable (NaN, energy jump) */
  FL_ETIMESTEP = -5,  /* time step above the stability bound */
  FL_EGNUPLOT = -6,   /* gnuplot missing or failed */
  FL_EINTERRUPT = -7, /* interrupted by a signal */
  FL_ELIMIT = -8,     /* a size limit would be exceeded */
  FL_ENUMERIC = -9    /* a numerical method (quadrature, solver) did not converge */
};

#ifndef __CUDACC__
const char *fl_strerror(int status);
#endif

#endif
