/* simd.h: what the vectorised loops over bonds (loads.c) and bodies (engine.c) share:
 * one build of each for every instruction set, chosen as the program runs
 * (fl_system_isa), and the strided reads and writes of the structure of arrays they
 * work on in place. */
#ifndef FL_SIMD_H
#define FL_SIMD_H

#include <stdint.h>
#include <string.h>

#include "system.h"

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
/* The wrappers take every call into themselves.  GCC also schedules the files of the
 * vectorised loops (loads.c, engine.c) before register allocation, minding register
 * pressure (KERNEL_CFLAGS in configure.ac): the bond law's long chains of divisions
 * and square roots then overlap with other work; it only orders the operations. */
#if defined(__GNUC__)
#define FL_SCHEDULE __attribute__((flatten))
#else
#define FL_SCHEDULE
#endif

/* Row r of specimen s's bond loads. */
static inline double *load_row(const fl_system *sys, int s, int r)
{
  return sys->bond_load + ((size_t)s * FL_LOAD_ROWS + r) * sys->nbond;
}

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

/* Bonds or bodies a vectorised loop takes at a time: the length of its buffers of
 * flags, on the stack. */
#define FL_INLINE_CHUNK 256

#endif
