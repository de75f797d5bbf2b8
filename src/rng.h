/* rng.h: counter-based random numbers for per-bond strengths, host and device.
 * A draw is a pure function of (seed, specimen, bond, stream): no generator state, so
 * the CPU with any thread count and the GPU draw the same strengths.  The mixing
 * function is SplitMix64's finaliser (Steele, Lea & Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014); normals by Box-Muller. */
#ifndef FL_RNG_H
#define FL_RNG_H

#include <math.h>
#include <stdint.h>

#include "fl_defs.h"

FL_HD static inline uint64_t fl_rng_mix(uint64_t z)
{
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* Uniform in (0, 1) from the key (seed, specimen, bond, stream). */
FL_HD static inline double fl_rng_uniform(uint64_t seed, uint64_t specimen, uint64_t bond, uint64_t stream)
{
  uint64_t h = fl_rng_mix(seed);
  h = fl_rng_mix(h ^ specimen);
  h = fl_rng_mix(h ^ (bond * 4 + stream));
  return ((double)(h >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Standard normal draw for (seed, specimen, bond). */
FL_HD static inline double fl_rng_normal(uint64_t seed, uint64_t specimen, uint64_t bond)
{
  double u1 = fl_rng_uniform(seed, specimen, bond, 0), u2 = fl_rng_uniform(seed, specimen, bond, 1);
  return sqrt(-2.0 * log(u1)) * cos(2.0 * FL_PI * u2);
}

/* Strength factor 1 + cv N(0,1) of one bond, truncated below at 0.01. */
FL_HD static inline double fl_rng_strength(uint64_t seed, uint64_t specimen, uint64_t bond, double cv)
{
  if (!(cv > 0.0))
    return 1.0;
  double f = 1.0 + cv * fl_rng_normal(seed, specimen, bond);
  return f < 0.01 ? 0.01 : f;
}

#endif
