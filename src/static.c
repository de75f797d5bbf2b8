/* static.c: the quasi-static solver (fiberlab-model(7), THE STATIC SOLVER).
 *
 * A lab test run slowly is a path of equilibria.  At each position of the nose or the
 * moving grip along the test's path, Newton's method finds the configuration of the free
 * bodies (6 unknowns each: a displacement and a rotation vector, applied to the
 * orientation as q <- exp(theta) q) where every free body's force, gravity included,
 * and torque vanish.  The loads come from the engine's own evaluation of a specimen
 * (fl_system_loads_specimen), never from a copy of the physics:
 *
 * - without moving the history while Newton iterates: every bond and contact is
 *   evaluated from the state of the last converged increment, so a bond that yields,
 *   buckles or breaks in a trial gives its post-event loads by the return mapping from
 *   that state; once converged, the history moves on as an evaluation with advance 1
 *   there moves it.  Newton's iterates are evaluated with advance 1 (the same loads)
 *   and the history put back after each, the moved-on one kept aside (trial_residual):
 *   the converged iterate's is committed without evaluating it again;
 * - with bond damping off (a_damp 0) and contact damping off (beta 0): nothing moves;
 * - with each free body's velocity set to its displacement (and rotation vector) since
 *   the last converged state over a pseudo time step of 1 s, and sys->dt set to it, so
 *   the tangential contact history takes exactly the slip of the increment.
 *
 * The tangent is a forward-difference Jacobian of those loads.  A body's loads depend
 * only on its own and its two neighbours' positions (the tools act on one body alone),
 * so bodies j, j + 3, j + 6 ... are perturbed together: 18 evaluations whatever the
 * length, 9 in a planar problem (planar_problem), which solves for 3 unknowns a body
 * (x, y and the turn about z).  With a body's unknowns side by side the matrix is block
 * tridiagonal, banded with 2 nu - 1 sub- and super-diagonals for nu unknowns a body (11,
 * or 5 in a planar problem: there the band and its LU, GSL's, hold only the unknowns
 * solved for, a quarter of the solve's and a tenth of the factorisation's work of
 * 6-unknown blocks).  GSL factorises it; band_solve solves with GSL's factors, as GSL's
 * own solve does to the bit, without its view and BLAS call a column.  Newton keeps a
 * tangent over iterations and increments, corrected after each step by Broyden's
 * secant update (broyden_update), and an increment starts from the parabola through
 * the last three converged states (predict).
 *
 * Increments adapt: halved when Newton fails, grown by 1.5 (up to the row spacing) when
 * it converged quickly.  After a turning point of a 3-point cycle with friction they stay
 * below a tenth of the row spacing: there the contacts' friction reverses from slip through stick, and
 * the history an increment adds (the slip of its end velocities over the pseudo step)
 * follows that path only to first order in the increment (wheat-straw-bend3pt-cycle:
 * the first row after the turn 19.97 N with increments of a row, 19.20 N with a tenth,
 * 19.17 N with a hundredth; the explicit curve 19.03 N by interpolation between rows).  When no equilibrium lies near the last one (a snap after a
 * break or a buckle), the explicit engine relaxes the specimen from the last state with
 * the tools held still and kinetic damping, and Newton polishes the result. */
#include <config.h>

#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl_defs.h"
#include "integrate.h"
#include "static.h"
#include "measure.h"
#include "cantilever.h"
#include "compression.h"
#include "path.h"
#include "solver.h"

#define NDOF 6           /* unknowns per free body */
#define NCOLOUR 3        /* bodies perturbed together are 3 apart */
#define MAX_NEWTON 25    /* iterations before an increment is cut back */
#define TOL 1e-9         /* converged: residual below TOL times its scale */
#define REG_MIN 1e-10    /* the tangent's diagonal spring, of its largest diagonal ... */
#define REG_MAX 1e-4     /* ... and the stiffest it is made where Newton stalls */
#define TOL_STALL 5e-9   /* accepted as converged when Newton stalls below it (rounding) */
#define DT_PSEUDO 1.0    /* s: turns an increment's displacement into a velocity */
#define FEW_ITERATIONS 5 /* an increment that converged in as many grows the next */
#define MIN_INCREMENT 1e-13  /* of the path: below it the run ends */
#define RELAX_INCREMENT 1e-8 /* of the row spacing: below it a failing increment is relaxed */
#define LEG_INCREMENT 0.1    /* of the row spacing: the largest increment after a turning point */
#define MAX_RELAX 40         /* relaxations of one specimen before the run gives up */
#define RELAX_PERIODS 100.0  /* longest relaxation, in periods of the lowest bending mode ... */
#define RELAX_CHECK 100      /* steps of a relaxation between checks of the residual at rest, */
#define RELAX_REST 1e-2      /* the residual at rest from which Newton polishes */
#define RELAX_RETRY 500      /* and after a Newton that failed from one, steps before the next */
#define SNAP_PERIODS 10.0    /* ... and after an event: a specimen not at rest by then falls */
#define SOLVE_CHECKS 2       /* a workspace's first solves, checked against GSL's own */
#define ONSET_APPROACH 0.99  /* an increment towards a predicted buckling point stops short by 1 % */
#define PREDICT_REACH 2.0   /* a quadratic first guess no further ahead than this many times its states' span, */
#define PREDICT_BEND 0.25   /* where the rates of motion changed by less than this of their size ... */
#define PREDICT_STRAIGHT 1e-5 /* ... and by more than this */
#define NHIST 3             /* converged states kept before the last: a cubic first guess at most */
#define PREDICT_CUBIC 0.01  /* the cubic only where the rates changed by less than this over both
                             * increments before (a smooth path, not a contact settling in) */
#define MAX_UPDATES 16      /* Broyden updates of a tangent before a fresh one is built */
#define BROYDEN_FLOOR 1e3   /* no update from a step that ends below this many times the residual's floor */
#define RING_STEPS 200       /* a ring-down's time steps per period of the first mode (THE RING-DOWN) */
#define RING_CUTS 8          /* and the halvings of one where Newton fails */
#define RING_TOL 1e-6        /* Newton's tolerance there, of the load scale (THE RING-DOWN) */
#define ONSET_NEWTON 2       /* Newton's iterations for the increment that crosses it and the slivers after:
                              * one that needs more finds no equilibrium near (a snap) or relaxes a sliver
                              * earlier to the same state (8, each with a fresh tangent, took 7.6 % of the
                              * buckling fit's instructions) */
#define PREFIX_BYTES 8e6     /* room for a run's kept states, and for its commit log (SHARED BEGINNINGS;
                              * a state: about 6 kB a body) */

/* The commits of a run whose beginning is kept (SHARED BEGINNINGS): each commit's
 * bending angles and moments of the bonds (buckle_phi, buckle_m), from which its
 * buckling margin follows for any envelope of the same kb. */
typedef struct {
  double *phi, *m; /* nbond each per commit */
  int nbond, n, cap;
  int bad;         /* 1: memory ran out, and the log misses commits */
} commit_log;

/* The workspace of one specimen. */
typedef struct {
  fl_system *sys;         /* one specimen */
  enum fl_test_kind kind;
  const fl_experiment *exp; /* its definition */
  int first, nf, n;       /* free bodies first .. first + nf - 1; n = 6 nf residual components */
  int nu;                 /* unknowns solved for per free body: 6, or 3 in a planar problem */
  int dof[NDOF];          /* which of a body's six they are (0-2 translation, 3-5 rotation) */
  int m, hb;              /* the linear system's size nu nf and its half band 2 nu - 1 */
  double fs, ts;          /* force (N) and torque (N m) scales of the residual */
  double hx, hr;          /* difference steps: m, rad */
  double reach;           /* largest step of a body's translation in one iteration, m */
  double floor;           /* scaled residual of one rounding of a position in the stiffest bond */
  int planar;             /* 1: the specimen and its loads stay in the x-y plane (planar_problem) */
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
                                  * advancing evaluation (buckle_margin) */
  commit_log *log;        /* NULL, or where commit() logs them */
  fl_vec3 *xipre, *xit;   /* the same, contact histories, m */
  double overlap_t;       /* sys->overlap of the trial's history, m */
  int nbroken_t;          /* sys->nbroken of it */
  long trial_eval;        /* st.evaluations of the last trial (trial_residual), or -1 */
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
  double a_damp, stab;       /* the bonds' damping coefficient (s) and stabilisation */
  double relax_time;         /* longest relaxation, s */
  double snap_time;          /* longest once a bond has broken, yielded or buckled, s */
  double *r, *rp, *dx;       /* scaled residual, perturbed residual, Newton step */
  gsl_matrix *ab;            /* the tangent in GSL's band storage, factorised when lu_valid */
  int lu_valid;              /* ab holds a usable factorisation */
  int own_solve;             /* 1: band_solve solves with it, 0: GSL's gsl_linalg_LU_band_solve */
  int solve_checks;          /* solves left that run both and compare them (band_solve) */
  double *ys;                /* band_solve's result while checked */
  int *ulast;                /* per row of U, its last column with a nonzero factor (band_solve) */
  int updates;               /* 1: Broyden updates of the kept tangent (not on frictionless rollers) */
  int nupd;                  /* Broyden updates of the factorised tangent (broyden_update) */
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
  double tol;                /* Newton's tolerance on the scaled residual: TOL, or RING_TOL in time */
  fl_static_stats st;
} workspace;

/* ---- the specimen's state -------------------------------------------------- */

static void save_state(workspace *w, fl_vec3 *x, fl_quat *q)
{
  memcpy(x, w->sys->x, (size_t)w->sys->nbody * sizeof *x);
  memcpy(q, w->sys->q, (size_t)w->sys->nbody * sizeof *q);
}

static void load_state(workspace *w, const fl_vec3 *x, const fl_quat *q)
{
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    w->sys->x[i] = x[i];
    w->sys->q[i] = q[i];
  }
}

/* Place the nose or the moving grip at path position u. */
static void apply_position(workspace *w, double u)
{
  fl_system *sys = w->sys;
  w->u = u;
  if (w->kind == FL_TEST_CANTILEVER) {
    fl_cantilever_drive(sys, &w->exp->test, u);
    return;
  }
  if (fl_test_bends(w->kind)) {
    for (int k = 2; k < sys->ntool; k++) { /* the noses */
      sys->tool[k].point.y = w->nose_y0 - u;
      sys->tool[k].vel = fl_v3(0.0, -(u - w->uc) / DT_PSEUDO, 0.0);
    }
    return;
  }
  double disp = w->kind == FL_TEST_TENSION ? u : w->kind == FL_TEST_COMPRESSION ? -u : 0.0, ang = w->kind == FL_TEST_TORSION ? u : 0.0;
  fl_quat qg = fl_qexp(fl_v3(ang, 0.0, 0.0));
  sys->grip_disp = disp;
  sys->grip_angle = ang;
  for (int i = 0; i < sys->nbody; i++)
    if (sys->motion[i] == FL_GRIP_MOVING)
      fl_integrate_grip(&sys->x[i], &sys->v[i], &sys->q[i], &sys->L[i], &sys->w[i], sys->x_ref[i], sys->q_ref[i],
                        disp, qg, fl_v3(0.0, 0.0, 0.0), 0.0);
}

/* Loads as the static solver sees them: no damping, and the slip of the increment. */
static void static_mode(workspace *w)
{
  fl_system *sys = w->sys;
  sys->dt = DT_PSEUDO;
  sys->damping[0].a_damp = 0.0;
  sys->damping[0].decay = 0.0;
  sys->damping[0].dt = DT_PSEUDO;
  for (int k = 0; k < sys->ntool; k++)
    sys->law[k].beta = 0.0;
}

/* Loads as the explicit engine sees them, for a relaxation. */
static void explicit_mode(workspace *w)
{
  fl_system *sys = w->sys;
  sys->dt = w->dt_explicit;
  sys->damping[0] = w->damping;
  for (int k = 0; k < sys->ntool; k++)
    sys->law[k].beta = w->beta[k];
}

/* Body i's velocity and angular velocity at the end of a step of the ring-down from
 * (x0, q0) to (x, q) by the trapezoidal rule: v = 2 dx / h - v_c, w = 2 theta / h - w_c
 * for the step's displacement dx and rotation vector theta. */
static void trapezoid_rates(const workspace *w, int i, fl_vec3 x, fl_quat q, fl_vec3 x0, fl_quat q0, fl_vec3 *v,
                            fl_vec3 *o)
{
  *v = fl_axpy(fl_scale(w->vc[i], -1.0), 2.0 / w->h, fl_sub(x, x0));
  *o = fl_axpy(fl_scale(w->oc[i], -1.0), 2.0 / w->h, fl_qlog(fl_qmul(q, fl_qconj(q0))));
}

/* Whether the loads may read free body i's angular velocity: a broken bond of its own
 * (its segments' contact, fl_bond_broken_contact) or a tool within reach
 * (fl_tool_beyond_reach). */
static int reads_rotation_rate(const fl_system *sys, int i)
{
  if (sys->nbroken[0] > 0) /* bonds broken or buckled so far */
    for (int a = sys->adj_start[i]; a < sys->adj_start[i + 1]; a++)
      if (sys->bstate[sys->adj_bond[a]].broken)
        return 1;
  for (int k = 0; k < sys->ntool; k++)
    if (!fl_tool_beyond_reach(&sys->tool[k], sys->x[i], sys->half_length[i], sys->radius[i]))
      return 1;
  return 0;
}

/* The free bodies' velocities: their displacement since the last converged state over
 * the pseudo step (zero when still); in a ring-down, the trapezoidal rule's
 * (trapezoid_rates).  Out of the ring-down the bonds are undamped, and only contacts
 * read a velocity: a body that none can touch (reads_rotation_rate) is given no
 * angular velocity, which spares the rotation's logarithm (an arc tangent) on the
 * bodies away from the tools. */
static void increment_velocities(workspace *w)
{
  fl_system *sys = w->sys;
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    if (w->dynamic) {
      trapezoid_rates(w, i, sys->x[i], sys->q[i], w->xc[i], w->qc[i], &sys->v[i], &sys->w[i]);
    } else {
      sys->v[i] = fl_scale(fl_sub(sys->x[i], w->xc[i]), 1.0 / DT_PSEUDO);
      sys->w[i] = reads_rotation_rate(sys, i)
                      ? fl_scale(fl_qlog(fl_qmul(sys->q[i], fl_qconj(w->qc[i]))), 1.0 / DT_PSEUDO)
                      : fl_v3(0.0, 0.0, 0.0);
    }
  }
}

/* Body i's angular momentum with angular velocity o (world) in orientation q
 * (fl_momentum_of: a symmetric body). */
static fl_vec3 momentum_of(const fl_system *sys, int i, fl_quat q, fl_vec3 o)
{
  return fl_momentum_of(q, o, sys->inertia_axial[i], sys->inertia_trans[i]);
}

static void still(workspace *w)
{
  fl_system *sys = w->sys;
  for (int i = 0; i < sys->nbody; i++)
    if (sys->motion[i] == FL_FREE)
      sys->v[i] = sys->w[i] = sys->L[i] = fl_v3(0.0, 0.0, 0.0);
}

/* Breaks on or off.  Off, a bond past its limit keeps its elastic loads: an increment
 * then never meets the jump of a break, and locate_break finds where the first bond
 * reaches its limit. */
static void breakage(workspace *w, int on)
{
  if (w->locate)
    w->sys->limits[0].criterion = on ? w->criterion : FL_CRIT_NONE;
}

/* A bond's utilisation of a limit in its present configuration: 1 on the limit. */
typedef double (*bond_use)(const fl_bond *, const fl_bond_limits *, const fl_body *, const fl_body *,
                           const fl_bond_state *);

/* The largest use of the bonds in the present state, less 1: negative while every bond
 * is below it, -1 when none can reach it.  phi and m (NULL: none): the bending angles
 * and moments of plastic bonds below buckling already worked out for the present
 * state, per bond, an angle not a number where it was not (their use:
 * fl_buckling_plastic_use). */
static double margin(workspace *w, const fl_bond_limits *lim, bond_use use, const double *phi, const double *m)
{
  fl_system *sys = w->sys;
  double worst = 0.0;
  for (int b = 0; b < sys->nbond; b++) {
    double u = phi && !isnan(phi[b]) ? fl_buckling_plastic_use(&lim->buckling, phi[b], m[b]) : NAN;
    if (isnan(u)) {
      fl_body b1 = {sys->x[sys->b1[b]], sys->q[sys->b1[b]], fl_v3(0, 0, 0), fl_v3(0, 0, 0)};
      fl_body b2 = {sys->x[sys->b2[b]], sys->q[sys->b2[b]], fl_v3(0, 0, 0), fl_v3(0, 0, 0)};
      u = use(&sys->bond[b], lim, &b1, &b2, &sys->bstate[b]);
    }
    worst = fmax(worst, u);
  }
  return worst - 1.0;
}

/* Of the breaking limit (fl_bond_utilisation, with the criterion that trials run
 * without). */
static double break_margin(workspace *w)
{
  fl_bond_limits lim = w->sys->limits[0];
  lim.criterion = w->criterion;
  return margin(w, &lim, fl_bond_utilisation, NULL, NULL);
}

/* Of the buckling point (fl_bond_buckling_utilisation): -1 also when every bond that can
 * buckle has.  fresh: the last evaluation was an advancing one of the present state, so
 * the bonds the vectorised law served there have their angles and moments in buckle_phi
 * and buckle_m (system.h), the others an angle not a number. */
static double buckle_margin(workspace *w, int fresh)
{
  const fl_system *sys = w->sys;
  return margin(w, &sys->limits[0], fl_bond_buckling_utilisation, fresh ? sys->buckle_phi : NULL, sys->buckle_m);
}

/* The larger of a and b, a where b is not a number (as fmax, which a call costs in the
 * residual's loops: it is not inlined where NaN is possible). */
static inline double larger(double a, double b)
{
  return b > a ? b : a;
}

/* Evaluate the loads (advance 0) and the scaled residual into r: per free body,
 * (f + m g) / fs and t / ts.  In a ring-down, the trapezoidal rule's balance of momentum
 * over the step instead: (f + f_c) / 2 - m (v - v_c) / h and (t + t_c) / 2 - (L - L_c) / h,
 * the loads of the last converged step f_c, t_c (weight included) and its velocity and
 * angular momentum v_c, L_c.  Returns the largest |component|. */
static double residual_advance(workspace *w, double *r, int advance)
{
  fl_system *sys = w->sys;
  increment_velocities(w);
  fl_system_loads_specimen(sys, 0, advance);
  w->st.evaluations++;
  double worst = 0.0;
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    fl_vec3 f = fl_axpy(sys->f[i], sys->mass[i], sys->gravity), t = sys->t[i];
    if (w->dynamic) {
      w->ft[i] = f;
      w->tt[i] = t;
      fl_vec3 dl = fl_sub(momentum_of(sys, i, sys->q[i], sys->w[i]), momentum_of(sys, i, w->qc[i], w->oc[i]));
      f = fl_axpy(fl_scale(fl_add(f, w->fc[i]), 0.5), -sys->mass[i] / w->h, fl_sub(sys->v[i], w->vc[i]));
      t = fl_axpy(fl_scale(fl_add(t, w->tc[i]), 0.5), -1.0 / w->h, dl);
    }
    double c[NDOF] = {f.x, f.y, f.z, t.x, t.y, t.z};
    for (int k = 0; k < NDOF; k++) {
      double rk = c[k] / (k < 3 ? w->fs : w->ts);
      r[NDOF * j + k] = rk;
      worst = larger(worst, fabs(rk));
    }
  }
  return isfinite(worst) ? worst : HUGE_VAL;
}

/* The largest free-body force (N) and torque (N m) residual of the last evaluation:
 * only an output row needs them. */
static void residual_norms(const workspace *w, double *rf, double *rt)
{
  const fl_system *sys = w->sys;
  *rf = *rt = 0.0;
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    *rf = larger(*rf, fl_norm(fl_axpy(sys->f[i], sys->mass[i], sys->gravity)));
    *rt = larger(*rt, fl_norm(sys->t[i]));
  }
}

static double residual(workspace *w, double *r)
{
  return residual_advance(w, r, 0);
}

/* The residual of a Newton iterate, as residual() does, by an evaluation that moves the
 * history on (advance 1) and gives the same loads: the history it moved on to is kept
 * and the one before put back, so that commit() takes the kept one in place of
 * evaluating the converged state once more (an evaluation an increment). */
static double trial_residual(workspace *w, double *r)
{
  fl_system *sys = w->sys;
  size_t nxi = (size_t)sys->nbody * sys->ntool;
  fl_system_states_get(sys, 0, w->bpre);
  memcpy(w->xipre, sys->xi, nxi * sizeof *w->xipre);
  double overlap = sys->overlap[0];
  int nbroken = sys->nbroken[0];
  double nrm = residual_advance(w, r, 1);
  fl_system_states_get(sys, 0, w->bt);
  memcpy(w->xit, sys->xi, nxi * sizeof *w->xit);
  w->overlap_t = sys->overlap[0];
  w->nbroken_t = sys->nbroken[0];
  fl_system_states_put(sys, 0, w->bpre);
  memcpy(sys->xi, w->xipre, nxi * sizeof *w->xipre);
  sys->overlap[0] = overlap;
  sys->nbroken[0] = nbroken;
  memcpy(w->xt, sys->x + w->first, (size_t)w->nf * sizeof *w->xt);
  memcpy(w->qt, sys->q + w->first, (size_t)w->nf * sizeof *w->qt);
  w->ut = w->u;
  w->crit_t = sys->limits[0].criterion;
  w->trial_eval = w->st.evaluations;
  return nrm;
}

/* Whether the last evaluation was the trial of the present state (the same bodies,
 * tools and limits). */
static int trial_is_current(const workspace *w)
{
  const fl_system *sys = w->sys;
  return w->trial_eval == w->st.evaluations && w->ut == w->u && w->crit_t == sys->limits[0].criterion &&
         memcmp(w->xt, sys->x + w->first, (size_t)w->nf * sizeof *w->xt) == 0 &&
         memcmp(w->qt, sys->q + w->first, (size_t)w->nf * sizeof *w->qt) == 0;
}

static double norm2(const double *r, int n)
{
  double s = 0.0;
  for (int k = 0; k < n; k++)
    s += r[k] * r[k];
  return sqrt(s);
}

/* Move free body i by unknowns d[0..5] scaled by a: translation, then rotation. */
static void move_body(workspace *w, int i, const double *d, double a)
{
  fl_system *sys = w->sys;
  sys->x[i] = fl_axpy(sys->x[i], a, fl_v3(d[0], d[1], d[2]));
  sys->q[i] = fl_qnormalize(fl_qmul(fl_qexp(fl_scale(fl_v3(d[3], d[4], d[5]), a)), sys->q[i]));
}

/* A test whose specimen, tools, grips, gravity and point load all lie in the x-y plane
 * (every test but torsion, on a straight or in-plane curved fiber): a mirror image in
 * z leaves it as it is, so its equilibria have no out-of-plane translation or turn, and
 * the loads it evaluates have none either (exactly: every z product is of zeros).  The
 * solver then differences and steps x, y and the turn about z only: half the residual
 * evaluations per tangent, and no out-of-plane rigid modes (a weightless chain on
 * frictionless rollers slides and spins along its rollers freely) for Newton to lose in
 * rounding.  The out-of-plane residuals stay in the convergence test all the same. */
static int planar_problem(const fl_system *one, enum fl_test_kind kind)
{
  if (kind == FL_TEST_TORSION || one->gravity.z != 0.0)
    return 0;
  for (int i = 0; i < one->nbody; i++)
    if (one->x_ref[i].z != 0.0 || one->q_ref[i].x != 0.0 || one->q_ref[i].y != 0.0 || one->x[i].z != 0.0 ||
        one->q[i].x != 0.0 || one->q[i].y != 0.0 || one->v[i].z != 0.0 || one->w[i].x != 0.0 || one->w[i].y != 0.0)
      return 0;
  for (int k = 0; k < one->ntool; k++)
    if (one->tool[k].axis.x != 0.0 || one->tool[k].axis.y != 0.0 || one->tool[k].vel.z != 0.0)
      return 0;
  if (one->pload.body >= 0 && (one->pload.dir.z != 0.0 || one->pload.arm.z != 0.0))
    return 0;
  return 1;
}

/* The tangent dr/du by forward differences about w->r, in band storage: unknown a of
 * free body j is column nu j + a, and its residual row the same. */
static void tangent(workspace *w)
{
  fl_system *sys = w->sys;
  const int nu = w->nu;
  gsl_matrix_set_zero(w->ab);
  const int diag = 2 * w->hb; /* column of the diagonal in GSL's band rows */
  for (int c = 0; c < NCOLOUR; c++)
    for (int a = 0; a < nu; a++) {
      int k = w->dof[a];
      double h = k < 3 ? w->hx : w->hr, d[NDOF] = {0};
      d[k] = h;
      int any = 0;
      for (int j = c; j < w->nf; j += NCOLOUR) {
        int i = w->first + j;
        w->xs[i] = sys->x[i];
        w->qs[i] = sys->q[i];
        move_body(w, i, d, 1.0);
        any = 1;
      }
      if (!any)
        continue;
      residual(w, w->rp);
      for (int j = c; j < w->nf; j += NCOLOUR) {
        int i = w->first + j;
        sys->x[i] = w->xs[i];
        sys->q[i] = w->qs[i];
        int col = nu * j + a;
        double *band = gsl_matrix_ptr(w->ab, (size_t)col, 0);
        for (int b = j - 1; b <= j + 1; b++) {
          if (b < 0 || b >= w->nf)
            continue;
          for (int e = 0; e < nu; e++) {
            int row = nu * b + e, from = NDOF * b + w->dof[e];
            /* A(row, col) sits in band row col, column 2 hb + row - col */
            band[diag + row - col] = (w->rp[from] - w->r[from]) / h;
          }
        }
      }
    }
}

/* Factorise the tangent.  A free body that nothing holds in some direction (a rigid
 * mode: no friction, a contact at zero overlap, no gravity) has a zero pivot; a spring
 * of w->reg (1e-10, REG_MIN) of the stiffest diagonal of its kind (translation,
 * rotation) on every unknown keeps the factorisation regular and leaves the residual,
 * and so the equilibrium found, as it is.  Returns 0 on failure. */
static int factorise(workspace *w)
{
  const int diag = 2 * w->hb, nu = w->nu;
  double big[2] = {0.0, 0.0};
  for (int col = 0; col < w->m; col++) {
    int rot = w->dof[col % nu] >= 3;
    big[rot] = fmax(big[rot], fabs(gsl_matrix_get(w->ab, (size_t)col, (size_t)diag)));
  }
  for (int col = 0; col < w->m; col++) {
    double *a = gsl_matrix_ptr(w->ab, (size_t)col, (size_t)diag);
    double reg = w->reg * big[w->dof[col % nu] >= 3];
    *a += *a < 0.0 ? -reg : reg;
    if (*a == 0.0)
      *a = 1e-300;
  }
  w->lu_valid = gsl_linalg_LU_band_decomp((size_t)w->m, (size_t)w->hb, (size_t)w->hb, w->ab, w->piv) == GSL_SUCCESS;
  if (w->lu_valid) /* where U's band ends in zeros (no row swap reached that far) */
    for (int i = 0; i < w->m; i++) {
      int last = i + diag < w->m - 1 ? i + diag : w->m - 1;
      while (last > i && w->ab->data[(size_t)last * w->ab->tda + diag + i - last] == 0.0)
        last--;
      w->ulast[i] = last;
    }
  return w->lu_valid;
}

/* x <- A^-1 x with the factors gsl_linalg_LU_band_decomp left in ab and piv, in its
 * documented layout (LAPACK's dgbtrf, row j of ab holding column j of A): U's column j
 * with the diagonal at column 2 hb of the row and the rows above it before, L's
 * multipliers after it, piv[j] the row swapped with j at step j.  The operations are
 * those of gsl_linalg_LU_band_solve and its reference CBLAS dtbsv, in their order, so
 * the result is theirs to the bit (newton_step compares the two on a workspace's first
 * SOLVE_CHECKS solves and keeps GSL's if they differ): GSL's takes a vector view and a
 * BLAS call for every column, which cost a tenth of a planar fit's time (the maize
 * brace root: 11 % of the profile in the solve's CBLAS and views).  The one difference:
 * a row of U stops at its last nonzero factor (ulast), where dtbsv goes on to 2 hb
 * columns; each product left out is an exact zero, whose subtraction leaves the sum as
 * it is (but for the sign of a sum that is itself zero), and the back substitution is a
 * chain of dependent subtractions, so the ones left out were its time (a row swap in
 * the factorisation fills U's band only that far: on the buckling fit 6 of the 10
 * columns on average). */
static void band_solve(const workspace *w, double *x)
{
  const int n = w->m, hb = w->hb, diag = 2 * w->hb;
  const size_t tda = w->ab->tda;
  const double *ab = w->ab->data;
  const unsigned int *piv = w->piv->data;
  for (int j = 0; j < n; j++) { /* L: the swaps and the multipliers, column by column */
    int p = (int)piv[j];
    if (p != j) {
      double t = x[j];
      x[j] = x[p];
      x[p] = t;
    }
    int below = n - 1 - j < hb ? n - 1 - j : hb;
    double a = -x[j];
    const double *l = ab + (size_t)j * tda + diag + 1;
    for (int i = 0; i < below; i++)
      x[j + 1 + i] += a * l[i];
  }
  for (int i = n - 1; i >= 0; i--) { /* U: back substitution, row by row */
    double t = x[i];
    int last = w->ulast[i];
    for (int j = i + 1; j <= last; j++)
      t -= ab[(size_t)j * tda + diag + i - j] * x[j];
    x[i] = t / ab[(size_t)i * tda + diag];
  }
}

/* x <- J^-1 x for the tangent J as updated: GSL's factors solve (band_solve, or
 * GSL's own solve while the two are compared or where they differ), then the Broyden
 * updates in their order.  Returns 0 when GSL's solve fails. */
static int tangent_solve(workspace *w, double *x)
{
  const size_t bytes = (size_t)w->m * sizeof(double);
  if (w->own_solve && w->solve_checks == 0)
    band_solve(w, x);
  else {
    double *bv = gsl_vector_ptr(w->bv, 0), *xv = gsl_vector_ptr(w->xv, 0);
    memcpy(bv, x, bytes);
    if (gsl_linalg_LU_band_solve((size_t)w->hb, (size_t)w->hb, w->ab, w->piv, w->bv, w->xv))
      return 0;
    if (w->solve_checks > 0) {
      w->solve_checks--;
      memcpy(w->ys, bv, bytes);
      band_solve(w, w->ys);
      if (memcmp(w->ys, xv, bytes) != 0)
        w->own_solve = w->solve_checks = 0;
    }
    memcpy(x, xv, bytes);
  }
  for (int k = 0; k < w->nupd; k++) {
    const double *sk = w->upd_s + (size_t)k * w->m, *ak = w->upd_a + (size_t)k * w->m;
    double d = 0.0;
    for (int i = 0; i < w->m; i++)
      d += sk[i] * x[i];
    for (int i = 0; i < w->m; i++)
      x[i] += d * ak[i];
  }
  return 1;
}

/* Broyden's update of the tangent J to the secant of the step just taken: s the step
 * (a dx in the unknowns), y the change of the residual over it (rp - r), so that the
 * updated J' s = y and J' v = J v for v orthogonal to s.  Applied to the inverse as
 * J'^-1 = (I + a s^T) J^-1 with a = (s - J^-1 y) / (s^T J^-1 y) (Sherman and
 * Morrison), kept as the pair (s, a).  Where a kept tangent has gone stale through a
 * few directions (a Hertz contact stiffening as it is pressed in, a bond softening
 * towards its buckling point), each update corrects the one the step explored, and
 * Newton converges faster than the tangent's linear rate. */
static void broyden_update(workspace *w, double step)
{
  if (w->nupd == MAX_UPDATES) {
    w->lu_valid = 0; /* as many as it takes: a fresh tangent next */
    return;
  }
  const int nu = w->nu, m = w->m;
  double *sk = w->upd_s + (size_t)w->nupd * m, *ak = w->upd_a + (size_t)w->nupd * m;
  double ss = 0.0;
  for (int j = 0; j < w->nf; j++)
    for (int a = 0; a < nu; a++) {
      int from = NDOF * j + w->dof[a];
      sk[nu * j + a] = step * w->dx[from];
      ak[nu * j + a] = w->rp[from] - w->r[from];
      ss += sk[nu * j + a] * sk[nu * j + a];
    }
  if (!(ss > 0.0) || !tangent_solve(w, ak))
    return;
  double d = 0.0, hh = 0.0;
  for (int i = 0; i < m; i++) {
    d += sk[i] * ak[i];
    hh += ak[i] * ak[i];
  }
  if (!(fabs(d) > 1e-3 * sqrt(ss * hh))) /* J^-1 y nearly orthogonal to s: no update */
    return;
  for (int i = 0; i < m; i++)
    ak[i] = (sk[i] - ak[i]) / d;
  w->nupd++;
}

/* dx = -tangent^-1 r with the factorised tangent as updated; the unknowns not solved
 * for step 0.  Returns 0 when not finite. */
static int newton_step(workspace *w)
{
  const int nu = w->nu;
  double *bv = w->ys + w->m; /* the right-hand side, solved in place */
  for (int j = 0; j < w->nf; j++)
    for (int a = 0; a < nu; a++)
      bv[nu * j + a] = -w->r[NDOF * j + w->dof[a]];
  if (!tangent_solve(w, bv))
    return 0;
  memset(w->dx, 0, (size_t)w->n * sizeof *w->dx);
  for (int j = 0; j < w->nf; j++)
    for (int a = 0; a < nu; a++) {
      double d = bv[nu * j + a];
      if (!isfinite(d))
        return 0;
      w->dx[NDOF * j + w->dof[a]] = d;
    }
  return 1;
}

/* Newton's method at the position applied, from the free bodies' present state.  The
 * tangent of an earlier iteration or increment is kept, with a Broyden update after
 * each step (broyden_update), while each step cuts the residual threefold, and built
 * afresh when one does not or after MAX_UPDATES updates.  Returns 1 when converged
 * (w->r holds the residual there). */
static int newton(workspace *w, int *iterations)
{
  double nrm = trial_residual(w, w->r), first = nrm, n2 = norm2(w->r, w->n);
  int stalled = 0, fresh = 0;
  if (w->reg > REG_MIN) {
    w->reg = REG_MIN;
    w->lu_valid = 0;
  }
  *iterations = 0;
  for (int it = 0;; it++) {
    if (nrm <= w->tol || (stalled >= 3 && nrm <= TOL_STALL))
      return 1;
    if (it == w->max_newton && nrm <= 4.0 * w->floor)
      return 1; /* as close as the positions' rounding lets the loads come */
    if (it == w->max_newton || !(nrm < 1e8 * fmax(first, 1e-6)))
      return 0;
    fresh = !w->lu_valid;
    if (fresh) {
      tangent(w);
      w->nupd = 0;
      w->st.tangents++;
      if (!factorise(w))
        return 0;
    }
    if (!newton_step(w)) {
      w->lu_valid = 0;
      if (fresh)
        return 0;
      continue;
    }
    w->st.newton++;
    (*iterations)++;
    /* A body's step at most `reach` and 0.1 rad: far steps leave the tangent behind. */
    double big_x = 0.0, big_r = 0.0;
    for (int j = 0; j < w->nf; j++)
      for (int a = 0; a < w->nu; a++) {
        int k = w->dof[a];
        if (k < 3)
          big_x = larger(big_x, fabs(w->dx[NDOF * j + k]));
        else
          big_r = larger(big_r, fabs(w->dx[NDOF * j + k]));
      }
    double a = 1.0;
    if (big_x > w->reach)
      a = w->reach / big_x;
    if (big_r * a > 0.1)
      a = 0.1 / big_r;
    /* Backtrack while the residual grows. */
    save_state(w, w->xs, w->qs);
    double next = HUGE_VAL, next2 = HUGE_VAL;
    int descent = 0;
    for (int ls = 0; ls < 6; ls++) {
      for (int j = 0; j < w->nf; j++)
        move_body(w, w->first + j, w->dx + NDOF * j, a);
      next = trial_residual(w, w->rp);
      next2 = norm2(w->rp, w->n);
      if (next2 < n2) {
        descent = 1;
        break;
      }
      if (ls == 5 && nrm > 1e-6)
        break; /* far from balance (a contact at the start of its Hertz law, where the
                * tangent is no guide): take the shortest step and go on */
      load_state(w, w->xs, w->qs);
      a *= 0.5;
    }
    if (!descent && nrm <= 1e-6) {
      /* near balance and no descent along the step: a fresh tangent, or as near as the
       * loads' rounding and the differences let Newton come */
      trial_residual(w, w->r);
      n2 = norm2(w->r, w->n);
      if (!fresh) {
        w->lu_valid = 0;
        continue;
      }
      if (nrm <= fmax(TOL_STALL, 4.0 * w->floor)) /* the floor: as with MAX_NEWTON */
        return 1;
      if (w->reg >= REG_MAX)
        return 0;
      /* A fresh tangent that does not descend: its soft modes (a weightless body that
       * nothing but a contact at the foot of its Hertz law holds, without friction) are
       * lost in the differences' rounding.  A stiffer diagonal spring shortens the step
       * along them; the residual, and so the equilibrium, stay as they are. */
      w->reg *= 100.0;
      w->lu_valid = 0;
      continue;
    }
    if (w->updates && next > BROYDEN_FLOOR * w->floor) /* above it, the secant is more than rounding */
      broyden_update(w, a);
    memcpy(w->r, w->rp, (size_t)w->n * sizeof *w->r);
    n2 = next2;
    stalled = next > 0.5 * nrm ? stalled + 1 : 0;
    if (next > 0.3 * nrm)
      w->lu_valid = 0; /* too slow: a fresh tangent next */
    nrm = next;
  }
}

/* Make the present state the converged one: one evaluation with advance 1 moves the
 * history on (plastic offsets, buckling, breakage, contact history). */
/* Append a commit's bending angles phi and moments m to lg; past PREFIX_BYTES, or
 * when memory runs out, the log goes bad (its run keeps no more states). */
static void log_commit(commit_log *lg, const double *phi, const double *m)
{
  size_t nb = (size_t)lg->nbond;
  if (!lg->bad && (double)(lg->n + 1) * (double)nb * 2.0 * sizeof *lg->phi > PREFIX_BYTES)
    lg->bad = 1;
  if (!lg->bad && lg->n == lg->cap) {
    int cap = lg->cap ? 2 * lg->cap : 256;
    double *p = realloc(lg->phi, (size_t)cap * nb * sizeof *p);
    if (p)
      lg->phi = p;
    double *q = realloc(lg->m, (size_t)cap * nb * sizeof *q);
    if (q)
      lg->m = q;
    if (p && q)
      lg->cap = cap;
    else
      lg->bad = 1;
  }
  if (lg->bad)
    return;
  memcpy(lg->phi + (size_t)lg->n * nb, phi, nb * sizeof *phi);
  memcpy(lg->m + (size_t)lg->n * nb, m, nb * sizeof *m);
  lg->n++;
}

static void commit(workspace *w)
{
  fl_system *sys = w->sys;
  if (trial_is_current(w)) {
    /* the loads are the trial's, and so is the history it moved on to */
    fl_system_states_put(sys, 0, w->bt);
    memcpy(sys->xi, w->xit, (size_t)sys->nbody * sys->ntool * sizeof *w->xit);
    sys->overlap[0] = w->overlap_t;
    sys->nbroken[0] = w->nbroken_t;
  } else {
    increment_velocities(w);
    fl_system_loads_specimen(sys, 0, 1);
  }
  w->trial_eval = -1;
  still(w);
  fl_vec3 *x = w->xh[NHIST - 1];
  fl_quat *q = w->qh[NHIST - 1];
  for (int k = NHIST - 1; k > 0; k--) {
    w->xh[k] = w->xh[k - 1];
    w->qh[k] = w->qh[k - 1];
    w->uh[k] = w->uh[k - 1];
  }
  w->xh[0] = w->xc;
  w->qh[0] = w->qc;
  w->uh[0] = w->uc;
  w->xc = x;
  w->qc = q;
  w->have_prev = w->have_prev < NHIST ? w->have_prev + 1 : NHIST;
  save_state(w, w->xc, w->qc);
  w->uc = w->u;
  fl_system_states_get(sys, 0, w->bc);
  memcpy(w->xic, sys->xi, (size_t)sys->nbody * sys->ntool * sizeof *w->xic);
  w->overlap_c = sys->overlap[0];
  w->nbroken_c = sys->nbroken[0];
  if (w->locate)
    w->g_c = break_margin(w);
  if (w->buckles)
    w->gb_c = buckle_margin(w, 1);
  if (w->log)
    log_commit(w->log, w->buckle_phi, w->buckle_m);
  for (int k = 2; fl_test_bends(w->kind) && k < sys->ntool; k++)
    sys->tool[k].vel = fl_v3(0.0, 0.0, 0.0);
}

/* The free bodies and the history back to the last converged state. */
static void restore_state(workspace *w)
{
  fl_system *sys = w->sys;
  load_state(w, w->xc, w->qc);
  fl_system_states_put(sys, 0, w->bc);
  memcpy(sys->xi, w->xic, (size_t)sys->nbody * sys->ntool * sizeof *w->xic);
  sys->overlap[0] = w->overlap_c;
  sys->nbroken[0] = w->nbroken_c;
}

/* Back to the last converged state, at rest, the tools where they were. */
static void restore(workspace *w)
{
  restore_state(w);
  still(w);
  apply_position(w, w->uc);
}

/* The first guess of the free bodies' state at path position u: the polynomial in u
 * through the last converged state and up to NHIST before it on the same leg
 * (Lagrange's form), in the positions and in the rotation vectors relative to the last
 * state.  Along a smooth path a polynomial through k + 1 states leaves a residual of
 * order k + 1 in the increment.  Along a bent beam the free ends move in x with the
 * square of the deflection, and the stiff axial bonds (and a cantilever's tip spring,
 * a thousand times the beam's stiffness) turn a small error of position into a large
 * residual: a line's error puts the first residual of every increment of the maize
 * brace root at 2e-5 of the load scale, three Newton iterations with a kept tangent;
 * on the tapered straw cantilever a line leaves 4e-2 and a parabola 5e-5 (the path's
 * third differences), a cubic 3e-7.  The state before the last enters only where the
 * bodies' rates of motion over the last two increments differ by less than
 * PREDICT_BEND of their size (a turn of the path, a contact lost or made, a body that
 * has come to rest: there a polynomial flings the bodies on where a line stops them)
 * and by more than PREDICT_STRAIGHT (a straight path, where extrapolating more states'
 * rounding only costs an iteration); the one before that only where the rates changed
 * by less than PREDICT_CUBIC over each of the last two pairs of increments (a cubic
 * after a contact settling in lost tests/validate.c's span case of 40 segments); each
 * only while u is within PREDICT_REACH times the span of the states taken, and none
 * after a failed increment (a weightless chain at its first contact, the same case,
 * then ends in cut-backs). */
static void predict(workspace *w, double u)
{
  double du = u - w->uc, t[NHIST + 1]; /* the states' positions on the path from uc */
  if (w->have_prev < 1 || w->uh[0] == w->uc || du * (w->uc - w->uh[0]) <= 0.0)
    return; /* the last state, where nothing came before on this leg */
  t[0] = 0.0;
  int order = 1; /* the states before the last that enter: 1 a line */
  for (int k = 0; k < w->have_prev; k++)
    t[k + 1] = w->uh[k] - w->uc;
  if (!w->cut)
    while (order < w->have_prev && (t[order + 1] - t[order]) * t[1] > 0.0 &&
           fabs(du) <= PREDICT_REACH * fabs(t[order + 1]))
      order++;
  fl_vec3 *rv = w->rot; /* rotation vectors to the states before: rv[k nf + j] */
  double arm = w->hx / w->hr; /* m/rad: a turn as a length */
  double bend[NHIST] = {0.0}, size[NHIST] = {0.0};
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    fl_vec3 vprev = fl_v3(0.0, 0.0, 0.0), oprev = vprev;
    for (int k = 0; k < order; k++) {
      rv[k * w->nf + j] = fl_qlog(fl_qmul(w->qh[k][i], fl_qconj(w->qc[i])));
      /* the rates over the increment from state k to the one after it */
      fl_vec3 dx = fl_sub(k ? w->xh[k - 1][i] : w->xc[i], w->xh[k][i]);
      fl_vec3 dr = k ? fl_sub(rv[(k - 1) * w->nf + j], rv[k * w->nf + j]) : fl_scale(rv[j], -1.0);
      double span = t[k] - t[k + 1];
      fl_vec3 v = fl_scale(dx, 1.0 / span), o = fl_scale(dr, arm / span);
      if (k > 0) {
        fl_vec3 dv = fl_sub(vprev, v), dw = fl_sub(oprev, o);
        bend[k] += fl_dot(dv, dv) + fl_dot(dw, dw);
        size[k] += fl_dot(v, v) + fl_dot(o, o);
      }
      vprev = v;
      oprev = o;
    }
  }
  /* the first older state enters where the path bends, but not along a straight
   * line; the second only where the path bent smoothly over both increments before */
  int keep = 1;
  if (order >= 2 && bend[1] <= PREDICT_BEND * PREDICT_BEND * size[1] &&
      bend[1] > PREDICT_STRAIGHT * PREDICT_STRAIGHT * size[1]) {
    keep = 2;
    if (order >= 3 && bend[1] <= PREDICT_CUBIC * PREDICT_CUBIC * size[1] &&
        bend[2] <= PREDICT_CUBIC * PREDICT_CUBIC * size[2])
      keep = 3;
  }
  order = keep;
  double l[NHIST]; /* Lagrange's weights of the states before; xc's is the rest */
  for (int k = 1; k <= order; k++) {
    double wk = 1.0;
    for (int m = 0; m <= order; m++)
      if (m != k)
        wk *= (du - t[m]) / (t[k] - t[m]);
    l[k - 1] = wk;
  }
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    fl_vec3 x = w->xc[i], rot = fl_v3(0.0, 0.0, 0.0);
    for (int k = 0; k < order; k++) {
      x = fl_axpy(x, l[k], fl_sub(w->xh[k][i], w->xc[i]));
      rot = fl_axpy(rot, l[k], rv[k * w->nf + j]);
    }
    w->sys->x[i] = x;
    w->sys->q[i] = fl_qnormalize(fl_qmul(fl_qexp(rot), w->qc[i]));
  }
}

/* One increment from the converged state to position u: a first guess extrapolated
 * from the last converged states on the same leg (predict), then Newton.  Returns 1
 * when converged (not yet committed); else the state is back at the last converged
 * one. */
static int increment(workspace *w, double u, int *iterations)
{
  apply_position(w, u);
  predict(w, u);
  w->cut = 1; /* until it converges */
  if (newton(w, iterations)) {
    w->cut = 0;
    return 1;
  }
  restore(w);
  w->lu_valid = 0;
  return 0;
}

/* A converged increment from uc to u (breaks off) took a bond past its limit, by g1
 * (break_margin).  Find the fraction s of the increment where the first bond reaches
 * its limit, by regula falsi with the Illinois weighting on the margin, each point an
 * equilibrium from the converged state: the peak before a break is then a smooth
 * function of the strength, as a fit by differences needs, not the last of a ladder of
 * cut-back increments.  On return the equilibrium at uc + s_lo (u - uc), below the
 * limit, is applied and not committed (s_lo 0: the converged state), and s_hi is a
 * fraction at or past the limit.  Returns 0 when an equilibrium fails (the state is
 * then the converged one). */
static int locate_break(workspace *w, double u, double g1, double *s_lo, double *s_hi, int *iterations)
{
  double uc = w->uc, lo = 0.0, hi = 1.0, glo = w->g_c, ghi = g1, at = 1.0;
  int side = 0;
  for (int k = 0; k < 60 && hi - lo > 1e-11 && glo < -1e-12; k++) {
    double s = (lo * ghi - hi * glo) / (ghi - glo);
    if (!(s > lo && s < hi))
      s = 0.5 * (lo + hi);
    int it = 0;
    if (!increment(w, uc + s * (u - uc), &it))
      return 0;
    *iterations += it;
    at = s;
    double g = break_margin(w);
    if (g < 0.0) {
      if (side < 0)
        ghi *= 0.5;
      lo = s;
      glo = g;
      side = -1;
    } else {
      if (side > 0)
        glo *= 0.5;
      hi = s;
      ghi = g;
      side = 1;
    }
  }
  *s_lo = lo;
  *s_hi = hi;
  if (lo == 0.0) {
    restore(w);
    return 1;
  }
  if (at != lo) {
    int it = 0;
    if (!increment(w, uc + lo * (u - uc), &it))
      return 0;
    *iterations += it;
  }
  return 1;
}

/* ---- relaxation after a snap ---------------------------------------------- */

/* The residual of the present state as an equilibrium of its own history: still
 * bodies, no slip. */
static double still_residual(workspace *w)
{
  fl_vec3 *xc = w->xc;
  fl_quat *qc = w->qc;
  w->xc = w->sys->x;
  w->qc = w->sys->q;
  static_mode(w);
  double nrm = residual(w, w->rp);
  w->xc = xc;
  w->qc = qc;
  return nrm;
}

/* From the last converged state, with the tools held at position u: the explicit
 * engine with kinetic damping (the free bodies stop whenever the kinetic energy passes
 * a peak) until the specimen rests, then Newton from there.  Returns 1 when converged. */
static int relax(workspace *w, double u, double time, int *iterations)
{
  fl_system *sys = w->sys;
  w->st.relaxations++;
  apply_position(w, u);
  for (int k = 2; fl_test_bends(w->kind) && k < sys->ntool; k++)
    sys->tool[k].vel = fl_v3(0.0, 0.0, 0.0);
  sys->grip_speed = sys->grip_omega = 0.0;
  still(w);
  fl_system_damping_clear(sys, 0);
  long max_steps = (long)ceil(time / w->dt_explicit), retry = 0;
  double ke_prev = 0.0;
  int ok = 0;
  fl_vec3 *keep_v = malloc((size_t)sys->nbody * 3 * sizeof *keep_v); /* velocities kept over a check */
  if (!keep_v)
    max_steps = 0;
  for (long n = 1; n <= max_steps; n++) {
    explicit_mode(w);
    int bs, bb;
    if (fl_system_step(sys, &bs, &bb) != FL_OK)
      break;
    double ke = fl_system_kinetic(sys, 0);
    if (ke < ke_prev) {
      still(w);
      ke = 0.0;
    }
    ke_prev = ke;
    if (n % RELAX_CHECK == 0) {
      /* the residual with the bodies stopped where they are */
      memcpy(keep_v, sys->v, (size_t)sys->nbody * sizeof *keep_v);
      memcpy(keep_v + sys->nbody, sys->w, (size_t)sys->nbody * sizeof *keep_v);
      memcpy(keep_v + 2 * sys->nbody, sys->L, (size_t)sys->nbody * sizeof *keep_v);
      double nrm = still_residual(w);
      if (nrm < RELAX_REST && n >= retry) {
        /* the rest state, its history committed by the engine's own steps, becomes the
         * converged state Newton polishes from */
        still(w);
        save_state(w, w->xc, w->qc);
        w->uc = u;
        w->have_prev = 0;
        fl_system_states_get(sys, 0, w->bc);
        memcpy(w->xic, sys->xi, (size_t)sys->nbody * sys->ntool * sizeof *w->xic);
        w->overlap_c = sys->overlap[0];
        w->nbroken_c = sys->nbroken[0];
        static_mode(w);
        apply_position(w, u);
        if (newton(w, iterations)) {
          ok = 1;
          break;
        }
        load_state(w, w->xc, w->qc);
        retry = n + RELAX_RETRY; /* Newton failed from this rest: the next try later */
      }
      memcpy(sys->v, keep_v, (size_t)sys->nbody * sizeof *keep_v);
      memcpy(sys->w, keep_v + sys->nbody, (size_t)sys->nbody * sizeof *keep_v);
      memcpy(sys->L, keep_v + 2 * sys->nbody, (size_t)sys->nbody * sizeof *keep_v);
    }
  }
  free(keep_v);
  static_mode(w);
  w->lu_valid = 0;
  return ok;
}

/* ---- one specimen ------------------------------------------------------------------ */

/* The test's elastic load at the path's largest position, by beam theory: the scale the
 * convergence test takes its tolerance from. */
static double load_estimate(const fl_experiment *exp, const fl_build_info *info, double span_or_gauge)
{
  const fl_test_def *t = &exp->test;
  double E = exp->fiber.youngs_modulus, G = exp->fiber.shear_modulus, L = span_or_gauge;
  double top = fl_test_target(t);
  if (t->kind == FL_TEST_CANTILEVER) /* Euler-Bernoulli's tip stiffness, or the load itself */
    return t->tip_control == FL_TIP_LOAD ? top
                                         : 3.0 * exp->bond.torque_stiffness_scale * E * info->section.inertia / (L * L * L) * top;
  if (t->kind == FL_TEST_COMPRESSION) /* the pinned column's Euler load */
    return exp->bond.torque_stiffness_scale * E * info->section.inertia * (FL_PI / L) *
           (FL_PI / L);
  if (t->kind == FL_TEST_BEND4PT) { /* each nose F/2 at c from its support: delta = (F/2) c^2 (3 L - 4 c) / (6 E I) */
    double c = 0.5 * (L - t->loading_span_m);
    return 12.0 * exp->bond.torque_stiffness_scale * E * info->section.inertia / (c * c * (3.0 * L - 4.0 * c)) * top;
  }
  if (t->kind == FL_TEST_BEND3PT)
    return 48.0 * exp->bond.torque_stiffness_scale * E * info->section.inertia / (L * L * L) * top;
  if (t->kind == FL_TEST_TENSION)
    return exp->bond.force_stiffness_scale * E * info->section.area / L * top;
  return exp->bond.torque_stiffness_scale * G * info->section.polar / L * top;
}

/* Every array of a workspace and its length, from nb (bodies), nbd (bonds + 1), nxi
 * (bodies times tools + 1), nf (free bodies), n and m in scope, the NHIST histories
 * xh and qh apart: one list for workspace_init, workspace_free and workspace_copy. */
#define WORKSPACE_ARRAYS(X)                                                                                   \
  X(xc, nb) X(xs, nb) X(qc, nb) X(qs, nb) X(rot, NHIST * nf + 1) X(bc, nbd) X(bpre, nbd) X(bt, nbd)           \
  X(buckle_phi, nbd) X(buckle_m, nbd) X(xic, nxi) X(xipre, nxi) X(xit, nxi) X(xt, nf + 1) X(qt, nf + 1)       \
  X(r, n + 1) X(rp, n + 1) X(dx, n + 1) X(vc, nb) X(oc, nb) X(fc, nb) X(tc, nb) X(ft, nb) X(tt, nb) X(fp, nb) \
  X(tp, nb) X(ys, 2 * m) X(ulast, m) X(upd_s, MAX_UPDATES * m) X(upd_a, MAX_UPDATES * m)

static void workspace_free(workspace *w)
{
#define X(field, count) free(w->field);
  WORKSPACE_ARRAYS(X)
#undef X
  for (int k = 0; k < NHIST; k++) {
    free(w->xh[k]);
    free(w->qh[k]);
  }
  if (w->ab)
    gsl_matrix_free(w->ab);
  if (w->piv)
    gsl_vector_uint_free(w->piv);
  if (w->bv)
    gsl_vector_free(w->bv);
  if (w->xv)
    gsl_vector_free(w->xv);
  fl_system_free(w->sys);
}

static int workspace_init(workspace *w, fl_system *one, const fl_experiment *exp, const fl_build_info *info)
{
  memset(w, 0, sizeof *w);
  w->sys = one;
  w->kind = exp->test.kind;
  w->exp = exp;
  int nb = one->nbody;
  w->first = -1;
  for (int i = 0; i < nb; i++)
    if (one->motion[i] == FL_FREE) {
      if (w->first < 0)
        w->first = i;
      w->nf++;
    }
  w->n = NDOF * w->nf;
  double L = fl_test_bends(w->kind) ? info->span : info->gauge;
  double P = load_estimate(exp, info, L);
  w->st.length_scale = L;
  if (w->kind == FL_TEST_TORSION) {
    w->ts = P;
    w->fs = P / L;
  } else {
    w->fs = P;
    w->ts = P * L;
  }
  /* The loads cannot come closer to balance than the stiffest spring times the
   * spacing of the numbers that hold the positions (|x| DBL_EPSILON). */
  double kmax = 0.0, xmax = 0.0;
  for (int b = 0; b < one->nbond; b++) {
    const fl_bond *bd = &one->bond[b];
    kmax = fmax(kmax, fmax(fl_series(bd->s1.k_axial, bd->s2.k_axial), fl_series(bd->s1.k_shear, bd->s2.k_shear)));
  }
  for (int i = 0; i < nb; i++)
    xmax = fmax(xmax, fabs(one->x_ref[i].x) + fabs(one->x_ref[i].y) + fabs(one->x_ref[i].z));
  w->floor = kmax * xmax * DBL_EPSILON / w->fs;
  w->hx = 4e-9 * info->h;
  w->reg = REG_MIN;
  /* FL_STATIC_ALL_DOFS=1 solves all six unknowns of every body even where the problem
   * is planar (a check of the reduction, tests/static-check.sh) */
  const char *all = getenv("FL_STATIC_ALL_DOFS");
  w->planar = !(all && strcmp(all, "1") == 0) && planar_problem(one, w->kind);
  w->st.unknowns = w->nu = w->planar ? 3 : NDOF;
  for (int a = 0; a < w->nu; a++)
    w->dof[a] = w->planar ? (a < 2 ? a : 5) : a; /* planar: x, y and the turn about z */
  w->m = w->nu * w->nf;
  w->hb = 2 * w->nu - 1;
  w->hr = 1e-8;
  w->reach = 0.1 * exp->fiber.outer_radius_m;
  if (fl_test_bends(w->kind))
    w->nose_y0 = one->tool[2].point.y;
  for (int k = 0; k < one->ntool; k++)
    w->beta[k] = one->law[k].beta;
  w->damping = one->damping[0];
  w->a_damp = exp->bond.damping;
  w->stab = exp->bond.damping_stabilization;
  w->dt_explicit = one->dt;
  w->relax_time = RELAX_PERIODS * info->first_period;
  w->snap_time = SNAP_PERIODS * info->first_period;
  size_t snb = (size_t)nb;
  {
    size_t nbd = (size_t)one->nbond + 1, nxi = snb * (size_t)one->ntool + 1, nf = (size_t)w->nf, n = (size_t)w->n,
           m = (size_t)w->m;
    int ok = 1;
#define X(field, count) FL_ARRAY_ALLOC(w->field, count, ok);
    WORKSPACE_ARRAYS(X)
#undef X
    for (int k = 0; k < NHIST; k++) {
      FL_ARRAY_ALLOC(w->xh[k], snb, ok);
      FL_ARRAY_ALLOC(w->qh[k], snb, ok);
    }
    if (w->m > 2 * w->hb) {
      w->ab = gsl_matrix_alloc((size_t)w->m, 3 * (size_t)w->hb + 1);
      w->piv = gsl_vector_uint_alloc((size_t)w->m);
      w->bv = gsl_vector_alloc((size_t)w->m);
      w->xv = gsl_vector_alloc((size_t)w->m);
    }
    if (!ok || !w->ab || !w->piv || !w->bv || !w->xv)
      return FL_ENOMEM;
  }
  w->trial_eval = -1;
  w->own_solve = 1;
  w->solve_checks = SOLVE_CHECKS;
  w->tol = TOL;
  w->criterion = one->limits[0].criterion;
  w->locate = w->criterion != FL_CRIT_NONE && one->limits[0].post == FL_POST_TOTAL_BREAKAGE;
  breakage(w, 0);
  static_mode(w);
  still(w);
  save_state(w, w->xc, w->qc);
  fl_system_states_get(one, 0, w->bc);
  memcpy(w->xic, one->xi, snb * one->ntool * sizeof *w->xic);
  w->overlap_c = one->overlap[0];
  w->nbroken_c = one->nbroken[0];
  w->g_c = w->locate ? break_margin(w) : -1.0;
  w->buckles = one->limits[0].buckling.type != FL_BUCKLING_NONE;
  w->gb_c = w->buckles ? buckle_margin(w, 0) : -1.0;
  w->max_newton = MAX_NEWTON;
  /* on rollers without friction (or rotating ones, which take no tangential load) only
   * the contacts' curvature holds a bent specimen along its axis: there the secants
   * drift the chain along that soft slide, and Newton stalls a few increments later
   * (tests/static-collapse.yaml at 0.5 mm) */
  w->updates = !(fl_test_bends(w->kind) && (exp->test.friction == 0.0 || exp->test.rollers == FL_ROLLERS_ROTATING));
  return FL_OK;
}

/* bend3pt: the nose position at first touch of the resting specimen, by bisection on
 * the contact force of the engine's own evaluation. */
static double touch_position(workspace *w)
{
  fl_system *sys = w->sys;
  double lo = 0.0, hi = sys->radius[0];
  for (int it = 0; it < 200 && hi - lo > 1e-15 * sys->radius[0]; it++) {
    double mid = 0.5 * (lo + hi);
    apply_position(w, mid);
    residual(w, w->rp);
    if (fl_run_measured(sys, w->kind, 0) > 0.0)
      hi = mid;
    else
      lo = mid;
  }
  apply_position(w, w->uc);
  return lo;
}

/* The largest-residual free body of the last evaluation. */
static int worst_body(workspace *w, const double *r)
{
  int best = w->first;
  double big = -1.0;
  for (int j = 0; j < w->nf; j++)
    for (int k = 0; k < NDOF; k++)
      if (fabs(r[NDOF * j + k]) > big) {
        big = fabs(r[NDOF * j + k]);
        best = w->first + j;
      }
  return best;
}

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
} specimen_job;

static void record(workspace *w, specimen_job *job, double a, double x)
{
  fl_system *sys = w->sys;
  size_t r = (size_t)job->s * job->np + job->rows;
  fl_curve *c = job->curve;
  c->time[r] = a / job->speed;
  c->x[r] = x;
  fl_measure_row(sys, w->kind, 0, job->info->span, c, r);
  c->kinetic[r] = 0.0;
  double rf, rt;
  residual_norms(w, &rf, &rt);
  w->st.residual_force = fmax(w->st.residual_force, rf);
  w->st.residual_torque = fmax(w->st.residual_torque, rt);
  w->st.load_scale = fmax(w->st.load_scale, fabs(c->y[r]));
  if (job->hooks && job->hooks->sample && job->nspec == 1)
    job->hooks->sample(job->hooks->ctx, sys, job->rows, w->u);
  job->rows++;
}

/* The specimen's final state back into the batch as specimen s, for the counts of the
 * result; its bonds broken, yielded or buckled into w->st.events. */
static void put_back(fl_system *batch, int s, workspace *w)
{
  const fl_system *one = w->sys;
  size_t nb = (size_t)one->nbody, nt = (size_t)one->ntool, k = (size_t)s;
  memcpy(batch->x + k * nb, one->x, nb * sizeof *one->x);
  memcpy(batch->q + k * nb, one->q, nb * sizeof *one->q);
  fl_system_states_get(one, 0, w->bc);
  fl_system_states_put(batch, s, w->bc);
  memcpy(batch->xi + k * nb * nt, one->xi, nb * nt * sizeof *one->xi);
  batch->overlap[k] = one->overlap[0];
  batch->nbroken[k] = one->nbroken[0];
  int broken;
  fl_system_count(one, 0, &broken, &w->st.events);
}

/* Specimen job->s of the batch in its own system one, and the solver's workspace on
 * it.  Returns 1, or 0 with job->status and job->err set (nothing left allocated). */
static int job_workspace(fl_system *batch, specimen_job *job, fl_system *one, workspace *w)
{
  if (fl_system_extract(batch, job->s, one)) {
    job->status = FL_ENOMEM;
    snprintf(job->err, job->errlen, "out of memory for the static solver");
    return 0;
  }
  one->inline_static = 1; /* its own: the vectorised law for its evaluations too */
  if (workspace_init(w, one, job->exp, job->info)) {
    workspace_free(w);
    job->status = FL_ENOMEM;
    snprintf(job->err, job->errlen, "out of memory for the static solver");
    return 0;
  }
  one->buckle_phi = w->buckle_phi;
  one->buckle_m = w->buckle_m;
  return 1;
}

/* ---- shared beginnings ---------------------------------------------------------------- */

/* A fit's difference run often changes a number of the buckling envelope alone
 * (max_force, min_force, displacement_at_min_force, slope_after_min_force).  Its run is
 * the base run's, to the bit, as long as
 *   - no bond evaluation read the envelope: the vectorised law serves a plastic bond
 *     below phi_b and reads nothing of the envelope but phi_b and kb, so every bond
 *     served (envelope_reads 0) with angles below both runs' phi_b (phi_seen);
 *   - the increments were the same: the buckling margin (buckle_margin), which depends
 *     on m_max and phi_b, chooses an increment only when it predicts the buckling point
 *     within it; the commits' angles and moments (commit_log) give each commit's
 *     margin for any envelope, and every choice the base run made is checked with them;
 *   - no relaxation ran (its explicit step and damping are the batch's).
 * A run of one specimen keeps its state at such increments, now and then and at every
 * increment near the buckling point, and a later run whose tag says it differs only in
 * those numbers starts from the furthest state it can take: the same results, without
 * the part they share. */

/* Copy src's state into dst, a workspace of a specimen of the same sizes: its system
 * (fl_system_copy) and every array.  dst keeps its own arrays, system, experiment and
 * log, and what its own batch set: the explicit time step (the smallest bound over a
 * batch), the damping over it and the relaxation times (from the batch's first period).
 * 0 when the sizes differ. */
static int workspace_copy(workspace *dst, const workspace *src)
{
  fl_system *sys = dst->sys;
  if (dst->n != src->n || dst->m != src->m || fl_system_copy(sys, src->sys))
    return 0;
  size_t nb = (size_t)sys->nbody, nbd = (size_t)sys->nbond + 1, nxi = nb * (size_t)sys->ntool + 1,
         nf = (size_t)dst->nf, n = (size_t)dst->n, m = (size_t)dst->m;
  workspace own = *dst;
  *dst = *src;
  dst->sys = own.sys;
  dst->exp = own.exp;
  dst->log = own.log;
  dst->dt_explicit = own.dt_explicit;
  dst->damping = own.damping; /* its decay over that step */
  memcpy(dst->beta, own.beta, sizeof dst->beta);
  dst->relax_time = own.relax_time;
  dst->snap_time = own.snap_time;
#define X(field, count) FL_ARRAY_COPY(dst->field, own.field, src->field, count);
  WORKSPACE_ARRAYS(X)
#undef X
  for (int k = 0; k < NHIST; k++) {
    FL_ARRAY_COPY(dst->xh[k], own.xh[k], src->xh[k], nb);
    FL_ARRAY_COPY(dst->qh[k], own.qh[k], src->qh[k], nb);
  }
  dst->ab = own.ab;
  dst->piv = own.piv;
  dst->bv = own.bv;
  dst->xv = own.xv;
  gsl_matrix_memcpy(dst->ab, src->ab);
  gsl_vector_uint_memcpy(dst->piv, src->piv);
  gsl_vector_memcpy(dst->bv, src->bv);
  gsl_vector_memcpy(dst->xv, src->xv);
  return 1;
}

/* The path loop's own variables (solve_specimen), kept with a state. */
typedef struct {
  double a, du, pending, a_prev, gb_prev, y_last, x_calm, x_last, post, touch;
  int friction, touched, loaded, gb_have, snapping, it;
} path_locals;

#define PREFIX_SLOTS 4   /* runs whose beginnings are kept: a fit's base and its last trials */
#define PREFIX_STATES 16 /* states kept of one run, at most, and as many as take PREFIX_BYTES */
#define PREFIX_NEAR 0.1  /* a state is kept at every increment once a bond is this close to its
                          * buckling point (the last replacing the one before), */
#define PREFIX_EVERY 32  /* and at every so many increments before */
#define PREFIX_COLS 6    /* the curve's columns kept per row: x, y, support, midspan, kinetic, strain */

/* One state of a run: the workspace on its own system, the loop's variables, and how
 * far the run's rows, commits and choices had come. */
typedef struct {
  int have;             /* w and sys allocated */
  fl_system sys;
  workspace w;
  path_locals loc;
  int rows, leg_first_end, ncommit, nchoice, near;
  fl_specimen_result sr;
} prefix_state;

/* A choice of increment the buckling margin could have made (solve_specimen): the
 * margins of commit c and the one before were compared, the path at a after a_prev,
 * the increment to next. */
typedef struct {
  int c;
  double a, a_prev, next;
} prefix_choice;

/* One run's beginning. */
typedef struct {
  int ready;            /* 1: states are kept */
  long order;           /* when its run began: the oldest slot is taken next */
  int ntag;
  double tag[FL_PREFIX_TAG_MAX]; /* the run's tag (fl_prefix_cache_tags) */
  fl_path path;
  int np;
  int nbody, nbond, ntool, m; /* sizes the states are allocated for */
  fl_system built;      /* the run's specimen as its workspace began (same_build) */
  int have_built;
  prefix_state st[PREFIX_STATES];
  int nst;
  commit_log log;       /* the run's commits */
  prefix_choice *choice;
  int nchoice, capchoice;
  double *arc;          /* rows: path length (the time column follows from it) */
  double *col;          /* and the columns, PREFIX_COLS a row */
  int *flag;            /* broken and yielded bonds, 2 a row */
  int cap;              /* rows allocated */
} prefix_slot;

struct fl_prefix_cache {
  prefix_slot slot[PREFIX_SLOTS];
  long order;
  const double *tags;   /* the next batch's tags, ntag numbers a specimen, nspec of them */
  int ntag, nspec;
  long starts, skipped; /* specimens that started from a kept state, and its increments */
};

fl_prefix_cache *fl_prefix_cache_new(void)
{
  return calloc(1, sizeof(fl_prefix_cache));
}

static void slot_free_states(prefix_slot *sl)
{
  for (int k = 0; k < PREFIX_STATES; k++)
    if (sl->st[k].have)
      workspace_free(&sl->st[k].w);
  memset(sl->st, 0, sizeof sl->st);
  sl->nst = 0;
  if (sl->have_built)
    fl_system_free(&sl->built);
  sl->have_built = 0;
}

void fl_prefix_cache_free(fl_prefix_cache *c)
{
  if (!c)
    return;
  for (int k = 0; k < PREFIX_SLOTS; k++) {
    prefix_slot *sl = &c->slot[k];
    slot_free_states(sl);
    free(sl->log.phi);
    free(sl->log.m);
    free(sl->choice);
    free(sl->arc);
    free(sl->col);
    free(sl->flag);
  }
  free(c);
}

void fl_prefix_cache_tags(fl_prefix_cache *c, int nspec, int ntag, const double *tags)
{
  c->tags = ntag > 0 && ntag <= FL_PREFIX_TAG_MAX ? tags : NULL;
  c->ntag = c->tags ? ntag : 0;
  c->nspec = c->tags ? nspec : 0;
}

void fl_prefix_cache_counts(const fl_prefix_cache *c, long *starts, long *skipped)
{
  *starts = c ? c->starts : 0;
  *skipped = c ? c->skipped : 0;
}

/* The cache job may share, with its tag: a static run with a plastic buckling envelope,
 * equal strengths (none drawn per specimen), and nothing that watches every row; else
 * NULL. */
static fl_prefix_cache *prefix_cache(const specimen_job *job, const double **tag)
{
  fl_prefix_cache *c = job->hooks ? job->hooks->prefix : NULL;
  const fl_experiment *e = job->exp;
  int s = job->s0 + job->s; /* in the whole batch (a block of it on an MPI rank) */
  if (!c || !c->tags || s >= c->nspec || job->hooks->sample || e->bond.buckling.type != FL_BUCKLING_PLASTIC ||
      e->bond.failure.strength_variation > 0.0)
    return NULL;
  const char *off = getenv("FL_STATIC_NO_PREFIX");
  if (off && strcmp(off, "1") == 0)
    return NULL;
  *tag = c->tags + (size_t)s * (size_t)c->ntag;
  return c;
}

/* Whether specimens a and b, as built (one each, their workspaces just begun), are the
 * same but for the batch's time step (dt, the damping over it, the body step's
 * quotients) and the buckling envelope's numbers past kb and k_drop: what a batch's
 * first specimen sets for all (a cantilever's tip spring, from its stiffness) must
 * agree too.  Field by field where a structure has padding. */
static int same_build(const fl_system *a, const fl_system *b)
{
  size_t nb = (size_t)a->nbody, nd = (size_t)a->nbond, nt = (size_t)a->ntool;
  if (a->nspec != 1 || b->nspec != 1 || a->nbody != b->nbody || a->nbond != b->nbond || a->ntool != b->ntool)
    return 0;
#define SAME(field, n) (memcmp(a->field, b->field, (n) * sizeof *a->field) == 0)
  if (!(SAME(mass, nb) && SAME(inertia_axial, nb) && SAME(inertia_trans, nb) && SAME(half_length, nb) &&
        SAME(radius, nb) && SAME(motion, nb) && SAME(x_ref, nb) && SAME(q_ref, nb) && SAME(x, nb) && SAME(q, nb) &&
        SAME(v, nb) && SAME(w, nb) && SAME(L, nb) && SAME(b1, nd) && SAME(b2, nd) && SAME(bstate, nd) &&
        SAME(state_row, FL_STATE_ROWS * nd) && SAME(law, nt) && SAME(xi, nb * nt) && SAME(tool, FL_MAX_TOOLS)))
    return 0;
#undef SAME
  for (size_t k = 0; k < nd; k++) {
    const fl_bond *p = &a->bond[k], *q = &b->bond[k];
    if (memcmp(&p->r1, &q->r1, sizeof p->r1) || memcmp(&p->r2, &q->r2, sizeof p->r2) ||
        memcmp(&p->q0, &q->q0, sizeof p->q0) || memcmp(&p->s1, &q->s1, sizeof p->s1) ||
        memcmp(&p->s2, &q->s2, sizeof p->s2) || p->oblique != q->oblique)
      return 0;
  }
  const fl_bond_limits *la = &a->limits[0], *lb = &b->limits[0];
  const fl_point_load *pa = &a->pload, *pb = &b->pload;
  return la->criterion == lb->criterion && la->post == lb->post && la->ignore_compression == lb->ignore_compression &&
         la->max_stress == lb->max_stress && la->max_angle == lb->max_angle &&
         memcmp(&la->sec1, &lb->sec1, sizeof la->sec1) == 0 && memcmp(&la->sec2, &lb->sec2, sizeof la->sec2) == 0 &&
         la->buckling.type == lb->buckling.type && la->buckling.kb == lb->buckling.kb &&
         la->buckling.k_drop == lb->buckling.k_drop && memcmp(&la->pair_law, &lb->pair_law, sizeof la->pair_law) == 0 &&
         la->hl1 == lb->hl1 && la->hl2 == lb->hl2 && la->r1 == lb->r1 && la->r2 == lb->r2 &&
         memcmp(&a->gravity, &b->gravity, sizeof a->gravity) == 0 && a->grip_disp == b->grip_disp &&
         a->grip_angle == b->grip_angle && a->grip_speed == b->grip_speed && a->grip_omega == b->grip_omega &&
         a->overlap[0] == b->overlap[0] && a->nbroken[0] == b->nbroken[0] && a->inline_law == b->inline_law &&
         a->inline_static == b->inline_static && a->isa == b->isa && a->threads == b->threads &&
         pa->body == pb->body && memcmp(&pa->arm, &pb->arm, sizeof pa->arm) == 0 &&
         memcmp(&pa->dir, &pb->dir, sizeof pa->dir) == 0 && pa->force == pb->force && pa->spring == pb->spring &&
         pa->anchor == pb->anchor;
}

static int same_path(const fl_path *a, const fl_path *b)
{
  if (a->n != b->n)
    return 0;
  for (int k = 0; k < a->n; k++)
    if (a->to[k] != b->to[k] || a->arc[k] != b->arc[k])
      return 0;
  return a->arc[a->n] == b->arc[b->n];
}

/* The buckling margin that commit c of sl's run has for the limits lim, as
 * buckle_margin works it out from the vectorised law's angles and moments (c < 0: g0,
 * the margin before the first commit). */
static double logged_margin(const prefix_slot *sl, int c, const fl_bond_limits *lim, double g0)
{
  if (c < 0)
    return g0;
  const double *phi = sl->log.phi + (size_t)c * sl->nbond, *m = sl->log.m + (size_t)c * sl->nbond;
  double worst = 0.0;
  for (int b = 0; b < sl->nbond; b++)
    worst = fmax(worst, fl_buckling_plastic_use(&lim->buckling, phi[b], m[b]));
  return worst - 1.0;
}

/* The furthest state of sl that a specimen of limits lim (g0: its margin before the
 * first commit; margins: room for sl's commits, filled with its margins) reaches as sl's
 * run did: the same choices of increment, no angle at its phi_b; -1 if none. */
static int reachable_state(const prefix_slot *sl, const fl_bond_limits *lim, double g0, double *margins)
{
  const fl_buckling_envelope *e = &lim->buckling;
  int last = sl->nst - 1;
  while (last >= 0 && !(sl->st[last].sys.phi_seen < e->phi_b))
    last--;
  if (last < 0)
    return -1;
  for (int c = 0; c < sl->st[last].ncommit; c++)
    margins[c] = logged_margin(sl, c, lim, g0);
  for (int i = 0; i < sl->st[last].nchoice; i++) {
    const prefix_choice *ch = &sl->choice[i];
    double gc = ch->c < 0 ? g0 : margins[ch->c], gp = ch->c < 1 ? g0 : margins[ch->c - 1];
    if (gc < 0.0 && gc > gp) {
      double at = ch->a + -gc / (gc - gp) * (ch->a - ch->a_prev); /* as the path loop predicts it */
      if (at < ch->next) { /* this specimen would have cut that increment short */
        while (last >= 0 && sl->st[last].nchoice > i)
          last--;
        return last;
      }
    }
  }
  return last;
}

/* The kept state furthest along that job's specimen (w on its system, as built) may
 * start from: the same tag, path and rows, the same specimen as built (same_build: an
 * envelope of the same type, kb and k_drop; reachable_state checks the rest); NULL if
 * none.  *state: its index; *gc and
 * *gp: the specimen's own buckling margins at that state's last commit and the one
 * before. */
static prefix_slot *prefix_find(const specimen_job *job, const workspace *w, int *state, double *gc, double *gp)
{
  const double *tag = NULL;
  fl_prefix_cache *c = prefix_cache(job, &tag);
  if (!c)
    return NULL;
  const fl_system *one = w->sys;
  const fl_bond_limits *lim = &one->limits[0];
  prefix_slot *best = NULL;
  double *margins = NULL;
  for (int k = 0; k < PREFIX_SLOTS; k++) {
    prefix_slot *sl = &c->slot[k];
    if (!(sl->ready && sl->nst > 0 && sl->ntag == c->ntag && memcmp(sl->tag, tag, (size_t)c->ntag * sizeof *tag) == 0 &&
          sl->np == job->np && same_path(&sl->path, job->path) && sl->m == w->m && sl->st[0].w.n == w->n &&
          same_build(&sl->built, one)))
      continue;
    double *mg = malloc(((size_t)sl->log.n + 1) * sizeof *mg);
    int s = mg ? reachable_state(sl, lim, w->gb_c, mg) : -1;
    if (s >= 0 && (!best || sl->st[s].loc.a > best->st[*state].loc.a)) {
      best = sl;
      *state = s;
      free(margins);
      margins = mg;
    } else {
      free(mg);
    }
  }
  if (best) {
    int n = best->st[*state].ncommit;
    *gc = n >= 1 ? margins[n - 1] : w->gb_c;
    *gp = n >= 2 ? margins[n - 2] : w->gb_c;
  }
  free(margins);
  return best;
}

/* A slot for job's run to keep its beginning in (the oldest), for its specimen (w on its
 * system); NULL when the job does not share or memory runs out. */
static prefix_slot *prefix_claim(const specimen_job *job, const workspace *w)
{
  const double *tag = NULL;
  fl_prefix_cache *c = prefix_cache(job, &tag);
  if (!c || c->nspec != 1 || job->nspec != 1 || w->sys->threads > 1) /* runs on threads only read */
    return NULL;
  const fl_system *one = w->sys;
  prefix_slot *sl = &c->slot[0];
  for (int k = 1; k < PREFIX_SLOTS; k++)
    if (c->slot[k].order < sl->order)
      sl = &c->slot[k];
  sl->ready = 0;
  sl->order = ++c->order;
  if (sl->nbody != one->nbody || sl->nbond != one->nbond || sl->ntool != one->ntool || sl->m != w->m) {
    slot_free_states(sl);
    free(sl->log.phi);
    free(sl->log.m);
    memset(&sl->log, 0, sizeof sl->log);
    sl->nbody = one->nbody;
    sl->nbond = one->nbond;
    sl->ntool = one->ntool;
    sl->m = w->m;
  }
  for (int k = 0; k < PREFIX_STATES; k++)
    sl->st[k].near = 0;
  sl->nst = 0;
  sl->log.nbond = one->nbond;
  sl->log.n = 0;
  sl->log.bad = 0;
  sl->nchoice = 0;
  if (sl->cap < job->np) {
    free(sl->arc);
    free(sl->col);
    free(sl->flag);
    sl->arc = malloc((size_t)job->np * sizeof *sl->arc);
    sl->col = malloc((size_t)job->np * PREFIX_COLS * sizeof *sl->col);
    sl->flag = malloc((size_t)job->np * 2 * sizeof *sl->flag);
    sl->cap = sl->arc && sl->col && sl->flag ? job->np : 0;
    if (!sl->cap)
      return NULL;
  }
  if (!sl->have_built && fl_system_alloc(&sl->built, 1, one->nbody, one->nbond, one->ntool))
    return NULL;
  sl->have_built = 1;
  if (fl_system_copy(&sl->built, one))
    return NULL;
  sl->ntag = c->ntag;
  memcpy(sl->tag, tag, (size_t)c->ntag * sizeof *tag);
  sl->path = *job->path;
  sl->np = job->np;
  return sl;
}

/* Note a choice of increment the run made with its buckling margins; 0 when memory runs
 * out (the run keeps no more states). */
static int prefix_choose(prefix_slot *sl, int c, double a, double a_prev, double next)
{
  if (sl->nchoice == sl->capchoice) {
    int cap = sl->capchoice ? 2 * sl->capchoice : 256;
    prefix_choice *ch = realloc(sl->choice, (size_t)cap * sizeof *ch);
    if (!ch)
      return 0;
    sl->choice = ch;
    sl->capchoice = cap;
  }
  sl->choice[sl->nchoice++] = (prefix_choice){c, a, a_prev, next};
  return 1;
}

/* Keep the present state (w, the loop's variables loc, the rows so far and sr) in sl: a
 * new state, or near the buckling point in place of the last one kept there. */
static void prefix_keep(prefix_slot *sl, const workspace *w, const path_locals *loc, const specimen_job *job,
                        const double *rows_at, const fl_specimen_result *sr, int near)
{
  int room = (int)fmin(PREFIX_STATES, fmax(1.0, PREFIX_BYTES / (6e3 * sl->nbody)));
  int k = sl->nst > 0 && (sl->st[sl->nst - 1].near || sl->nst >= room) ? sl->nst - 1 : sl->nst;
  if (w->log->bad)
    return;
  prefix_state *ps = &sl->st[k];
  if (!ps->have) {
    if (fl_system_extract(w->sys, 0, &ps->sys))
      return;
    if (workspace_init(&ps->w, &ps->sys, job->exp, job->info)) {
      workspace_free(&ps->w);
      return;
    }
    ps->w.exp = NULL; /* never run */
    ps->have = 1;
  }
  if (!workspace_copy(&ps->w, w))
    return;
  const fl_curve *c = job->curve;
  int from = k > 0 ? sl->st[k - 1].rows : 0;
  for (int i = from; i < job->rows; i++) {
    size_t r = (size_t)job->s * job->np + i;
    double *col = sl->col + (size_t)i * PREFIX_COLS;
    sl->arc[i] = rows_at[i];
    col[0] = c->x[r];
    col[1] = c->y[r];
    col[2] = c->support[r];
    col[3] = c->midspan[r];
    col[4] = c->kinetic[r];
    col[5] = c->strain[r];
    sl->flag[2 * i] = c->broken[r];
    sl->flag[2 * i + 1] = c->yielded[r];
  }
  ps->rows = job->rows;
  ps->leg_first_end = job->leg_first_end;
  ps->ncommit = w->log->n;
  ps->nchoice = sl->nchoice;
  ps->near = near;
  ps->loc = *loc;
  ps->sr = *sr;
  sl->nst = k + 1;
  sl->ready = 1;
}

/* Start job's specimen (w on its system, as built) from state k of sl: the state, the
 * rows (their time at this batch's speed), sr and the loop's variables, with its own
 * envelope and buckling margins gc (the last commit's) and gp (the one before).  0 (and
 * nothing changed) when the sizes differ. */
static int prefix_start(const prefix_slot *sl, int k, workspace *w, specimen_job *job, double *rows_at,
                        fl_specimen_result *sr, path_locals *loc, double gc, double gp)
{
  const prefix_state *ps = &sl->st[k];
  fl_system *one = w->sys;
  fl_bond_limits own = one->limits[0];
  if (!workspace_copy(w, &ps->w)) /* sizes that differ: nothing copied */
    return 0;
  own.criterion = one->limits[0].criterion; /* breaks off or on as the state had them */
  one->limits[0] = own;
  w->gb_c = gc;
  fl_curve *c = job->curve;
  for (int i = 0; i < ps->rows; i++) {
    size_t r = (size_t)job->s * job->np + i;
    const double *col = sl->col + (size_t)i * PREFIX_COLS;
    rows_at[i] = sl->arc[i];
    c->time[r] = sl->arc[i] / job->speed;
    c->x[r] = col[0];
    c->y[r] = col[1];
    c->support[r] = col[2];
    c->midspan[r] = col[3];
    c->kinetic[r] = col[4];
    c->strain[r] = col[5];
    c->broken[r] = sl->flag[2 * i];
    c->yielded[r] = sl->flag[2 * i + 1];
  }
  job->rows = ps->rows;
  job->leg_first_end = ps->leg_first_end;
  *sr = ps->sr;
  *loc = ps->loc;
  loc->gb_prev = gp;
  fl_prefix_cache *cache = job->hooks->prefix;
#ifdef _OPENMP
#pragma omp atomic
#endif
  cache->starts++;
#ifdef _OPENMP
#pragma omp atomic
#endif
  cache->skipped += w->st.increments;
  return 1;
}

static void solve_specimen(fl_system *batch, specimen_job *job, fl_static_stats *out)
{
  const fl_experiment *exp = job->exp;
  const fl_test_def *t = &exp->test;
  fl_system one;
  workspace w;
  fl_specimen_result *sr = &job->res->spec[job->s];
  job->rows = 0;
  job->leg_first_end = -1;
  if (!job_workspace(batch, job, &one, &w))
    return;
  const fl_path p = *job->path;
  double total = p.arc[p.n], spacing = total / (job->np - 1);
  int it = 0;
  double touch = 0.0;

  /* shared beginnings: start from the state another run kept, or keep this run's
   * (SHARED BEGINNINGS above) */
  path_locals loc;
  double *rows_at = NULL; /* each row's path length */
  long kept_at = 0;       /* increments at the last state kept */
  int state = -1;
  double gc = 0.0, gp = 0.0;
  prefix_slot *from = prefix_find(job, &w, &state, &gc, &gp), *keep = from ? NULL : prefix_claim(job, &w);
  if ((from || keep) && !(rows_at = malloc((size_t)job->np * sizeof *rows_at)))
    from = keep = NULL;
  if (keep)
    w.log = &keep->log;
  if (from && prefix_start(from, state, &w, job, rows_at, sr, &loc, gc, gp))
    goto resume;
  from = NULL;

  /* bend3pt: the specimen first rests on the supports under its weight (lowered by the
   * Hertz overlap of half its weight on each support as the first guess), then the
   * nose comes down to it; displacement counts from the first touch. */
  if (fl_test_bends(w.kind)) {
    double weight = 0.0;
    for (int i = 0; i < one.nbody; i++)
      weight += one.mass[i] * fl_norm(one.gravity);
    if (weight > 0.0) {
      const fl_contact_law *law = &one.law[0];
      double d = pow(0.75 * 0.5 * weight / (law->e_star * sqrt(law->r_star)), 2.0 / 3.0);
      for (int i = 0; i < one.nbody; i++)
        one.x[i].y -= d;
      apply_position(&w, 0.0);
      if (!newton(&w, &it)) {
        job->status = FL_EUNSTABLE;
        snprintf(job->err, job->errlen,
                 "static solver: specimen %d: no equilibrium on the supports under its weight; body %d has the "
                 "largest residual",
                 job->s0 + job->s, worst_body(&w, w.r));
        goto done;
      }
      commit(&w);
      w.have_prev = 0;
    }
    touch = touch_position(&w);
  }
  apply_position(&w, 0.0);
  if (w.kind == FL_TEST_CANTILEVER && fl_norm(one.gravity) > 0.0) {
    /* a cantilever under gravity: first its rest under its own weight */
    if (!newton(&w, &it)) {
      job->status = FL_EUNSTABLE;
      snprintf(job->err, job->errlen,
               "static solver: specimen %d: no equilibrium under its own weight; body %d has the largest residual",
               job->s0 + job->s, worst_body(&w, w.r));
      goto done;
    }
    commit(&w);
    w.have_prev = 0;
  }
  residual(&w, w.r);
  fl_system_loads_specimen(&one, 0, 0);
  if (rows_at)
    rows_at[0] = 0.0;
  record(&w, job, 0.0, w.kind == FL_TEST_CANTILEVER ? fl_system_pload_displacement(&one, 0) : 0.0);
  sr->peak = job->curve->y[(size_t)job->s * job->np];
  sr->x_at_peak = 0.0;
  sr->peak_on_path = 1;
  sr->nsnaps = 0;

  double a = 0.0, du = 0.25 * spacing;
  double pending = -1.0; /* path length of a located break's increment, or -1 */
  int friction = w.kind == FL_TEST_BEND3PT && t->friction > 0.0; /* contacts that stick and slip */
  int touched = 0, loaded = 0;
  double a_prev = 0.0, gb_prev = 0.0; /* the converged state before the last: arc, buckling margin */
  int gb_have = 0;                    /* they are set, on the present leg */
  double y_last = sr->peak;           /* the last converged state's load */
  double x_calm = 0.0;                /* the abscissa of the last ordinary increment's */
  double x_last = job->curve->x[(size_t)job->s * job->np]; /* the last converged state's abscissa */
  int snapping = 0;                   /* 1: in the events of a snap whose state is kept */
  double post = 0.0;                  /* after a buckling point: the next sliver's length, or 0 */
resume:
  if (from) {
    a = loc.a;
    du = loc.du;
    pending = loc.pending;
    friction = loc.friction;
    touched = loc.touched;
    loaded = loc.loaded;
    a_prev = loc.a_prev;
    gb_prev = loc.gb_prev;
    gb_have = loc.gb_have;
    y_last = loc.y_last;
    x_calm = loc.x_calm;
    x_last = loc.x_last;
    snapping = loc.snapping;
    post = loc.post;
    touch = loc.touch;
    it = loc.it;
  }
  while (job->rows < job->np) {
    if (job->hooks && job->hooks->stop && *job->hooks->stop) {
      job->status = FL_EINTERRUPT;
      snprintf(job->err, job->errlen, "interrupted at path position %.6g of %.6g", a, total);
      goto done;
    }
    double row_arc = job->rows == job->np - 1 ? total : job->rows * spacing;
    int leg = 0;
    fl_path_position(&p, a + 0.5 * fmin(du, row_arc - a), &leg);
    if (leg > 0 && friction)
      du = fmin(du, LEG_INCREMENT * spacing);
    double next = a + du;
    if (p.arc[leg + 1] > a + 1e-12 * total && next > p.arc[leg + 1])
      next = p.arc[leg + 1]; /* never across a turning point */
    if (next >= row_arc - 0.2 * du)
      next = row_arc; /* no sliver of an increment before a row */
    /* breaking: the increment that takes the located first bond past its limit, with
     * breaks on (or one that starts with a bond past it) */
    int breaking = w.locate && (pending >= 0.0 || w.g_c >= 0.0);
    if (pending >= 0.0)
      next = pending;
    /* buckling: a bond's buckling point, predicted by the secant through the margins of
     * the last two converged states, is approached from below (stopping 1 % short, so
     * the gap shrinks a hundredfold an increment while the margin stays smooth) until it
     * lies within RELAX_INCREMENT of a row spacing; the increment that then crosses it
     * goes that far past it and no further, so the curve snaps where the bond reaches
     * its buckling point, and relaxes at once where Newton finds no equilibrium near (a
     * snap), instead of cutting back down to a sliver */
    int crossing = 0;
    if (post > 0.0 && pending < 0.0) {
      /* past a buckling point: slivers growing tenfold while the bond's drop holds,
       * relaxed at the first that finds no equilibrium (the snap) */
      next = fmin(next, a + post);
      crossing = 1;
    } else if (w.buckles && !breaking && gb_have && a > a_prev) {
      /* a run whose beginning is kept notes the choice, for others to check theirs */
      if (w.log && !prefix_choose(keep, w.log->n - 1, a, a_prev, next))
        w.log = NULL;
      double at = w.gb_c < 0.0 && w.gb_c > gb_prev ? a + -w.gb_c / (w.gb_c - gb_prev) * (a - a_prev) : next;
      if (at < next) {
        w.log = NULL; /* the increment approaches the buckling point: no more states kept */
        if (at - a > RELAX_INCREMENT * spacing) {
          next = a + ONSET_APPROACH * (at - a);
        } else {
          next = fmin(next, at + RELAX_INCREMENT * spacing);
          crossing = 1;
        }
      }
    }
    double u = fl_path_position(&p, next, NULL);
    breakage(&w, breaking);
    w.max_newton = crossing ? ONSET_NEWTON : MAX_NEWTON;
    int ok = increment(&w, u, &it);
    w.max_newton = MAX_NEWTON;

    /* relaxed: the snap of a break, a failing increment cut back to a sliver (a snap),
     * or the first one that loads the specimen (contacts at the foot of their Hertz
     * law, nothing else holding it, where Newton's tangent is no guide) */
    int relaxed = 0, unrested = 0;
    if (!ok && w.st.relaxations < MAX_RELAX &&
        (breaking || crossing || next - a < RELAX_INCREMENT * spacing || (!loaded && next - a < 0.02 * spacing))) {
      int broken, events;
      fl_system_count(&one, 0, &broken, &events); /* bonds broken, yielded or buckled */
      ok = relaxed = relax(&w, u, events ? w.snap_time : w.relax_time, &it);
      unrested = !ok && events; /* no rest after an event: the specimen falls or runs away */
    }
    if (ok && !breaking && w.locate) {
      double g = break_margin(&w);
      double s_lo = 0.0, s_hi = 1.0;
      if (g >= 0.0 && !locate_break(&w, u, g, &s_lo, &s_hi, &it))
        ok = 0;
      else if (g >= 0.0) {
        pending = a + s_hi * (next - a);
        if (s_lo == 0.0)
          continue; /* the converged state is as close below the limit as it comes */
        next = a + s_lo * (next - a);
        u = w.u;
      }
    }
    if (!ok) {
      w.st.cutbacks++;
      du = 0.5 * (next - a);
      if (unrested || du < MIN_INCREMENT * total || w.st.relaxations >= MAX_RELAX) {
        /* report the failing state's worst body */
        apply_position(&w, u);
        residual(&w, w.r);
        int body = worst_body(&w, w.r);
        restore(&w);
        job->status = FL_EUNSTABLE;
        const char *unit = w.kind == FL_TEST_TORSION ? "rad" : "m";
        char how[128];
        if (unrested)
          snprintf(how, sizeof how, "the specimen did not come to rest in a relaxation of %.3g s", w.snap_time);
        else
          snprintf(how, sizeof how, "cut back to %.3g %s", du, unit);
        snprintf(job->err, job->errlen,
                 "static solver: no equilibrium found at path position %.6g %s (increment %ld, %s), load %.6g %s, "
                 "specimen %d, body %d (largest residual)",
                 u, unit, w.st.increments + 1, how, fl_run_measured(&one, w.kind, 0),
                 w.kind == FL_TEST_TORSION ? "N m" : "N", job->s0 + job->s, body);
        goto done;
      }
      continue;
    }
    gb_have = !relaxed;
    a_prev = a;
    gb_prev = w.gb_c;
    commit(&w);
    if (crossing && !relaxed)
      post = post > 0.0 ? 10.0 * post : RELAX_INCREMENT * spacing;
    else
      post = 0.0;
    if (post >= spacing)
      post = 0.0;
    breakage(&w, 0);
    if (breaking)
      pending = -1.0;
    w.st.increments++;
    double y = fl_run_measured(&one, w.kind, 0);
    if (fabs(y) > 0.0)
      loaded = 1;
    if (fl_test_bends(w.kind) && !touched && w.u > touch)
      touched = 1;
    double x = fl_test_bends(w.kind)          ? (touched ? w.u - touch : 0.0)
               : w.kind == FL_TEST_CANTILEVER ? fl_system_pload_displacement(&one, 0)
                                              : w.u;
    /* a snap right after the peak: an increment relaxed, or one of the slivers past a
     * buckling point or a located break, across which the load fell, with the peak
     * among the states since the last ordinary increment */
    int event = relaxed || crossing || breaking;
    int falls = event && y < y_last - 1e-3 * fabs(y_last);
    if (falls && sr->x_at_peak >= x_calm)
      sr->snap_at_peak = 1;
    if (falls && !snapping && sr->nsnaps < FL_MAX_SNAPS) {
      /* the load fell across an event from the last state: that state is the snap's */
      sr->snap_x[sr->nsnaps] = x_last;
      sr->snap_y[sr->nsnaps] = y_last;
      sr->snap_row[sr->nsnaps++] = job->rows;
    }
    snapping = event && (snapping || falls);
    x_last = x;
    if (y > sr->peak) {
      sr->peak = y;
      sr->x_at_peak = x;
      sr->snap_at_peak = 0; /* a new peak: whether the path snaps after it is still open */
    }
    y_last = y;
    if (!event)
      x_calm = x;
    if (it <= FEW_ITERATIONS)
      du = fmin(1.5 * du, spacing);
    a = next;
    if (a >= row_arc - 1e-12 * total) {
      int lg = 0;
      fl_path_position(&p, a - 1e-9 * total, &lg);
      if (lg > 0 && job->leg_first_end < 0)
        job->leg_first_end = job->rows;
      if (rows_at)
        rows_at[job->rows] = a;
      record(&w, job, a, x);
      if (job->hooks && job->hooks->progress && job->s == 0)
        job->hooks->progress(job->hooks->ctx, a / total);
      if (job->hooks && job->hooks->until_event && job->rows > 3 &&
          job->curve->yielded[(size_t)job->s * job->np + job->rows - 1] > 0)
        break; /* the rows a first slope reads are all there (fl_run_hooks) */
    }
    /* keep the state while no evaluation could have read the envelope and no relaxation
     * ran (SHARED BEGINNINGS), until an increment approaches the buckling point: near
     * that point at every increment, before it now and then, and at the path's end */
    int near = w.gb_c >= -PREFIX_NEAR;
    if (w.log && (one.envelope_reads > 0 || w.st.relaxations > 0))
      w.log = NULL;
    if (w.log && (near || w.st.increments - kept_at >= PREFIX_EVERY || job->rows == job->np)) {
      path_locals now = {.a = a, .du = du, .pending = pending, .a_prev = a_prev, .gb_prev = gb_prev,
                         .y_last = y_last, .x_calm = x_calm, .x_last = x_last, .post = post, .touch = touch,
                         .friction = friction, .touched = touched, .loaded = loaded, .gb_have = gb_have,
                         .snapping = snapping, .it = it};
      prefix_keep(keep, &w, &now, job, rows_at, sr, near || job->rows == job->np);
      kept_at = w.st.increments;
    }
  }
done:
  free(rows_at);
  put_back(batch, job->s, &w);
  w.st.load_scale = w.st.load_scale > 0.0 ? w.st.load_scale : (w.kind == FL_TEST_TORSION ? w.ts : w.fs);
  *out = w.st;
  workspace_free(&w);
}

/* ---- the batch -------------------------------------------------------------------- */

int fl_static_auto(const fl_experiment *exp, int gpu)
{
  /* a speed given asks for a rate (inertia, damping): the explicit engine */
  if (gpu || exp->test.speed > 0.0)
    return 0;
  /* A 3-point test whose bonds break: the pieces after a break are a mechanism that
   * only the supports' friction may hold, with no path of equilibria to follow. */
  if (exp->test.kind == FL_TEST_BEND3PT && exp->bond.failure.criterion != FL_CRIT_NONE &&
      exp->bond.failure.post_failure == FL_POST_TOTAL_BREAKAGE)
    return 0;
  /* 3-point bending of a weightless fiber on frictionless rollers: nothing but the
   * contacts' curvature holds it along its axis and about it, soft modes that Newton's
   * differences lose in rounding (tests/check_shape: a section table stalls near its
   * end); the explicit engine's damping settles them */
  if (exp->test.kind == FL_TEST_BEND3PT && exp->test.gravity == 0.0 && exp->test.friction == 0.0)
    return 0;
  /* 3-point bending of a specimen whose weight need not be symmetric about its middle
   * (a taper, a section table, nodes, a scanned polyline): the tools push it along its
   * axis toward its thick end, which only friction holds, and the static solver may
   * find no equilibrium on the supports (fiberlab-experiment(5), SHAPE AND SECTIONS) */
  const fl_fiber_def *fb = &exp->fiber;
  if (exp->test.kind == FL_TEST_BEND3PT && (fb->outer_radius_end_m > 0.0 || fb->section_table[0] || fb->nodes[0] ||
                                            fb->shape == FL_SHAPE_POLYLINE))
    return 0;
  /* 4-point bending: the static solver does not settle the chain between two noses
   * whose rollers turn with it (the explicit engine does) */
  if (exp->test.kind == FL_TEST_BEND4PT)
    return 0;
  return 1;
}

enum fl_solver fl_solver_resolve(const fl_experiment *exp, int gpu)
{
  if (exp->sim.solver != FL_SOLVER_AUTO)
    return exp->sim.solver;
  return fl_static_auto(exp, gpu) ? FL_SOLVER_STATIC : FL_SOLVER_EXPLICIT;
}

/* Each specimen's job by fn, on hooks->threads threads over the specimens (each on its
 * own system: the same results for any number), GSL's error handler off. */
static void run_jobs(fl_system *sys, specimen_job *jobs, fl_static_stats *stats, int nspec, const fl_run_hooks *hooks,
                     void (*fn)(fl_system *, specimen_job *, fl_static_stats *))
{
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  int threads = hooks && hooks->threads > 1 ? hooks->threads : 1;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic) num_threads(threads) if (threads > 1 && nspec > 1)
#else
  (void)threads;
#endif
  for (int s = 0; s < nspec; s++)
    fn(sys, &jobs[s], &stats[s]);
  gsl_set_error_handler(old);
}

int fl_static_run(const fl_experiment *const *exps, int nspec, int s0, const fl_path *path, fl_system *sys,
                  const fl_build_info *info, const fl_run_hooks *hooks, fl_curve *curve, fl_result *res,
                  fl_static_stats *stats, int *leg_first_end, int *failed, char *err, size_t errlen)
{
  int np = curve->npoints;
  specimen_job *jobs = calloc((size_t)nspec, sizeof *jobs);
  char *errs = calloc((size_t)nspec, 512);
  if (!jobs || !errs) {
    free(jobs);
    free(errs);
    snprintf(err, errlen, "out of memory for the static solver");
    return FL_ENOMEM;
  }
  for (int s = 0; s < nspec; s++) {
    jobs[s].exp = exps[s];
    jobs[s].path = path;
    jobs[s].info = info;
    jobs[s].hooks = hooks;
    jobs[s].curve = curve;
    jobs[s].res = res;
    jobs[s].nspec = nspec;
    jobs[s].np = np;
    jobs[s].s = s;
    jobs[s].s0 = s0;
    jobs[s].speed = res->speed > 0.0 ? res->speed : 1.0;
    jobs[s].err = errs + (size_t)s * 512;
    jobs[s].errlen = 512;
  }
  run_jobs(sys, jobs, stats, nspec, hooks, solve_specimen);
  int rc = FL_OK, rows = np;
  *leg_first_end = -1;
  *failed = -1;
  for (int s = 0; s < nspec; s++) {
    if (jobs[s].rows < rows)
      rows = jobs[s].rows;
    if (jobs[s].status && rc == FL_OK) {
      rc = jobs[s].status;
      *failed = s;
      snprintf(err, errlen, "%s", jobs[s].err);
    }
    if (s == 0)
      *leg_first_end = jobs[s].leg_first_end;
  }
  curve->npoints = rows;
  free(jobs);
  free(errs);
  return rc;
}

/* ---- the ring-down: implicit steps in time ---------------------------------------- */

/* The first guess of a step: the free bodies carried on by their velocities, the
 * accelerations of the last converged loads and the rate those changed at over the
 * step before, x_c + h v_c + h^2 a_c / 2 + h^3 (a_c - a_p) / (6 h_p) (and the same in
 * rotation, with the symmetric body's I^-1 t as its angular acceleration).  Inertia
 * makes the step's tangent 4 m / h^2: a guess off by dx leaves a residual of
 * 2 m dx / h^2, (omega h)^(k-2) of the elastic load for an error of order k in h, so
 * the third-order term saves an iteration a step (wheat straw, 200 steps a period:
 * the first residual 3e-2 of the load scale without it, ... with). */
static void ring_predict(workspace *w)
{
  fl_system *sys = w->sys;
  double h = w->h, c3 = w->hp > 0.0 ? h * h * h / (6.0 * w->hp) : 0.0;
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    double ia = sys->inertia_axial[i], it = sys->inertia_trans[i];
    fl_vec3 acc = fl_scale(w->fc[i], 1.0 / sys->mass[i]);
    fl_vec3 jerk = fl_scale(fl_sub(w->fc[i], w->fp[i]), 1.0 / sys->mass[i]);
    fl_vec3 alpha = fl_omega_of(w->qc[i], w->tc[i], ia, it);
    fl_vec3 dalpha = fl_omega_of(w->qc[i], fl_sub(w->tc[i], w->tp[i]), ia, it);
    sys->x[i] = fl_axpy(fl_axpy(fl_axpy(w->xc[i], h, w->vc[i]), 0.5 * h * h, acc), c3, jerk);
    fl_vec3 rot = fl_axpy(fl_axpy(fl_scale(w->oc[i], h), 0.5 * h * h, alpha), c3, dalpha);
    sys->q[i] = fl_qnormalize(fl_qmul(fl_qexp(rot), w->qc[i]));
  }
}

/* The step's time step h: the bonds' damping steps with it (the Maxwell element's decay
 * over h), and the tangent, whose inertia is 4 m / h^2, is built afresh. */
static void ring_set_step(workspace *w, double h)
{
  if (h == w->h)
    return;
  w->hp = 0.0; /* no rate of the accelerations across a change of step */
  w->h = h;
  w->sys->dt = h;
  fl_system_set_damping(w->sys, 0, w->a_damp, w->stab);
  w->lu_valid = 0;
}

/* One step of h from the converged state by the trapezoidal rule: Newton on the
 * balance of momentum (residual_advance), then the history moved on and the step's
 * velocities, momenta and loads kept for the next.  Returns 1 when converged; else the
 * state is back at the last converged one. */
static int ring_step(workspace *w, double h, int *iterations)
{
  fl_system *sys = w->sys;
  ring_set_step(w, h);
  ring_predict(w);
  if (!newton(w, iterations)) {
    restore_state(w);
    w->lu_valid = 0;
    return 0;
  }
  if (!trial_is_current(w))
    trial_residual(w, w->r);
  commit(w); /* takes the trial's history; leaves the bodies still */
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    /* the step's velocities, from the state before it (xh[0], qh[0] after the commit) */
    fl_vec3 v, o;
    trapezoid_rates(w, i, w->xc[i], w->qc[i], w->xh[0][i], w->qh[0][i], &v, &o);
    w->vc[i] = sys->v[i] = v;
    w->oc[i] = sys->w[i] = o;
    sys->L[i] = momentum_of(sys, i, w->qc[i], o);
    w->fp[i] = w->fc[i];
    w->tp[i] = w->tc[i];
    w->fc[i] = w->ft[i];
    w->tc[i] = w->tt[i];
  }
  w->hp = h;
  return 1;
}

/* A step of h, or where Newton fails, two of h / 2, down to RING_CUTS halvings. */
static int ring_advance(workspace *w, double h, int depth, int *iterations)
{
  if (ring_step(w, h, iterations))
    return 1;
  if (depth == RING_CUTS)
    return 0;
  w->st.cutbacks++;
  return ring_advance(w, 0.5 * h, depth + 1, iterations) && ring_advance(w, 0.5 * h, depth + 1, iterations);
}

/* One specimen's ring-down from its equilibrium at the release, in its own system. */
static void ring_specimen(fl_system *batch, specimen_job *job, fl_static_stats *out)
{
  fl_system one;
  workspace w;
  fl_ring_track tr = {0};
  job->rows = 0;
  job->steps = 0;
  if (!job_workspace(batch, job, &one, &w))
    return;
  /* in time: the contacts' damping back on, the bonds' with the step (ring_set_step),
   * and breaks as they come (the path locates them; a step takes them as it finds them) */
  for (int k = 0; k < one.ntool; k++)
    one.law[k].beta = w.beta[k];
  breakage(&w, 1);
  w.dynamic = 1;
  w.tol = RING_TOL;
  ring_set_step(&w, job->h);
  residual(&w, w.r); /* the loads at the release, at rest */
  for (int i = 0; i < one.nbody; i++) {
    w.fc[i] = w.ft[i];
    w.tc[i] = w.tt[i];
  }
  size_t base = (size_t)job->s * job->np;
  fl_cantilever_ring_row(&one, 0, job->info, job->phi, 0.0, job->curve, base);
  job->rows = 1;
  if (fl_ring_track_add(&tr, 0.0, fl_cantilever_first_mode(&one, job->info, job->phi, 0)))
    goto nomem;
  for (int row = 1; row < job->np; row++) {
    for (int k = 0; k < job->per_row; k++) {
      int it = 0;
      double tm = ((double)(row - 1) * job->per_row + k + 1) * job->h;
      if (!ring_advance(&w, job->h, 0, &it)) {
        job->status = FL_EUNSTABLE;
        snprintf(job->err, job->errlen,
                 "static solver: ring-down: specimen %d: no convergence in the step to t = %.6g s after the release "
                 "(step %ld of %.4g s, halved %d times); body %d has the largest residual",
                 job->s0 + job->s, tm, job->steps + 1, job->h, RING_CUTS, worst_body(&w, w.r));
        goto done;
      }
      job->steps++;
      if (fl_ring_track_add(&tr, tm, fl_cantilever_first_mode(&one, job->info, job->phi, 0)))
        goto nomem;
    }
    fl_cantilever_ring_row(&one, 0, job->info, job->phi, (double)row * job->per_row * job->h, job->curve,
                           base + (size_t)row);
    job->rows++;
    if (job->hooks && job->hooks->stop && *job->hooks->stop) {
      job->status = FL_EINTERRUPT;
      snprintf(job->err, job->errlen, "interrupted in the ring-down at row %d of %d", row + 1, job->np);
      goto done;
    }
    if (job->hooks && job->hooks->progress && job->s == 0)
      job->hooks->progress(job->hooks->ctx, (double)row / (job->np - 1));
  }
  fl_ring_track_done(&tr, &job->res->spec[job->s]);
  goto done;
nomem:
  job->status = FL_ENOMEM;
  snprintf(job->err, job->errlen, "out of memory for the ring-down's extremes");
done:
  free(tr.te);
  free(tr.xe);
  put_back(batch, job->s, &w);
  *out = w.st;
  workspace_free(&w);
}

int fl_static_ringdown(const fl_experiment *const *exps, int nspec, int s0, fl_system *sys, const fl_build_info *info,
                       const fl_run_hooks *hooks, fl_curve *curve, fl_result *res, char *err, size_t errlen)
{
  const fl_experiment *exp = exps[0];
  int np = exp->sim.output_points;
  /* steps a row: RING_STEPS a first period at least, from the periods a row (the
   * period itself cancels: with it, 12 periods in 600 rows came to 4 steps a row or 5
   * as the rounding of 4.000... fell, a jump of 3e-5 in the frequency between two
   * neighbouring stiffnesses) */
  double spacing = exp->test.ring_periods * info->first_period / (np - 1);
  int per_row = (int)ceil(exp->test.ring_periods * RING_STEPS / (np - 1) * (1.0 - 1e-12));
  per_row = per_row < 1 ? 1 : per_row;
  specimen_job *jobs = calloc((size_t)nspec, sizeof *jobs);
  fl_static_stats *stats = calloc((size_t)nspec, sizeof *stats);
  char *errs = calloc((size_t)nspec, 512);
  double *phi = malloc(((size_t)sys->nbody + 1) * sizeof *phi);
  if (!jobs || !stats || !errs || !phi) {
    free(jobs);
    free(stats);
    free(errs);
    free(phi);
    snprintf(err, errlen, "out of memory for the static solver");
    return FL_ENOMEM;
  }
  fl_cantilever_mode_shape(sys, info, phi);
  fl_cantilever_release(nspec, sys, res);
  for (int s = 0; s < nspec; s++) {
    specimen_job *j = &jobs[s];
    j->exp = exps[s];
    j->info = info;
    j->hooks = hooks;
    j->curve = curve;
    j->res = res;
    j->nspec = nspec;
    j->np = np;
    j->s = s;
    j->s0 = s0;
    j->err = errs + (size_t)s * 512;
    j->errlen = 512;
    j->phi = phi;
    j->per_row = per_row;
    j->h = spacing / per_row;
  }
  run_jobs(sys, jobs, stats, nspec, hooks, ring_specimen);
  int rc = FL_OK, rows = np;
  for (int s = 0; s < nspec; s++) {
    rows = jobs[s].rows < rows ? jobs[s].rows : rows;
    if (jobs[s].status && rc == FL_OK) {
      rc = jobs[s].status;
      snprintf(err, errlen, "%s", jobs[s].err);
    }
    res->newton_iterations += stats[s].newton;
    res->tangents += stats[s].tangents;
    res->cutbacks += stats[s].cutbacks;
  }
  curve->npoints = rows;
  res->time_step = jobs[0].h;
  sys->step += jobs[0].steps;
  free(jobs);
  free(stats);
  free(errs);
  free(phi);
  return rc;
}

/* ---- behind the solvers' seam (solver.h) -------------------------------------------- */

typedef struct {
  fl_solver_setup su;
} static_solver;

static int static_create(void **out, const fl_solver_setup *su, char *err, size_t errlen)
{
  *out = NULL;
  if (su->hooks && su->hooks->gpu) {
    snprintf(err, errlen, "simulation.solver: static runs on the CPU only; allowed on the GPU: explicit | auto");
    return FL_EINPUT;
  }
  static_solver *w = malloc(sizeof *w);
  if (!w) {
    snprintf(err, errlen, "out of memory for %d specimens", su->nspec);
    return FL_ENOMEM;
  }
  w->su = *su;
  const fl_test_def *t = &su->exps[0]->test;
  if (t->kind == FL_TEST_CANTILEVER && t->mode == FL_MODE_VIBRATION && su->curve->npoints > 11)
    su->curve->npoints = 11; /* the loading path is not recorded: a few rows will do */
  *out = w;
  return FL_OK;
}

/* The whole path at once, every specimen on its own: what every specimen's solve did,
 * summed into the result; fail_key the first that failed (the specimens are solved
 * independently, and the serial run reports the first). */
static int static_advance(void *state, fl_solver_status *status, char *err, size_t errlen)
{
  const fl_solver_setup *su = &((static_solver *)state)->su;
  const fl_experiment *const *exps = su->exps;
  int nspec = su->nspec, s0 = su->s0;
  fl_result *res = su->res;
  fl_static_stats *st = calloc((size_t)nspec, sizeof *st);
  status->done = 1;
  if (!st) {
    snprintf(err, errlen, "out of memory for %d specimens", nspec);
    return FL_ENOMEM;
  }
  int failed;
  int rc = fl_static_run(exps, nspec, s0, &su->path->path, su->sys, su->info, su->hooks, su->curve, res, st, &status->leg_first_end,
                         &failed, err, errlen);
  status->rows = su->curve->npoints;
  if (rc)
    status->fail_key = failed >= 0 ? s0 + failed : -1.0;
  for (int s = 0; s < nspec; s++) {
    res->increments += st[s].increments;
    res->newton_iterations += st[s].newton;
    res->tangents += st[s].tangents;
    res->cutbacks += st[s].cutbacks;
    res->unknowns_per_body = st[s].unknowns > res->unknowns_per_body ? st[s].unknowns : res->unknowns_per_body;
    res->relaxations += st[s].relaxations;
    res->events += st[s].events;
    double P = st[s].load_scale, L = st[s].length_scale;
    double fs = exps[0]->test.kind == FL_TEST_TORSION ? P / L : P;
    double ts = exps[0]->test.kind == FL_TEST_TORSION ? P : P * L;
    res->residual_force = fmax(res->residual_force, st[s].residual_force / fs);
    res->residual_torque = fmax(res->residual_torque, st[s].residual_torque / ts);
  }
  free(st);
  return rc;
}

/* The specimens' states are in setup->sys already (solve_specimen puts them back). */
static int static_read(void *state)
{
  (void)state;
  return FL_OK;
}

static void static_free(void **state)
{
  free(*state);
  *state = NULL;
}

const fl_solver_type fl_solver_static = {"static",    static_create, static_advance, static_read, static_free,
                                          fl_static_ringdown};
