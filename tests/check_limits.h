/* check_limits.h: wall-clock limits of Check test cases in units of this machine's speed.
 *
 * A busy two-core machine runs a test two or three times slower than an idle one, so a
 * limit in fixed seconds lets the load decide a verdict.  Each test program instead
 * times a reference workload when it starts (a fixed explicit run: 10 000 steps of a
 * 44-segment fiber between grips, about 4e5 bond updates), and gives each case a limit
 * of so many reference times.  Whatever slows the tests (load, a sanitizer, valgrind, a
 * slower processor) slows the reference as much.  Check's CK_TIMEOUT_MULTIPLIER still
 * multiplies the result. */
#ifndef FL_TEST_LIMITS_H
#define FL_TEST_LIMITS_H

#include <check.h>
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "run.h"

static double fl_limits_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Seconds the reference workload takes here now: the median of three runs. */
static double fl_limits_reference(void)
{
  static double ref = 0.0;
  if (ref > 0.0)
    return ref;
  fl_experiment e = fl_experiment_default();
  e.test.kind = FL_TEST_TENSION;
  e.fiber.segments = 44;
  e.fiber.length_m = 0.044;
  e.test.gauge_length_m = 0.04;
  e.test.grip_length_m = 0.002;
  double t[3];
  for (int k = 0; k < 3; k++) {
    fl_system sys;
    fl_build_info info;
    if (fl_build(&e, 1, &sys, &info) != FL_OK) {
      fprintf(stderr, "check_limits.h: cannot build the reference workload\n");
      return ref = 1.0;
    }
    fl_system_set_step(&sys, 0.2 * info.critical_step);
    fl_system_set_damping(&sys, -1, e.bond.damping, e.bond.damping_stabilization);
    sys.grip_speed = 1e-3;
    int bs, bb;
    double t0 = fl_limits_now();
    for (int n = 0; n < 10000; n++)
      fl_system_step(&sys, &bs, &bb);
    t[k] = fl_limits_now() - t0;
    fl_system_free(&sys);
  }
  double lo = t[0] < t[1] ? t[0] : t[1], hi = t[0] < t[1] ? t[1] : t[0];
  ref = t[2] < lo ? lo : (t[2] > hi ? hi : t[2]);
  if (ref < 1e-3)
    ref = 1e-3;
  return ref;
}

/* Give case tc a limit of units reference times, and say so on stdout. */
static void fl_limits_set(TCase *tc, const char *name, double units)
{
  double ref = fl_limits_reference(), lim = units * ref;
  printf("limits: case '%s': %g reference times of %.3f s = %.1f s\n", name, units, ref, lim);
  tcase_set_timeout(tc, lim);
}

/* Run every case of suite s (the runner frees it): a test program's exit status,
 * 0 when every test passed. */
static int fl_check_run(Suite *s)
{
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

/* The main of a test program with a --slow set of cases: the suite make(slow) run,
 * GSL's abort on error off; a usage error exits 2. */
static inline int fl_check_main_slow(int argc, char **argv, Suite *(*make)(int))
{
  gsl_set_error_handler_off();
  int slow = argc == 2 && strcmp(argv[1], "--slow") == 0;
  if (argc > 1 && !slow) {
    fprintf(stderr, "usage: %s [--slow]\n", argv[0]);
    return 2;
  }
  return fl_check_run(make(slow));
}

#endif
