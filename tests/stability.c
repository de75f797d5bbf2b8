/* stability.c: the automatic time step of each experiment file is stable for 1e5 steps.
 * Usage: stability FILE.yaml...  Each specimen starts from small random velocities (the
 * tools and grips held still); the run must stay finite and its energy (kinetic plus
 * bond strain) must never exceed twice the initial energy. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fl_defs.h"
#include "run.h"

static unsigned long long st = 0x9E3779B97F4A7C15ULL;
static double srand1(void)
{
  st ^= st << 13;
  st ^= st >> 7;
  st ^= st << 17;
  return 2.0 * ((st >> 11) * (1.0 / 9007199254740992.0)) - 1.0;
}

static int check_file(const char *path, long steps)
{
  char err[2048];
  fl_experiment exp = fl_experiment_default();
  if (fl_experiment_load(path, &exp, err, sizeof err) || fl_experiment_finish(&exp, path, err, sizeof err)) {
    fprintf(stderr, "stability: %s\n", err);
    return 1;
  }
  fl_system sys;
  fl_build_info info;
  if (fl_build(&exp, 1, &sys, &info)) {
    fprintf(stderr, "stability: %s: cannot build\n", path);
    return 1;
  }
  double dt = exp.sim.safety * info.critical_step;
  fl_system_set_step(&sys, dt);
  fl_system_set_damping(&sys, -1, exp.bond.damping, exp.bond.damping_stabilization);
  /* random velocities of 1e-4 of the fiber length per first-mode period */
  double v = 1e-4 * exp.fiber.length_m / info.first_period;
  for (int i = 0; i < sys.nbody; i++) {
    if (sys.motion[i] != FL_FREE)
      continue;
    sys.v[i] = fl_v3(v * srand1(), v * srand1(), v * srand1());
    double w = v / exp.fiber.length_m * 10.0;
    sys.L[i] = fl_v3(w * srand1() * sys.inertia_axial[i], w * srand1() * sys.inertia_trans[i],
                     w * srand1() * sys.inertia_trans[i]);
    fl_vec3 a = fl_qrot(sys.q[i], fl_v3(1, 0, 0));
    sys.w[i] = fl_axpy(fl_scale(sys.L[i], 1 / sys.inertia_trans[i]),
                       (1 / sys.inertia_axial[i] - 1 / sys.inertia_trans[i]) * fl_dot(a, sys.L[i]), a);
  }
  fl_system_loads(&sys, 0);
  double e0 = fl_system_kinetic(&sys, 0) + sys.strain_energy[0], emax = e0;
  int bad_s, bad_b, rc = 0;
  for (long n = 0; n < steps; n++) {
    if (fl_system_step(&sys, &bad_s, &bad_b)) {
      fprintf(stderr, "stability: %s: NaN at step %ld, bond %d\n", path, n, bad_b);
      rc = 1;
      break;
    }
    if (n % 100 == 0) {
      double e = fl_system_kinetic(&sys, 0) + sys.strain_energy[0];
      if (e > emax)
        emax = e;
      if (!(e <= 2.0 * e0)) {
        fprintf(stderr, "stability: %s: energy %.3g J at step %ld, over twice the initial %.3g J\n", path, e, n,
                e0);
        rc = 1;
        break;
      }
    }
  }
  printf("%s: %ld steps of %.4g s (safety %g of the bound %.4g s): largest energy %.4f of the initial -> %s\n",
         path, sys.step, dt, exp.sim.safety, info.critical_step, emax / e0, rc ? "UNSTABLE" : "stable");
  fl_system_free(&sys);
  return rc;
}

int main(int argc, char **argv)
{
  int fails = 0;
  if (argc < 2) {
    fprintf(stderr, "usage: stability FILE.yaml...\n");
    return 2;
  }
  for (int i = 1; i < argc; i++)
    fails += check_file(argv[i], 100000);
  return fails ? 1 : 0;
}
