/* bench.c: bond-updates per second of the CPU engine (make bench).  Straight damped
 * fibers with small random initial velocities, no tools, on one thread and on all
 * cores.  One line per case: NAME bonds=N threads=P steps=S seconds=T
 * bond_updates_per_s=R cpu_seconds=C bond_updates_per_cpu_s=RC bytes_per_bond=B (C:
 * the process's CPU time, all threads; B: the bytes of the engine's arrays per bond
 * that a step reads or writes, bodies included, one body a bond).  Each case takes
 * about UPDATES bond updates (steps fewer for bigger cases).  FL_BENCH_ISA=N in the
 * environment takes the vectorised loops' build N (enum fl_isa: 1 baseline, 2 AVX2,
 * 3 AVX-512) instead of the widest the processor runs.
 * Usage: bench [UPDATES] (default 2e7); bench --chain N STEPS THREADS: one chain.
 * bench --triad THREADS: the memory bandwidth of a STREAM-like triad a = b + s c over
 * three arrays of 2^25 doubles (768 MiB), best of 5; one line: triad threads=P
 * GB_per_s=R (24 bytes an element: the write-allocate read of a is not counted, as in
 * STREAM).
 * bench --calibrate FIT.yaml (make bench-calibrate): the fit on one thread twice, its
 * Jacobians run as batches and as separate runs; one line each:
 * calibrate MODE seconds=T simulations=S engine_runs=B simulations_per_s=R status=C.
 * bench --solvers [FILE.yaml...] (make bench): the static and the explicit solver side
 * by side on a 48-segment glass rod in 3-point bending and on each file; one line each:
 * solvers NAME explicit_s=T static_s=T speedup=R peak_explicit=P peak_static=P.
 * bench --fits FIT.yaml... (make bench-solvers): each fit with each solver; one line
 * each: fit NAME solver=S seconds=T iterations=I simulations=N fallbacks=F r_squared=R
 * status=C (F: batches the explicit engine ran where the static solver failed). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fit.h"
#include "fl_defs.h"
#include "gpu.h"
#include "run.h"
#include "system.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* CPU time of the process (all threads), s: on a shared machine the measure of the
 * work done, where the wall clock also counts the other programs' turns. */
static double cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static unsigned long long st = 42;
static double srand1(void)
{
  st ^= st << 13;
  st ^= st >> 7;
  st ^= st << 17;
  return 2.0 * ((st >> 11) * (1.0 / 9007199254740992.0)) - 1.0;
}

static int use_gpu = 0;
static double device_bw = 0.0; /* GB/s */

/* Bytes of the engine's arrays per bond that a step of these chains (in chain order,
 * no tools, the vectorised law) reads or writes, one body a bond, its bonds' and
 * bodies' rows as sys holds them: a set of definitions per bond (shared by the
 * specimens when def_shared), of which only r1 and r2 when the others are one column
 * for all (def_uniform). */
static double cpu_bytes_per_bond(const fl_system *sys)
{
  /* the definitions' rows, the state's rows (the damping state and the live flags;
   * fl_bond_state is not read), the loads' rows */
  double def = (sys->def_uniform ? FL_DEF_Q0 : FL_DEF_ROWS) * sizeof(double) / (sys->def_shared ? sys->nspec : 1.0);
  double bond = def + FL_STATE_ROWS * sizeof(double) + FL_LOAD_ROWS * sizeof(double);
  /* x, v, w, L, f, t, q; the step's quotients (shared by the specimens); motion */
  double body = 6 * sizeof(fl_vec3) + sizeof(fl_quat) + FL_BODY_ROWS * sizeof(double) / sys->nspec + 1.0 / sys->nspec;
  return bond + body;
}

static int threads_now = 1;
static int bench_isa = FL_ISA_AUTO; /* FL_BENCH_ISA: enum fl_isa of the vectorised loops */

/* nspec fibers of nbond bonds each: a glass-fibre-like straight chain. */
static int bench_case(const char *name, int nspec, int nbond, long steps)
{
  fl_system sys;
  int nbody = nbond + 1;
  double R = 0.5e-3, h = 2e-3, E = 5e9, G = 2e9, rho = 1000;
  if (fl_system_alloc(&sys, nspec, nbody, nbond, 0))
    return 1;
  fl_section sec = fl_section_hollow(R, 0.5 * R);
  for (int i = 0; i < nbody; i++) {
    sys.x_ref[i] = fl_v3(i * h, 0, 0);
    fl_system_set_segment(&sys, i, R, 0.5 * R, h, rho);
  }
  double d = h / 2;
  fl_side_stiffness s = {E * sec.area / d, G * sec.area / d, G * sec.polar / d, E * sec.inertia / d};
  for (int b = 0; b < nbond; b++)
    fl_system_bond_chain(&sys, -1, b, b, b + 1, &s, &s);
  fl_system_reset(&sys);
  sys.threads = threads_now;
  sys.isa = bench_isa;
  double a_damp = 1e-7;
  double crit = fl_system_critical_step(&sys, 0, a_damp, 1.0, 0.0);
  fl_system_set_step(&sys, 0.2 * crit);
  fl_system_set_damping(&sys, -1, a_damp, 1.0);
  for (size_t k = 0; k < (size_t)nspec * nbody; k++) {
    sys.v[k] = fl_v3(1e-3 * srand1(), 1e-3 * srand1(), 1e-3 * srand1());
  }
  int bs, bb;
  double t0 = now(), c0 = cpu_now();
  /* the GPU's steps as the explicit solver takes them: watched on the device, looked at
   * at the end (the watch of a test of kind tension: no tools, no grip moves) */
  fl_gpu *gpu = NULL;
  fl_track *tr = use_gpu ? calloc((size_t)nspec, sizeof *tr) : NULL;
  long bad_step = -1;
  char msg[256];
  if (use_gpu) {
    int rc = tr ? fl_gpu_create(&gpu, &sys, msg, sizeof msg) : FL_ENOMEM;
    if (rc == FL_OK)
      rc = fl_gpu_track_put(gpu, FL_TEST_TENSION, tr);
    if (rc == FL_OK)
      rc = fl_gpu_step(gpu, &sys, 0, 0.0, 0.0, 0.0); /* warm-up */
    if (rc == FL_OK)
      rc = fl_gpu_track_get(gpu, &sys, tr, &bad_step, &bs, &bb);
    if (rc) {
      fprintf(stderr, "bench: %s: %s\n", name, gpu ? fl_gpu_error(gpu) : msg);
      fl_gpu_free(&gpu);
      free(tr);
      fl_system_free(&sys);
      return 1;
    }
    t0 = now();
  }
  for (long n = 0; n < steps; n++) {
    int rc = use_gpu ? fl_gpu_step(gpu, &sys, n + 1, 0.0, 0.0, 0.0) : fl_system_step(&sys, &bs, &bb);
    if (rc == FL_OK && use_gpu && n == steps - 1) /* wait for the device */
      rc = fl_gpu_track_get(gpu, &sys, tr, &bad_step, &bs, &bb);
    if (rc || bad_step >= 0) {
      fprintf(stderr, "bench: %s unstable at step %ld\n", name, bad_step >= 0 ? bad_step : n);
      fl_gpu_free(&gpu);
      free(tr);
      fl_system_free(&sys);
      return 1;
    }
  }
  double t = now() - t0, ct = cpu_now() - c0;
  long bonds = (long)nspec * nbond;
  double rate = (double)bonds * steps / t;
  if (use_gpu)
    printf("%s bonds=%ld steps=%ld seconds=%.3f bond_updates_per_s=%.4g bytes_per_bond=%.0f achieved_GB_per_s=%.0f "
           "device_GB_per_s=%.0f\n",
           name, bonds, steps, t, rate, fl_gpu_bytes_per_update(&sys), rate * fl_gpu_bytes_per_update(&sys) / 1e9,
           device_bw);
  else
    printf("%s bonds=%ld threads=%d steps=%ld seconds=%.3f bond_updates_per_s=%.4g cpu_seconds=%.3f "
           "bond_updates_per_cpu_s=%.4g bytes_per_bond=%.0f\n",
           name, bonds, threads_now, steps, t, rate, ct, (double)bonds * steps / ct, cpu_bytes_per_bond(&sys));
  fl_gpu_free(&gpu);
  free(tr);
  fflush(stdout);
  fl_system_free(&sys);
  return 0;
}

/* Fit path once with batched Jacobians and once with separate runs. */
static int bench_calibrate(const char *path)
{
  for (int separate = 0; separate < 2; separate++) {
    fl_fit fit;
    fl_calibration cal;
    char err[4096];
    if (fl_fit_load(path, NULL, 0, &fit, err, sizeof err)) {
      fprintf(stderr, "bench: %s\n", err);
      return 1;
    }
    fl_calibrate_opts o = {1, 0, 0, NULL, NULL, NULL, NULL, 0, separate, 0};
    double t0 = now();
    int rc = fl_calibrate(&fit, &o, &cal, err, sizeof err);
    double t = now() - t0;
    if (rc) {
      fprintf(stderr, "bench: %s\n", err);
      fl_fit_free(&fit);
      return 1;
    }
    printf("calibrate %s seconds=%.2f simulations=%ld engine_runs=%ld simulations_per_s=%.2f iterations=%d "
           "r_squared=%.4f status=%d\n",
           separate ? "separate" : "batched", t, cal.simulations, cal.batches, cal.simulations / t, cal.iterations,
           cal.r_squared, cal.status);
    fflush(stdout);
    fl_calibration_free(&cal);
    fl_fit_free(&fit);
  }
  return 0;
}

/* Each fit with each solver (simulation.solver set on every experiment it reads), on
 * one thread, batched as fiber-calibrate runs it: one line a fit and solver. */
static int bench_fits(int nfile, char **files)
{
  int fails = 0;
  for (int i = 0; i < nfile; i++)
    for (int k = 0; k < 2; k++) {
      const char *set = k == 0 ? "simulation.solver=explicit" : "simulation.solver=static";
      fl_fit fit;
      fl_calibration cal;
      char err[4096];
      if (fl_fit_load(files[i], &set, 1, &fit, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        fails++;
        continue;
      }
      fl_calibrate_opts o = {1, 0, 0, NULL, NULL, NULL, NULL, 0, 0, 0};
      double t0 = now();
      int rc = fl_calibrate(&fit, &o, &cal, err, sizeof err);
      double t = now() - t0;
      const char *base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
      if (rc) {
        fprintf(stderr, "bench: %s: %s\n", base, err);
        fails++;
      } else {
        printf("fit %s solver=%s seconds=%.2f iterations=%d simulations=%ld fallbacks=%d r_squared=%.4f status=%d\n",
               base, k == 0 ? "explicit" : "static", t, cal.iterations, cal.simulations, cal.fallbacks, cal.r_squared,
               cal.status);
        fflush(stdout);
        fl_calibration_free(&cal);
      }
      fl_fit_free(&fit);
    }
  return fails ? 1 : 0;
}

/* One experiment with both solvers, timed by the runs themselves. */
static int bench_solvers_one(const char *name, const fl_experiment *e)
{
  fl_curve c[2];
  fl_result r[2];
  char err[2048];
  for (int k = 0; k < 2; k++) {
    fl_experiment x = *e;
    x.sim.solver = k == 0 ? FL_SOLVER_EXPLICIT : FL_SOLVER_STATIC;
    double t0 = now();
    if (fl_run(&x, 1, NULL, &c[k], &r[k], err, sizeof err)) {
      fprintf(stderr, "bench: %s: %s\n", name, err);
      if (k == 1) {
        fl_curve_free(&c[0]);
        fl_result_free(&r[0]);
      }
      return 1;
    }
    r[k].wall_time = now() - t0; /* building included, for both */
  }
  printf("solvers %s explicit_s=%.3f static_s=%.4f speedup=%.0f peak_explicit=%.6g peak_static=%.6g steps=%ld "
         "increments=%ld tangents=%ld\n",
         name, r[0].wall_time, r[1].wall_time, r[0].wall_time / r[1].wall_time, r[0].spec[0].peak, r[1].spec[0].peak,
         r[0].steps, r[1].increments, r[1].tangents);
  fflush(stdout);
  for (int k = 0; k < 2; k++) {
    fl_curve_free(&c[k]);
    fl_result_free(&r[k]);
  }
  return 0;
}

/* The glass rod of issue #12: 48 segments of 1 mm, 0.5 mm radius, 40 mm span, E-glass
 * (72 GPa, 2540 kg/m^3, Poisson 0.22), pressed 1 mm on steel rollers, then each file. */
static int bench_solvers(int nfile, char **files)
{
  fl_experiment e = fl_experiment_default();
  e.fiber.length_m = 0.048;
  e.fiber.outer_radius_m = 0.5e-3;
  e.fiber.segments = 48;
  e.fiber.density = 2540.0;
  e.fiber.youngs_modulus = 7.2e10;
  e.fiber.poisson_ratio = 0.22;
  e.fiber.shear_modulus = 7.2e10 / (2.0 * 1.22);
  e.bond.damping = 2e-7;
  e.test.kind = FL_TEST_BEND3PT;
  e.test.span_m = 0.04;
  e.test.max_displacement_m = 1e-3;
  e.sim.output_points = 300;
  int fails = bench_solvers_one("glass_rod_3pt_48", &e);
  for (int i = 0; i < nfile; i++) {
    char err[2048];
    fl_experiment x = fl_experiment_default();
    if (fl_experiment_load(files[i], &x, err, sizeof err) || fl_experiment_finish(&x, files[i], err, sizeof err)) {
      fprintf(stderr, "bench: %s\n", err);
      fails++;
      continue;
    }
    const char *base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
    fails += bench_solvers_one(base, &x);
  }
  return fails ? 1 : 0;
}

/* Steps for about `updates` bond updates over `bonds` bonds, at least 5. */
static long steps_for(double updates, long bonds)
{
  long n = (long)(updates / bonds);
  return n < 5 ? 5 : n;
}

/* The STREAM-like triad of the header, on nthreads threads. */
static int bench_triad(int nthreads)
{
  size_t n = (size_t)1 << 25;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  if (!a || !b || !c) {
    free(a), free(b), free(c);
    return 1;
  }
  double best = 0.0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nthreads) schedule(static)
#endif
  for (size_t i = 0; i < n; i++)
    a[i] = 0.0, b[i] = 1.0, c[i] = 2.0;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = now();
#ifdef _OPENMP
#pragma omp parallel for num_threads(nthreads) schedule(static)
#endif
    for (size_t i = 0; i < n; i++)
      a[i] = b[i] + 3.0 * c[i];
    double rate = 3.0 * sizeof(double) * n / (now() - t0) / 1e9;
    best = rate > best ? rate : best;
  }
  (void)nthreads;
  printf("triad threads=%d GB_per_s=%.1f check=%g\n", nthreads, best, a[n / 2]);
  free(a), free(b), free(c);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc > 2 && strcmp(argv[1], "--triad") == 0)
    return bench_triad(atoi(argv[2]));
  if (argc > 1 && strcmp(argv[1], "--solvers") == 0)
    return bench_solvers(argc - 2, argv + 2);
  if (argc > 1 && strcmp(argv[1], "--fits") == 0)
    return bench_fits(argc - 2, argv + 2);
  long steps = 2000;
  double updates = 2e7;
  if (getenv("FL_BENCH_ISA"))
    bench_isa = atoi(getenv("FL_BENCH_ISA"));
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--gpu") == 0)
      use_gpu = 1;
    else if (strcmp(argv[i], "--calibrate") == 0 && i + 1 < argc)
      return bench_calibrate(argv[i + 1]);
    else if (strcmp(argv[i], "--chain") == 0 && i + 3 < argc) {
      threads_now = atoi(argv[i + 3]);
      return bench_case("chain", 1, atoi(argv[i + 1]), atol(argv[i + 2]));
    } else {
      steps = atol(argv[i]);
      updates = atof(argv[i]);
    }
  }
  int fails = 0;
  (void)steps; /* the GPU cases' steps */
  if (use_gpu) {
    char why[256], name[256];
    /* the layout's bytes a bond update: the model needs no device (fl_gpu_bytes_per_update) */
    struct {
      const char *what;
      int nspec, nbond;
    } lay[] = {{"one chain of 1e6 bonds", 1, 1000000}, {"1000 identical fibers of 1000 bonds", 1000, 1000}};
    for (int i = 0; i < 2; i++) {
      fl_system sys;
      if (fl_gpu_bytes_per_update(NULL) >= 0.0 && /* a build with the engine */
          fl_system_alloc(&sys, lay[i].nspec, lay[i].nbond + 1, lay[i].nbond, 0) == FL_OK) {
        fl_side_stiffness k = {1.0, 1.0, 1.0, 1.0};
        for (int b = 0; b < lay[i].nbond; b++) {
          sys.x_ref[b + 1] = fl_v3(b + 1.0, 0, 0);
          fl_system_bond_chain(&sys, -1, b, b, b + 1, &k, &k);
        }
        fl_system_reset(&sys);
        printf("# GPU layout, %s: %.0f bytes a bond update (CPU: %.0f)\n", lay[i].what, fl_gpu_bytes_per_update(&sys),
               cpu_bytes_per_bond(&sys));
        /* an output row: the loads evaluated on the device (every bond once, none on
         * the host), and back only what the row measures */
        printf("# GPU layout, %s: %.0f bytes back an output row (the whole state: %.0f); bonds the host "
               "evaluates a row: 0 (before: %.0f)\n",
               lay[i].what, fl_gpu_row_bytes(&sys, 0), fl_gpu_row_bytes(&sys, 1), (double)lay[i].nspec * lay[i].nbond);
        fl_system_free(&sys);
      }
    }
    fflush(stdout);
    if (!fl_gpu_available(why, sizeof why)) {
      fprintf(stderr, "bench: --gpu: %s\n", why);
      return 77;
    }
    fl_gpu_describe(name, sizeof name, &device_bw);
    printf("# device: %s, %.0f GB/s\n", name, device_bw);
    fl_gpu_kernel k[8];
    int nk = fl_gpu_kernels(k, 8);
    for (int i = 0; i < nk; i++)
      printf("# kernel %s: %d registers, %ld bytes of local memory a thread\n", k[i].name, k[i].registers,
             k[i].local_bytes);
    /* bonds from 2.4e4 to 1e7, one chain or batches of 1000 to 10000 specimens; the
     * largest last (about 8 GB of host memory and 5 GB on the device, set up in
     * seconds) */
    fails += bench_case("gpu_batch_3pt_1000x24", 1000, 24, steps);
    fails += bench_case("gpu_chain_100000", 1, 100000, steps);
    fails += bench_case("gpu_fibers_1000x100", 100, 1000, steps);
    fails += bench_case("gpu_chain_1000000", 1, 1000000, steps);
    fails += bench_case("gpu_fibers_1000x1000", 1000, 1000, steps);
    fails += bench_case("gpu_fibers_1000x10000", 10000, 1000, steps);
    return fails ? 1 : 0;
  }
  int cores = 1;
#ifdef _OPENMP
  cores = omp_get_num_procs();
#endif
  int tlist[2] = {1, cores};
  for (int ti = 0; ti < (cores > 1 ? 2 : 1); ti++) {
    threads_now = tlist[ti];
    /* cost against the number of specimens: fibers of 100 bonds */
    fails += bench_case("fibers_100x100", 100, 100, steps_for(updates, 10000));
    fails += bench_case("fibers_100x10000", 10000, 100, steps_for(updates, 1000000));
    /* cost against the number of segments: one chain, 1e3 to 1e7 bonds */
    fails += bench_case("chain_1000", 1, 1000, steps_for(updates, 1000));
    fails += bench_case("chain_10000", 1, 10000, steps_for(updates, 10000));
    fails += bench_case("chain_100000", 1, 100000, steps_for(updates, 100000));
    fails += bench_case("chain_1000000", 1, 1000000, steps_for(updates, 1000000));
    fails += bench_case("chain_10000000", 1, 10000000, steps_for(updates, 10000000));
  }
  return fails ? 1 : 0;
}
