/* check_track.c: the watch the explicit solver keeps of every step (src/track.h), on the
 * CPU and, with the same functions, on a CUDA device: the measured load of each test,
 * the nose's first touch, the peak until the first break or buckle. */
#include <config.h>

#include <check.h>
#include <stdlib.h>

#include "check_limits.h"
#include "track.h"

/* Each test reads its own load: the noses' upward force (tools 2 on, not the
 * supports 0 and 1), the tension in the moving grip (the specimen pulls it back along
 * -x), the compression (pushes it along +x), the torque that holds its twist, and a
 * cantilever's tip load. */
START_TEST(load_is_what_each_test_measures)
{
  fl_vec3 tool[4] = {fl_v3(0, 5, 0), fl_v3(0, 7, 0), fl_v3(1, 2, 3), fl_v3(0, 0.5, 0)};
  fl_vec3 gf = fl_v3(-4, 1, 1), gt = fl_v3(-0.25, 1, 1);
  ck_assert_double_eq(fl_track_load(FL_TEST_BEND3PT, tool, 3, gf, gt, 9.0), 2.0);
  ck_assert_double_eq(fl_track_load(FL_TEST_BEND4PT, tool, 4, gf, gt, 9.0), 2.5);
  ck_assert_double_eq(fl_track_load(FL_TEST_TENSION, tool, 0, gf, gt, 9.0), 4.0);
  ck_assert_double_eq(fl_track_load(FL_TEST_COMPRESSION, tool, 0, gf, gt, 9.0), -4.0);
  ck_assert_double_eq(fl_track_load(FL_TEST_TORSION, tool, 0, gf, gt, 9.0), 0.25);
  ck_assert_double_eq(fl_track_load(FL_TEST_CANTILEVER, tool, 0, gf, gt, 9.0), 9.0);
}
END_TEST

/* A 3-point test: no load while the nose comes down (displacement 0), the first load
 * at 1 mm (the touch: displacement counts from there), loads 3, 5, 4 N at 2, 3, 4 mm:
 * the peak is 5 N at 2 mm of displacement.  A break at step 6 (5 s) freezes the peak:
 * a higher load in the ringing after it (8 N) does not count. */
START_TEST(peak_counts_from_the_touch_until_the_first_break)
{
  fl_track tr = {0.0, 0.0, -1.0, -1.0};
  double y[8] = {0.0, 0.0, 1.0, 3.0, 5.0, 4.0, 8.0, 9.0};
  double pos[8] = {0.0, 0.5e-3, 1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 6e-3};
  int broken[8] = {0, 0, 0, 0, 0, 0, 1, 1};
  for (long n = 0; n < 8; n++)
    if (fl_track_step(&tr, 1, y[n], broken[n], (double)n - 1.0, pos[n], n))
      tr.x_at_peak = fl_track_travel(tr.touch, pos[n]);
  ck_assert_double_eq(tr.touch, 1e-3);
  ck_assert_double_eq(tr.peak, 5.0);
  ck_assert_double_eq_tol(tr.x_at_peak, 2e-3, 1e-15);
  ck_assert_double_eq(tr.event_time, 5.0);
  ck_assert_double_eq(fl_track_travel(-1.0, 7e-3), 0.0); /* before the touch */
}
END_TEST

/* The first step sets the peak whatever its sign (a compression test's load may start
 * below 0); a test that measures from the start has its touch at 0 and keeps it. */
START_TEST(first_step_sets_the_peak)
{
  fl_track tr = {0.0, 0.0, 0.0, -1.0};
  ck_assert_int_eq(fl_track_step(&tr, 0, -2.0, 0, 0.0, 0.0, 0), 1);
  ck_assert_double_eq(tr.peak, -2.0);
  ck_assert_int_eq(fl_track_step(&tr, 0, -3.0, 0, 1.0, 1e-3, 1), 0);
  ck_assert_int_eq(fl_track_step(&tr, 0, -1.0, 0, 2.0, 2e-3, 2), 1);
  ck_assert_double_eq(tr.peak, -1.0);
  ck_assert_double_eq(tr.touch, 0.0);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("track");
  TCase *tc = tcase_create("track");
  fl_limits_set(tc, "track", 50); /* reference times: far more than these few evaluations take */
  tcase_add_test(tc, load_is_what_each_test_measures);
  tcase_add_test(tc, peak_counts_from_the_touch_until_the_first_break);
  tcase_add_test(tc, first_step_sets_the_peak);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return fl_check_run(suite());
}
