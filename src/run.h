/* run.h: build a batch of specimens for a virtual test and run it to a curve. */
#ifndef FL_RUN_H
#define FL_RUN_H

#include <signal.h>
#include <stddef.h>

#include "experiment.h"
#include "series.h"
#include "system.h"

/* The most time steps one run may take (a run beyond it would not end in a day). */
#define FL_MAX_STEPS 1e10

/* What the builder realised from the definition. */
typedef struct {
  double h;              /* segment bonded length (centre spacing), m */
  double length;         /* the test's length: the span, the gauge, the pinned or the free length, m */
  double span;           /* bend3pt: support axis distance, test.span exactly, m */
  double gauge;          /* tension/torsion: distance between innermost gripped centres, m */
  int free_bonds;        /* bonds between the grips (tension/torsion), or across the span */
  double first_period;   /* period of the test's lowest elastic mode, s */
  double critical_step;  /* stability bound, s */
  double contact_overlap_ref; /* overlap the contact stiffness of the bound assumes, m */
  int centre_is_segment; /* bend3pt: a segment centre (not a bond) lies under the nose */
  int clamped;           /* cantilever: bodies held by the clamp */
  double tip_spring;     /* cantilever under displacement control: the driving spring, N/m */
  fl_section section;    /* of the fiber */
} fl_build_info;

/* Build specimens (geometry, bonds, tools, grips) for exp in sys; sets nothing of the
 * time step. */
int fl_build(const fl_experiment *exp, int nspec, fl_system *sys, fl_build_info *info);
/* The same with specimen s built from exps[s]: geometry, test and simulation come from
 * exps[0], and the others may differ from it only where fl_experiment_batchable()
 * allows (bond parameters, moduli, the rig's springs); FL_EINPUT otherwise. */
int fl_build_many(const fl_experiment *const *exps, int nspec, fl_system *sys, fl_build_info *info);
/* 1 when b differs from a only in what a batch may vary: the bond block, the fiber's
 * moduli, the tools' springs and the machine's compliance (not its geometry or density,
 * the rest of the test or the simulation). */
int fl_experiment_batchable(const fl_experiment *a, const fl_experiment *b);

/* One curve row per specimen and output point, index s * npoints + p. */
typedef struct {
  int nspec;        /* specimens */
  int npoints;      /* rows per specimen */
  double *time;     /* s */
  double *x;        /* displacement (m), elongation (m) or twist (rad) */
  double *y;        /* force on the nose or grip (N) or torque (N m) */
  double *support;  /* bend3pt: force on the supports, N */
  double *midspan;  /* bend4pt: the fiber's axis at midspan below its axis over the supports, m */
  double *kinetic;  /* J */
  double *strain;   /* J */
  int *broken;      /* broken bonds */
  int *yielded;     /* bonds that reached their limit (broken ones included) */
} fl_curve;

void fl_curve_free(fl_curve *c);

/* Snaps of one static path that a fit's curve keeps (fl_curve_quasi_static). */
#define FL_MAX_SNAPS 16

/* Figures of one specimen. */
typedef struct {
  double initial_stiffness; /* N/m or N m/rad */
  double peak;              /* N or N m */
  double x_at_peak;         /* m or rad */
  int peak_on_path;         /* 1: (x_at_peak, peak) is an equilibrium of the path (the static solver) */
  int snap_at_peak;         /* 1: and the path snaps there (a buckle or a break; the static solver) */
  /* the static solver's snaps, in the order of the path (the first FL_MAX_SNAPS): the
   * last equilibrium before each (abscissa, load) and the output row that follows it */
  int nsnaps;
  double snap_x[FL_MAX_SNAPS], snap_y[FL_MAX_SNAPS];
  int snap_row[FL_MAX_SNAPS];
  double y_at_max_x;        /* N or N m */
  int failure_row;          /* first row with a bond at its limit, or -1 */
  int broken;               /* broken bonds at the end */
  int yielded;              /* bonds that reached their limit or buckled */
  int buckled;              /* bonds that buckled */
  /* cantilever vibration: the ring-down of the tip after the release */
  double frequency;         /* first frequency, from the times of the first mode's extremes, Hz */
  double log_decrement;     /* logarithmic decrement per period, from their amplitudes */
  double frequency_se;      /* their standard errors, from the extremes' scatter about their */
  double log_decrement_se;  /* lines (fl_ringdown_fit) */
  double decay_rate;        /* 1/s: b = log_decrement frequency, the amplitude going as exp(-b t) */
  double decay_rate_se;
  double damping_ratio;     /* zeta = log_decrement / sqrt(4 pi^2 + log_decrement^2) */
  double damping_ratio_se;
  double tip_log_decrement; /* the tip displacement's own, off the rows: its higher modes die first */
  double ring_rows_per_period; /* the CSV's rows a first period (NAN: no frequency) */
  double release_x;         /* tip displacement at the release, m */
  int extremes;             /* extremes the two came from */
  /* the static solver: the specimen broke into pieces that found no equilibrium (a
   * separation): the test ended there, at this abscissa, the rows after it at no load */
  int separated;
  double separated_x;       /* m or rad */
  /* the static solver: the first bifurcation its path left (0: none), its load and abscissa */
  int bifurcated;
  double bifurcation_y, bifurcation_x; /* N or N m, m or rad */
} fl_specimen_result;

typedef struct {
  enum fl_test_kind kind;
  int specimens;
  int segments;          /* bodies simulated per specimen */
  double time_step;      /* s */
  double critical_step;  /* s */
  long steps;
  double wall_time;      /* s */
  double length;         /* span or gauge length realised, m */
  double speed;          /* m/s or rad/s used */
  double ke_ratio;       /* largest kinetic / strain energy while loading */
  int bonds_broken;      /* over all specimens */
  int bonds_yielded;     /* over all specimens */
  fl_specimen_result *spec; /* per specimen */
  int centre_is_segment;
  double max_overlap;    /* largest tool overlap seen, m */
  /* bend3pt with buckling: the five numbers the envelope came from (type 0: none) */
  int buckling;
  double bk_fmax, bk_fmin, bk_umin, bk_slope; /* N, N, m, N/m */
  double overlap_ref;    /* overlap assumed by the time step, m */
  /* the solver that ran, and for the static solver what it did (over all specimens) */
  enum fl_solver solver;  /* FL_SOLVER_EXPLICIT or FL_SOLVER_STATIC */
  int device;             /* 1: the CUDA engine ran the loading path (gpu.h); 0: the CPU */
  long increments;        /* converged load increments */
  long newton_iterations;
  long tangents;          /* tangents built by finite differences */
  long cutbacks;          /* increments halved */
  int unknowns_per_body;  /* unknowns per free body: 3 (planar: x, y, turn about z) or 6 */
  long relaxations;       /* dynamic relaxations after a snap */
  int events;             /* bonds that broke, buckled or first reached their limit */
  double residual_force;  /* largest force residual of a free body at an output row, over the load scale */
  double residual_torque; /* largest torque residual, over load scale times length (torsion: load scale) */
  int pinned;             /* rigid motions the static solver pinned (frictionless bending), 0: none */
  double pin_force;       /* the pins' largest reaction at an output row, over the load scale */
  long stability_checks;  /* equilibria whose stability the static solver checked (0: the test's path was not watched) */
  int bifurcations;       /* branches it switched to at a bifurcation */
  int unstable_rows;      /* output rows on an equilibrium it found unstable */
  int vibration;          /* 1: a cantilever's ring-down (rows in time after the release) */
  /* simulation.solver auto: why the static solver gave way to the explicit engine (it
   * found no equilibrium: a specimen that collapses), or empty */
  char static_fallback[512];
  /* the run's warnings about the rig (fl_run_rig_warnings), or empty */
  char warnings[512];
} fl_result;

void fl_result_free(fl_result *r);

/* Shared beginnings (fiberlab-model(7), THE STATIC SOLVER, Shared beginnings): a fit's
 * difference run that changes only numbers of the buckling envelope (max_force,
 * min_force, displacement_at_min_force, slope_after_min_force) is the base run's, bit
 * for bit, until a bond nears its buckling point.  Given a cache in fl_run_hooks.prefix,
 * each static run of a batch of one specimen keeps copies of its state along its path
 * (the most recent runs, a few), and a specimen of the same tag and the same build
 * starts from the furthest copy it would have reached itself: the same results to the
 * bit, without the shared part's cost (tests/check_buckling.c compares runs with a
 * cache and without).  Runs on several threads only read the cache; the explicit
 * engines neither keep nor take copies. */
typedef struct fl_prefix_cache fl_prefix_cache;
fl_prefix_cache *fl_prefix_cache_new(void);
void fl_prefix_cache_free(fl_prefix_cache *c);
/* The tags of the next batch's specimens, ntag numbers each (at most FL_PREFIX_TAG_MAX;
 * tags NULL: none, nothing shared): specimens of equal tags must differ at most in those
 * four numbers (a fit tags a run by its item and its parameters with them zeroed).  tags
 * must stay valid until the batch has run; clear them then. */
#define FL_PREFIX_TAG_MAX 64
void fl_prefix_cache_tags(fl_prefix_cache *c, int nspec, int ntag, const double *tags);
/* Specimens that started from a kept copy, and the increments they skipped. */
void fl_prefix_cache_counts(const fl_prefix_cache *c, long *starts, long *skipped);

/* What a caller asks of a run beyond its experiment (fl_run_hooks.options, or-ed). */
/* The static solver ends the path at the first row that counts a bond at its limit or
 * buckled, past the third (a start that needs only the first slope, whose rows end
 * there); the explicit engine runs it all. */
#define FL_RUN_UNTIL_EVENT 1
/* A check for the test suite alone: the static solver solves all six unknowns of every
 * body even where the problem is planar (tests/static-planar.sh compares the two). */
#define FL_RUN_CHECK_ALL_UNKNOWNS 2
/* A check for the test suite alone: every column of the static solver's tangent
 * evaluates every bond (tests/static-colours.sh compares it with the tangent by colours). */
#define FL_RUN_CHECK_FULL_TANGENT 4

/* Called every output point (optional): the system after the step. */
typedef struct {
  void (*progress)(void *ctx, double fraction);
  void (*sample)(void *ctx, const fl_system *sys, int point, double x);
  void *ctx;
  volatile sig_atomic_t *stop; /* set asynchronously to interrupt */
  int threads;                 /* threads over specimens (0 or 1: serial) */
  int gpu;                     /* 1: step on the CUDA engine (a build with CUDA and a device) */
  fl_prefix_cache *prefix;     /* NULL, or the shared beginnings of a caller's runs (above) */
  int options;                 /* FL_RUN_* or-ed: what the caller asks beyond the experiment */
} fl_run_hooks;

/* Run the virtual test; err gets a message for FL_EUNSTABLE, FL_ETIMESTEP, ... */
int fl_run(const fl_experiment *exp, int nspec, const fl_run_hooks *hooks, fl_curve *curve, fl_result *res,
           char *err, size_t errlen);
/* Run a batch whose specimen s is exps[s] (see fl_build_many): one time step (the
 * smallest bound), one loading path (exps[0]'s), one curve per specimen. */
int fl_run_many(const fl_experiment *const *exps, int nspec, const fl_run_hooks *hooks, fl_curve *curve,
                fl_result *res, char *err, size_t errlen);

/* The rows of specimen k that a slow lab machine would record, into qx, qy (room for
 * npoints + 2 * (FL_MAX_SNAPS + 1) rows): a 3-point specimen's rows out of equilibrium (nose
 * and support forces more than 5 % apart: the snap after a buckle or a break) are left
 * out, and a snap right after the peak becomes a drop within one row's width of
 * displacement from the peak.  On the static solver's path (peak_on_path) the states
 * before its snaps (where a bond reaches its buckling point or limit), and the peak,
 * that fall between two rows are rows of their own, and a snap after one becomes such
 * a drop.  Returns the number of rows. */
int fl_curve_quasi_static(const fl_curve *c, const fl_specimen_result *sr, enum fl_test_kind kind, int k,
                          double *qx, double *qy);

/* The test's measured load of specimen s from the loads of the last evaluation: force
 * on the nose (the specimen pushes it up, N), grip force along the fiber (tension
 * positive, N) or grip torque about it (N m). */
double fl_run_measured(const fl_system *sys, enum fl_test_kind kind, int s);

/* The bonds of e's specimen that carry the test's largest load alike, for the strength
 * of the weakest of n (man 7, Strength and segment length): the gauge's in tension and
 * torsion (as fl_build makes it, at least 2), those between the two noses in 4-point
 * bending (at least 1), and 1 where the largest moment peaks at one bond: under the
 * nose in 3-point bending, at the clamp of a cantilever, at the middle of a pinned
 * column. */
int fl_equally_loaded_bonds(const fl_experiment *e);

/* The deflection of specimen s's axis at midspan below the mean of its axis over the
 * supports at +-span/2 (each point on the segment that lies there), m. */
double fl_run_midspan_deflection(const fl_system *sys, int s, double span);

#endif
