/* cli.c: options, loading, running and writing for the three virtual-test programs. */
#include <config.h>

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "fl_defs.h"
#include "gpu.h"
#include "mpi_batch.h"
#include "output.h"
#include "run.h"
#include "static.h" /* fl_solver_resolve */

#define MAX_SETS 256
#define MAX_BATCH 1000000
#define MAX_BODIES 50000000L /* specimens x segments held in memory at once */
#define MAX_ROWS 50000000L   /* specimens x output points: the curve held in memory */

static volatile sig_atomic_t stop_flag = 0;
static void on_signal(int sig)
{
  (void)sig;
  stop_flag = 1;
}

typedef struct {
  const char *prog;
  double last;   /* time of the last redraw, s */
} progress_ctx;

static double wall(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void progress(void *ctx, double fr)
{
  progress_ctx *p = ctx;
  double t = wall();
  if (fr < 1.0 && t - p->last < 0.1)
    return;
  p->last = t;
  int width = 40, done = (int)(fr * width + 0.5);
  fprintf(stderr, "\r%s [", p->prog);
  for (int i = 0; i < width; i++)
    fputc(i < done ? '#' : '.', stderr);
  fprintf(stderr, "] %3d%%", (int)(fr * 100 + 0.5));
  if (fr >= 1.0)
    fputc('\n', stderr);
  fflush(stderr);
}

static void usage(FILE *f, const char *prog, enum fl_test_kind kind)
{
  static const char *what[] = {"virtual 3-point bending test: force on the loading nose vs its displacement",
                               "virtual tensile test: grip force vs elongation",
                               "virtual torsion test: grip torque vs twist angle",
                               "virtual cantilever test: tip load vs tip displacement, or the free vibration",
                               "virtual 4-point bending test: force on the two noses vs their displacement",
                               "virtual compression test of a pinned fiber: grip force vs shortening, past buckling"};
  fprintf(f,
          "Usage: %s [OPTIONS] FILE.yaml\n"
          "fiberlab %s.\n\n"
          "  -o, --output PREFIX   write PREFIX.csv, PREFIX.gp and the plot (default: FILE's base name)\n"
          "  -s, --set KEY=VALUE   override one YAML value by its dotted path, repeatable\n"
          "      --batch N         simulate N specimens at once (default 1)\n"
          "      --device DEV      cpu, gpu or auto (default cpu)\n"
          "      --solver S        auto, explicit or static (default: the YAML's simulation.solver, auto)\n"
          "      --plot FORMAT     png, svg or none (default png)\n"
          "      --seed N          random seed (default: the YAML's, else 1)\n"
          "      --threads N       threads over the specimens of a batch (default 1)\n"
          "  -q, --quiet           no progress bar\n"
          "      --progress        progress bar on stderr even when it is not a terminal\n"
          "  -h, --help            show this help and exit\n"
          "  -V, --version         show the version and exit\n\n"
          "The summary (YAML) goes to stdout. Exit status: 0 success, 1 run failed, 2 bad input.\n"
          "See %s(1) and fiberlab-experiment(5).\n",
          prog, what[kind], prog);
  fl_cli_help_footer(f);
}

/* Default prefix: the YAML file's base name without .yaml/.yml. */
static void default_prefix(const char *file, char *buf, size_t len)
{
  const char *b = strrchr(file, '/');
  b = b ? b + 1 : file;
  snprintf(buf, len, "%s", b);
  size_t n = strlen(buf);
  if (n > 5 && strcmp(buf + n - 5, ".yaml") == 0)
    buf[n - 5] = '\0';
  else if (n > 4 && strcmp(buf + n - 4, ".yml") == 0)
    buf[n - 4] = '\0';
}

static int parse_count(const char *s, long lo, long hi, long *out)
{
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < lo || v > hi)
    return 0;
  *out = v;
  return 1;
}

int fl_cli_parse_device(const char *prog, const char *arg, int *device)
{
  if (strcmp(arg, "cpu") == 0)
    *device = 0;
  else if (strcmp(arg, "gpu") == 0)
    *device = 1;
  else if (strcmp(arg, "auto") == 0)
    *device = 2;
  else {
    fprintf(stderr, "%s: --device '%s': allowed: cpu | gpu | auto\n", prog, arg);
    return 2;
  }
#ifndef HAVE_CUDA
  if (*device == 1) {
    fprintf(stderr, "%s: --device gpu: this fiberlab was built without CUDA; allowed: cpu | auto\n", prog);
    return 2;
  }
#endif
  return 0;
}

int fl_cli_parse_solver(const char *prog, const char *arg, enum fl_solver *solver)
{
  for (int k = FL_SOLVER_AUTO; k <= FL_SOLVER_STATIC; k++)
    if (strcmp(arg, fl_solver_name((enum fl_solver)k)) == 0) {
      *solver = (enum fl_solver)k;
      return 0;
    }
  fprintf(stderr, "%s: --solver '%s': allowed: auto | explicit | static\n", prog, arg);
  return 2;
}

int fl_cli_check_solver(const char *prog, int device, enum fl_solver solver, int solver_option, const char *where)
{
  if (device != 1 || solver != FL_SOLVER_STATIC)
    return 0;
  if (solver_option)
    fprintf(stderr, "%s: --device gpu with --solver static: the static solver runs on the CPU only; allowed: "
                    "--solver explicit | auto with --device gpu, or --device cpu | auto with --solver static\n",
            prog);
  else
    fprintf(stderr, "%s: --device gpu with simulation.solver static (%s): the static solver runs on the CPU only; "
                    "allowed: --solver explicit | auto with --device gpu, or --device cpu | auto\n",
            prog, where ? where : "the experiment");
  return 2;
}

int fl_cli_parse_plot(const char *prog, const char *arg, enum fl_plot *plot)
{
  if (strcmp(arg, "png") == 0)
    *plot = FL_PLOT_PNG;
  else if (strcmp(arg, "svg") == 0)
    *plot = FL_PLOT_SVG;
  else if (strcmp(arg, "none") == 0)
    *plot = FL_PLOT_NONE;
  else {
    fprintf(stderr, "%s: --plot '%s': allowed: png | svg | none\n", prog, arg);
    return 2;
  }
  return 0;
}

void fl_cli_version(const char *prog)
{
  printf("%s (fiberlab) %s\nCUDA engine: %s\n", prog, PACKAGE_VERSION,
#ifdef HAVE_CUDA
         "built in"
#else
         "not built in"
#endif
  );
  printf("Copyright (C) 2026 the fiberlab developers.\n"
         "License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\n"
         "This is free software: you are free to change and redistribute it.\n"
         "There is NO WARRANTY, to the extent permitted by law.\n");
}

void fl_cli_help_footer(FILE *f) { fprintf(f, "\nReport bugs to: %s\n", PACKAGE_BUGREPORT); }

int fl_cli_bad_option(const char *prog, char **argv, int optind_now, int optopt_now, int missing_value)
{
  char name[64];
  const char *a = argv[optind_now - 1];
  if (strncmp(a, "--", 2) != 0 && optopt_now > 0 && optopt_now < 128) /* short, perhaps in a cluster */
    snprintf(name, sizeof name, "-%c", optopt_now);
  else {
    size_t n = strcspn(a, "=");
    snprintf(name, sizeof name, "%.*s", (int)(n < 60 ? n : 60), a);
  }
  fprintf(stderr, "%s: %s '%s'%s\nTry '%s --help'.\n", prog, missing_value ? "option" : "unknown option", name,
          missing_value ? " needs a value" : "", prog);
  return 2;
}

int fl_cli_use_gpu(const char *prog, int device, int *use_gpu)
{
  *use_gpu = 0;
  if (device == 0)
    return 0;
#ifdef HAVE_CUDA
  char why[256];
  *use_gpu = fl_gpu_available(why, sizeof why);
  if (!*use_gpu && device == 1) {
    fprintf(stderr, "%s: --device gpu: %s; allowed: cpu | auto\n", prog, why);
    return 2;
  }
  if (!*use_gpu)
    fprintf(stderr, "%s: note: --device auto: %s; running on the CPU\n", prog, why);
#else
  fprintf(stderr, "%s: note: --device auto: this fiberlab was built without CUDA; running on the CPU\n", prog);
#endif
  return 0;
}

int fl_cli_device_for(const char *prog, int device, const fl_experiment *exp, int *use_gpu)
{
  *use_gpu = 0;
  if (exp->sim.solver == FL_SOLVER_STATIC)
    device = 0;
  int quasi_static = 0; /* simulation.solver auto takes the static solver on the CPU */
#ifdef HAVE_CUDA /* (without it fl_cli_use_gpu says there is no GPU to weigh) */
  quasi_static = device != 0 && exp->sim.solver == FL_SOLVER_AUTO && fl_solver_resolve(exp, 0) == FL_SOLVER_STATIC;
  if (quasi_static && device == 2) {
    fprintf(stderr, "%s: note: --device auto: simulation.solver auto takes the static solver for this test, which "
                    "runs on the CPU; running on the CPU (--device gpu runs it explicit on the GPU)\n", prog);
    return 0;
  }
#endif
  if (fl_cli_use_gpu(prog, device, use_gpu))
    return 2;
  if (quasi_static && *use_gpu)
    fprintf(stderr, "%s: note: --device gpu: simulation.solver auto runs this test explicit on the GPU, where the CPU "
                    "would take the static solver; the results differ by the rate's effects\n", prog);
  return 0;
}

void fl_cli_passive_threads(int threads, char **argv)
{
#ifdef _OPENMP
  /* OpenMP's default is to spin between the parallel regions of each step, which on a
   * busy machine costs far more than the work; libgomp reads its policy when it loads,
   * so ask for passive waiting by starting again with it set. */
  if (threads > 1 && !getenv("OMP_WAIT_POLICY")) {
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);
  }
#else
  (void)threads;
  (void)argv;
#endif
}

static int cli_run(enum fl_test_kind kind, int argc, char **argv)
{
  const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                       {"set", required_argument, NULL, 's'},
                                       {"batch", required_argument, NULL, 'b'},
                                       {"device", required_argument, NULL, 'd'},
                                       {"solver", required_argument, NULL, 'v'},
                                       {"plot", required_argument, NULL, 'p'},
                                       {"seed", required_argument, NULL, 'S'},
                                       {"threads", required_argument, NULL, 'T'},
                                       {"quiet", no_argument, NULL, 'q'},
                                       {"progress", no_argument, NULL, 'P'},
                                       {"help", no_argument, NULL, 'h'},
                                       {"version", no_argument, NULL, 'V'},
                                       {NULL, 0, NULL, 0}};
  const char *prefix = NULL, *sets[MAX_SETS];
  int nsets = 0, quiet = 0, force_progress = 0, plot_given = 0, seed_given = 0;
  long batch = 1, threads = 1;
  int device = 0; /* 0 cpu, 1 gpu, 2 auto */
  const char *device_arg = NULL;
  enum fl_solver solver = FL_SOLVER_AUTO;
  int solver_given = 0;
  unsigned long seed = 1;
  enum fl_plot plot = FL_PLOT_PNG;
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":o:s:qhV", opts, NULL)) != -1) {
    switch (c) {
    case 'o':
      prefix = optarg;
      break;
    case 's':
      if (nsets == MAX_SETS) {
        fprintf(stderr, "%s: more than %d --set options; allowed: at most %d\n", prog, MAX_SETS, MAX_SETS);
        return 2;
      }
      sets[nsets++] = optarg;
      break;
    case 'b':
      if (!parse_count(optarg, 1, MAX_BATCH, &batch)) {
        fprintf(stderr, "%s: --batch '%s': allowed: an integer in [1, %d]\n", prog, optarg, MAX_BATCH);
        return 2;
      }
      break;
    case 'd':
      device_arg = optarg; /* checked once --solver is known too */
      break;
    case 'v':
      if (fl_cli_parse_solver(prog, optarg, &solver))
        return 2;
      solver_given = 1;
      break;
    case 'p':
      plot_given = 1;
      if (fl_cli_parse_plot(prog, optarg, &plot))
        return 2;
      break;
    case 'S': {
      char *end;
      if (!*optarg || *optarg == '-' || (seed = strtoul(optarg, &end, 10), *end)) {
        fprintf(stderr, "%s: --seed '%s': allowed: an integer >= 0\n", prog, optarg);
        return 2;
      }
      seed_given = 1;
      break;
    }
    case 'T':
      if (!parse_count(optarg, 1, 1024, &threads)) {
        fprintf(stderr, "%s: --threads '%s': allowed: an integer in [1, 1024]\n", prog, optarg);
        return 2;
      }
      break;
    case 'q':
      quiet = 1;
      break;
    case 'P':
      force_progress = 1;
      break;
    case 'h':
      usage(stdout, prog, kind);
      return 0;
    case 'V':
      fl_cli_version(prog);
      return 0;
    case ':':
      return fl_cli_bad_option(prog, argv, optind, optopt, 1);
    default:
      return fl_cli_bad_option(prog, argv, optind, optopt, 0);
    }
  }
  if (device_arg && strcmp(device_arg, "gpu") == 0 && fl_cli_check_solver(prog, 1, solver, solver_given, NULL))
    return 2;
  if (device_arg && fl_cli_parse_device(prog, device_arg, &device))
    return 2;
  fl_cli_passive_threads((int)threads, argv);
  if (optind != argc - 1) {
    fprintf(stderr, "%s: %s\nTry '%s --help'.\n", prog,
            optind >= argc ? "missing the experiment FILE.yaml" : "more than one experiment file given", prog);
    return 2;
  }
  const char *file = argv[optind];
  char err[2048];
  fl_experiment exp = fl_experiment_default();
  int rc = fl_experiment_load(file, &exp, err, sizeof err);
  for (int i = 0; rc == FL_OK && i < nsets; i++)
    rc = fl_experiment_set(&exp, sets[i], err, sizeof err);
  if (rc == FL_OK && exp.test.kind != kind) {
    snprintf(err, sizeof err, "%s: test.kind: '%s' is not a %s test; allowed here: %s (use fiber-%s)", file,
             fl_test_kind_name(exp.test.kind), prog, fl_test_kind_name(kind), fl_test_kind_name(exp.test.kind));
    rc = FL_EINPUT;
  }
  if (rc == FL_OK)
    rc = fl_experiment_finish(&exp, file, err, sizeof err);
  if (rc) {
    fprintf(stderr, "%s: %s\n", prog, err);
    return 2;
  }
  if (seed_given)
    exp.sim.seed = seed;
  if (solver_given)
    exp.sim.solver = solver;
  {
    char where[4200];
    fl_experiment_where(&exp, file, "simulation.solver", where, sizeof where);
    if (fl_cli_check_solver(prog, device, exp.sim.solver, solver_given, where))
      return 2;
  }
  if ((double)batch * exp.fiber.segments > (double)MAX_BODIES) {
    fprintf(stderr, "%s: --batch %ld with %d segments holds %.3g bodies; allowed: at most %ld in one run\n", prog,
            batch, exp.fiber.segments, (double)batch * exp.fiber.segments, MAX_BODIES);
    return 2;
  }
  if ((double)batch * exp.sim.output_points > (double)MAX_ROWS) {
    fprintf(stderr, "%s: --batch %ld with simulation.output_points %d makes %.3g curve rows; allowed: at most %ld\n",
            prog, batch, exp.sim.output_points, (double)batch * exp.sim.output_points, (long)MAX_ROWS);
    return 2;
  }
  char pbuf[4096];
  if (!prefix) {
    default_prefix(file, pbuf, sizeof pbuf);
    prefix = pbuf;
  }
  if (plot != FL_PLOT_NONE && plot_given && !fl_gnuplot_available()) {
    fprintf(stderr, "%s: --plot %s: gnuplot not found on PATH; install gnuplot, or use --plot none\n", prog,
            plot == FL_PLOT_SVG ? "svg" : "png");
    return 1;
  }

  /* The command line, for the CSV's first line. */
  char cmd[4096];
  size_t n = 0;
  for (int i = 0; i < argc && n < sizeof cmd - 1; i++)
    n += (size_t)snprintf(cmd + n, sizeof cmd - n, "%s%s", i ? " " : "", argv[i]);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);

  progress_ctx pc = {prog, -1.0};
  int use_gpu;
  if (fl_cli_device_for(prog, device, &exp, &use_gpu))
    return 2;
  fl_run_hooks hooks = {NULL, NULL, &pc, &stop_flag, (int)threads, use_gpu, NULL, 0};
  if (force_progress || (!quiet && isatty(STDERR_FILENO)))
    hooks.progress = progress;
  char warn[4096];
  if (fl_mpi_rank() == 0 && fl_experiment_warnings(&exp, file, warn, sizeof warn) > 0)
    for (char *line = strtok(warn, "\n"); line; line = strtok(NULL, "\n"))
      fprintf(stderr, "%s: warning: %s\n", prog, line);

  fl_curve curve;
  fl_result res;
  rc = fl_run(&exp, (int)batch, &hooks, &curve, &res, err, sizeof err);
  if (fl_mpi_rank() != 0) { /* under mpirun: every rank holds the batch, rank 0 writes */
    fl_curve_free(&curve);
    fl_result_free(&res);
    return rc == FL_OK ? 0 : (rc == FL_ETIMESTEP || rc == FL_ELIMIT) ? 2 : 1;
  }
  if (rc) {
    if (rc == FL_ETIMESTEP) {
      char where[4200];
      fl_experiment_where(&exp, file, "simulation.time_step", where, sizeof where);
      fprintf(stderr, "%s: %s: %s\n", prog, where, err);
    } else if ((rc == FL_EUNSTABLE || rc == FL_EINTERRUPT) && curve.npoints > 0) {
      /* keep what was recorded, under a name that says so; the usual outputs stay as
       * they were */
      fl_output_opts po = {prefix, cmd, file, FL_PLOT_NONE, 0};
      char ppath[4200], perr[4400];
      if (fl_output_partial(&po, &curve, &res, ppath, sizeof ppath, perr, sizeof perr) == FL_OK)
        fprintf(stderr, "%s: %s: %s; the %d rows recorded so far are in %s\n", prog, file, err, curve.npoints, ppath);
      else
        fprintf(stderr, "%s: %s: %s; %s\n", prog, file, err, perr);
    } else {
      fprintf(stderr, "%s: %s: %s; no output written\n", prog, file, err);
    }
    fl_curve_free(&curve);
    fl_result_free(&res);
    return (rc == FL_ETIMESTEP || rc == FL_ELIMIT) ? 2 : 1;
  }
  if (res.max_overlap > 2.0 * res.overlap_ref)
    fprintf(stderr,
            "%s: warning: tool contacts reached an overlap of %.3g m, over twice the %.3g m the time step "
            "assumes; consider a smaller simulation.safety\n",
            prog, res.max_overlap, res.overlap_ref);
  fl_output_opts oo = {prefix, cmd, file, plot, plot_given};
  fl_output_paths paths;
  rc = fl_output_write(&oo, &curve, &res, &paths, err, sizeof err);
  if (rc) {
    fprintf(stderr, "%s: %s\n", prog, err);
    fl_curve_free(&curve);
    fl_result_free(&res);
    return 1;
  }
  rc = fl_summary_print(stdout, &res, &paths);
  if (rc)
    fprintf(stderr, "%s: cannot write the summary: %s\n", prog, fl_strerror(rc));
  fl_curve_free(&curve);
  fl_result_free(&res);
  return rc ? 1 : 0;
}

/* Under mpirun (a build with --with-mpi) MPI starts and ends around the program, and
 * the batch is spread over the ranks (mpi_batch.h). */
int fl_cli_main(enum fl_test_kind kind, int argc, char **argv)
{
  fl_mpi_start(&argc, &argv);
  int status = cli_run(kind, argc, argv);
  fl_mpi_end();
  return status;
}
