/* gpu_check.c: the CUDA engine against the CPU engine.  Fresh random inputs each run
 * (the seed is printed; --seed N repeats it):
 *  1. 20000 random bonds (unequal sides, damping, every criterion and post-failure
 *     behaviour, every buckling kind, random plastic offsets and history) evaluated on
 *     both: forces and torques agree to 1e-12 relative, and so does the state;
 *  2. whole virtual tests (3-point bending with buckling and a stress limit; a batch of
 *     tensile specimens with strength variation) for 1e4 steps: curves agree to 1e-9,
 *     and so do every bond's loads at every output row (evaluated on the host from
 *     each run's state), relative to the largest bond load.
 * Exit 77 (skipped) when no CUDA device answers. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu.h"
#include "run.h"

static unsigned long long st = 1;
static double urand(void)
{
  st ^= st << 13;
  st ^= st >> 7;
  st ^= st << 17;
  return (st >> 11) * (1.0 / 9007199254740992.0);
}
static double srnd(double a) { return a * (2.0 * urand() - 1.0); }
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

static int check_bonds(int n)
{
  fl_bond *bd = calloc((size_t)n, sizeof *bd);
  fl_bond_damping *dm = calloc((size_t)n, sizeof *dm);
  fl_bond_limits *lim = calloc((size_t)n, sizeof *lim);
  fl_body *b1 = calloc((size_t)n, sizeof *b1), *b2 = calloc((size_t)n, sizeof *b2);
  fl_bond_state *s_cpu = calloc((size_t)n, sizeof *s_cpu), *s_gpu = calloc((size_t)n, sizeof *s_gpu);
  fl_bond_loads *l_cpu = calloc((size_t)n, sizeof *l_cpu), *l_gpu = calloc((size_t)n, sizeof *l_gpu);
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
    fl_quat q1 = rquat(3.0), q2 = rquat(3.0);
    fl_vec3 x1 = rvec(0.01), c = fl_add(x1, fl_qrot(q1, fl_v3(d1, 0, 0)));
    fl_vec3 x2 = fl_add(c, fl_qrot(q1, fl_v3(d2, 0, 0)));
    bd[i] = fl_bond_make(x1, q1, x2, q2, c, k1, k2);
    dm[i].a_damp = urand() < 0.3 ? 0.0 : 1e-6 * urand();
    dm[i].decay = urand() < 0.5 ? 0.0 : urand();
    int crit = (int)(urand() * 6);
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
      lim[i].pair_law = (fl_contact_law){E1 / 1.8, E1 / 5.0, 0.5 * R, 1e-6, -0.2, 0.3};
      lim[i].hl1 = d1;
      lim[i].hl2 = d2;
      lim[i].r1 = lim[i].r2 = R;
    }
    int bk = (int)(urand() * 4);
    if (bk)
      lim[i].buckling = fl_buckling_make(bk, 0.1, 2 + urand(), 1 + urand(), 3e-3, srnd(200), fl_series(k1.k_bend, k2.k_bend),
                                         E1 * sc.inertia);
    /* a deformed state: displacements, rotations, velocities */
    b1[i] = (fl_body){fl_add(x1, rvec(2e-5)), fl_qmul(rquat(0.05), q1), rvec(0.1), rvec(10)};
    b2[i] = (fl_body){fl_add(x2, rvec(2e-5)), fl_qmul(rquat(0.05), q2), rvec(0.1), rvec(10)};
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
  int mism = 0;
  for (int i = 0; i < n && rc == 0; i++) {
    double sf = fl_norm(l_cpu[i].force) + 1e-300, st1 = fl_norm(l_cpu[i].torque1) + fl_norm(l_cpu[i].torque2) + 1e-300;
    double e = fmax(rel(l_cpu[i].force, l_gpu[i].force, sf),
                    fmax(rel(l_cpu[i].torque1, l_gpu[i].torque1, st1), rel(l_cpu[i].torque2, l_gpu[i].torque2, st1)));
    double es = fmax(rel(s_cpu[i].dp, s_gpu[i].dp, fl_norm(s_cpu[i].dp) + 1e-300),
                     rel(s_cpu[i].thp, s_gpu[i].thp, fl_norm(s_cpu[i].thp) + 1e-300));
    if (s_cpu[i].broken != s_gpu[i].broken || s_cpu[i].yielded != s_gpu[i].yielded ||
        s_cpu[i].buckled != s_gpu[i].buckled)
      mism++;
    if (e > worst)
      worst = e;
    if (es > worst_state)
      worst_state = es;
  }
  printf("bonds: %d evaluated, largest relative difference of loads %.3g, of plastic offsets %.3g, %d state flags "
         "differ -> %s\n",
         n, worst, worst_state, mism, rc == 0 && worst <= 1e-12 && worst_state <= 1e-12 && mism == 0 ? "ok" : "FAIL");
  free(bd), free(dm), free(lim), free(b1), free(b2), free(s_cpu), free(s_gpu), free(l_cpu), free(l_gpu);
  return rc == 0 && worst <= 1e-12 && worst_state <= 1e-12 && mism == 0 ? 0 : 1;
}

/* Every bond's loads at every output row of a run, evaluated on the host from the state
 * the run reached (downloaded from the device for the GPU run): the first run stores
 * them, the second compares. */
typedef struct {
  fl_bond_loads *loads; /* [point][specimen][bond] of the first run */
  size_t n;             /* entries stored */
  int compare;          /* 0: store, 1: compare */
  double worst;         /* largest difference, relative to the largest load of its kind */
  double fscale, tscale;/* largest bond force (N) and torque (N m) of the first run */
  size_t missing;       /* rows of the second run beyond the first's */
} bond_probe;

static void bond_loads_of(const fl_system *sys, size_t s, int b, fl_bond_loads *out)
{
  size_t k1 = s * sys->nbody + sys->b1[b], k2 = s * sys->nbody + sys->b2[b];
  fl_body b1 = {sys->x[k1], sys->q[k1], sys->v[k1], sys->w[k1]};
  fl_body b2 = {sys->x[k2], sys->q[k2], sys->v[k2], sys->w[k2]};
  fl_bond_state scratch = sys->bstate[s * sys->nbond + b]; /* evaluate without moving it on */
  fl_system_damp_get(sys, (int)s, b, &scratch);
  const fl_bond_limits *l = &sys->limits[s];
  if (!l->criterion && !l->buckling.type)
    l = NULL;
  fl_bond_eval(&sys->bond[s * sys->nbond + b], &sys->damping[s], l, &b1, &b2, &scratch, out);
}

static void probe_bonds(void *ctx, const fl_system *sys, int point, double x)
{
  (void)x;
  bond_probe *p = ctx;
  size_t per = (size_t)sys->nspec * sys->nbond, at = (size_t)point * per;
  for (size_t s = 0; s < (size_t)sys->nspec; s++)
    for (int b = 0; b < sys->nbond; b++) {
      fl_bond_loads ld;
      bond_loads_of(sys, s, b, &ld);
      size_t k = at + s * sys->nbond + b;
      if (!p->compare) {
        if (k >= p->n)
          continue; /* sized for the planned rows */
        p->loads[k] = ld;
        p->fscale = fmax(p->fscale, fl_norm(ld.force));
        p->tscale = fmax(p->tscale, fmax(fl_norm(ld.torque1), fl_norm(ld.torque2)));
      } else if (k >= p->n) {
        p->missing++;
      } else {
        const fl_bond_loads *r = &p->loads[k];
        double e = fmax(rel(r->force, ld.force, p->fscale),
                        fmax(rel(r->torque1, ld.torque1, p->tscale), rel(r->torque2, ld.torque2, p->tscale)));
        p->worst = fmax(p->worst, e);
      }
    }
}

static int check_run(const char *name, const fl_experiment *e, int nspec)
{
  fl_curve c0, c1;
  fl_result r0, r1;
  char err[512];
  bond_probe bp;
  memset(&bp, 0, sizeof bp);
  fl_system probe_sys;
  fl_build_info info;
  if (fl_build(e, nspec, &probe_sys, &info)) {
    printf("%s: cannot build -> FAIL\n", name);
    return 1;
  }
  bp.n = (size_t)e->sim.output_points * nspec * probe_sys.nbond;
  fl_system_free(&probe_sys);
  bp.loads = calloc(bp.n, sizeof *bp.loads);
  fl_run_hooks cpu = {NULL, probe_bonds, &bp, NULL, 1, 0, NULL, 0}, gpu = {NULL, probe_bonds, &bp, NULL, 1, 1, NULL, 0};
  if (!bp.loads || fl_run(e, nspec, &cpu, &c0, &r0, err, sizeof err)) {
    printf("%s: CPU run failed: %s -> FAIL\n", name, bp.loads ? err : "out of memory");
    free(bp.loads);
    return 1;
  }
  bp.compare = 1;
  if (fl_run(e, nspec, &gpu, &c1, &r1, err, sizeof err)) {
    printf("%s: GPU run failed: %s -> FAIL\n", name, err);
    free(bp.loads);
    return 1;
  }
  double scale = 0.0, worst = 0.0;
  size_t rows = (size_t)c0.nspec * c0.npoints;
  for (size_t i = 0; i < rows; i++)
    scale = fmax(scale, fabs(c0.y[i]));
  for (size_t i = 0; i < rows; i++)
    worst = fmax(worst, fabs(c0.y[i] - c1.y[i]) / scale);
  int ok = c0.npoints == c1.npoints && r0.steps == r1.steps && worst <= 1e-9 && r0.bonds_broken == r1.bonds_broken &&
           bp.worst <= 1e-9 && bp.missing == 0;
  printf("%s: %ld steps, %d specimens, largest curve difference %.3g of the largest load, every bond's loads at "
         "every row within %.3g of the largest, broken bonds %d / %d -> %s\n",
         name, r0.steps, nspec, worst, bp.worst, r0.bonds_broken, r1.bonds_broken, ok ? "ok" : "FAIL");
  fl_curve_free(&c0), fl_curve_free(&c1), fl_result_free(&r0), fl_result_free(&r1);
  free(bp.loads);
  return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
  char why[256];
  if (!fl_gpu_available(why, sizeof why)) {
    printf("gpu_check: skipped: %s\n", why);
    return 77;
  }
  /* --seed N (or a bare N) repeats a run; without it the seed comes from the clock */
  const char *seed_arg = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
      seed_arg = argv[++i];
    else if (strncmp(argv[i], "--seed=", 7) == 0)
      seed_arg = argv[i] + 7;
    else
      seed_arg = argv[i];
  }
  char *end = NULL;
  st = seed_arg ? strtoull(seed_arg, &end, 10) : (unsigned long long)time(NULL) * 2654435761ULL + 1;
  if (seed_arg && (!*seed_arg || *end || st == 0)) {
    fprintf(stderr, "gpu_check: --seed '%s': allowed: an integer >= 1\n", seed_arg);
    return 2;
  }
  printf("gpu_check: seed %llu (repeat with --seed %llu)\n", st, st);
  int fails = check_bonds(20000);

  /* 3-point bending of a hollow stem with plastic buckling and a bending-stress limit */
  fl_experiment e = fl_experiment_default();
  e.fiber.length_m = 0.1 * 26.0 / 24.0;
  e.fiber.segments = 26;
  e.fiber.outer_radius_m = 2e-3;
  e.fiber.inner_radius_ratio = 0.8;
  e.fiber.density = 800;
  e.fiber.youngs_modulus = 5.5e9;
  e.fiber.shear_modulus = 5.5e9 / 2.6;
  e.bond.damping = 5e-6;
  e.bond.buckling.type = FL_BUCKLING_PLASTIC;
  e.bond.buckling.sample_length = 0.1;
  e.bond.buckling.max_force = 4;
  e.bond.buckling.min_force = 2.5;
  e.bond.buckling.displacement_at_min_force = 4e-3;
  e.bond.buckling.slope_after_min_force = 2000;
  e.bond.failure.criterion = FL_CRIT_BENDING_STRESS;
  e.bond.failure.max_stress = 3.0e7;
  e.test.span_m = 0.1;
  e.test.max_displacement_m = 6e-3;
  e.sim.time_step = 1e-6; /* 1e4 steps would not reach the buckle at the automatic step */
  e.sim.force_time_step = 1;
  e.sim.output_points = 200;
  fails += check_run("bend3pt with buckling", &e, 2);

  fl_experiment t = fl_experiment_default();
  t.test.kind = FL_TEST_TENSION;
  t.fiber.segments = 24;
  t.fiber.length_m = 0.048;
  t.test.gauge_length_m = 0.04;
  t.test.grip_length_m = 0.004;
  t.bond.damping = 1e-8;
  t.bond.failure.criterion = FL_CRIT_FORCE_STRESS;
  t.bond.failure.max_stress = 2e7;
  t.bond.failure.ignore_compression = 1;
  t.bond.failure.strength_variation = 0.1;
  t.test.max_elongation_m = 2e-3;
  t.sim.seed = st;
  t.sim.output_points = 200;
  fails += check_run("tension batch with strength variation", &t, 64);
  printf("%d passed, %d failed\n", 3 - fails, fails);
  return fails ? 1 : 0;
}
