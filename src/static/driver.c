/* driver.c: the path driver: each specimen of a batch walks the test's path increment
 * by increment (fiberlab-model(7), THE STATIC SOLVER, Increments; Events) from its rest
 * at the start or from a kept state, a cursor carrying where it stands, and records the
 * rows; the specimens run on threads, each on its own system.
 *
 * Increments adapt: halved when Newton fails, grown by 1.5 (up to the row spacing) when
 * it converged quickly.  After a turning point of a 3-point cycle with friction they stay
 * below a tenth of the row spacing: there the contacts' friction reverses from slip
 * through stick, and the history an increment adds (the slip of its end velocities over
 * the pseudo step) follows that path only to first order in the increment.  Where no
 * equilibrium lies near the last one (a snap after a break or a buckle), the specimen
 * relaxes (relax.c). */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <gsl/gsl_errno.h>

#include "measure.h"
#include "internal.h"

#define FEW_ITERATIONS 5     /* an increment that converged in as many grows the next */
#define MIN_INCREMENT 1e-13  /* of the path: below it the run ends */
#define RELAX_INCREMENT 1e-8 /* of the row spacing: below it a failing increment is relaxed */
#define LEG_INCREMENT 0.1    /* of the row spacing: the largest increment after a turning point */
#define MAX_RELAX 40         /* relaxations of one specimen before the run gives up */
#define PIN_INCREMENT 1e-6   /* of the row spacing: a pinned path cut back below it goes on with the pins off */
#define WATCH_FROM 0.25       /* of the elastic critical load: the path's stability is checked above it */
#define SWITCH_INCREMENT 1e-4 /* of the row spacing: an increment that gains unstable directions is cut back
                               * to it, and one below it has crossed a bifurcation */
#define ONSET_NEAR 1e-6      /* a buckling margin this close below 0 is at the point: Newton's tolerance leaves
                              * the margin some 1e-8 of rounding */
#define ONSET_APPROACH 0.99  /* an increment towards a predicted buckling point stops short by 1 % */
#define ONSET_NEWTON 2       /* Newton's iterations for the increment that crosses it and the slivers after:
                              * one that needs more finds no equilibrium near (a snap) or relaxes a sliver
                              * earlier to the same state, and its iterations, each with a fresh tangent,
                              * are a buckling fit's dearest */

/* bend3pt: the nose position at first touch of the resting specimen, by bisection on
 * the contact force of the engine's own evaluation. */
static double touch_position(workspace *w)
{
  fl_system *sys = w->sys;
  double lo = 0.0, hi = sys->radius[0];
  for (int it = 0; it < 200 && hi - lo > 1e-15 * sys->radius[0]; it++) {
    double mid = 0.5 * (lo + hi);
    fl_static_apply_position(w, mid);
    fl_static_residual(w, w->rp);
    if (fl_run_measured(sys, w->kind, 0) > 0.0)
      hi = mid;
    else
      lo = mid;
  }
  fl_static_apply_position(w, w->uc);
  return lo;
}

/* Row job->rows at path length a and abscissa x: the curve's columns, the residual's
 * largest force and torque, the load scale, and the sample hook of a run of one. */
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
  fl_static_residual_norms(w, &rf, &rt);
  w->st.residual_force = fmax(w->st.residual_force, rf);
  w->st.residual_torque = fmax(w->st.residual_torque, rt);
  if (w->npin)
    w->st.pin_force = fmax(w->st.pin_force, w->fs * fl_static_pin_size(w));
  w->st.load_scale = fmax(w->st.load_scale, fabs(c->y[r]));
  if (job->hooks && job->hooks->sample && job->nspec == 1)
    job->hooks->sample(job->hooks->ctx, sys, job->rows, w->u);
  job->rows++;
}

/* One specimen's walk along the path: its job and workspace, where it
 * stands, and what it keeps for later runs. */
typedef struct {
  specimen_job *job;
  workspace *w;
  fl_specimen_result *sr; /* the specimen's figures */
  fl_path p;              /* the path, */
  double total, spacing;  /* its length and the spacing of the rows along it */
  path_cursor at;         /* where the walk stands */
  prefix_slot *keep;      /* NULL, or where this run keeps its beginning */
  double *rows_at;        /* each row's path length, where a beginning is kept or taken (else NULL) */
  long kept_at;           /* increments at the last state kept (fl_static_prefix_note) */
} path_walk;

/* The path length of the next row. */
static double row_arc(const path_walk *k)
{
  return k->job->rows == k->job->np - 1 ? k->total : k->job->rows * k->spacing;
}

/* A failed beginning: no equilibrium `where`. */
static int begin_failed(path_walk *k, const char *where)
{
  specimen_job *job = k->job;
  job->status = FL_EUNSTABLE;
  snprintf(job->err, job->errlen, "static solver: specimen %d: no equilibrium %s; body %d has the largest residual",
           job->s0 + job->s, where, fl_static_worst_body(k->w, k->w->r));
  return 0;
}

/* The rest on the supports where Newton found none from the lowered specimen: a
 * crooked specimen settling under its weight slides over the rollers until their
 * friction holds it, and a Newton step along that slide slips its contacts, leaving
 * nothing to hold it in the tangent.  The explicit engine settles it as it would (a
 * relaxation, relax.c), and Newton polishes the rest it finds.  Returns 1 when
 * converged. */
static int rest_relaxed(workspace *w, int *it)
{
  fl_static_restore(w);
  return fl_static_relax(w, 0.0, w->relax_time, it);
}

/* The walk's beginning: the specimen at rest where the path starts, its first row, and
 * the cursor at path length 0.  Returns 1, or 0 with job->status and job->err set. */
static int path_begin(path_walk *k)
{
  workspace *w = k->w;
  specimen_job *job = k->job;
  fl_system *one = w->sys;
  fl_specimen_result *sr = k->sr;
  int it = 0;
  double touch = 0.0;
  /* bend3pt: the specimen first rests on the supports under its weight (lowered by the
   * contact's overlap under half its weight on each support as the first guess), then the
   * nose comes down to it; displacement counts from the first touch. */
  if (w->type->drive == FL_DRIVE_NOSES) {
    double weight = 0.0;
    for (int i = 0; i < one->nbody; i++)
      weight += one->mass[i] * fl_norm(one->gravity);
    if (weight > 0.0) {
      const fl_contact_law *law = &one->law[0];
      double d = fl_contact_overlap_at(law, 0.5 * weight);
      for (int i = 0; i < one->nbody; i++)
        one->x[i].y -= d;
      fl_static_apply_position(w, 0.0);
      if (!fl_static_newton(w, &it) && !rest_relaxed(w, &it))
        return begin_failed(k, "on the supports under its weight");
      fl_static_commit(w);
      w->have_prev = 0;
    }
    touch = touch_position(w);
  }
  fl_static_apply_position(w, 0.0);
  if (w->type->drive == FL_DRIVE_LOAD && fl_norm(one->gravity) > 0.0) {
    /* a point load under gravity (a cantilever): first its rest under its own weight */
    if (!fl_static_newton(w, &it))
      return begin_failed(k, "under its own weight");
    fl_static_commit(w);
    w->have_prev = 0;
  }
  fl_static_residual(w, w->r);
  fl_system_loads_specimen(one, 0, 0);
  if (k->rows_at)
    k->rows_at[0] = 0.0;
  record(w, job, 0.0, w->type->abscissa(one, 0, 0.0));
  sr->peak = job->curve->y[(size_t)job->s * job->np];
  sr->x_at_peak = 0.0;
  sr->peak_on_path = 1;
  sr->nsnaps = 0;
  k->at = (path_cursor){.a = 0.0,
                        .du = 0.25 * k->spacing,
                        .pending = -1.0,
                        .friction = w->type->friction_turns && job->exp->test.friction > 0.0,
                        .y_last = sr->peak,
                        .x_last = job->curve->x[(size_t)job->s * job->np],
                        .touch = touch,
                        .it = it};
  return 1;
}

/* The path length the next increment goes to, from where the walk stands; *breaking: it
 * takes the located first bond past its limit, with breaks on (or it starts with a bond
 * past it); *crossing: it crosses a buckling point, or is a sliver past one. */
static double next_arc(path_walk *k, int *breaking, int *crossing)
{
  workspace *w = k->w;
  path_cursor *c = &k->at;
  double row = row_arc(k);
  int leg = 0;
  fl_path_position(&k->p, c->a + 0.5 * fmin(c->du, row - c->a), &leg);
  if (leg > 0 && c->friction)
    c->du = fmin(c->du, LEG_INCREMENT * k->spacing);
  double next = c->a + c->du;
  if (k->p.arc[leg + 1] > c->a + 1e-12 * k->total && next > k->p.arc[leg + 1])
    next = k->p.arc[leg + 1]; /* never across a turning point */
  if (next >= row - 0.2 * c->du)
    next = row; /* no sliver of an increment before a row */
  *breaking = w->locate && (c->pending >= 0.0 || w->g_c >= 0.0);
  if (c->pending >= 0.0)
    next = c->pending;
  /* buckling: a bond's buckling point, predicted by the secant through the margins of
   * the last two converged states, is approached from below (stopping 1 % short, so
   * the gap shrinks a hundredfold an increment while the margin stays smooth) until it
   * lies within RELAX_INCREMENT of a row spacing, or the margin within ONSET_NEAR of
   * the point (near: closer, the rounding of Newton's equilibria sends the secant
   * astray, and after a relaxation there is no secant); the increment that then
   * crosses it goes that far past it and no further, so the curve snaps where the bond
   * reaches its buckling point, and relaxes at once where Newton finds no equilibrium
   * near (a snap), instead of cutting back down to a sliver (a full increment from a
   * state at the point fails and is halved a dozen times, each time after 25 Newton
   * iterations) */
  *crossing = 0;
  int near = w->gb_c < 0.0 && w->gb_c > -ONSET_NEAR, moved = c->gb_have && c->a > c->a_prev;
  if (c->post > 0.0 && c->pending < 0.0) {
    /* past a buckling point: slivers growing tenfold while the bond's drop holds,
     * relaxed at the first that finds no equilibrium (the snap) */
    next = fmin(next, c->a + c->post);
    *crossing = 1;
  } else if (w->buckles && !*breaking && (moved || near)) {
    /* a run whose beginning is kept notes the choice, for others to check theirs */
    if (w->log && !fl_static_prefix_choose(k->keep, w->log->n - 1, c->a, c->a_prev, next))
      w->log = NULL;
    int secant = moved && w->gb_c < 0.0 && w->gb_c > c->gb_prev;
    double at = secant ? c->a + -w->gb_c / (w->gb_c - c->gb_prev) * (c->a - c->a_prev) : near ? c->a : next;
    if (at < next) {
      w->log = NULL; /* the increment approaches the buckling point: no more states kept */
      if (at - c->a > RELAX_INCREMENT * k->spacing && !near) {
        next = c->a + ONSET_APPROACH * (at - c->a);
      } else {
        next = fmin(next, at + RELAX_INCREMENT * k->spacing);
        *crossing = 1;
      }
    }
  }
  return next;
}

/* A failed increment to next (path position u) halves the next one; the walk ends where
 * it cannot go on (1, with job->status and job->err set), else 0. */
static int cut_back(path_walk *k, double next, double u, int unrested)
{
  workspace *w = k->w;
  specimen_job *job = k->job;
  w->st.cutbacks++;
  k->at.du = 0.5 * (next - k->at.a);
  if ((unrested || k->at.du < PIN_INCREMENT * k->spacing) && fl_static_pin_off(w)) {
    fl_static_restore(w); /* the path again from the last state, the rigid motions free */
    k->at.du = next - k->at.a;
    return 0;
  }
  if (!(unrested || k->at.du < MIN_INCREMENT * k->total || w->st.relaxations >= MAX_RELAX))
    return 0;
  /* report the failing state's worst body */
  fl_static_apply_position(w, u);
  fl_static_residual(w, w->r);
  int body = fl_static_worst_body(w, w->r);
  fl_static_restore(w);
  job->status = FL_EUNSTABLE;
  const char *unit = w->type->x_unit;
  char how[128];
  if (unrested)
    snprintf(how, sizeof how, "the specimen did not come to rest in a relaxation of %.3g s", w->snap_time);
  else
    snprintf(how, sizeof how, "cut back to %.3g %s", k->at.du, unit);
  snprintf(job->err, job->errlen,
           "static solver: no equilibrium found at path position %.6g %s (increment %ld, %s), load %.6g %s, "
           "specimen %d, body %d (largest residual)",
           u, unit, w->st.increments + 1, how, fl_run_measured(w->sys, w->kind, 0),
           w->type->y_unit, job->s0 + job->s, body);
  return 1;
}

/* The stability watch (fiberlab-model(7), THE STATIC SOLVER, Stability), on a path that
 * may bifurcate, once its load is a quarter of the elastic critical load: where the
 * converged increment to next has more unstable directions than the last state, a long
 * increment is cut back (it may have jumped to another branch: a first guess past the
 * critical load converges to the nearest equilibrium, a higher mode); a short one has
 * crossed a bifurcation, and the path leaves it along the critical mode, to the stable
 * branch.  Returns 1 to go on from the converged state (perhaps on the new branch), 0
 * when the increment was cut back. */
static int watch(path_walk *k, double next)
{
  workspace *w = k->w;
  path_cursor *c = &k->at;
  int n;
  if (!w->watch || fabs(fl_run_measured(w->sys, w->kind, 0)) < WATCH_FROM * w->critical ||
      !fl_static_stability(w, &n))
    return 1;
  if (n > c->negative && next - c->a > SWITCH_INCREMENT * k->spacing) {
    fl_static_restore(w);
    w->lu_valid = 0;
    w->cut = 1;
    w->st.cutbacks++;
    c->du = 0.5 * (next - c->a);
    return 0;
  }
  int after;
  if (n > c->negative && !k->sr->bifurcated) { /* the first bifurcation: its load and abscissa */
    k->sr->bifurcated = 1;
    k->sr->bifurcation_y = fl_run_measured(w->sys, w->kind, 0);
    k->sr->bifurcation_x = w->type->abscissa(w->sys, 0, w->u);
  }
  if (n > c->negative && fl_static_branch_switch(w, c->negative, &after, &c->it)) {
    n = after;
    c->switched = 1; /* the states before are another branch's: no first guess from them */
  }
  c->negative = n;
  return 1;
}

/* Whether the specimen's unbroken bonds leave it in pieces. */
static int in_pieces(const fl_system *sys)
{
  for (int b = 0; b < sys->nbond; b++)
    if (sys->bstate[b].broken && sys->b2[b] == sys->b1[b] + 1)
      return 1; /* a chain's bond joins neighbours: one broken cuts it */
  return 0;
}

/* The specimen broke into pieces that found no rest after the break (a relaxation that
 * ran its course, the pieces falling off the tools): the test ends at the path position
 * of the increment to next, as a lab machine stops at the drop.  Its rows from there on
 * are the drop: the abscissa the tools' and the load 0, no equilibrium holding any
 * (fiberlab-model(7), THE STATIC SOLVER, Events).  Ends the walk (returns 1). */
static int separate(path_walk *k, double next)
{
  workspace *w = k->w;
  specimen_job *job = k->job;
  path_cursor *c = &k->at;
  fl_specimen_result *sr = k->sr;
  fl_system *sys = w->sys;
  double x0 = fl_test_bends(w->kind) ? (c->touched ? w->u - c->touch : 0.0) : w->u;
  sr->separated = 1;
  sr->separated_x = x0;
  if (sr->x_at_peak >= c->x_calm)
    sr->snap_at_peak = 1;
  if (!c->snapping && sr->nsnaps < FL_MAX_SNAPS && c->y_last > 0.0) {
    sr->snap_x[sr->nsnaps] = c->x_last;
    sr->snap_y[sr->nsnaps] = c->y_last;
    sr->snap_row[sr->nsnaps++] = job->rows;
  }
  fl_static_residual(w, w->rp); /* the loads of the state the pieces fell to, for the counts */
  while (job->rows < job->np) {
    double a = fmax(row_arc(k), next);
    double u = fl_path_position(&k->p, a, NULL);
    size_t r = (size_t)job->s * job->np + job->rows;
    fl_curve *cv = job->curve;
    cv->time[r] = a / job->speed;
    cv->x[r] = fl_test_bends(w->kind) ? u - c->touch : u;
    fl_measure_row(sys, w->kind, 0, job->info->span, cv, r);
    cv->y[r] = 0.0;
    if (fl_test_bends(w->kind))
      cv->support[r] = 0.0;
    cv->kinetic[r] = 0.0;
    if (k->rows_at)
      k->rows_at[job->rows] = a;
    job->rows++;
  }
  c->y_last = 0.0;
  return 1;
}

/* The converged increment to next becomes the walk's state: committed, its load and
 * abscissa measured, the peak and the snaps noted, the next increment sized.  Returns
 * the abscissa. */
static double converge(path_walk *k, double next, int breaking, int crossing, int relaxed)
{
  workspace *w = k->w;
  path_cursor *c = &k->at;
  fl_specimen_result *sr = k->sr;
  c->gb_have = !relaxed;
  c->a_prev = c->a;
  c->gb_prev = w->gb_c;
  fl_static_commit(w);
  if (c->switched) {
    w->have_prev = 0;
    c->switched = 0;
  }
  if (crossing && !relaxed)
    c->post = c->post > 0.0 ? 10.0 * c->post : RELAX_INCREMENT * k->spacing;
  else
    c->post = 0.0;
  if (c->post >= k->spacing)
    c->post = 0.0;
  fl_static_breakage(w, 0);
  if (breaking)
    c->pending = -1.0;
  w->st.increments++;
  double y = fl_run_measured(w->sys, w->kind, 0);
  if (fabs(y) > 0.0)
    c->loaded = 1;
  int noses = w->type->drive == FL_DRIVE_NOSES; /* the path counts from their first touch */
  if (noses && !c->touched && w->u > c->touch)
    c->touched = 1;
  double x = w->type->abscissa(w->sys, 0, noses && !c->touched ? 0.0 : w->u - c->touch);
  /* a snap right after the peak: an increment relaxed, or one of the slivers past a
   * buckling point or a located break, across which the load fell, with the peak
   * among the states since the last ordinary increment */
  int event = relaxed || crossing || breaking;
  int falls = event && y < c->y_last - 1e-3 * fabs(c->y_last);
  if (falls && sr->x_at_peak >= c->x_calm)
    sr->snap_at_peak = 1;
  if (falls && !c->snapping && sr->nsnaps < FL_MAX_SNAPS) {
    /* the load fell across an event from the last state: that state is the snap's */
    sr->snap_x[sr->nsnaps] = c->x_last;
    sr->snap_y[sr->nsnaps] = c->y_last;
    sr->snap_row[sr->nsnaps++] = k->job->rows;
  }
  c->snapping = event && (c->snapping || falls);
  c->x_last = x;
  if (y > sr->peak) {
    sr->peak = y;
    sr->x_at_peak = x;
    sr->snap_at_peak = 0; /* a new peak: whether the path snaps after it is still open */
  }
  c->y_last = y;
  if (!event)
    c->x_calm = x;
  if (c->it <= FEW_ITERATIONS)
    c->du = fmin(1.5 * c->du, k->spacing);
  c->a = next;
  return x;
}

/* Where the walk has come to the next row, the row at abscissa x.  Returns 1 when the
 * walk ends there (a start that needs the rows of a first slope alone), else 0. */
static int reach_row(path_walk *k, double x)
{
  specimen_job *job = k->job;
  double a = k->at.a;
  if (a < row_arc(k) - 1e-12 * k->total)
    return 0;
  int lg = 0;
  fl_path_position(&k->p, a - 1e-9 * k->total, &lg);
  if (lg > 0 && job->leg_first_end < 0)
    job->leg_first_end = job->rows;
  if (k->rows_at)
    k->rows_at[job->rows] = a;
  if (k->at.negative > 0)
    k->w->st.unstable_rows++;
  record(k->w, job, a, x);
  if (job->hooks && job->hooks->progress && job->s == 0)
    job->hooks->progress(job->hooks->ctx, a / k->total);
  /* the rows a first slope reads are all there (FL_RUN_UNTIL_EVENT) */
  return job->hooks && job->hooks->options & FL_RUN_UNTIL_EVENT && job->rows > 3 &&
         job->curve->yielded[(size_t)job->s * job->np + job->rows - 1] > 0;
}

/* One increment of the walk: 0 to go on, 1 when the walk ends here (job->status says
 * whether it failed). */
static int path_step(path_walk *k)
{
  workspace *w = k->w;
  specimen_job *job = k->job;
  path_cursor *c = &k->at;
  if (job->hooks && job->hooks->stop && *job->hooks->stop) {
    job->status = FL_EINTERRUPT;
    snprintf(job->err, job->errlen, "interrupted at path position %.6g of %.6g", c->a, k->total);
    return 1;
  }
  int breaking, crossing;
  double next = next_arc(k, &breaking, &crossing);
  double u = fl_path_position(&k->p, next, NULL);
  fl_static_breakage(w, breaking);
  w->max_newton = crossing ? ONSET_NEWTON : MAX_NEWTON;
  int ok = fl_static_increment(w, u, &c->it);
  w->max_newton = MAX_NEWTON;
  /* relaxed: the snap of a break, a failing increment cut back to a sliver (a snap),
   * or the first one that loads the specimen (contacts at the foot of their Hertz
   * law, nothing else holding it, where Newton's tangent is no guide) */
  int relaxed = 0, unrested = 0;
  if (!ok && w->st.relaxations < MAX_RELAX &&
      (breaking || crossing || next - c->a < RELAX_INCREMENT * k->spacing ||
       (!c->loaded && next - c->a < 0.02 * k->spacing))) {
    int broken, events;
    fl_system_count(w->sys, 0, &broken, &events); /* bonds broken, yielded or buckled */
    events += breaking; /* the increment that takes a located break is the break's */
    ok = relaxed = fl_static_relax(w, u, events ? w->snap_time : w->relax_time, &c->it);
    unrested = !ok && events; /* no rest after an event: the specimen falls or runs away */
  }
  if (ok && !breaking && w->locate) {
    double g = fl_static_break_margin(w);
    double s_lo = 0.0, s_hi = 1.0;
    if (g >= 0.0 && !fl_static_locate_break(w, u, g, &s_lo, &s_hi, &c->it))
      ok = 0;
    else if (g >= 0.0) {
      c->pending = c->a + s_hi * (next - c->a);
      if (s_lo == 0.0)
        return 0; /* the converged state is as close below the limit as it comes */
      next = c->a + s_lo * (next - c->a);
      u = w->u;
    }
  }
  if (!ok && unrested && in_pieces(w->sys))
    return separate(k, next);
  if (!ok)
    return cut_back(k, next, u, unrested);
  if (!watch(k, next))
    return 0;
  double x = converge(k, next, breaking, crossing, relaxed);
  if (reach_row(k, x))
    return 1;
  fl_static_prefix_note(k->keep, w, &k->at, job, k->rows_at, k->sr, &k->kept_at);
  return 0;
}

/* Specimen job->s of batch along the path, on its own system: from a state another run
 * kept, or from its beginning (keeping states of its own where it may); its rows,
 * figures and final state back into the batch, what the solver did into out. */
static void solve_specimen(fl_system *batch, specimen_job *job, fl_static_stats *out)
{
  fl_system one;
  workspace w;
  job->rows = 0;
  job->leg_first_end = -1;
  if (!fl_static_job_workspace(batch, job, &one, &w))
    return;
  path_walk k = {.job = job, .w = &w, .sr = &job->res->spec[job->s], .p = *job->path};
  k.total = k.p.arc[k.p.n];
  k.spacing = k.total / (job->np - 1);
  /* shared beginnings: start from the state another run kept, or keep this run's */
  int state = -1;
  double gc = 0.0, gp = 0.0;
  prefix_slot *from = fl_static_prefix_find(job, &w, &state, &gc, &gp);
  k.keep = from ? NULL : fl_static_prefix_claim(job, &w);
  if ((from || k.keep) && !(k.rows_at = malloc((size_t)job->np * sizeof *k.rows_at)))
    from = k.keep = NULL;
  if (k.keep)
    w.log = fl_static_prefix_log(k.keep);
  int going = (from && fl_static_prefix_start(from, state, &w, job, k.rows_at, k.sr, &k.at, gc, gp)) || path_begin(&k);
  while (going && job->rows < job->np)
    going = !path_step(&k);
  free(k.rows_at);
  fl_static_put_back(batch, job->s, &w);
  w.st.load_scale = w.st.load_scale > 0.0 ? w.st.load_scale : (w.type->angular ? w.ts : w.fs);
  *out = w.st;
  fl_static_workspace_free(&w);
}

/* Each specimen's job by fn, on hooks->threads threads over the specimens (each on its
 * own system: the same results for any number), GSL's error handler off. */
void fl_static_run_jobs(fl_system *sys, specimen_job *jobs, fl_static_stats *stats, int nspec,
                        const fl_run_hooks *hooks, void (*fn)(fl_system *, specimen_job *, fl_static_stats *))
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

int fl_static_run(const fl_solver_setup *su, fl_static_stats *stats, int *leg_first_end, int *failed, char *err,
                  size_t errlen)
{
  const fl_experiment *const *exps = su->exps;
  int nspec = su->nspec, s0 = su->s0;
  fl_system *sys = su->sys;
  const fl_run_hooks *hooks = su->hooks;
  fl_curve *curve = su->curve;
  fl_result *res = su->res;
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
    jobs[s].path = &su->path->path;
    jobs[s].info = su->info;
    jobs[s].step = su->step;
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
  fl_static_run_jobs(sys, jobs, stats, nspec, hooks, solve_specimen);
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
