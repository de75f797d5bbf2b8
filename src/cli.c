/* cli.c: a virtual-test program from its command line to its outputs: the experiment
 * loaded and checked, the run, the outputs and the summary, or the LAMMPS export. */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cantilever.h"
#include "cli.h"
#include "fl_defs.h"
#include "gpu.h"
#include "lammps.h"
#include "mpi_batch.h"
#include "output.h"
#include "run.h"
#include "solver.h" /* fl_solver_resolve */
#include "test_kind.h"
#include "yaml_emit.h"

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

static void usage(FILE *f, const char *prog, const void *ctx)
{
  enum fl_test_kind kind = *(const enum fl_test_kind *)ctx;
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
          "      --export lammps   write PREFIX.lmp.data and PREFIX.lmp.in for LAMMPS instead of running\n"
          "  -q, --quiet           no progress bar\n"
          "      --progress        progress bar on stderr even when it is not a terminal\n"
          "  -h, --help            show this help and exit\n"
          "  -V, --version         show the version and exit\n\n"
          "The summary (YAML) goes to stdout. Exit status: 0 success, 1 run failed, 2 bad input.\n"
          "See %s(1) and fiberlab-experiment(5).\n",
          prog, fl_test_type_of(kind)->what, prog);
  fl_cli_help_footer(f);
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

/* The experiment's warnings on stderr (rank 0 alone). */
static void print_warnings(const char *prog, const fl_experiment *exp, const char *file)
{
  char warn[4096];
  if (fl_mpi_rank() == 0 && fl_experiment_warnings(exp, file, warn, sizeof warn) > 0)
    for (char *line = strtok(warn, "\n"); line; line = strtok(NULL, "\n"))
      fprintf(stderr, "%s: warning: %s\n", prog, line);
}

/* --export lammps: the specimen and its test written for LAMMPS instead of run
 * (lammps.h); the summary names the files, the notes on stderr what does not carry
 * over. */
static int cli_export(const char *prog, const fl_experiment *exp, const char *file, const char *prefix,
                      int prefix_given)
{
  char err[4400];
  if (fl_mpi_rank() != 0)
    return 0;
  if (fl_lammps_prepare(prefix, err, sizeof err))
    return fl_cli_prefix_refused(prog, prefix, prefix_given, err);
  print_warnings(prog, exp, file);
  fl_lammps_export_info info;
  int rc = fl_lammps_export(exp, prefix, file, prog, &info, err, sizeof err);
  if (rc) {
    fprintf(stderr, "%s: %s: %s; nothing written\n", prog, file, err);
    return rc == FL_EINPUT ? 2 : 1;
  }
  char cav[4096];
  if (fl_lammps_caveats(exp, cav, sizeof cav) > 0)
    for (char *line = strtok(cav, "\n"); line; line = strtok(NULL, "\n"))
      fprintf(stderr, "%s: note: LAMMPS: %s\n", prog, line);
  fl_yaml_out *y = fl_yaml_out_open(stdout);
  fl_yaml_map_begin(y, 0);
  fl_yaml_key_plain(y, "test", fl_test_kind_name(exp->test.kind));
  fl_yaml_key_plain(y, "export", "lammps");
  fl_yaml_key_int(y, "atoms", info.atoms);
  fl_yaml_key_int(y, "bonds", info.bonds);
  fl_yaml_key_int(y, "bond_types", info.bond_types);
  fl_yaml_key_int(y, "levels", info.levels);
  fl_yaml_key_num(y, "time_step", "%.6g", info.time_step);
  fl_yaml_key_str(y, "data", info.data);
  fl_yaml_key_str(y, "input", info.input);
  fl_yaml_key_str(y, "table", info.table);
  fl_yaml_map_end(y);
  rc = fl_yaml_out_close(&y);
  return rc ? fl_cli_summary_failed(prog, rc) : 0;
}

/* The experiment of o->file with o's --set, --seed and --solver, checked for kind; -1,
 * or the exit status after a message. */
static int load_experiment(const fl_cli_options *o, enum fl_test_kind kind, fl_experiment *exp)
{
  const char *prog = o->prog, *file = o->file;
  char err[16384];
  *exp = fl_experiment_default();
  int rc = fl_experiment_load(file, exp, err, sizeof err);
  for (int i = 0; rc == FL_OK && i < o->nsets; i++)
    rc = fl_experiment_set(exp, o->sets[i], err, sizeof err);
  if (rc == FL_OK && exp->test.kind != kind) {
    char where[1024];
    fl_experiment_where(exp, file, "test.kind", where, sizeof where);
    snprintf(err, sizeof err, "%s: test.kind: '%s' is not a %s test; allowed here: %s (use fiber-%s)", where,
             fl_test_kind_name(exp->test.kind), prog, fl_test_kind_name(kind), fl_test_kind_name(exp->test.kind));
    rc = FL_EINPUT;
  }
  if (rc == FL_OK)
    rc = fl_experiment_finish(exp, file, err, sizeof err);
  if (rc) {
    fprintf(stderr, "%s: %s\n", prog, err);
    return 2;
  }
  if (o->seed_given)
    exp->sim.seed = o->seed;
  if (o->solver_given)
    exp->sim.solver = o->solver;
  if (o->solver_given && exp->sim.viscoelastic && exp->sim.solver != FL_SOLVER_STATIC) {
    fprintf(stderr, "%s: --solver %s with simulation.viscoelastic true: a viscoelastic run is the static solver's "
            "(the explicit engine would step through the test at the lab's speed); allowed: --solver static\n",
            prog, fl_solver_name(exp->sim.solver));
    return 2;
  }
  char where[4200];
  fl_experiment_where(exp, file, "simulation.solver", where, sizeof where);
  if (fl_cli_check_solver(prog, o->device, exp->sim.solver, o->solver_given, where))
    return 2;
  if ((double)o->batch * exp->fiber.segments > (double)MAX_BODIES) {
    fprintf(stderr, "%s: --batch %ld with %d segments holds %.3g bodies; allowed: at most %ld in one run\n", prog,
            o->batch, exp->fiber.segments, (double)o->batch * exp->fiber.segments, MAX_BODIES);
    return 2;
  }
  if ((double)o->batch * exp->sim.output_points > (double)MAX_ROWS) {
    fprintf(stderr, "%s: --batch %ld with simulation.output_points %d makes %.3g curve rows; allowed: at most %ld\n",
            prog, o->batch, exp->sim.output_points, (double)o->batch * exp->sim.output_points, (long)MAX_ROWS);
    return 2;
  }
  return -1;
}

/* A run that failed (rc, err): what was recorded kept under PREFIX.partial.csv where
 * there is some, the message; returns the exit status. */
static int run_failed(const fl_cli_options *o, const fl_experiment *exp, const char *prefix, int rc, const char *err,
                      const fl_curve *curve, const fl_result *res)
{
  const char *prog = o->prog, *file = o->file;
  fl_cli_unit_cause(prog, exp, file);
  if (rc == FL_ETIMESTEP) {
    char where[4200];
    fl_experiment_where(exp, file, "simulation.time_step", where, sizeof where);
    fprintf(stderr, "%s: %s: %s\n", prog, where, err);
  } else if ((rc == FL_EUNSTABLE || rc == FL_EINTERRUPT) && curve->npoints > 0) {
    /* keep what was recorded, under a name that says so; the usual outputs stay as
     * they were */
    fl_output_opts po = {prefix, o->cmd, file, FL_PLOT_NONE, 0};
    char ppath[4200], perr[4400];
    if (fl_output_partial(&po, curve, res, ppath, sizeof ppath, perr, sizeof perr) == FL_OK)
      fprintf(stderr, "%s: %s: %s; the %d rows recorded so far are in %s\n", prog, file, err, curve->npoints, ppath);
    else
      fprintf(stderr, "%s: %s: %s; %s\n", prog, file, err, perr);
  } else {
    fprintf(stderr, "%s: %s: %s; no output written\n", prog, file, err);
  }
  return (rc == FL_ETIMESTEP || rc == FL_ELIMIT) ? 2 : 1;
}

/* The warnings of a finished run: a ring-down too short to measure or written at too
 * few rows a period, tools that went deeper than the time step assumes. */
static void run_warnings(const char *prog, const char *file, const fl_experiment *exp, const fl_result *res)
{
  char msg[512];
  if (fl_cantilever_rows_warning(res, exp->sim.output_points, msg, sizeof msg))
    fprintf(stderr, "%s: warning: %s: %s\n", prog, file, msg);
  if (res->vibration)
    for (int s = 0; s < res->specimens; s++)
      if (isnan(res->spec[s].frequency)) {
        fprintf(stderr,
                "%s: warning: %s: specimen %d rang %d extreme%s after the release, too few to measure its first "
                "frequency and decrement (null in the summary); allowed: test.ring_periods of at least %d\n",
                prog, file, s + 1, res->spec[s].extremes, res->spec[s].extremes == 1 ? "" : "s", FL_RING_MIN_PERIODS);
        break;
      }
  if (res->warnings[0])
    fprintf(stderr, "%s: warning: %s: %s\n", prog, file, res->warnings);
  if (res->max_overlap > 2.0 * res->overlap_ref)
    fprintf(stderr,
            "%s: warning: tool contacts reached an overlap of %.3g m, over twice the %.3g m the time step "
            "assumes; consider a smaller simulation.safety\n",
            prog, res->max_overlap, res->overlap_ref);
}

/* Run the batch of exp and write its outputs under prefix; the exit status. */
static int run_and_write(const fl_cli_options *o, const fl_experiment *exp, const char *prefix)
{
  const char *prog = o->prog, *file = o->file;
  char err[16384];
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  progress_ctx pc = {prog, -1.0};
  int use_gpu;
  if (fl_cli_device_for(prog, o->device, exp, &use_gpu))
    return 2;
  fl_run_hooks hooks = {NULL, NULL, &pc, &stop_flag, (int)o->threads, use_gpu, NULL, 0};
  if (o->force_progress || (!o->quiet && isatty(STDERR_FILENO)))
    hooks.progress = progress;
  print_warnings(prog, exp, file);
  fl_curve curve;
  fl_result res;
  int rc = fl_run(exp, (int)o->batch, &hooks, &curve, &res, err, sizeof err);
  if (fl_mpi_rank() != 0) /* under mpirun: every rank holds the batch, rank 0 writes */
    rc = rc == FL_OK ? 0 : (rc == FL_ETIMESTEP || rc == FL_ELIMIT) ? 2 : 1;
  else if (rc)
    rc = run_failed(o, exp, prefix, rc, err, &curve, &res);
  else {
    run_warnings(prog, file, exp, &res);
    fl_output_opts oo = {prefix, o->cmd, file, o->plot, o->plot_given};
    fl_output_paths paths;
    if ((rc = fl_output_write(&oo, &curve, &res, &paths, err, sizeof err))) {
      fprintf(stderr, "%s: %s\n", prog, err);
      rc = 1;
    } else if ((rc = fl_summary_print(stdout, &res, &paths))) {
      rc = fl_cli_summary_failed(prog, rc);
    }
  }
  fl_curve_free(&curve);
  fl_result_free(&res);
  return rc;
}

static int cli_run(enum fl_test_kind kind, int argc, char **argv)
{
  fl_cli_options o;
  int st = fl_cli_parse(argc, argv, FL_CLI_BATCH | FL_CLI_EXPORT, "experiment", usage, &kind, &o);
  if (st >= 0)
    return st;
  fl_experiment exp;
  if ((st = load_experiment(&o, kind, &exp)) >= 0)
    return st;
  char pbuf[4096], err[16384];
  const char *prefix = o.prefix;
  if (!prefix) {
    fl_cli_default_prefix(o.file, "", pbuf, sizeof pbuf);
    prefix = pbuf;
  }
  if (o.export_lammps && o.batch > 1) {
    fprintf(stderr, "%s: --export with --batch %ld: the export writes one specimen; allowed: --batch 1\n", o.prog,
            o.batch);
    return 2;
  }
  if (o.export_lammps)
    return cli_export(o.prog, &exp, o.file, prefix, o.prefix != NULL);
  /* every input has been read: no output may replace one */
  if (fl_output_prepare(prefix, o.plot, err, sizeof err))
    return fl_cli_prefix_refused(o.prog, prefix, o.prefix != NULL, err);
  if (o.plot != FL_PLOT_NONE && o.plot_given && !fl_gnuplot_available()) {
    fprintf(stderr, "%s: --plot %s: gnuplot not found on PATH; install gnuplot, or use --plot none\n", o.prog,
            o.plot == FL_PLOT_SVG ? "svg" : "png");
    return 1;
  }
  return run_and_write(&o, &exp, prefix);
}

void fl_cli_unit_cause(const char *prog, const fl_experiment *exp, const char *file)
{
  char cause[4096];
  if (fl_experiment_unit_warnings(exp, file, cause, sizeof cause, 0) > 0)
    for (char *line = strtok(cause, "\n"); line; line = strtok(NULL, "\n"))
      fprintf(stderr, "%s: the likely cause of the failure below: %s\n", prog, line);
}

int fl_cli_summary_failed(const char *prog, int rc)
{
  int e = errno;
  fprintf(stderr, "%s: cannot write the summary: %s\n", prog, rc == FL_EIO && e ? strerror(e) : fl_strerror(rc));
  return 1;
}

int fl_cli_prefix_refused(const char *prog, const char *prefix, int given, const char *err)
{
  if (given)
    fprintf(stderr, "%s: -o '%s': %s; nothing written\n", prog, prefix, err);
  else
    fprintf(stderr, "%s: the default output prefix '%s' (the input file's base name): %s; nothing written\n", prog,
            prefix, err);
  return 2;
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
