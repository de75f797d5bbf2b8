/* internal.h: the static solver's own types, and what each of its files offers the
 * others; the solvers' seam (solver.h) sees only its table, fl_solver_static.
 *
 * The static solver (fiberlab-model(7), THE STATIC SOLVER) runs a test as a path of
 * equilibria, file by file:
 * - driver.c walks each specimen along the path, increment by increment, and records
 *   the rows; increment.c takes one increment (a first guess, then Newton), newton.c
 *   solves for equilibrium with the residual of residual.c and the band linear algebra
 *   and Broyden updates of band.c; state.c moves the specimen's state (the tools, the
 *   committed history, the limits' margins); relax.c lets the explicit engine relax a
 *   specimen after a snap;
 * - workspace.c sizes and copies the workspace of one specimen; beginnings.c keeps
 *   states of a run for later runs that share its beginning; ringdown.c steps a
 *   vibration cantilever's ring-down in time; adapter.c is the table behind the seam;
 * - pin.c pins the rigid motions a bending test on frictionless tools leaves free;
 *   stability.c counts an equilibrium's unstable directions and leaves a bifurcation
 *   along its critical mode. */
#ifndef FL_STATIC_INTERNAL_H
#define FL_STATIC_INTERNAL_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <stddef.h>

#include "path.h"
#include "run.h"
#include "solver.h"
#include "system.h"
#include "test_kind.h"

#define NDOF 6          /* unknowns per free body */
#define NHIST 3         /* converged states kept before the last: a cubic first guess at most */
#define MAX_NEWTON 25   /* iterations before an increment is cut back */
#define REG_MIN 1e-10   /* the tangent's diagonal spring, of its largest diagonal (newton.c) */
#define MAX_UPDATES 16  /* Broyden updates of a tangent before a fresh one is built (band.c) */
#define DT_PSEUDO 1.0   /* s: turns an increment's displacement into a velocity */
#define PREFIX_BYTES 8e6 /* room for a run's kept states (about 6 kB a body each), and for its commit log */
#define NPIN 3          /* rigid motions a bending test may leave free (pin.c) */
#define NCOLOUR 3       /* the tangent's bodies perturbed together are 3 apart (newton.c) */

/* What the static solver did, per specimen. */
typedef struct {
  long increments;        /* converged load increments */
  long newton;            /* Newton iterations, all increments together */
  long tangents;          /* tangents built (18 load evaluations each, 9 in a planar problem) */
  long cutbacks;          /* increments halved after Newton failed */
  long relaxations;       /* dynamic relaxations after a snap */
  long evaluations;       /* load evaluations of the specimen */
  int unknowns;           /* unknowns per free body solved for: 3 (a planar problem) or 6 */
  int events;             /* bonds that broke, buckled or first yielded */
  double residual_force;  /* largest free-body force residual at an output row, N */
  double residual_torque; /* largest free-body torque residual at an output row, N m */
  double load_scale;      /* the test's load scale: the largest measured |load| on the curve, N or N m */
  double length_scale;    /* span or gauge length, m */
  double pin_force;       /* largest reaction of the pins (pin.c) at an output row: force, or torque over the
                           * length scale, N */
  int pinned;             /* rigid motions pinned (pin.c) */
  long stability_checks;  /* equilibria whose stability was checked (stability.c) */
  int bifurcations;       /* branches switched to at a bifurcation */
  int unstable_rows;      /* output rows on an equilibrium found unstable */
} fl_static_stats;

/* The commits of a run whose beginning is kept (beginnings.c): each commit's
 * bending angles and moments of the bonds (buckle_phi, buckle_m), from which its
 * buckling margin follows for any envelope of the same kb. */
typedef struct {
  double *phi, *m; /* nbond each per commit */
  int nbond, n, cap;
  int bad;         /* 1: memory ran out, and the log misses commits */
} commit_log;

/* The workspace of one specimen (workspace.c). */
typedef struct {
  fl_system *sys;         /* one specimen */
  enum fl_test_kind kind;
  const fl_test_type *type; /* its kind's table (test_kind.h) */
  const fl_experiment *exp; /* its definition */
  int first, nf, n;       /* free bodies first .. first + nf - 1; n = 6 nf residual components */
  int nu;                 /* unknowns solved for per free body: 6, or 3 in a planar problem */
  int dof[NDOF];          /* which of a body's six they are (0-2 translation, 3-5 rotation) */
  int m, hb;              /* the linear system's size nu nf and its half band 2 nu - 1 */
  double fs, ts;          /* force (N) and torque (N m) scales of the residual */
  double hx, hr;          /* difference steps: m, rad */
  double reach;           /* largest step of a body's translation in one iteration, m */
  double floor;           /* scaled residual of one rounding of a position in the stiffest bond */
  int planar;             /* 1: the specimen and its loads stay in the x-y plane (workspace.c) */
  int pin_free;           /* rigid motions the test leaves free (pin.c): 0, 1 (along the axis) or NPIN */
  int npin;               /* of them pinned: all from the start, none once the path needed them off */
  double *pin_u;          /* their motions in the unknowns solved for, npin of m */
  double *pin_r;          /* their reactions' directions in the residual, orthonormal, npin of n */
  double *pin_b;          /* the tangent's solves of those, npin of m (fl_static_pin_step) */
  double pin_react[NPIN]; /* the reactions taken out of the last residual, along pin_r (over fs) */
  double reg;             /* the tangent's diagonal spring, of its largest diagonal (REG_MIN..REG_MAX) */
  double nose_y0;         /* bend3pt: height of the nose axis at path position 0, m */
  double u, uc;           /* path position now and at the last converged state, m or rad */
  double uh[NHIST];       /* at the converged states before it, the latest first */
  int have_prev;          /* how many of those are kept (0 .. NHIST) */
  fl_vec3 *xc, *xh[NHIST], *xs; /* positions: converged, the NHIST converged before, saved, m */
  fl_quat *qc, *qh[NHIST], *qs; /* orientations, the same */
  int cut;                /* the last increment failed (cut back): the next starts from a line */
  fl_vec3 *rot;           /* predict's rotation vectors from the last state to those before (NHIST nf), rad */
  fl_bond_state *bc;      /* bond states of the last converged increment */
  fl_vec3 *xic;           /* contact histories of the last converged increment, m */
  double overlap_c;       /* sys->overlap there, m */
  fl_bond_state *bpre, *bt; /* a trial's history: before it (restored), and the one it moved on to */
  double *buckle_phi, *buckle_m; /* the system's: the bonds' bending angles and moments of an
                                  * advancing evaluation (fl_static_buckle_margin) */
  commit_log *log;        /* NULL, or where fl_static_commit logs them (beginnings.c) */
  fl_vec3 *xipre, *xit;   /* the same, contact histories, m */
  double overlap_t;       /* sys->overlap of the trial's history, m */
  int nbroken_t;          /* sys->nbroken of it */
  long trial_eval;        /* st.evaluations of the last trial (fl_static_trial_residual), or -1 */
  fl_vec3 *xt;            /* its free bodies' positions, m */
  fl_quat *qt;            /* and orientations */
  double ut;              /* its path position */
  int crit_t;             /* and the limits' criterion (breakage on or off) */
  int locate;             /* bonds break (total_breakage): each break is located exactly */
  int criterion;          /* the limits' criterion, while trials run with none */
  double g_c;             /* largest bond utilisation less 1 at the last converged state */
  int buckles;            /* the bonds have a buckling envelope */
  double gb_c;            /* largest buckling utilisation less 1 at the last converged state */
  int max_newton;         /* Newton's iterations before an increment is cut back */
  int nbroken_c;          /* sys->nbroken there */
  double beta[FL_MAX_TOOLS]; /* the contact laws' damping, off while solving */
  fl_bond_damping damping;   /* the bonds' damping, off while solving */
  double dt_explicit;        /* the explicit step, for relaxation, s */
  int (*step)(fl_system *, int *, int *); /* and the explicit engine's step there (fl_solver_setup) */
  double a_damp, stab;       /* the bonds' damping coefficient (s) and stabilisation */
  int visco;                 /* simulation.viscoelastic: the bonds stay damped, an increment taking
                              * its path length over speed (fl_static_step_time) */
  double speed;              /* test.speed, m/s or rad/s (visco) */
  double relax_time;         /* longest relaxation, s */
  double period;             /* the specimen's lowest elastic period, s */
  double snap_time;          /* longest once a bond has broken, yielded or buckled, s */
  double *r, *rp, *dx;       /* scaled residual, perturbed residual, Newton step */
  int *crange;               /* per colour of the tangent, the ranges [lo, hi) of the bonds its bodies
                              * join (fl_static_colour_residual), 2 (nbond + 1) ints each */
  int ncrange[NCOLOUR];      /* how many of them */
  int colours;               /* 1: a column evaluates only those (0: every bond, FL_RUN_CHECK_FULL_TANGENT) */
  double *rows0;             /* the bonds' load rows the tangent's differences are taken about */
  gsl_matrix *ab;            /* the tangent in GSL's band storage, factorised when lu_valid */
  gsl_matrix *abs;           /* a tangent for a stability check, the same storage (stability.c) */
  double *ks;                /* its symmetric part's L D L^T: per row the pivot, then L's hb entries */
  double *mode;              /* the critical mode, m unknowns */
  fl_vec3 *xb;               /* the equilibrium a branch switch leaves, positions (m) */
  fl_quat *qb;               /* and orientations */
  double seg;                /* segment length, m */
  int watch;                 /* the path's stability is watched (stability.c): a compression or torsion test */
  double critical;           /* and the elastic critical load it is watched near, N or N m */
  int lu_valid;              /* ab holds a usable factorisation */
  int own_solve;             /* 1: band_solve solves with it, 0: GSL's gsl_linalg_LU_band_solve */
  int solve_checks;          /* solves left that run both and compare them (band_solve) */
  double *ys;                /* band_solve's result while checked */
  int *ulast;                /* per row of U, its last column with a nonzero factor (band_solve) */
  int updates;               /* 1: Broyden updates of the kept tangent (not on frictionless rollers) */
  int nupd;                  /* Broyden updates of the factorised tangent (fl_static_broyden_update) */
  double *upd_s, *upd_a;     /* their steps s and vectors a, MAX_UPDATES of m each */
  gsl_vector_uint *piv;
  gsl_vector *bv, *xv;
  /* the ring-down (fl_static_ringdown): steps in time by the trapezoidal rule */
  int dynamic;               /* 1: the residual is the balance of momentum over a step of h */
  double h;                  /* that step, s */
  fl_vec3 *vc, *oc;          /* velocity (m/s) and angular velocity (rad/s) at the last converged step,
                              * per body */
  fl_vec3 *fc, *tc;          /* and the loads there: force with the weight (N), torque (N m) */
  fl_vec3 *ft, *tt;          /* the same of the last evaluation */
  fl_vec3 *fp, *tp;          /* and of the converged step before, hp before it (0: none) */
  double hp;
  double tol;                /* Newton's tolerance on the scaled residual (TOL; RING_TOL in time) */
  fl_static_stats st;
} workspace;

/* One specimen's part of a batch's run (driver.c) or ring-down (ringdown.c). */
typedef struct {
  const fl_experiment *exp;
  const fl_path *path; /* the batch's loading path (exps[0]'s) */
  const fl_build_info *info;
  const fl_run_hooks *hooks;
  fl_curve *curve;
  fl_result *res;
  int nspec, np, s;
  int s0;             /* the batch's number of specimen 0 of sys, for the messages */
  double speed;       /* for the time column: path length over it, s */
  int rows;           /* rows recorded */
  int leg_first_end;  /* first row of the second leg (np if none) */
  int status;
  char *err;
  size_t errlen;
  const double *phi;  /* a ring-down's first mode shape (fl_cantilever_mode_shape) */
  double h;           /* its time step, s */
  int per_row;        /* and steps between its rows */
  long steps;         /* steps it took */
  int (*step)(fl_system *, int *, int *); /* the explicit engine's step, for a relaxation */
} specimen_job;

/* Where a specimen stands on its path: what the walk (driver.c) carries from one
 * increment to the next, and what a kept state keeps of it for a later run to go on
 * from. */
typedef struct {
  double a;               /* path length of the last converged state */
  double du;              /* the next increment's length */
  double pending;         /* path length of a located break's increment, or -1 */
  double a_prev, gb_prev; /* the converged state before the last: path length, buckling margin */
  double y_last;          /* the last converged state's load, N or N m */
  double x_calm;          /* the abscissa of the last ordinary increment's state */
  double x_last;          /* the last converged state's abscissa */
  double post;            /* after a buckling point: the next sliver's length, or 0 */
  double touch;           /* bend3pt: the nose's path position at first touch */
  int friction;           /* bend3pt with friction: contacts that stick and slip (small increments after a turn) */
  int touched;            /* bend3pt: the nose has come past the first touch */
  int loaded;             /* a converged state has carried a load */
  int gb_have;            /* a_prev and gb_prev are set, on the present leg */
  int snapping;           /* in the events of a snap whose state is kept */
  int it;                 /* Newton's iterations of the last increment */
  int negative;           /* unstable directions of the last converged state (when watched) */
  int switched;           /* the converged state is on a branch switched to (stability.c) */
} path_cursor;

/* The larger of a and b, a where b is not a number (as fmax, which a call costs in the
 * residual's loops: it is not inlined where NaN is possible). */
static inline double larger(double a, double b)
{
  return b > a ? b : a;
}

/* A run's kept beginning (beginnings.c). */
typedef struct prefix_slot prefix_slot;

/* ---- workspace.c: the workspace of one specimen ---- */
void fl_static_workspace_free(workspace *w);
int fl_static_workspace_init(workspace *w, fl_system *one, const fl_experiment *exp, const fl_build_info *info,
                             const fl_run_hooks *hooks);
int fl_static_workspace_copy(workspace *dst, const workspace *src);
int fl_static_job_workspace(fl_system *batch, specimen_job *job, fl_system *one, workspace *w);
void fl_static_put_back(fl_system *batch, int s, workspace *w);

/* ---- state.c: the specimen's state as the solver moves it ---- */
void fl_static_save_state(workspace *w, fl_vec3 *x, fl_quat *q);
void fl_static_load_state(workspace *w, const fl_vec3 *x, const fl_quat *q);
void fl_static_apply_position(workspace *w, double u);
void fl_static_mode_static(workspace *w);
double fl_static_step_time(const workspace *w);
void fl_static_rate_step(workspace *w);
void fl_static_mode_explicit(workspace *w);
void fl_static_still(workspace *w);
void fl_static_breakage(workspace *w, int on);
double fl_static_break_margin(workspace *w);
double fl_static_buckle_margin(workspace *w, int fresh);
void fl_static_log_commit(commit_log *lg, const double *phi, const double *m);
void fl_static_commit(workspace *w);
void fl_static_restore_state(workspace *w);
void fl_static_restore(workspace *w);

/* ---- residual.c: the residual, and the velocities it reads ---- */
void fl_static_trapezoid_rates(const workspace *w, int i, fl_vec3 x, fl_quat q, fl_vec3 x0, fl_quat q0, fl_vec3 *v,
                               fl_vec3 *o);
void fl_static_increment_velocities(workspace *w);
fl_vec3 fl_static_momentum(const fl_system *sys, int i, fl_quat q, fl_vec3 o);
void fl_static_residual_norms(const workspace *w, double *rf, double *rt);
double fl_static_residual(workspace *w, double *r);
double fl_static_colour_residual(workspace *w, double *r, int colour);
double fl_static_trial_residual(workspace *w, double *r);
int fl_static_trial_is_current(const workspace *w);
double fl_static_norm2(const double *r, int n);
int fl_static_worst_body(workspace *w, const double *r);

/* ---- band.c: the tangent's band factors, their solve, Broyden's updates ---- */
int fl_static_factorise(workspace *w);
int fl_static_tangent_solve(workspace *w, double *x);
void fl_static_broyden_update(workspace *w, double step);

/* ---- pin.c: the rigid motions a bending test leaves free ---- */
void fl_static_pin_init(workspace *w);
void fl_static_pin_modes(workspace *w);
void fl_static_pin_project(workspace *w, double *r);
void fl_static_pin_reaction(const workspace *w, int j, fl_vec3 *f, fl_vec3 *t);
double fl_static_pin_size(const workspace *w);
int fl_static_pin_step(workspace *w, double *x);
int fl_static_pin_off(workspace *w);

/* ---- newton.c: Newton's method ---- */
void fl_static_tangent(workspace *w, gsl_matrix *ab);
int fl_static_newton(workspace *w, int *iterations);

/* ---- stability.c: stability, and the way off a bifurcation ---- */
int fl_static_stability(workspace *w, int *negative);
int fl_static_branch_switch(workspace *w, int before, int *negative, int *iterations);

/* ---- increment.c: one increment, and a located break ---- */
int fl_static_increment(workspace *w, double u, int *iterations);
int fl_static_locate_break(workspace *w, double u, double g1, double *s_lo, double *s_hi, int *iterations);

/* ---- relax.c: the relaxation after a snap ---- */
int fl_static_relax(workspace *w, double u, double time, int *iterations);

/* ---- beginnings.c: shared beginnings ---- */
prefix_slot *fl_static_prefix_find(const specimen_job *job, const workspace *w, int *state, double *gc, double *gp);
prefix_slot *fl_static_prefix_claim(const specimen_job *job, const workspace *w);
commit_log *fl_static_prefix_log(prefix_slot *sl);
int fl_static_prefix_choose(prefix_slot *sl, int c, double a, double a_prev, double next);
void fl_static_prefix_note(prefix_slot *sl, workspace *w, const path_cursor *at, const specimen_job *job,
                           const double *rows_at, const fl_specimen_result *sr, long *kept_at);
int fl_static_prefix_start(const prefix_slot *sl, int k, workspace *w, specimen_job *job, double *rows_at,
                           fl_specimen_result *sr, path_cursor *at, double gc, double gp);

/* ---- driver.c: the path's walk, and the batch's ---- */
void fl_static_run_jobs(fl_system *sys, specimen_job *jobs, fl_static_stats *stats, int nspec,
                        const fl_run_hooks *hooks, void (*fn)(fl_system *, specimen_job *, fl_static_stats *));
/* Run the test on the specimens of setup (su->sys, built by fl_build_many from su->exps)
 * along its path (the legs of exps[0]'s test, the same the explicit engines follow in
 * time): rows at output_points path positions evenly spread over the path, into
 * su->curve (allocated for output_points rows per specimen; npoints is set to the rows
 * every specimen recorded), peaks into su->res->spec, what the solver did into stats
 * (one per specimen).  su->s0: the batch's number of the first specimen here (a block of
 * a batch spread over MPI ranks; 0 otherwise), for the messages.  Returns FL_OK, or
 * FL_EUNSTABLE when no equilibrium could be found (err names the increment, load,
 * specimen and body; *failed the first specimen here that failed, else -1),
 * FL_EINTERRUPT, FL_ENOMEM. */
int fl_static_run(const fl_solver_setup *su, fl_static_stats *stats, int *leg_first_end, int *failed, char *err,
                  size_t errlen);


/* ---- ringdown.c ---- */
/* The ring-down of a vibration cantilever (fiber-cantilever(1), mode vibration) on the
 * static solver's equations: the specimens in sys rest at their release deflection
 * (the loading path run); release the tips (fl_cantilever_release) and step each
 * specimen on its own for test.ring_periods periods of the first mode by the
 * trapezoidal rule, Newton on the balance of momentum over each step with the loads
 * of the same evaluation the static solver balances (fiberlab-model(7), THE
 * RING-DOWN).  The rows, frequencies and decrements as fl_cantilever_ringdown records
 * them; res->time_step the step, sys->step the steps of specimen 0, Newton's
 * iterations, tangents and halved steps added to res.  s0 as fl_static_run's.  FL_OK,
 * FL_EUNSTABLE (no convergence after the halvings: err names the specimen, the time
 * and the body), FL_EINTERRUPT, FL_ENOMEM; the rows recorded stay. */
int fl_static_ringdown(const fl_experiment *const *exps, int nspec, int s0, fl_system *sys, const fl_build_info *info,
                       const fl_run_hooks *hooks, fl_curve *curve, fl_result *res, char *err, size_t errlen);

#endif
