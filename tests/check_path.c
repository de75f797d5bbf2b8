/* check_path.c: the loading path every solver shares (src/path.c): its legs by path
 * length, and the explicit engines' schedule of them in time, against what the path is
 * built to be, written down here. */
#include <config.h>

#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "check_limits.h"
#include "experiment.h"
#include "path.h"

/* A bend3pt test loaded to 10 mm, back to 4 mm and on to 20 mm. */
static fl_test_def cycled(void)
{
  fl_experiment e = fl_experiment_default();
  e.test.kind = FL_TEST_BEND3PT;
  e.test.ncycles = 3;
  e.test.cycles[0] = 0.010;
  e.test.cycles[1] = 0.004;
  e.test.cycles[2] = 0.020;
  return e.test;
}

/* The legs' lengths add up along the path: 10 + 6 + 16 mm; a position on the second
 * leg goes back from 10 mm by what the path has gone past it. */
START_TEST(path_length_runs_through_every_turning_point)
{
  fl_test_def t = cycled();
  fl_path p;
  fl_path_make(&p, &t);
  ck_assert_int_eq(p.n, 3);
  double arc[4] = {0.0, 0.010, 0.016, 0.032};
  for (int i = 0; i <= 3; i++)
    ck_assert_msg(fabs(p.arc[i] - arc[i]) < 1e-15, "arc[%d] %.17g, expected %.17g", i, p.arc[i], arc[i]);
  int leg = -1;
  double u = fl_path_position(&p, 0.013, &leg);
  ck_assert_int_eq(leg, 1);
  ck_assert_msg(fabs(u - 0.007) < 1e-15, "position %.17g at 13 mm of path, expected 7 mm", u);
  /* past the end: held at the last turning point */
  ck_assert_msg(fl_path_position(&p, 1.0, &leg) == 0.020 && leg == 2, "past the end: %g", fl_path_position(&p, 1.0, NULL));
}
END_TEST

/* In time each leg of length L at speed v with ramps r (r <= L / v) lasts L / v + r:
 * the cosine ramp v (1 - cos(pi u / r)) / 2 covers v r / 2 in r, half of what the full
 * speed would, at each end.  The ramp starts from rest: its integral
 * v / 2 (u - r / pi sin(pi u / r)) = v pi^2 u^3 / (12 r^2) + O(u^5), and reaches full
 * speed without a jump in position; at full speed the position moves at v; each leg
 * ends at its turning point at rest. */
START_TEST(schedule_ramps_from_rest_to_speed_and_back)
{
  fl_test_def t = cycled();
  double v = 0.001, r = 0.5; /* m/s; s */
  fl_path_schedule p;
  fl_path_schedule_make(&p, &t, v, r);
  double len[3] = {0.010, 0.006, 0.016};
  double total = 0.0;
  for (int i = 0; i < 3; i++) {
    ck_assert_msg(p.ramp[i] == r, "leg %d: ramp %g s", i, p.ramp[i]);
    ck_assert_msg(fabs(p.dur[i] - (len[i] / v + r)) < 1e-12, "leg %d lasts %.15g s, expected %.15g s", i, p.dur[i],
                  len[i] / v + r);
    ck_assert_msg(fabs(p.start[i] - total) < 1e-12, "leg %d starts at %.15g s, expected %.15g s", i, p.start[i], total);
    total += len[i] / v + r;
    /* at rest at the turning point at the leg's end */
    double end = p.start[i] + p.dur[i], to = t.cycles[i];
    ck_assert_msg(fabs(fl_path_schedule_position(&p, end, NULL) - to) < 1e-15, "leg %d ends at %.17g, expected %g",
                  i, fl_path_schedule_position(&p, end, NULL), to);
    double h = 1e-3 * r, from = i > 0 ? t.cycles[i - 1] : 0.0, dir = to > from ? 1.0 : -1.0;
    double back = dir * (to - fl_path_schedule_position(&p, end - h, NULL));
    double cubic = v * FL_PI * FL_PI * h * h * h / (12.0 * r * r);
    ck_assert_msg(fabs(back / cubic - 1.0) < 1e-4, "leg %d: %g m short of its end %g s before, expected %g m", i,
                  back, h, cubic);
    /* from rest at its start */
    double gone = dir * (fl_path_schedule_position(&p, p.start[i] + h, NULL) - from);
    ck_assert_msg(fabs(gone / cubic - 1.0) < 1e-4, "leg %d: %g m gone %g s after its start, expected %g m", i, gone,
                  h, cubic);
    /* no jump where a ramp meets the full speed: 2 v e in 2 e across */
    double joins[2] = {p.start[i] + r, end - r}, e = 1e-6;
    for (int k = 0; k < 2; k++) {
      double step = dir * (fl_path_schedule_position(&p, joins[k] + e, NULL) -
                           fl_path_schedule_position(&p, joins[k] - e, NULL));
      ck_assert_msg(fabs(step / (2.0 * v * e) - 1.0) < 1e-6, "leg %d: %g m across the join at %g s, expected %g m", i,
                    step, joins[k], 2.0 * v * e);
    }
    /* full speed between the ramps */
    double mid = p.start[i] + 0.5 * p.dur[i], d = 1e-3;
    double speed = dir * (fl_path_schedule_position(&p, mid + d, NULL) - fl_path_schedule_position(&p, mid, NULL)) / d;
    ck_assert_msg(fabs(speed / v - 1.0) < 1e-9, "leg %d: speed %.12g m/s mid-leg, expected %g m/s", i, speed, v);
  }
  ck_assert_msg(fabs(p.total - total) < 1e-12, "the path lasts %.15g s, expected %.15g s", p.total, total);
  int leg = -1;
  ck_assert_msg(fl_path_schedule_position(&p, 2.0 * p.total, &leg) == 0.020 && leg == 2, "after the end: held");
}
END_TEST

/* A leg shorter than v r ramps over its whole length: up and down in L / v each, so it
 * lasts 2 L / v and passes its middle at the speed v (the ramps meet there). */
START_TEST(schedule_short_leg_ramps_over_its_whole_length)
{
  fl_experiment e = fl_experiment_default();
  e.test.kind = FL_TEST_TENSION;
  e.test.ncycles = 1;
  e.test.cycles[0] = 1e-4; /* m */
  double v = 0.001, r = 0.5, L = 1e-4;
  fl_path_schedule p;
  fl_path_schedule_make(&p, &e.test, v, r);
  ck_assert_msg(fabs(p.ramp[0] - L / v) < 1e-15, "ramp %g s, expected %g s", p.ramp[0], L / v);
  ck_assert_msg(fabs(p.total - 2.0 * L / v) < 1e-15, "lasts %g s, expected %g s", p.total, 2.0 * L / v);
  double mid = 0.5 * p.total, d = 1e-7;
  double half = fl_path_schedule_position(&p, mid, NULL);
  ck_assert_msg(fabs(half / (0.5 * L) - 1.0) < 1e-12, "at mid-time %g m, expected %g m", half, 0.5 * L);
  double speed = (fl_path_schedule_position(&p, mid + d, NULL) - fl_path_schedule_position(&p, mid - d, NULL)) / (2 * d);
  ck_assert_msg(fabs(speed / v - 1.0) < 1e-6, "speed %.9g m/s at mid-time, expected %g m/s", speed, v);
  ck_assert_msg(fabs(fl_path_schedule_position(&p, p.total, NULL) - L) < 1e-18, "ends at %g m",
                fl_path_schedule_position(&p, p.total, NULL));
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("path");
  TCase *tc = tcase_create("path");
  fl_limits_set(tc, "path", 50); /* reference times: far more than a few hundred evaluations take */
  tcase_add_test(tc, path_length_runs_through_every_turning_point);
  tcase_add_test(tc, schedule_ramps_from_rest_to_speed_and_back);
  tcase_add_test(tc, schedule_short_leg_ramps_over_its_whole_length);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return fl_check_run(suite());
}
