/* path.h: a test's loading path (path.c), for every solver: the legs from turning
 * point to turning point of test.cycles (or from 0 to the test's target), by path
 * length for the static solver, and the explicit engines' schedule of them in time. */
#ifndef FL_PATH_H
#define FL_PATH_H

#include "experiment.h"

/* The legs of a test's path, from 0 through every turning point. */
typedef struct {
  int n;                         /* legs */
  double to[FL_MAX_CYCLES];      /* each leg's end (a turning point), m or rad */
  double arc[FL_MAX_CYCLES + 1]; /* path length at each leg's start; arc[n]: the whole path, m or rad */
} fl_path;

/* The legs of test t: its cycles, or one leg to fl_test_target(t). */
void fl_path_make(fl_path *p, const fl_test_def *t);

/* Where leg i starts: 0 or the leg before's end, m or rad. */
double fl_path_from(const fl_path *p, int i);

/* The position at path length a (clamped to the path), and the leg (may be NULL). */
double fl_path_position(const fl_path *p, double a, int *leg);

/* The path in time, as the explicit engines drive it: each leg at speed, with cosine
 * velocity ramps of a set duration at both ends, so the tool never jumps in velocity. */
typedef struct {
  fl_path path;
  double speed;                 /* m/s or rad/s between the ramps */
  double start[FL_MAX_CYCLES];  /* each leg's start, s */
  double dur[FL_MAX_CYCLES];    /* each leg's duration, ramps included, s */
  double ramp[FL_MAX_CYCLES];   /* each leg's ramp duration, s */
  double total;                 /* the whole path, s */
} fl_path_schedule;

/* The schedule of test t's path at speed, with ramps of duration ramp_s (a leg too
 * short for them ramps over its whole length). */
void fl_path_schedule_make(fl_path_schedule *p, const fl_test_def *t, double speed, double ramp_s);

/* The prescribed position at time tm (held at the end after the last leg), and the
 * leg (may be NULL). */
double fl_path_schedule_position(const fl_path_schedule *p, double tm, int *leg);

#endif
