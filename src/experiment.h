/* experiment.h: the definition of one virtual experiment, as read from YAML.
 * fl_experiment_default() holds every default; the loader overrides what the file
 * and the -s options say, and fl_experiment_finish checks it as a whole.  The key
 * table is experiment_keys.c, the loader yaml_experiment.c, the checks and warnings
 * experiment_checks.c, the writer experiment_write.c. */
#ifndef FL_EXPERIMENT_H
#define FL_EXPERIMENT_H

#include <stddef.h>
#include <stdio.h>

#include "bond.h" /* enum fl_criterion, enum fl_post_failure */

enum fl_test_kind {
  FL_TEST_BEND3PT = 0,
  FL_TEST_TENSION = 1,
  FL_TEST_TORSION = 2,
  FL_TEST_CANTILEVER = 3,
  FL_TEST_BEND4PT = 4,
  FL_TEST_COMPRESSION = 5
};

/* 1 for the tests that bend a fiber on two supports under one or two noses (tools 0
 * and 1 the supports, 2 and on the noses, which move down together). */
static inline FL_HD int fl_test_bends(enum fl_test_kind k) { return k == FL_TEST_BEND3PT || k == FL_TEST_BEND4PT; }

/* What drives a cantilever's tip: its displacement (through a stiff spring, so the tip
 * turns and slides across the load freely) or a dead load. */
enum fl_tip_control { FL_TIP_DISPLACEMENT = 0, FL_TIP_LOAD = 1 };

/* A cantilever's test: the loading path to a curve (static), or that path to a
 * deflection, then the release and the free vibration in time (vibration). */
enum fl_test_mode { FL_MODE_STATIC = 0, FL_MODE_VIBRATION = 1 };

/* 3-point rollers: fixed cylinders, with Coulomb friction test.friction at the
 * contacts, or cylinders free to turn about their axes, which take no tangential load. */
enum fl_rollers { FL_ROLLERS_FIXED = 0, FL_ROLLERS_ROTATING = 1 };

/* The bending tools' normal contact law (fiberlab-model(7), Tool contacts): Hertz with
 * the specimen's and the tools' moduli, a linear spring of test.contact_stiffness, or
 * tools that do not indent (a linear penalty far stiffer than the span). */
enum fl_contact { FL_CONTACT_HERTZ = 0, FL_CONTACT_LINEAR = 1, FL_CONTACT_RIGID = 2 };

#define FL_MAX_CYCLES 64
#define FL_MAX_KEYS 112

/* The cross-section a file describes: round (outer_radius, inner_radius_ratio) or
 * elliptic (semi-axes in the loading plane y and across it z), which the loader turns
 * into the round hollow section of the same I_z and area (fiberlab-model(7)). */
enum fl_section_shape { FL_SECTION_CIRCLE = 0, FL_SECTION_ELLIPSE = 1 };

/* The fiber's rest shape in the bending plane (fiberlab-experiment(5), SHAPE AND
 * SECTIONS). */
enum fl_shape_kind { FL_SHAPE_STRAIGHT = 0, FL_SHAPE_ARC = 1, FL_SHAPE_POLYLINE = 2 };

/* The length unit of the shape and section files (fiber.table_unit). */
enum fl_table_unit { FL_TABLE_M = 0, FL_TABLE_MM = 1, FL_TABLE_UM = 2 };

#define FL_PATH_LEN 512 /* a file name a key holds, resolved against the experiment file */

typedef struct {
  double length_m;           /* fiber length */
  double outer_radius_m;     /* R (ellipse: of the round equivalent, derived) */
  double inner_radius_ratio; /* R'/R in [0, 1) (ellipse: derived) */
  int section;               /* enum fl_section_shape */
  double semi_axis_y_m;      /* ellipse: a, in the loading plane (the outer-fibre distance) */
  double semi_axis_z_m;      /* ellipse: b, across it */
  double inner_semi_axis_y_m; /* ellipse: a' of the hollow, 0 for a solid section */
  double inner_semi_axis_z_m; /* ellipse: b' */
  int segments;              /* number of sphero-cylinder segments over length_m */
  double density;            /* kg/m^3 */
  double youngs_modulus;     /* Pa */
  double shear_modulus;      /* Pa; 0 until resolved from poisson_ratio */
  double poisson_ratio;      /* used when shear_modulus is not given */
  int shear_given;           /* 1 when the file gave shear_modulus */
  int poisson_given;         /* 1 when the file gave poisson_ratio */
  int shape;                 /* enum fl_shape_kind */
  double arc_radius_m;       /* arc: radius of the centreline (0: from arc_angle) */
  double arc_angle_rad;      /* arc: angle the fiber subtends (0: from arc_radius; degrees in YAML) */
  char polyline[FL_PATH_LEN]; /* polyline: CSV of x, y points of the centreline */
  double outer_radius_end_m; /* taper: outer radius at the fiber's far end (0: no taper) */
  char section_table[FL_PATH_LEN]; /* CSV of arc length, outer radius, inner radius ratio ("": none) */
  char nodes[FL_PATH_LEN];   /* CSV of nodes: position, length, outer radius, ratio, modulus, max_stress */
  int table_unit;            /* enum fl_table_unit: lengths in the three files */
} fl_fiber_def;

typedef struct {
  enum fl_criterion criterion;
  double max_stress;         /* Pa */
  double max_bending_angle;  /* rad (degrees in YAML) */
  int ignore_compression;
  double strength_variation; /* relative standard deviation */
  enum fl_post_failure post_failure;
  int max_stress_given;
} fl_failure_def;

typedef struct {
  enum fl_buckling type;
  double sample_length;      /* m */
  double max_force;          /* N */
  double min_force;          /* N */
  double displacement_at_min_force; /* m */
  double slope_after_min_force;     /* N/m */
  int values_given;          /* any number given */
  unsigned given;            /* bit per number given: sample_length, max_force, min_force, displacement */
} fl_buckling_def;

typedef struct {
  double force_stiffness_scale;  /* a_disp */
  double torque_stiffness_scale; /* a_rot */
  double damping;                /* a_damp, s */
  double damping_stabilization;  /* s */
  fl_failure_def failure;
  fl_buckling_def buckling;
} fl_bond_def;

typedef struct {
  enum fl_test_kind kind;
  /* bend3pt */
  double span_m;
  double loading_span_m;      /* bend4pt: distance between the two noses */
  double support_radius_m;
  double nose_radius_m;
  double tool_youngs_modulus; /* Pa */
  double contact_modulus;     /* Pa: hertz: the specimen's modulus in the contact law; 0: fiber.youngs_modulus */
  double tool_poisson_ratio;
  double friction;
  int rollers;                /* enum fl_rollers: supports and nose fixed (friction) or rotating */
  double restitution;         /* tool contacts */
  int contact;                /* enum fl_contact: the tools' normal law */
  double contact_stiffness;   /* linear: each tool's normal stiffness, N/m */
  double compliance;          /* the machine's and fixtures' compliance in series with the crosshead, m/N */
  double gravity;             /* m/s^2, along -y (bend3pt: the specimen rests on the supports) */
  double max_displacement_m;
  /* tension and torsion */
  /* compression */
  double max_shortening_m;    /* the moving grip's largest travel towards the other */
  double imperfection;        /* the rest shape's bow at midspan over the pinned length */
  double gauge_length_m;
  double grip_length_m;
  double max_elongation_m;
  double max_twist_rad;       /* degrees in YAML */
  /* cantilever */
  double clamp_length_m;      /* clamped length at the fiber's start */
  int tip_control;            /* enum fl_tip_control */
  double max_tip_displacement_m; /* tip displacement at the end of the path, along -y */
  double max_tip_load_n;      /* tip load at the end of the path, along -y, N */
  int mode;                   /* enum fl_test_mode */
  double ring_periods;        /* vibration: time recorded after the release, in periods of the
                               * Euler-Bernoulli first mode */
  int gravity_given;          /* 1 when the file gave test.gravity */
  /* loading rate: m/s (bend3pt, tension) or rad/s (torsion); <= 0 means auto */
  double speed;
  int ncycles;
  double cycles[FL_MAX_CYCLES]; /* turning points, SI */
} fl_test_def;

/* Solvers of a virtual test, in YAML order (simulation.solver). */
enum fl_solver {
  FL_SOLVER_AUTO = 0,     /* static for a test at the automatic speed on the CPU, else explicit */
  FL_SOLVER_EXPLICIT = 1, /* explicit dynamics in time (fiberlab-model(7), Time integration) */
  FL_SOLVER_STATIC = 2    /* a path of equilibria (fiberlab-model(7), THE STATIC SOLVER) */
};

typedef struct {
  enum fl_solver solver;
  double time_step;          /* s; <= 0 means auto */
  double safety;             /* fraction of the stability bound */
  int force_time_step;       /* run a step above the bound anyway */
  int viscoelastic;          /* the static solver keeps the bonds' damping at test.speed */
  int output_points;
  unsigned long seed;
  int seed_given;
} fl_sim_def;

typedef struct {
  fl_fiber_def fiber;
  fl_bond_def bond;
  fl_test_def test;
  fl_sim_def sim;
  int test_given;
  /* where each key was given (file line and column, 0 if not), for messages */
  unsigned key_line[FL_MAX_KEYS];
  unsigned key_col[FL_MAX_KEYS];
  unsigned char key_set_by_option[FL_MAX_KEYS]; /* 1: last set by -s */
  unsigned char key_from_fit[FL_MAX_KEYS];      /* 1: last set by fit_file, at key_line, key_col there */
  const char *fit_file;                         /* the fit file that set keys (fiberlab-fit(5) set:) */
} fl_experiment;

/* The distance from the neutral axis to the outer fibre in the loading plane, which
 * is also the radius the tools touch: R, or an ellipse's semi-axis a. */
static inline double fl_fiber_outer_fibre(const fl_fiber_def *f)
{
  return f->section == FL_SECTION_ELLIPSE ? f->semi_axis_y_m : f->outer_radius_m;
}

/* ---- the keys and their defaults (experiment_keys.c) ---------------------------- */

fl_experiment fl_experiment_default(void);
/* "auto", "explicit" or "static". */
const char *fl_solver_name(enum fl_solver solver);
/* The value of a numeric key by its dotted path, in the YAML's units (degrees for
 * angles); FL_EINPUT for an unknown or non-numeric key. */
int fl_experiment_get(const fl_experiment *exp, const char *path, double *value);
/* The unit of a numeric key as its YAML value is written ("m", "Pa", "deg", "" for a
 * number without unit), or NULL for a key that is not numeric or does not exist. */
const char *fl_experiment_key_unit(const char *path);
/* 1 when path names a real-valued key (the kind a fit may free). */
int fl_experiment_key_is_number(const char *path);
/* Record that a fit file set key path (after fl_experiment_set), at line and column
 * of fit_file, so that messages point there rather than at an option; fit_file must
 * outlive exp. */
void fl_experiment_mark_fit(fl_experiment *exp, const char *path, const char *fit_file, unsigned line, unsigned col);
/* "file:line:col" where key path was given (in the experiment file, or in the fit
 * file that set it), or the -s option that set it. */
void fl_experiment_where(const fl_experiment *exp, const char *file, const char *path, char *buf, size_t len);

/* ---- the loader (yaml_experiment.c) -------------------------------------------- */

/* Loader errors: "file:line:col: message" in err (size errlen). */
int fl_experiment_load(const char *path, fl_experiment *exp, char *err, size_t errlen);
/* Apply one -s KEY=VALUE, with the checks of the file. */
int fl_experiment_set(fl_experiment *exp, const char *assignment, char *err, size_t errlen);

/* ---- the checks and warnings (experiment_checks.c) ----------------------------- */

/* Checks across keys (after the file and every -s): fills G from poisson_ratio,
 * rejects forbidden combinations. */
int fl_experiment_finish(fl_experiment *exp, const char *path, char *err, size_t errlen);
/* Warnings about a valid definition (one per line, "file:line:col: key: ..."), into
 * buf; returns how many. */
int fl_experiment_warnings(const fl_experiment *exp, const char *path, char *buf, size_t len);
/* Of those, the values whose magnitude suggests a unit mistake (MPa for Pa, mm for m),
 * one line each into buf, starting with a newline when n > 0; returns how many. */
int fl_experiment_unit_warnings(const fl_experiment *exp, const char *path, char *buf, size_t len, int n);

/* ---- the writer (experiment_write.c) ------------------------------------------- */

/* Write the experiment as YAML that loads back to the same definition, each value
 * with its unit as a comment; FL_OK, or FL_EIO / FL_ENOMEM. */
int fl_experiment_write(FILE *f, const fl_experiment *exp);
/* The same document into an open writer (yaml_emit.h), after the caller's comment
 * lines. */
struct fl_yaml_out;
void fl_experiment_emit(struct fl_yaml_out *y, const fl_experiment *exp);

#endif
