/* gpu_check.c: the CUDA engine against the CPU engine (--device cpu --solver explicit),
 * on a device, or on the CPU through the tests' host shim of the CUDA runtime
 * (tests/cuda/cuda_runtime.h, tests/gpu-shim.sh), which runs gpu/engine.cu unchanged.
 * Fresh random inputs each run (the seed is printed; --seed N repeats it):
 *  1. random bonds (unequal sides, damping, every criterion and post-failure behaviour,
 *     every buckling kind, random plastic offsets and history) evaluated on both;
 *  2. fixed tests: 3-point bending with plastic buckling and a stress limit, a batch of
 *     tensile specimens with strength variation, a tube twisted past the series of the
 *     bond law (atan2, sin, cos at every step), the first failure in a batch (the
 *     finite numbers, the bounding box), and a specimen whose bonds are numbered
 *     backwards (the bond lists, not a chain's shortcut) stepped by the engines alone;
 *  3. random specimens of every test kind (shapes, tapers, limits, buckling, batches);
 *  4. each experiment file named on the command line.
 * Runs are compared row by row (the curves) and, at every output row, bond by bond (the
 * state each run reached and the loads the host evaluates from it) and body by body.
 * With --exact every difference must be 0, bit for bit: the host shim's arithmetic is
 * the CPU's.  Without it the curves and figures must agree to 1e-9 of their scale,
 * every bond's loads at every row to 1e-7 of the largest (a single bond's to 1e-12 of
 * its own), the plastic offsets to 1e-9 of their size with a floor, and every flag and
 * count exactly: what a device whose sin, cos and atan2 may differ from the host's by
 * an ulp must meet (gpu/README.md, Accuracy).
 * Exit 77 (skipped) when no CUDA device answers. */
#include <config.h>

#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu.h"
#include "run.h"
#include "test_kind.h"

/* ---- settings and random numbers ------------------------------------------------ */

static int exact = 0;           /* 1: every difference must be 0 */
static int rows_max = 0;        /* compare the first rows of each file's run only (0: all) */
static const double TOL = 1e-9; /* whole runs: curves and figures, of their scale */
/* whole runs: each bond's loads at every row, of the largest of their kind.  A bond's
 * force is its stiffness times a gap that is a small difference of two positions, so
 * the positions' last digits weigh far more in it than in the curves: with sin, cos
 * and atan2 an ulp off, 1.5e-9 in the worst of 270 random specimens (curves 2.4e-12) */
static const double TOL_LOADS = 1e-7;
static const double TOL_BOND = 1e-12; /* single bonds: of the bond's loads */
/* the plastic offsets' floors: an offset that is noise on one side (a cap test of two
 * quantities equal to rounding) and exact 0 on the other is within tolerance */
static const double DP_FLOOR = 1e-6;  /* m */
static const double THP_FLOOR = 1e-3; /* rad */

static unsigned long long st = 1;
static double urand(void)
{
  st ^= st << 13;
  st ^= st >> 7;
  st ^= st << 17;
  return (st >> 11) * (1.0 / 9007199254740992.0);
}
static double srnd(double a) { return a * (2.0 * urand() - 1.0); }
static double between(double lo, double hi) { return lo + (hi - lo) * urand(); }
static int pick(int n) { return (int)(urand() * n); }
static fl_vec3 rvec(double a) { return fl_v3(srnd(a), srnd(a), srnd(a)); }
static fl_quat rquat(double ang)
{
  fl_vec3 ax = rvec(1.0);
  return fl_qexp(fl_scale(ax, ang * urand() / fl_norm(ax)));
}

static double rel(fl_vec3 a, fl_vec3 b, double scale)
{
  return fl_norm(fl_sub(a, b)) / (scale > 0.0 ? scale : 1.0);
}

/* A difference within the tolerance t (exact: none, to the bit). */
static int within(double d, double t) { return exact ? d == 0.0 : d <= t; }

/* 64-bit FNV-1a of n bytes, continuing h. */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ c[i]) * 0x100000001b3ULL;
  return h;
}
#define HASH0 0xcbf29ce484222325ULL

/* ---- 1. single bonds ------------------------------------------------------------- */

static int check_bonds(int n)
{
  if (n <= 0)
    return 0;
  fl_bond *bd = calloc((size_t)n, sizeof *bd);
  fl_bond_damping *dm = calloc((size_t)n, sizeof *dm);
  fl_bond_limits *lim = calloc((size_t)n, sizeof *lim);
  fl_body *b1 = calloc((size_t)n, sizeof *b1), *b2 = calloc((size_t)n, sizeof *b2);
  fl_bond_state *s_cpu = calloc((size_t)n, sizeof *s_cpu), *s_gpu = calloc((size_t)n, sizeof *s_gpu);
  fl_bond_loads *l_cpu = calloc((size_t)n, sizeof *l_cpu), *l_gpu = calloc((size_t)n, sizeof *l_gpu);
  if (!bd || !dm || !lim || !b1 || !b2 || !s_cpu || !s_gpu || !l_cpu || !l_gpu) {
    printf("bonds: out of memory -> FAIL\n");
    return 1;
  }
  /* the post-failure behaviours each criterion allows (fiberlab-model(7), Beyond the limit) */
  static const int posts[6][2] = {{0, 0}, {0, 1}, {0, 1}, {0, 3}, {0, 2}, {0, 3}};
  for (int i = 0; i < n; i++) {
    double d1 = 1e-3 * (1 + urand()), d2 = 1e-3 * (1 + urand()), R = 5e-4 * (1 + urand());
    fl_section sc = fl_section_hollow(R, 0.5 * R * urand());
    double E1 = 1e9 * (1 + 9 * urand()), E2 = 1e9 * (1 + 9 * urand()), G1 = 0.4 * E1, G2 = 0.35 * E2;
    fl_side_stiffness k1 = {E1 * sc.area / d1, G1 * sc.area / d1, G1 * sc.polar / d1, E1 * sc.inertia / d1};
    fl_side_stiffness k2 = {E2 * sc.area / d2, G2 * sc.area / d2, G2 * sc.polar / d2, E2 * sc.inertia / d2};
    if (i % 7 == 0)
      k2 = k1; /* equal sides: the bisector path of the bond axis */
    fl_quat q1 = rquat(3.0), q2 = i % 3 == 0 ? rquat(3.0) : q1; /* in line, or oblique */
    fl_vec3 x1 = rvec(0.01), c = fl_add(x1, fl_qrot(q1, fl_v3(d1, 0, 0)));
    fl_vec3 x2 = fl_add(c, fl_qrot(q2, fl_v3(d2, 0, 0)));
    bd[i] = fl_bond_make(x1, q1, x2, q2, c, k1, k2);
    dm[i].a_damp = urand() < 0.3 ? 0.0 : 1e-6 * urand();
    dm[i].decay = urand() < 0.5 ? 0.0 : urand();
    int crit = pick(6);
    lim[i].criterion = crit;
    lim[i].post = posts[crit][urand() < 0.5];
    lim[i].ignore_compression = urand() < 0.5;
    lim[i].max_stress = 1e6 * (1 + 50 * urand());
    lim[i].max_angle = 0.05 * (1 + urand());
    lim[i].sec1.radius = lim[i].sec2.radius = R;
    lim[i].sec1.area = lim[i].sec2.area = sc.area;
    lim[i].sec1.inertia = lim[i].sec2.inertia = sc.inertia;
    lim[i].sec1.polar = lim[i].sec2.polar = sc.polar;
    lim[i].sec1.kshape = lim[i].sec2.kshape = 1.2;
    dm[i].dt = 1e-7;
    if (lim[i].post == FL_POST_TOTAL_BREAKAGE && crit != FL_CRIT_NONE) { /* broken pairs touch again */
      lim[i].pair_law = (fl_contact_law){E1 / 1.8, E1 / 5.0, 0.5 * R, 1e-6, -0.2, 0.3, 0.0, 0.0};
      lim[i].hl1 = d1;
      lim[i].hl2 = d2;
      lim[i].r1 = lim[i].r2 = R;
    }
    int bk = pick(4);
    if (bk)
      lim[i].buckling = fl_buckling_make(bk, 0.1, 2 + urand(), 1 + urand(), 3e-3, srnd(200),
                                         fl_series(k1.k_bend, k2.k_bend), E1 * sc.inertia);
    /* a deformed state: displacements, rotations (some past the series' 14 degrees),
     * velocities */
    double turn = urand() < 0.2 ? 0.6 : 0.05;
    b1[i] = (fl_body){fl_add(x1, rvec(2e-5)), fl_qmul(rquat(turn), q1), rvec(0.1), rvec(10)};
    b2[i] = (fl_body){fl_add(x2, rvec(2e-5)), fl_qmul(rquat(turn), q2), rvec(0.1), rvec(10)};
    fl_bond_state s;
    memset(&s, 0, sizeof s);
    s.strength = 0.5 + urand();
    s.fd = rvec(1e-3);
    s.td = rvec(1e-6);
    if (urand() < 0.3) {
      s.yielded = 1;
      s.dp = rvec(1e-6);
      s.thp = rvec(1e-3);
    }
    if (bk && urand() < 0.3) {
      s.buckled = 1;
      s.phi_max = lim[i].buckling.phi_b * (1 + 3 * urand());
    }
    s.broken = urand() < 0.05;
    s.separated = s.broken && urand() < 0.5;
    s.xi = rvec(1e-7);
    s_cpu[i] = s_gpu[i] = s;
  }
  for (int i = 0; i < n; i++) {
    const fl_bond_limits *l = (lim[i].criterion || lim[i].buckling.type) ? &lim[i] : NULL;
    fl_bond_eval(&bd[i], &dm[i], l, &b1[i], &b2[i], &s_cpu[i], &l_cpu[i]);
  }
  int rc = fl_gpu_eval_bonds(n, bd, dm, lim, b1, b2, s_gpu, l_gpu);
  double worst = 0.0, worst_state = 0.0;
  int mism = 0, bits = 0;
  for (int i = 0; i < n && rc == 0; i++) {
    double sf = fl_norm(l_cpu[i].force), st1 = fl_norm(l_cpu[i].torque1) + fl_norm(l_cpu[i].torque2);
    double e = fmax(rel(l_cpu[i].force, l_gpu[i].force, sf),
                    fmax(rel(l_cpu[i].torque1, l_gpu[i].torque1, st1), rel(l_cpu[i].torque2, l_gpu[i].torque2, st1)));
    double es = fmax(rel(s_cpu[i].dp, s_gpu[i].dp, fl_norm(s_cpu[i].dp) + DP_FLOOR),
                     rel(s_cpu[i].thp, s_gpu[i].thp, fl_norm(s_cpu[i].thp) + THP_FLOOR));
    if (s_cpu[i].broken != s_gpu[i].broken || s_cpu[i].yielded != s_gpu[i].yielded ||
        s_cpu[i].buckled != s_gpu[i].buckled || s_cpu[i].separated != s_gpu[i].separated)
      mism++;
    bits += memcmp(&l_cpu[i], &l_gpu[i], sizeof l_cpu[i]) != 0 || memcmp(&s_cpu[i], &s_gpu[i], sizeof s_cpu[i]) != 0;
    worst = fmax(worst, e);
    worst_state = fmax(worst_state, es);
  }
  int ok = rc == 0 && within(worst, TOL_BOND) && within(worst_state, TOL_BOND) && mism == 0 && (!exact || bits == 0);
  printf("bonds: %d evaluated, largest relative difference of loads %.3g, of plastic offsets %.3g, %d state flags "
         "differ, %d differ in any bit -> %s\n",
         n, worst, worst_state, mism, bits, ok ? "ok" : "FAIL");
  free(bd), free(dm), free(lim), free(b1), free(b2), free(s_cpu), free(s_gpu), free(l_cpu), free(l_gpu);
  return ok ? 0 : 1;
}

/* ---- runs, row by row and bond by bond -------------------------------------------- */

/* One bond at one output row: the loads the host evaluates from the state the run
 * reached, its plastic offsets and flags, and a hash of every bit of state and loads. */
typedef struct {
  fl_vec3 force, torque1, torque2, dp, thp;
  int flags;
  uint64_t hash;
} bond_rec;

/* What the rows of the CPU run left, for the engine's run to meet. */
typedef struct {
  int compare;                 /* 0: the CPU run stores, 1: the engine's run compares */
  volatile sig_atomic_t stop;  /* set after rows_max rows */
  int rows;                    /* rows seen in this run */
  int limit;                   /* stop after this many rows (0: none) */
  long step;                   /* the step of the last row */
  int cap;                     /* rows stored */
  size_t nb, nd;               /* bodies and bonds of a row, over the specimens */
  uint64_t *body;              /* [row][s * nbody + i]: hash of x, q, v, w, L */
  bond_rec *bond;              /* [row][s * nbond + b] */
  enum fl_test_kind kind;      /* the test's */
  uint64_t *spec;              /* [row][s]: hash of the row's loads on the tools, the grips and
                                * the held bodies (the reaction), strain energy and counters */
  double fscale, tscale;       /* the CPU run's largest bond force (N) and torque (N m) */
  double worst_load, worst_offset;
  long body_diff, bond_diff, flag_diff; /* bodies and bonds that differ in any bit; flags */
  long spec_diff;              /* specimens whose row loads differ in any bit */
  char first[256];             /* the first difference */
} row_probe;

static void bond_loads_of(const fl_system *sys, size_t s, int b, fl_bond_state *state, fl_bond_loads *out)
{
  size_t k1 = s * sys->nbody + sys->b1[b], k2 = s * sys->nbody + sys->b2[b];
  fl_body b1 = {sys->x[k1], sys->q[k1], sys->v[k1], sys->w[k1]};
  fl_body b2 = {sys->x[k2], sys->q[k2], sys->v[k2], sys->w[k2]};
  *state = sys->bstate[s * sys->nbond + b];
  fl_system_damp_get(sys, (int)s, b, state);
  fl_bond_state scratch = *state; /* evaluate without moving it on */
  const fl_bond_limits *l = &sys->limits[s];
  if (!l->criterion && !l->buckling.type)
    l = NULL;
  fl_bond_eval(&sys->bond[s * sys->nbond + b], &sys->damping[s], l, &b1, &b2, &scratch, out);
}

static void note_first(row_probe *p, const char *what, int row, size_t s, long index)
{
  if (!p->first[0])
    snprintf(p->first, sizeof p->first, "row %d, specimen %zu, %s %ld", row, s, what, index);
}

static void probe_row(void *ctx, const fl_system *sys, int point, double x)
{
  (void)x;
  row_probe *p = ctx;
  if (++p->rows >= p->limit && p->limit > 0)
    p->stop = 1; /* the run stops after its next step */
  p->step = sys->step;
  if (point >= p->cap)
    return;
  for (size_t s = 0; s < (size_t)sys->nspec; s++) {
    double react = fl_test_type_of(p->kind)->reaction(sys, (int)s);
    uint64_t hs = hash_bytes(HASH0, &react, sizeof react);
    hs = hash_bytes(hs, &sys->tool_force[s * sys->ntool], sys->ntool * sizeof *sys->tool_force);
    hs = hash_bytes(hs, &sys->grip_force[s], sizeof *sys->grip_force);
    hs = hash_bytes(hs, &sys->grip_torque[s], sizeof *sys->grip_torque);
    hs = hash_bytes(hs, &sys->strain_energy[s], sizeof *sys->strain_energy);
    hs = hash_bytes(hs, &sys->overlap[s], sizeof *sys->overlap);
    hs = hash_bytes(hs, &sys->nbroken[s], sizeof *sys->nbroken);
    uint64_t *sat = &p->spec[(size_t)point * sys->nspec + s];
    if (!p->compare) {
      *sat = hs;
    } else if (*sat != hs) {
      p->spec_diff++;
      note_first(p, "specimen's row loads", point, s, (long)s);
    }
    for (int i = 0; i < sys->nbody; i++) {
      size_t k = s * sys->nbody + i;
      uint64_t h = hash_bytes(HASH0, &sys->x[k], sizeof sys->x[k]);
      h = hash_bytes(h, &sys->q[k], sizeof sys->q[k]);
      h = hash_bytes(h, &sys->v[k], sizeof sys->v[k]);
      h = hash_bytes(h, &sys->w[k], sizeof sys->w[k]);
      h = hash_bytes(h, &sys->L[k], sizeof sys->L[k]);
      uint64_t *at = &p->body[(size_t)point * p->nb + k];
      if (!p->compare) {
        *at = h;
      } else if (*at != h) {
        p->body_diff++;
        note_first(p, "body", point, s, i);
      }
    }
    for (int b = 0; b < sys->nbond; b++) {
      fl_bond_state state;
      fl_bond_loads ld;
      bond_loads_of(sys, s, b, &state, &ld);
      bond_rec r = {ld.force, ld.torque1, ld.torque2, state.dp, state.thp,
                    state.broken | state.yielded << 1 | state.buckled << 2 | state.separated << 3,
                    hash_bytes(hash_bytes(HASH0, &state, sizeof state), &ld, sizeof ld)};
      bond_rec *at = &p->bond[(size_t)point * p->nd + s * sys->nbond + b];
      if (!p->compare) {
        *at = r;
        p->fscale = fmax(p->fscale, fl_norm(ld.force));
        p->tscale = fmax(p->tscale, fmax(fl_norm(ld.torque1), fl_norm(ld.torque2)));
        continue;
      }
      double e = fmax(rel(at->force, r.force, p->fscale),
                      fmax(rel(at->torque1, r.torque1, p->tscale), rel(at->torque2, r.torque2, p->tscale)));
      double eo = fmax(rel(at->dp, r.dp, fl_norm(at->dp) + DP_FLOOR), rel(at->thp, r.thp, fl_norm(at->thp) + THP_FLOOR));
      p->worst_load = fmax(p->worst_load, e);
      p->worst_offset = fmax(p->worst_offset, eo);
      if (at->flags != r.flags) {
        p->flag_diff++;
        note_first(p, "bond (flags)", point, s, b);
      }
      if (at->hash != r.hash) {
        p->bond_diff++;
        note_first(p, "bond", point, s, b);
      }
    }
  }
}

/* The largest difference of two curves' column over the first n rows of each
 * specimen, relative to the first's largest value there (exact: any bit). */
static double curve_diff(const double *a, const double *b, int nspec, int na, int nb, int n)
{
  double scale = 0.0, worst = 0.0;
  for (int s = 0; s < nspec; s++)
    for (int i = 0; i < n; i++)
      scale = fmax(scale, fabs(a[(size_t)s * na + i]));
  for (int s = 0; s < nspec; s++)
    for (int i = 0; i < n; i++) {
      double u = a[(size_t)s * na + i], v = b[(size_t)s * nb + i];
      double d = fabs(u - v) / (scale > 0.0 ? scale : 1.0);
      if (exact && memcmp(&u, &v, sizeof u) != 0 && !(d > 0.0))
        d = 1.0; /* a sign of zero, or a NaN's bits */
      worst = fmax(worst, d != d ? 1.0 : d);
    }
  return worst;
}

static double figure_diff(double a, double b)
{
  if (memcmp(&a, &b, sizeof a) == 0)
    return 0.0;
  double d = fabs(a - b) / fmax(fabs(a), 1e-300);
  return d != d || (exact && !(d > 0.0)) ? 1.0 : d;
}

/* Run e (nspec specimens) on the CPU engine and on the CUDA engine, explicit on both,
 * and compare. */
static int compare_run(const char *name, const fl_experiment *e_in, int nspec, int limit)
{
  fl_experiment e = *e_in;
  e.sim.solver = FL_SOLVER_EXPLICIT; /* the same solver on both sides */
  char err[2048];
  row_probe p;
  memset(&p, 0, sizeof p);
  fl_system probe_sys;
  fl_build_info info;
  if (fl_build(&e, nspec, &probe_sys, &info)) {
    printf("%s: cannot build -> FAIL\n", name);
    return 1;
  }
  p.nb = (size_t)nspec * probe_sys.nbody;
  p.nd = (size_t)nspec * probe_sys.nbond;
  fl_system_free(&probe_sys);
  p.limit = limit;
  p.cap = limit > 0 && limit < e.sim.output_points ? limit : e.sim.output_points;
  p.body = calloc((size_t)p.cap * p.nb + 1, sizeof *p.body);
  p.bond = calloc((size_t)p.cap * p.nd + 1, sizeof *p.bond);
  p.spec = calloc((size_t)p.cap * nspec + 1, sizeof *p.spec);
  p.kind = e.test.kind;
  fl_run_hooks cpu = {NULL, probe_row, &p, &p.stop, 1, 0, NULL, 0};
  fl_run_hooks gpu = {NULL, probe_row, &p, &p.stop, 1, 1, NULL, 0};
  fl_curve c0, c1;
  fl_result r0, r1;
  int rc0 = FL_ENOMEM, rc1 = FL_ENOMEM, fail = 1;
  char err0[2048] = "";
  if (p.body && p.bond && p.spec)
    rc0 = fl_run(&e, nspec, &cpu, &c0, &r0, err0, sizeof err0);
  if (rc0 == FL_ENOMEM || (rc0 != FL_OK && rc0 != FL_EINTERRUPT && rc0 != FL_EUNSTABLE)) {
    printf("%s: CPU run failed: %s -> FAIL\n", name, !p.bond ? "out of memory" : err0);
    goto done;
  }
  int rows0 = p.rows;
  long step0 = p.step;
  p.compare = 1;
  p.rows = 0;
  p.stop = 0;
  rc1 = fl_run(&e, nspec, &gpu, &c1, &r1, err, sizeof err);
  if (rc1 != rc0) {
    printf("%s: the CPU run returned %d (%s), the GPU run %d (%s) -> FAIL\n", name, rc0, err0, rc1, err);
    goto done;
  }
  if (rc0 == FL_EUNSTABLE) { /* unstable on both: at the same step, specimen and bond */
    int same = strcmp(err0, err) == 0 || !exact;
    printf("%s: unstable on both%s: %s -> %s\n", name, same ? "" : ", told apart", err0, same ? "ok" : "FAIL");
    if (!same)
      printf("  the GPU's: %s\n", err);
    fail = !same;
    fl_curve_free(&c1), fl_result_free(&r1);
    goto done;
  }
  int n = c0.npoints < c1.npoints ? c0.npoints : c1.npoints;
  double dy = curve_diff(c0.y, c1.y, c0.nspec, c0.npoints, c1.npoints, n);
  double dx = curve_diff(c0.x, c1.x, c0.nspec, c0.npoints, c1.npoints, n);
  double dk = exact ? curve_diff(c0.kinetic, c1.kinetic, c0.nspec, c0.npoints, c1.npoints, n) : 0.0;
  double de = exact ? curve_diff(c0.strain, c1.strain, c0.nspec, c0.npoints, c1.npoints, n) : 0.0;
  double dfig = 0.0;
  for (int s = 0; s < nspec; s++) {
    dfig = fmax(dfig, figure_diff(r0.spec[s].peak, r1.spec[s].peak));
    dfig = fmax(dfig, figure_diff(r0.spec[s].x_at_peak, r1.spec[s].x_at_peak));
    if (rc0 == FL_OK) {
      dfig = fmax(dfig, figure_diff(r0.spec[s].initial_stiffness, r1.spec[s].initial_stiffness));
      dfig = fmax(dfig, figure_diff(r0.spec[s].frequency, r1.spec[s].frequency));
    }
  }
  int counts = c0.npoints == c1.npoints && rows0 == p.rows && step0 == p.step && r0.steps == r1.steps &&
               r0.bonds_broken == r1.bonds_broken && r0.bonds_yielded == r1.bonds_yielded;
  int ok = counts && within(fmax(dy, dx), TOL) && within(fmax(dk, de), TOL) && within(dfig, TOL) &&
           within(p.worst_load, TOL_LOADS) && within(p.worst_offset, TOL) && p.flag_diff == 0 &&
           (!exact || (p.body_diff == 0 && p.bond_diff == 0 && p.spec_diff == 0));
  int broken = 0, yielded = 0;
  for (int s = 0; s < nspec; s++) {
    broken += r0.spec[s].broken;
    yielded += r0.spec[s].yielded;
  }
  printf("%s: %d specimen%s, %ld steps, %d rows%s, %d broken, %d yielded or buckled; curves within %.3g, figures %.3g, "
         "bond loads %.3g, offsets %.3g; %ld bodies, %ld bonds and %ld rows' specimen loads differ in some bit, %ld "
         "bonds in flags%s%s -> %s\n",
         name, nspec, nspec > 1 ? "s" : "", rc0 == FL_OK ? r0.steps : step0, c0.npoints, rc0 == FL_EINTERRUPT ? " (stopped there)" : "",
         rc0 == FL_OK ? broken : r0.bonds_broken, rc0 == FL_OK ? yielded : r0.bonds_yielded, fmax(fmax(dy, dx), fmax(dk, de)),
         dfig, p.worst_load, p.worst_offset, p.body_diff, p.bond_diff, p.spec_diff, p.flag_diff, p.first[0] ? "; first: " : "",
         p.first, ok ? "ok" : "FAIL");
  if (!counts)
    printf("  counts: rows %d / %d (hook %d / %d), steps %ld / %ld, broken %d / %d, yielded %d / %d\n", c0.npoints,
           c1.npoints, rows0, p.rows, r0.steps, r1.steps, r0.bonds_broken, r1.bonds_broken, r0.bonds_yielded,
           r1.bonds_yielded);
  fail = !ok;
  fl_curve_free(&c1), fl_result_free(&r1);
done:
  if (rc0 == FL_OK || rc0 == FL_EINTERRUPT || rc0 == FL_EUNSTABLE)
    fl_curve_free(&c0), fl_result_free(&r0);
  free(p.body);
  free(p.bond);
  free(p.spec);
  return fail;
}

/* ---- 2. the fixed tests ------------------------------------------------------------ */

/* Apply "key=value" settings and the loader's checks across keys. */
static int setup(fl_experiment *e, const char *const *sets, int n, const char *name)
{
  char err[1024];
  for (int i = 0; i < n; i++)
    if (fl_experiment_set(e, sets[i], err, sizeof err)) {
      printf("%s: %s -> FAIL\n", name, err);
      return 1;
    }
  if (fl_experiment_finish(e, name, err, sizeof err)) {
    printf("%s: %s -> FAIL\n", name, err);
    return 1;
  }
  return 0;
}

/* A fixed case of nspec specimens: the experiment's defaults with keys set. */
static int fixed_run(const char *name, const char *const *keys, int n, int nspec)
{
  fl_experiment e = fl_experiment_default();
  return setup(&e, keys, n, name) ? 1 : compare_run(name, &e, nspec, 0);
}

static int check_fixed(void)
{
  int fails = 0;
  /* 3-point bending of a hollow stem with plastic buckling and a bending-stress limit */
  static const char *const bend[] = {
      "fiber.length=0.108333333", "fiber.segments=26", "fiber.outer_radius=2e-3", "fiber.inner_radius_ratio=0.8",
      "fiber.density=800", "fiber.youngs_modulus=5.5e9", "fiber.shear_modulus=2.115e9", "bond.damping=5e-6",
      "bond.buckling.type=plastic", "bond.buckling.sample_length=0.1", "bond.buckling.max_force=4",
      "bond.buckling.min_force=2.5", "bond.buckling.displacement_at_min_force=4e-3",
      "bond.buckling.slope_after_min_force=2000", "bond.failure.criterion=bending_stress",
      "bond.failure.max_stress=3.0e7", "test.span=0.1", "test.max_displacement=9e-3", "test.speed=0.9",
      "simulation.output_points=200"};
  fails += fixed_run("bend3pt with buckling", bend, (int)(sizeof bend / sizeof *bend), 2);

  /* a batch of tensile specimens whose bonds break at strengths that vary */
  static const char *const tens[] = {
      "test.kind=tension", "fiber.segments=24", "fiber.length=0.048", "test.gauge_length=0.04",
      "test.grip_length=0.004", "bond.damping=1e-8", "bond.failure.criterion=force_stress",
      "bond.failure.max_stress=2e7", "bond.failure.ignore_compression=true", "bond.failure.strength_variation=0.1",
      "test.max_elongation=2e-3", "simulation.output_points=100"};
  fl_experiment t = fl_experiment_default();
  if (setup(&t, tens, (int)(sizeof tens / sizeof *tens), "tension batch")) {
    fails++;
  } else {
    t.sim.seed = st;
    fails += compare_run("tension batch with strength variation", &t, 64, 0);
  }

  /* a tube twisted and bent by tens of degrees a bond, its sides unequal (a taper):
   * the bond law's atan2, sin and cos at every step, where the series stop */
  static const char *const twist[] = {
      "test.kind=torsion", "fiber.segments=10", "fiber.length=0.06", "fiber.outer_radius=2e-3",
      "fiber.outer_radius_end=1.5e-3", "fiber.inner_radius_ratio=0.6", "test.gauge_length=0.05",
      "test.grip_length=0.005", "bond.damping=2e-6", "test.max_twist=480", "test.angular_speed=600",
      "simulation.output_points=60"};
  fails += fixed_run("torsion past the series", twist, (int)(sizeof twist / sizeof *twist), 1);

  /* a short stem of 6 segments bent by 30 % of its span: the common law serves the
   * bonds near the supports and leaves the middle ones, bent past the series, to the
   * general law, so that a body's thread meets both kinds in one step */
  static const char *const kink[] = {
      "test.kind=bend3pt", "fiber.length=0.12", "fiber.segments=6", "fiber.outer_radius=2e-3",
      "fiber.inner_radius_ratio=0.8", "fiber.density=800", "fiber.youngs_modulus=5.5e9",
      "fiber.shear_modulus=2.115e9", "bond.damping=2e-6", "test.span=0.1", "test.max_displacement=0.03",
      "simulation.output_points=20"};
  fails += fixed_run("bending past the series", kink, (int)(sizeof kink / sizeof *kink), 1);
  return fails;
}

/* ---- 3. random specimens ------------------------------------------------------------ */

/* the post-failure behaviours each criterion allows, as in check_bonds */
static const char *const posts[] = {"total_breakage", "constant_torque", "constant_force", "combined_plasticity"};
static const int post_of[6][2] = {{0, 0}, {0, 1}, {0, 1}, {0, 3}, {0, 2}, {0, 3}};
static const char *const criteria[] = {"none", "bending_stress", "bending_angle", "axial_stress", "force_stress",
                                       "von_mises"};

/* A random experiment of kind k into e, its settings into a line for the report; the
 * limits are drawn below what the test's largest load reaches, so that bonds yield,
 * break and buckle.  Returns 1 when the draw is not a valid experiment. */
static int random_experiment(int k, fl_experiment *e, int *nspec, char *line, size_t len)
{
  char sets[40][96];
  int n = 0;
#define SET(...) snprintf(sets[n++], sizeof sets[0], __VA_ARGS__)
  static const char *const kinds[] = {"bend3pt", "tension", "torsion", "cantilever", "bend4pt", "compression"};
  const double pi = 3.14159265358979;
  int bends = k == FL_TEST_BEND3PT || k == FL_TEST_BEND4PT;
  double L = between(0.06, 0.14), R = between(1e-3, 2.5e-3), ratio = urand() < 0.3 ? 0.0 : between(0.3, 0.85);
  double E = between(2e9, 2e10), I = pi / 4.0 * R * R * R * R * (1 - pow(ratio, 4));
  int segs = 2 * (4 + pick(9)), taper = 0; /* 8 to 24, even: a bond under a 3-point nose */
  double h = L / segs;
  SET("test.kind=%s", kinds[k]);
  SET("fiber.length=%.6g", L);
  SET("fiber.outer_radius=%.6g", R);
  SET("fiber.inner_radius_ratio=%.4g", ratio);
  SET("fiber.segments=%d", segs);
  SET("fiber.density=%.6g", between(500, 2000));
  SET("fiber.youngs_modulus=%.6g", E);
  SET("fiber.poisson_ratio=%.3g", between(0.2, 0.4));
  SET("bond.damping=%.3g", between(1e-6, 5e-6));
  SET("simulation.output_points=%d", 20 + pick(41));
  SET("simulation.seed=%d", 1 + pick(1000));
  if (urand() < 0.25 && k != FL_TEST_COMPRESSION) {
    SET("fiber.outer_radius_end=%.6g", R * between(0.6, 0.9)); /* a taper: unequal sides */
    taper = 1;
  } else if (urand() < 0.3 && k == FL_TEST_BEND3PT) {
    SET("fiber.shape=arc");
    SET("fiber.arc_angle=%.4g", between(5, 30)); /* an arc: oblique bonds */
  }
  /* the largest strain the test's own load makes, and the largest bond angle */
  double span = L * between(0.7, 0.85), strain = 0.0, angle = 0.0;
  int crit = 0;
  if (bends) {
    SET("test.span=%.6g", span);
    SET("test.friction=%.3g", urand() < 0.3 ? 0.0 : between(0.1, 0.5));
    if (urand() < 0.3)
      SET("test.rollers=rotating");
    if (urand() < 0.3)
      SET("test.gravity=0");
    double u = span * between(0.03, 0.08);
    SET("test.max_displacement=%.6g", u);
    if (urand() < 0.25)
      SET("test.cycles=%.6g,%.6g,%.6g", 0.6 * u, 0.2 * u, u);
    if (k == FL_TEST_BEND4PT)
      SET("test.loading_span=%.6g", span * between(0.3, 0.5));
    strain = 12.0 * R * u / (span * span); /* the outer fibre under a 3-point nose */
    angle = 12.0 * u * h / (span * span);
    static const int bending[] = {1, 2, 3, 5};
    crit = bending[pick(4)];
  } else if (k == FL_TEST_TENSION) {
    double gl = L * 0.8, el = gl * between(0.002, 0.01);
    SET("test.gauge_length=%.6g", gl);
    SET("test.grip_length=%.6g", L * 0.08);
    SET("test.max_elongation=%.6g", el);
    strain = el / gl;
    static const int pulling[] = {3, 4, 5};
    crit = pulling[pick(3)];
  } else if (k == FL_TEST_TORSION) {
    double gl = L * 0.8, tw = between(10, 60);
    SET("test.gauge_length=%.6g", gl);
    SET("test.grip_length=%.6g", L * 0.08);
    SET("test.max_twist=%.4g", tw);
    strain = 0.7 * tw * pi / 180.0 * R / gl; /* G / E times the shear strain */
    crit = 5;
  } else if (k == FL_TEST_CANTILEVER) {
    SET("test.clamp_length=%.6g", L * 0.1);
    double d = L * between(0.05, 0.3);
    if (urand() < 0.3) {
      SET("test.control=load");
      SET("test.max_tip_load=%.6g", 3.0 * E * I * d / (L * L * L));
    } else {
      SET("test.max_tip_displacement=%.6g", d);
    }
    if (urand() < 0.3) {
      SET("test.mode=vibration");
      SET("test.ring_periods=%.3g", between(1, 3));
    }
    strain = 3.0 * R * d / (L * L);
    angle = 3.0 * d * h / (L * L);
    crit = 1 + pick(2);
  } else {
    SET("test.max_shortening=%.6g", L * between(0.002, 0.01));
    SET("test.imperfection=%.3g", between(1e-3, 1e-2));
    strain = 0.002;
    angle = 0.01;
    crit = 1 + pick(5);
  }
  if (taper && crit > 2)
    crit = 1; /* a varying section allows the bending criteria only */
  if (urand() < 0.7) {
    SET("bond.failure.criterion=%s", criteria[crit]);
    SET("bond.failure.post_failure=%s", posts[post_of[crit][urand() < 0.5]]);
    SET("bond.failure.max_stress=%.6g", E * strain * between(0.1, 0.8));
    SET("bond.failure.max_bending_angle=%.4g", fmax(angle, 1e-4) * between(0.1, 0.8) * 180.0 / pi);
    if (urand() < 0.5)
      SET("bond.failure.ignore_compression=true");
    if (urand() < 0.5)
      SET("bond.failure.strength_variation=0.1");
  }
  if (k == FL_TEST_BEND3PT && !taper && urand() < 0.5) {
    static const char *const types[] = {"reversible", "damage", "plastic"};
    double u = span * 0.05, fpeak = 48.0 * E * I * u / (span * span * span); /* elastic at u */
    SET("bond.buckling.type=%s", types[pick(3)]);
    SET("bond.buckling.sample_length=%.6g", span);
    SET("bond.buckling.max_force=%.6g", fpeak * between(0.3, 0.8));
    SET("bond.buckling.min_force=%.6g", fpeak * between(0.15, 0.3));
    SET("bond.buckling.displacement_at_min_force=%.6g", u * between(1.0, 1.5));
    SET("bond.buckling.slope_after_min_force=%.6g", srnd(fpeak / u));
  }
#undef SET
  *nspec = urand() < 0.3 ? 2 + pick(3) : 1;
  *e = fl_experiment_default();
  size_t at = 0;
  line[0] = 0;
  for (int i = 0; i < n; i++)
    at += (size_t)snprintf(line + at, at < len ? len - at : 0, " -s %s", sets[i]);
  char err[1024];
  for (int i = 0; i < n; i++)
    if (fl_experiment_set(e, sets[i], err, sizeof err)) {
      printf("random: %s: %s\n", sets[i], err);
      return 1;
    }
  if (fl_experiment_finish(e, "random", err, sizeof err)) {
    printf("random: %s\n", err);
    return 1;
  }
  /* a few periods of the lowest mode, not the quasi-static twenty: short runs */
  fl_system sys;
  fl_build_info info;
  if (fl_build(e, 1, &sys, &info))
    return 1;
  fl_system_free(&sys);
  e->test.speed = fl_test_target(&e->test) / (between(2.0, 5.0) * info.first_period);
  return 0;
}

static int check_random(int count)
{
  int fails = 0;
  for (int r = 0; r < count; r++) {
    int k = r % 6, nspec = 1, tries = 0;
    fl_experiment e;
    char line[4096], name[64];
    while (random_experiment(k, &e, &nspec, line, sizeof line) && ++tries < 10)
      printf("random %d: the draw is not a valid experiment: drawn again\n", r);
    if (tries == 10) {
      printf("random %d: no valid experiment in 10 draws -> FAIL\n", r);
      fails++;
      continue;
    }
    printf("random %d (%s, speed %.4g):%s\n", r, fl_test_kind_name(e.test.kind), e.test.speed, line);
    snprintf(name, sizeof name, "random %d", r);
    fails += compare_run(name, &e, nspec, 0);
  }
  return fails;
}

/* ---- failures ---------------------------------------------------------------------- */

/* A batch whose specimen 2 has body 5 far out, and specimen 1 body 7 out and past the
 * finite numbers: both engines find the same first failure (the finite numbers before
 * the box, the first specimen), and report it at the same bond, after a step that
 * checks the box; one that does not check it finds only the finite numbers. */
static int check_failures(void)
{
  static const char *const sets[] = {"test.kind=tension", "fiber.segments=12", "bond.damping=1e-6"};
  fl_experiment e = fl_experiment_default();
  if (setup(&e, sets, 3, "failures"))
    return 1;
  int fails = 0;
  for (int box = 0; box < 2; box++) {
    fl_system sys[2];
    fl_build_info info;
    int spec[2] = {-1, -1}, bond[2] = {-1, -1}, rc[2];
    long step[2] = {-1, -1};
    for (int k = 0; k < 2; k++) {
      if (fl_build(&e, 3, &sys[k], &info)) {
        printf("failures: cannot build -> FAIL\n");
        return 1;
      }
      fl_system_set_step(&sys[k], 0.2 * info.critical_step);
      fl_system_set_damping(&sys[k], -1, 1e-6, 1.0);
      sys[k].x[2 * sys[k].nbody + 5] = fl_v3(5.0, 0.0, 0.0);
      sys[k].x[1 * sys[k].nbody + 7] = fl_v3(5.0, 0.0, 0.0);
      sys[k].v[1 * sys[k].nbody + 7] = fl_v3(INFINITY, 0.0, 0.0);
    }
    if (!box) /* no body past the finite numbers: the box alone */
      sys[0].v[sys[0].nbody + 7] = sys[1].v[sys[1].nbody + 7] = fl_v3(0.0, 0.0, 0.0);
    rc[0] = fl_system_step(&sys[0], &spec[0], &bond[0]);
    if (rc[0] == FL_OK && (rc[0] = fl_system_outside(&sys[0], 1.0, &spec[0], &bond[0])) == FL_OK)
      spec[0] = bond[0] = -1;
    step[0] = rc[0] ? 0 : -1;
    fl_gpu *g = NULL;
    char err[256];
    fl_track tr[3];
    memset(tr, 0, sizeof tr);
    rc[1] = fl_gpu_create(&g, &sys[1], err, sizeof err);
    if (rc[1] == FL_OK)
      rc[1] = fl_gpu_track_put(g, FL_TEST_TENSION, tr);
    if (rc[1] == FL_OK)
      rc[1] = fl_gpu_step(g, &sys[1], 0, 0.0, 0.0, 1.0);
    /* the looks that do not wait: step 0's watch rides step 1, and a look finds it
     * once the copy a look before sent is done (a look or two later) */
    long seen = -1;
    int looks = 0;
    if (rc[1] == FL_OK)
      rc[1] = fl_gpu_step(g, &sys[1], 1, sys[1].dt, 0.0, 0.0);
    while (rc[1] == FL_OK && seen < 0 && looks++ < 4)
      rc[1] = fl_gpu_look(g, &seen);
    if (rc[1] == FL_OK)
      rc[1] = fl_gpu_track_get(g, &sys[1], tr, &step[1], &spec[1], &bond[1]);
    fl_gpu_free(&g);
    int ok = rc[1] == FL_OK && step[0] == step[1] && spec[0] == spec[1] && bond[0] == bond[1] && seen == step[1];
    printf("failures (%s): CPU step %ld, specimen %d, bond %d; GPU step %ld, specimen %d, bond %d, seen by look %d "
           "at step %ld -> %s\n",
           box ? "the finite numbers and the box" : "the box alone", step[0], spec[0], bond[0], step[1], spec[1],
           bond[1], looks, seen, ok ? "ok" : "FAIL");
    fails += !ok;
    fl_system_free(&sys[0]);
    fl_system_free(&sys[1]);
  }
  return fails;
}

/* A 3-point specimen whose bonds are numbered backwards, so that no chain's shortcut
 * applies (each body's list of bonds, each bond's two bodies): stepped by both
 * engines alone, the whole state compared after every 100 steps. */
static int check_lists(void)
{
  static const char *const sets[] = {"fiber.segments=16", "bond.damping=2e-6", "test.max_displacement=2e-3",
                                     "bond.failure.criterion=bending_stress", "bond.failure.max_stress=1e6",
                                     "bond.failure.post_failure=constant_torque"};
  fl_experiment e = fl_experiment_default();
  if (setup(&e, sets, 6, "bond lists"))
    return 1;
  fl_system sys[2];
  fl_build_info info;
  for (int k = 0; k < 2; k++) {
    if (fl_build(&e, 2, &sys[k], &info)) {
      printf("bond lists: cannot build -> FAIL\n");
      return 1;
    }
    fl_system *y = &sys[k];
    for (int b = 0; b < y->nbond / 2; b++) { /* bond b and bond nbond - 1 - b trade places */
      int c = y->nbond - 1 - b, t1 = y->b1[b], t2 = y->b2[b];
      y->b1[b] = y->b1[c], y->b2[b] = y->b2[c], y->b1[c] = t1, y->b2[c] = t2;
      for (int s = 0; s < y->nspec; s++) {
        fl_bond t = y->bond[(size_t)s * y->nbond + b];
        y->bond[(size_t)s * y->nbond + b] = y->bond[(size_t)s * y->nbond + c];
        y->bond[(size_t)s * y->nbond + c] = t;
      }
    }
    fl_system_set_step(y, 0.2 * info.critical_step);
    fl_system_set_damping(y, -1, e.bond.damping, 1.0);
    fl_system_adjacency(y);
    for (int t = 2; t < y->ntool; t++) /* the nose comes down fast */
      y->tool[t].vel = fl_v3(0.0, -2.0, 0.0);
  }
  fl_gpu *g = NULL;
  char err[256];
  fl_track tr[2];
  memset(tr, 0, sizeof tr);
  int rc = fl_gpu_create(&g, &sys[1], err, sizeof err), diff = 0, spec, bond, n;
  long bad = -1;
  if (rc == FL_OK)
    rc = fl_gpu_track_put(g, FL_TEST_BEND3PT, tr);
  for (n = 0; n < 3000 && rc == FL_OK && !diff; n++) {
    rc = fl_system_step(&sys[0], &spec, &bond);
    if (rc == FL_OK)
      rc = fl_gpu_step(g, &sys[1], n, n * sys[1].dt, 0.0, 0.0);
    if (rc == FL_OK && n % 100 == 99) {
      rc = fl_gpu_track_get(g, &sys[1], tr, &bad, &spec, &bond);
      if (rc == FL_OK)
        rc = fl_gpu_download(g, &sys[1]);
      size_t nb = (size_t)sys[0].nspec * sys[0].nbody, nd = (size_t)sys[0].nspec * sys[0].nbond;
      diff = bad >= 0 || memcmp(sys[0].x, sys[1].x, nb * sizeof *sys[0].x) || memcmp(sys[0].q, sys[1].q, nb * sizeof *sys[0].q) ||
             memcmp(sys[0].v, sys[1].v, nb * sizeof *sys[0].v) || memcmp(sys[0].w, sys[1].w, nb * sizeof *sys[0].w) ||
             memcmp(sys[0].L, sys[1].L, nb * sizeof *sys[0].L) ||
             memcmp(sys[0].bstate, sys[1].bstate, nd * sizeof *sys[0].bstate) ||
             memcmp(sys[0].state_row, sys[1].state_row, FL_STATE_ROWS * nd * sizeof *sys[0].state_row) ||
             memcmp(sys[0].nbroken, sys[1].nbroken, sys[0].nspec * sizeof(int));
    }
  }
  int yielded = 0, broken = 0;
  for (int s = 0; s < sys[0].nspec; s++) {
    int b0, y0;
    fl_system_count(&sys[0], s, &b0, &y0);
    broken += b0, yielded += y0;
  }
  /* bit for bit on the host shim; on a device, where the maths library may round apart,
   * the same events */
  int ok = rc == FL_OK && !sys[0].adj_chain && (!diff || (!exact && bad < 0 && !memcmp(sys[0].nbroken, sys[1].nbroken, sys[0].nspec * sizeof(int))));
  printf("bond lists (a chain numbered backwards%s): %d steps, %d yielded, %d broken; the whole state %s -> %s\n",
         sys[0].adj_chain ? ", BUT TAKEN AS A CHAIN" : "", n, yielded, broken, rc ? fl_gpu_error(g) : diff ? "differs" : "the same to the bit", ok ? "ok" : "FAIL");
  fl_gpu_free(&g);
  fl_system_free(&sys[0]);
  fl_system_free(&sys[1]);
  return !ok;
}

/* ---- 4. experiment files -------------------------------------------------------------- */

static int check_file(const char *path)
{
  char err[2048];
  fl_experiment e = fl_experiment_default();
  if (fl_experiment_load(path, &e, err, sizeof err) || fl_experiment_finish(&e, path, err, sizeof err)) {
    printf("%s: %s -> FAIL\n", path, err);
    return 1;
  }
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  return compare_run(base, &e, 1, rows_max);
}

static void usage(FILE *f)
{
  fprintf(f, "usage: gpu_check [--seed N] [--exact] [--rows N] [--bonds N] [--random N] [--no-fixed] "
             "[FILE.yaml ...]\n");
}

int main(int argc, char **argv)
{
  setvbuf(stdout, NULL, _IOLBF, 0);
  char why[256];
  if (!fl_gpu_available(why, sizeof why)) {
    printf("gpu_check: skipped: %s\n", why);
    return 77;
  }
  const char *seed_arg = NULL;
  long nbonds = 20000, nrandom = 6;
  int fixed = 1, first_file = argc;
  for (int i = 1; i < argc; i++) {
    char *end = NULL;
    if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      seed_arg = argv[++i];
    } else if (strcmp(argv[i], "--exact") == 0) {
      exact = 1;
    } else if (strcmp(argv[i], "--no-fixed") == 0) {
      fixed = 0;
    } else if ((strcmp(argv[i], "--rows") == 0 || strcmp(argv[i], "--bonds") == 0 ||
                strcmp(argv[i], "--random") == 0) &&
               i + 1 < argc) {
      long v = strtol(argv[i + 1], &end, 10);
      if (!*argv[i + 1] || *end || v < 0) {
        fprintf(stderr, "gpu_check: %s '%s': allowed: an integer >= 0\n", argv[i], argv[i + 1]);
        return 2;
      }
      if (argv[i][2] == 'r' && argv[i][3] == 'o')
        rows_max = (int)v;
      else if (argv[i][2] == 'b')
        nbonds = v;
      else
        nrandom = v;
      i++;
    } else if (argv[i][0] == '-') {
      usage(stderr);
      return 2;
    } else {
      first_file = i;
      break;
    }
  }
  char *end = NULL;
  st = seed_arg ? strtoull(seed_arg, &end, 10) : (unsigned long long)time(NULL) * 2654435761ULL + 1;
  if (seed_arg && (!*seed_arg || *end || st == 0)) {
    fprintf(stderr, "gpu_check: --seed '%s': allowed: an integer >= 1\n", seed_arg);
    return 2;
  }
  char dev[256];
  double bw = 0.0;
  if (fl_gpu_describe(dev, sizeof dev, &bw))
    snprintf(dev, sizeof dev, "unknown");
  printf("gpu_check: %s; seed %llu (repeat with --seed %llu); %s\n", dev, st, st,
         exact ? "every difference must be 0" : "differences within the device's tolerance");
  int fails = check_bonds((int)nbonds);
  if (fixed)
    fails += check_fixed() + check_failures() + check_lists();
  fails += check_random((int)nrandom);
  for (int i = first_file; i < argc; i++)
    fails += check_file(argv[i]);
  printf("gpu_check: %s, %d failed\n", fails ? "FAIL" : "ok", fails);
  return fails ? 1 : 0;
}
