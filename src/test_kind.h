/* test_kind.h: the kinds of virtual test (test.kind) as one const table, as solver.h
 * keeps the solvers: for each kind what it builds, what its loading path moves, what it
 * measures, its scales, the names of its outputs and its checks.  The rest of fiberlab
 * asks the table and does not branch on the kind.  Each kind (or family) fills its
 * entry in one file of src/kind/; test_kind.c holds the table.
 *
 * Adding a test kind:
 * - its value in enum fl_test_kind (experiment.h), and its keys: its fields in
 *   fl_test_def, its rows in experiment_keys.c's table under a K_ bit of its own, its
 *   name in fl_exp_kind_names;
 * - one file src/kind/NAME.c defining its fl_test_type: every member below that is not
 *   marked optional; its path moves one of the mechanisms of enum fl_test_drive, which
 *   the solvers carry out;
 * - its entry in test_kind.c's table;
 * - its measured load in track.h's fl_track_load, which switches on the kind because
 *   the CUDA engine computes it on the device (gpu/engine.cu);
 * - where a fit starts its strength from beam theory (fit/starts.c's beam_stress) and
 *   labels its curves' plots (fit/report.c), its case there;
 * - its program src/fiber-NAME.c (fl_cli_main with its kind), its man page, and these
 *   files in Makefile.am. */
#ifndef FL_TEST_KIND_H
#define FL_TEST_KIND_H

#include <stddef.h>

#include "build.h"
#include "run.h"
#include "shape.h"

struct fl_exp_checker; /* experiment_keys.h */
struct fl_exp_warner;

/* What the loading path's position moves; the solvers carry it out (explicit.c, the
 * static solver's state.c) and the LAMMPS export writes it (lammps.c). */
enum fl_test_drive {
  FL_DRIVE_NOSES = 0, /* the tools from 2 on (the noses) down along -y; tools 0 and 1 (the supports) stay */
  FL_DRIVE_PULL = 1,  /* the moving grip along +x, away from the fixed one */
  FL_DRIVE_PUSH = 2,  /* the moving grip along -x, towards the fixed one */
  FL_DRIVE_TURN = 3,  /* the moving grip about the x axis */
  FL_DRIVE_LOAD = 4   /* the point load (sys->pload), through the kind's load_at */
};

typedef struct fl_test_type {
  /* ---- names -------------------------------------------------------------- */
  const char *name; /* test.kind's value (fl_exp_kind_names); its program is fiber-NAME */
  const char *what; /* the program's one-line description (--help) */

  /* ---- the loading path --------------------------------------------------- */
  enum fl_test_drive drive;
  int angular; /* 1: the path's position is a turn (rad, degrees in YAML) and the load a torque */
  /* The end of the path in SI (m, rad or N), and its key ("test.max_displacement" ...). */
  double (*target)(const fl_test_def *t);
  const char *(*target_key)(const fl_test_def *t);
  /* Make the path end at abscissa x (a fit's or a campaign's run over a measured
   * range); a path that ends at a load (a cantilever under load control) keeps its end. */
  void (*reach)(fl_test_def *t, double x);
  /* Optional: 1 when the path ends in a release and a ring-down (run.c). */
  int (*rings)(const fl_test_def *t);

  /* ---- the specimen (build.c calls these, in this order) --------------------- */
  /* The bodies along the fiber, the grips' and the tools' (lay), with h the segment
   * length; sets info's length, gauge, span, free_bonds, clamped, centre_is_segment as
   * the kind has them.  FL_OK, or FL_EINPUT for a definition it cannot lay out. */
  int (*layout)(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info);
  /* Optional: the kind's own rest shape (x_ref, q_ref and every specimen's x, q), once
   * the segments are placed and before the bonds are made in it. */
  void (*rest)(const fl_experiment *exp, fl_system *sys, double h);
  /* The tools and their contact laws (one per specimen of exps), gravity, the point
   * load, and the first period of the test's lowest mode into info (the time scale of
   * the automatic speed), on the built specimens of the batch lead leads; returns the
   * stiffest tool contact's stiffness for the stability bound, N/m (0: no tools). */
  double (*place)(const fl_experiment *lead, const fl_experiment *const *exps, int nspec,
                  const fl_shape *sh, fl_system *sys, fl_build_info *info);
  /* Optional (drive FL_DRIVE_LOAD): the point load at path position pos. */
  void (*load_at)(fl_system *sys, const fl_test_def *t, double pos);

  /* ---- the measurements (measure.c; the measured load is track.h's) ----------- */
  /* The displacement column of specimen s, from travel, the path position since the
   * first touch (the tip's own displacement, for a point load). */
  double (*abscissa)(const fl_system *sys, int s, double travel);
  /* The load on the specimen's other end (the supports', the fixed grip's or the
   * clamp's) from the loads of the last evaluation, in the measured load's sign. */
  double (*reaction)(const fl_system *sys, int s);
  /* Optional: the row's own columns of specimen s into row r of c (the support force,
   * a midspan deflection), from the loads of the last evaluation. */
  void (*columns)(const fl_system *sys, int s, double span, fl_curve *c, size_t r);
  /* The bonds that carry the largest load alike (fl_equally_loaded_bonds). */
  int (*equally_loaded)(const fl_experiment *e);
  /* The static solver's load scale: the elastic load at the path's end by beam theory,
   * N (N m for a torque), of specimen e of a batch built as info (info->length, its
   * section).  The products keep their order: the solver's tolerance takes its bits. */
  double (*load_scale)(const fl_experiment *e, const fl_build_info *info);
  /* The largest stress by beam theory that a measured load y (N, or N m for a torque)
   * makes in specimen e, whose section has inertia, area and polar moment s and its
   * outer fibre at c: where a strength fit starts (fit/starts.c). */
  double (*stress_at)(const fl_experiment *e, const fl_section *s, double c, double y);
  /* Optional: the load past which the test's path may bifurcate, by beam theory (N, or
   * N m for a torque; fiberlab-model(7), THE STATIC SOLVER, Stability), of specimen e
   * built as info: the static solver watches the tangent's stability from there on. */
  double (*critical_load)(const fl_experiment *e, const fl_build_info *info);
  /* Optional: 1 where simulation.solver auto takes the explicit engine for e at the
   * automatic speed on the CPU (solver.h). */
  int (*auto_explicit)(const fl_experiment *e);
  int friction_turns; /* 1: the tools' friction reverses at a cycle's turning points, where the static
                       * solver keeps its increments short */

  /* ---- the outputs (output.c, the fit and campaign reports) ------------------- */
  const char *x_unit, *y_unit, *k_unit; /* SI units of the abscissa, the load and the slope */
  const char *csv_x, *csv_y;            /* CSV columns of the abscissa and the load */
  const char *csv_support;              /* optional: the third CSV column, the reaction (c->support) */
  const char *csv_last;                 /* optional: the last CSV column (c->midspan) */
  const char *plot_x, *plot_y;          /* the plot's axis labels */
  const char *plot_xscale;              /* gnuplot's factor from the abscissa to plot_x's unit ... */
  double xscale;                        /* ... and the same as a number */
  const char *key_length;               /* the summary's keys: the test's length, */
  const char *key_speed;                /* its speed, */
  const char *key_peak;                 /* the peak load, */
  const char *key_at_peak;              /* the abscissa there, */
  const char *key_at_max;               /* optional: the load at the largest abscissa */
  int envelope;                         /* 1: the plot draws a buckling envelope's lab curve */
  int kink;                             /* 1: a fit may weigh the kink of its curve (buckling bonds) */
  const char *slope_scale;              /* the bond scale a fit starts from the initial slope */

  /* ---- the checks (experiment_checks.c, in this order) -------------------------- */
  /* Why a curved fiber does not go in the test (NULL: it does); *in, the test as the
   * message names it, comes set to its name (a kind may say "a vibration cantilever"). */
  const char *(*straight_only)(const fl_test_def *t, const char **in);
  /* Optional: the rest shape built from a nontrivial fiber checked against the test. */
  int (*check_shape)(const struct fl_exp_checker *c, const fl_shape *sh);
  /* Optional: defaults of the kind set, and the keys checked, before the path's checks. */
  int (*settle)(struct fl_exp_checker *c);
  /* Optional: the kind's checks after every test's. */
  int (*check)(const struct fl_exp_checker *c);
  /* Optional: warnings about the test's keys, then about the fiber's (fl_experiment_warnings). */
  void (*warn)(struct fl_exp_warner *w);
  void (*warn_fiber)(struct fl_exp_warner *w);
} fl_test_type;

/* The sum of term over the bodies of specimen s that the fixed grip or the clamp holds
 * (term(sys, k), k the body's index in the batch's arrays): a reaction there. */
static inline double fl_test_held_sum(const fl_system *sys, int s, double (*term)(const fl_system *sys, size_t k))
{
  size_t base = (size_t)s * sys->nbody;
  double r = 0.0;
  for (int i = 0; i < sys->nbody; i++)
    if (sys->motion[i] == FL_GRIP_FIXED)
      r += term(sys, base + i);
  return r;
}

/* c times the bending stiffness a_rot E I of specimen e of a batch built as info (its
 * section), N m^2: the beam theory of every kind's scales (fiberlab-model(7)).  The
 * product keeps the order c a_rot E I: a load scale's bits, which the static solver's
 * tolerance takes, depend on it. */
static inline double fl_test_bend_stiffness(const fl_experiment *e, const fl_build_info *info, double c)
{
  return c * e->bond.torque_stiffness_scale * e->fiber.youngs_modulus * info->section.inertia;
}

/* The angular frequency of the built beam's bending mode of wave number k (its beta
 * over its length, 1/m): k^2 sqrt(a_rot E I / (rho A)), rad/s. */
static inline double fl_test_bending_omega(const fl_experiment *e, const fl_build_info *info, double k)
{
  return k * k * sqrt(fl_test_bend_stiffness(e, info, 1.0) / (e->fiber.density * info->section.area));
}

/* The table's entry of kind. */
const fl_test_type *fl_test_type_of(enum fl_test_kind kind);

/* Its name (test.kind's value). */
const char *fl_test_kind_name(enum fl_test_kind kind);
/* The end of the test's loading path: max_displacement (m), max_elongation (m),
 * max_twist (rad), max_shortening (m), or a cantilever's max_tip_displacement (m) or
 * max_tip_load (N). */
double fl_test_target(const fl_test_def *t);
/* 1 when the test's path ends in a release and a ring-down. */
int fl_test_rings(const fl_test_def *t);
/* Move what drive moves at the path's rate (m/s or rad/s) for an explicit step: the
 * noses' velocity, or the moving grip's speed or turn rate; a point load moves through
 * its kind's load_at instead. */
void fl_test_drive_rate(fl_system *sys, enum fl_test_drive drive, double rate);

#endif
