/* bench.c: bond-updates per second of the CPU engine (make bench).  Straight damped
 * fibers with small random initial velocities, no tools, one thread.  One line per
 * case: NAME bonds=N steps=S seconds=T bond_updates_per_s=R.
 * Usage: bench [STEPS] (default 2000). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fl_defs.h"
#include "run.h"
#include "system.h"

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static unsigned long long st = 42;
static double srand1(void)
{
  st ^= st << 13;
  st ^= st >> 7;
  st ^= st << 17;
  return 2.0 * ((st >> 11) * (1.0 / 9007199254740992.0)) - 1.0;
}

/* nspec fibers of nbond bonds each: a glass-fibre-like straight chain. */
static int bench_case(const char *name, int nspec, int nbond, long steps)
{
  fl_system sys;
  int nbody = nbond + 1;
  double R = 0.5e-3, h = 2e-3, E = 5e9, G = 2e9, rho = 1000;
  if (fl_system_alloc(&sys, nspec, nbody, nbond, 0))
    return 1;
  fl_section sec = fl_section_hollow(R, 0.5 * R);
  for (int i = 0; i < nbody; i++) {
    sys.x_ref[i] = fl_v3(i * h, 0, 0);
    fl_system_set_segment(&sys, i, R, 0.5 * R, h, rho);
  }
  double d = h / 2;
  fl_side_stiffness s = {E * sec.area / d, G * sec.area / d, G * sec.polar / d, E * sec.inertia / d};
  for (int b = 0; b < nbond; b++)
    fl_system_bond_chain(&sys, -1, b, b, b + 1, &s, &s);
  fl_system_reset(&sys);
  double a_damp = 1e-7;
  double crit = fl_system_critical_step(&sys, 0, a_damp, 1.0, 0.0);
  fl_system_set_step(&sys, 0.2 * crit);
  fl_system_set_damping(&sys, -1, a_damp, 1.0);
  for (size_t k = 0; k < (size_t)nspec * nbody; k++) {
    sys.v[k] = fl_v3(1e-3 * srand1(), 1e-3 * srand1(), 1e-3 * srand1());
  }
  int bs, bb;
  double t0 = now();
  for (long n = 0; n < steps; n++)
    if (fl_system_step(&sys, &bs, &bb)) {
      fprintf(stderr, "bench: %s unstable at step %ld\n", name, n);
      fl_system_free(&sys);
      return 1;
    }
  double t = now() - t0;
  long bonds = (long)nspec * nbond;
  printf("%s bonds=%ld steps=%ld seconds=%.3f bond_updates_per_s=%.4g\n", name, bonds, steps, t,
         (double)bonds * steps / t);
  fflush(stdout);
  fl_system_free(&sys);
  return 0;
}

int main(int argc, char **argv)
{
  long steps = argc > 1 ? atol(argv[1]) : 2000;
  int fails = 0;
  /* cost against the number of specimens: fibers of 100 bonds */
  fails += bench_case("fibers_100x10", 10, 100, steps);
  fails += bench_case("fibers_100x100", 100, 100, steps);
  fails += bench_case("fibers_100x1000", 1000, 100, steps);
  fails += bench_case("fibers_100x10000", 10000, 100, steps);
  /* cost against the number of segments: one chain */
  fails += bench_case("chain_1000", 1, 1000, steps);
  fails += bench_case("chain_100000", 1, 100000, steps);
  return fails ? 1 : 0;
}
