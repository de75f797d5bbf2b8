/* beginnings.c: shared beginnings (fiberlab-model(7), THE STATIC SOLVER, Shared
 * beginnings): the states a run keeps for later runs that differ from it only in numbers
 * of the buckling envelope, and the furthest of them such a run may start from. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A fit's difference run often changes a number of the buckling envelope alone
 * (max_force, min_force, displacement_at_min_force, slope_after_min_force).  Its run is
 * the base run's, to the bit, as long as
 *   - no bond evaluation read the envelope: the vectorised law serves a plastic bond
 *     below phi_b and reads nothing of the envelope but phi_b and kb, so every bond
 *     served (envelope_reads 0) with angles below both runs' phi_b (phi_seen);
 *   - the increments were the same: the buckling margin (fl_static_buckle_margin), which depends
 *     on m_max and phi_b, chooses an increment only when it predicts the buckling point
 *     within it; the commits' angles and moments (commit_log) give each commit's
 *     margin for any envelope, and every choice the base run made is checked with them;
 *   - no relaxation ran (its explicit step and damping are the batch's).
 * A run of one specimen keeps its state at such increments, now and then and at every
 * increment near the buckling point, and a later run whose tag says it differs only in
 * those numbers starts from the furthest state it can take: the same results, without
 * the part they share. */

#define PREFIX_SLOTS 4   /* runs whose beginnings are kept: a fit's base and its last trials */
#define PREFIX_STATES 16 /* states kept of one run, at most, and as many as take PREFIX_BYTES */
#define PREFIX_NEAR 0.1  /* a state is kept at every increment once a bond is this close to its
                          * buckling point (the last replacing the one before), */
#define PREFIX_EVERY 32  /* and at every so many increments before */
#define PREFIX_COLS 6    /* the curve's columns kept per row: x, y, support, midspan, kinetic, strain */

/* One state of a run: the workspace on its own system, the walk's cursor, and how far
 * the run's rows, commits and choices had come. */
typedef struct {
  int have;             /* w and sys allocated */
  fl_system sys;
  workspace w;
  path_cursor at;
  int rows, leg_first_end, ncommit, nchoice, near;
  fl_specimen_result sr;
} prefix_state;

/* A choice of increment the buckling margin could have made (driver.c): the
 * margins of commit c and the one before were compared, the path at a after a_prev,
 * the increment to next. */
typedef struct {
  int c;
  double a, a_prev, next;
} prefix_choice;

/* One run's beginning (prefix_slot in internal.h). */
struct prefix_slot {
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
};

/* What the static solver keeps in a caller's fl_prefix_cache (its kept). */
typedef struct {
  prefix_slot slot[PREFIX_SLOTS];
  long order;
} prefix_store;

static void slot_free_states(prefix_slot *sl)
{
  for (int k = 0; k < PREFIX_STATES; k++)
    if (sl->st[k].have)
      fl_static_workspace_free(&sl->st[k].w);
  memset(sl->st, 0, sizeof sl->st);
  sl->nst = 0;
  if (sl->have_built)
    fl_system_free(&sl->built);
  sl->have_built = 0;
}

static void prefix_store_free(void *kept)
{
  prefix_store *c = kept;
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
         a->inline_static == b->inline_static && a->isa == b->isa && a->threads == b->threads && pa->body == pb->body &&
         memcmp(&pa->arm, &pb->arm, sizeof pa->arm) == 0 && memcmp(&pa->dir, &pb->dir, sizeof pa->dir) == 0 &&
         pa->force == pb->force && pa->spring == pb->spring && pa->anchor == pb->anchor;
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
 * fl_static_buckle_margin works it out from the vectorised law's angles and moments (c < 0: g0,
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
      double at = ch->a + -gc / (gc - gp) * (ch->a - ch->a_prev); /* as the walk predicts it */
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
prefix_slot *fl_static_prefix_find(const specimen_job *job, const workspace *w, int *state, double *gc, double *gp)
{
  const double *tag = NULL;
  fl_prefix_cache *c = prefix_cache(job, &tag);
  prefix_store *kept = c ? c->kept : NULL;
  if (!kept)
    return NULL;
  const fl_system *one = w->sys;
  const fl_bond_limits *lim = &one->limits[0];
  prefix_slot *best = NULL;
  double *margins = NULL;
  for (int k = 0; k < PREFIX_SLOTS; k++) {
    prefix_slot *sl = &kept->slot[k];
    if (!(sl->ready && sl->nst > 0 && sl->ntag == c->ntag && memcmp(sl->tag, tag, (size_t)c->ntag * sizeof *tag) == 0 &&
          sl->np == job->np && same_path(&sl->path, job->path) && sl->m == w->m && sl->st[0].w.n == w->n &&
          sl->st[0].w.visco == w->visco && (!w->visco || (sl->st[0].w.a_damp == w->a_damp &&
          sl->st[0].w.stab == w->stab && sl->st[0].w.speed == w->speed)) &&
          same_build(&sl->built, one)))
      continue;
    double *mg = malloc(((size_t)sl->log.n + 1) * sizeof *mg);
    int s = mg ? reachable_state(sl, lim, w->gb_c, mg) : -1;
    if (s >= 0 && (!best || sl->st[s].at.a > best->st[*state].at.a)) {
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
prefix_slot *fl_static_prefix_claim(const specimen_job *job, const workspace *w)
{
  const double *tag = NULL;
  fl_prefix_cache *c = prefix_cache(job, &tag);
  if (!c || c->nspec != 1 || job->nspec != 1 || w->sys->threads > 1) /* runs on threads only read */
    return NULL;
  if (!c->kept) {
    if (!(c->kept = calloc(1, sizeof(prefix_store))))
      return NULL;
    c->kept_free = prefix_store_free;
  }
  prefix_store *kept = c->kept;
  const fl_system *one = w->sys;
  prefix_slot *sl = &kept->slot[0];
  for (int k = 1; k < PREFIX_SLOTS; k++)
    if (kept->slot[k].order < sl->order)
      sl = &kept->slot[k];
  sl->ready = 0;
  sl->order = ++kept->order;
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

/* Where the run that keeps its beginning in sl logs its commits (workspace.log). */
commit_log *fl_static_prefix_log(prefix_slot *sl)
{
  return &sl->log;
}

/* Note a choice of increment the run made with its buckling margins; 0 when memory runs
 * out (the run keeps no more states). */
int fl_static_prefix_choose(prefix_slot *sl, int c, double a, double a_prev, double next)
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

/* Keep the present state (w, the walk's cursor at, the rows so far and sr) in sl: a new
 * state, or near the buckling point in place of the last one kept there. */
static void prefix_keep(prefix_slot *sl, const workspace *w, const path_cursor *at, const specimen_job *job,
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
    if (fl_static_workspace_init(&ps->w, &ps->sys, job->exp, job->info, job->hooks)) {
      fl_static_workspace_free(&ps->w);
      return;
    }
    ps->w.exp = NULL; /* never run */
    ps->have = 1;
  }
  if (!fl_static_workspace_copy(&ps->w, w))
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
  ps->at = *at;
  ps->sr = *sr;
  sl->nst = k + 1;
  sl->ready = 1;
}

/* After an increment of job's walk (w on its system, where the cursor at stands, the
 * rows so far and sr): keep the state in sl while no evaluation could have read the
 * envelope and no relaxation ran, until an increment approaches the buckling point (the
 * walk then drops w->log): near that point at every increment, before it now and then
 * (*kept_at: the increments at the last state kept), and at the path's end. */
void fl_static_prefix_note(prefix_slot *sl, workspace *w, const path_cursor *at, const specimen_job *job,
                           const double *rows_at, const fl_specimen_result *sr, long *kept_at)
{
  int near = w->gb_c >= -PREFIX_NEAR;
  if (w->log && (w->sys->envelope_reads > 0 || w->st.relaxations > 0))
    w->log = NULL;
  if (w->log && (near || w->st.increments - *kept_at >= PREFIX_EVERY || job->rows == job->np)) {
    prefix_keep(sl, w, at, job, rows_at, sr, near || job->rows == job->np);
    *kept_at = w->st.increments;
  }
}

/* Start job's specimen (w on its system, as built) from state k of sl: the state, the
 * rows (their time at this batch's speed), sr and the walk's cursor at, with its own
 * envelope and buckling margins gc (the last commit's) and gp (the one before).  0 (and
 * nothing changed) when the sizes differ. */
int fl_static_prefix_start(const prefix_slot *sl, int k, workspace *w, specimen_job *job, double *rows_at,
                           fl_specimen_result *sr, path_cursor *at, double gc, double gp)
{
  const prefix_state *ps = &sl->st[k];
  fl_system *one = w->sys;
  fl_bond_limits own = one->limits[0];
  if (!fl_static_workspace_copy(w, &ps->w)) /* sizes that differ: nothing copied */
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
  *at = ps->at;
  at->gb_prev = gp;
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
