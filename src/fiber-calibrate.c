/* fiber-calibrate.c: fit an experiment's bond parameters to measured curves: parse the
 * options, load the fit, calibrate, write the report (fiber-calibrate(1)). */
#include <config.h>

#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "campaign.h"
#include "cli.h"
#include "fit.h"
#ifdef HAVE_MPI
#include <mpi.h>
#endif
#include "fl_defs.h"
#include "gpu.h"
#include "mpi_batch.h"
#include "output.h"

#define MAX_SETS 256

/* What main parsed, for a campaign. */
typedef struct {
  const char *prog, *file, *prefix, *cmd;
  const char *const *sets;
  int nsets, quiet, force_progress, resume, stop_after, device, solver_given, plot_given;
  long threads;
  enum fl_plot plot;
  enum fl_solver solver;
} cli_args;

static int mpi_rank = 0, mpi_ranks = 1; /* this process and the processes of an mpirun */

static volatile sig_atomic_t stop_flag = 0;
static void on_signal(int sig)
{
  (void)sig;
  stop_flag = 1;
}

/* SIGINT and SIGTERM through on_signal: the run stops at its next check and keeps what
 * it has. */
static void catch_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

static void usage(FILE *f, const char *prog)
{
  fprintf(f,
          "Usage: %s [OPTIONS] FIT.yaml\n"
          "fiberlab %s: fit bond parameters to measured curves by nonlinear least squares.\n\n"
          "  -o, --output PREFIX   write PREFIX.yaml (the calibrated experiment), PREFIX.csv,\n"
          "                        PREFIX.gp and the plot (default: FIT's base name-calibrated)\n"
          "  -s, --set KEY=VALUE   override one experiment value by its dotted path, repeatable\n"
          "      --device DEV      cpu, gpu or auto (default cpu)\n"
          "      --solver S        auto, explicit or static for every experiment (default: the YAML's)\n"
          "      --plot FORMAT     png, svg or none (default png)\n"
          "      --seed N          random seed of every experiment (default: the YAML's, else 1)\n"
          "      --threads N       threads over the specimens of a batch (default 1)\n"
          "      --resume          continue an interrupted calibration from PREFIX.checkpoint\n"
          "      --stop-after N    stop after N iterations as if interrupted, keeping the checkpoint\n"
          "  -q, --quiet           no progress lines\n"
          "      --progress        one progress line per iteration even when stderr is not a terminal\n"
          "  -h, --help            show this help and exit\n"
          "  -V, --version         show the version and exit\n\n"
          "The summary (YAML) goes to stdout. Exit status: 0 converged, 1 run failed or fit did not\n"
          "converge (the report of the best point is still written), 2 bad input.\n"
          "See %s(1) and fiberlab-fit(5).\n",
          prog, PACKAGE_VERSION, prog);
  fl_cli_help_footer(f);
}

/* Default prefix: the fit file's base name without .yaml/.yml, and "-calibrated", so
 * that PREFIX.yaml never replaces the fit file itself. */
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
  n = strlen(buf);
  snprintf(buf + n, len - n, "-calibrated");
}

static double wall_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* fiber-calibrate CAMPAIGN.yaml (fiberlab-campaign(5)): load and check every row, fit
 * the specimens with a checkpoint each, write the reports. */
static int campaign_main(const cli_args *a)
{
  const char *prog = a->prog;
  char err[16384], pbuf[FL_FIT_PATH];
  double t0 = wall_now();
  fl_campaign c;
  int rc = fl_campaign_load(a->file, a->sets, a->nsets, &c, err, sizeof err);
  if (rc) {
    if (mpi_rank == 0) /* every rank reads the same inputs: one message */
      fprintf(stderr, "%s: %s; nothing written\n", prog, err);
    return rc == FL_EINPUT || rc == FL_EIO || rc == FL_ELIMIT ? 2 : 1;
  }
  if (c.left_out[0] && mpi_rank == 0)
    fprintf(stderr, "%s: note: campaign.drop: %s: %d of the %d rows of %s fitted; left out: %s\n", prog,
            c.drop == FL_CAMPAIGN_DROP_YES ? "yes" : "no", c.nspec, c.rows, c.table_path, c.left_out);
  const char *prefix = a->prefix;
  if (!prefix) {
    const char *b = strrchr(a->file, '/');
    snprintf(pbuf, sizeof pbuf, "%s", b ? b + 1 : a->file);
    size_t n = strlen(pbuf);
    if (n > 5 && strcmp(pbuf + n - 5, ".yaml") == 0)
      pbuf[n - 5] = '\0';
    prefix = pbuf;
  }
  char where[4200];
  fl_experiment_where(&c.exp, c.exp_path, "simulation.solver", where, sizeof where);
  int use_gpu;
  if (fl_cli_check_solver(prog, a->device, c.exp.sim.solver, a->solver_given, where) ||
      fl_cli_use_gpu(prog, c.exp.sim.solver == FL_SOLVER_STATIC ? 0 : a->device, &use_gpu)) {
    fl_campaign_free(&c);
    return 2;
  }
  if (a->plot != FL_PLOT_NONE && a->plot_given && !fl_gnuplot_available()) {
    fprintf(stderr, "%s: --plot %s: gnuplot not found on PATH; install gnuplot, or use --plot none\n", prog,
            a->plot == FL_PLOT_SVG ? "svg" : "png");
    fl_campaign_free(&c);
    return 1;
  }
  char settings[MAX_SETS * 64 + 64];
  size_t sn = 0;
  for (int i = 0; i < a->nsets && sn < sizeof settings - 1; i++)
    sn += (size_t)snprintf(settings + sn, sizeof settings - sn, "set %s\n", a->sets[i]);
  if (sn < sizeof settings - 1)
    snprintf(settings + sn, sizeof settings - sn, "device %s\nthreads %ld\n", use_gpu ? "gpu" : "cpu", a->threads);
  /* every input has been read (the rows' curves too): no output may replace one */
  {
    char perr[8192];
    if ((rc = fl_campaign_prepare(prefix, a->plot, c.nspec, perr, sizeof perr))) {
      if (mpi_rank == 0)
        fl_cli_prefix_refused(prog, prefix, a->prefix != NULL, perr);
      fl_campaign_free(&c);
      return rc == FL_ENOMEM ? 1 : 2;
    }
  }
  fl_campaign_result *res = calloc((size_t)c.nspec, sizeof *res);
  if (!res) {
    fprintf(stderr, "%s: out of memory\n", prog);
    fl_campaign_free(&c);
    return 1;
  }
  catch_signals();
  fl_campaign_opts o;
  memset(&o, 0, sizeof o);
  o.cal.threads = (int)a->threads;
  o.cal.gpu = use_gpu;
  o.cal.log = stderr;
  o.cal.prog = prog;
  o.cal.stop = &stop_flag;
  o.prefix = prefix;
  o.settings = settings;
  o.resume = a->resume;
  o.progress = a->force_progress || (!a->quiet && isatty(STDERR_FILENO));
  o.stop_after = a->stop_after;
  o.rank = mpi_rank;
  o.ranks = mpi_ranks;
  int interrupted = 0, rc_any, interrupted_any;
  rc = fl_campaign_run(&c, &o, res, &interrupted, err, sizeof err);
  if (fl_campaign_gather(&c, &o, res, rc, interrupted || stop_flag, &rc_any, &interrupted_any)) {
    fprintf(stderr, "%s: rank %d: the ranks could not exchange their results\n", prog, mpi_rank);
    rc_any = FL_EIO;
  }
  int status = 1;
  if (rc) {
    char dir[FL_FIT_PATH + 16];
    struct stat st;
    snprintf(dir, sizeof dir, "%s.checkpoint.d", prefix);
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
      fprintf(stderr, "%s: %s; the checkpoints in %s are kept, no report written\n", prog, err, dir);
    else
      fprintf(stderr, "%s: %s; no checkpoint and no report written\n", prog, err);
    status = rc == FL_EINPUT ? 2 : 1; /* a checkpoint of other settings, a start the experiment refuses */
    goto out;
  }
  if (rc_any)
    goto out; /* another rank's error, reported by that rank */
  if (interrupted_any) {
    if (mpi_rank == 0)
      fprintf(stderr, "%s: interrupted: no report written; the checkpoints in %s.checkpoint.d are kept; rerun with "
              "--resume to continue\n", prog, prefix);
    goto out;
  }
  if (mpi_rank != 0) {
    status = 0; /* rank 0 reports; its status is the campaign's (below) */
    goto out;
  }
  fl_population pop, *pp = &pop;
  if (fl_campaign_population(&c, res, &pop, err, sizeof err)) {
    fprintf(stderr, "%s: %s: no population: %s\n", prog, a->file, err);
    pp = NULL;
  } else if ((rc = fl_population_check_run(&c, res, &pop, o.cal.threads, &stop_flag, err, sizeof err))) {
    if (rc == FL_EINTERRUPT) {
      fprintf(stderr, "%s: interrupted: no report written; the checkpoints in %s.checkpoint.d are kept; rerun with "
              "--resume to continue\n", prog, prefix);
      fl_population_free(&pop);
      goto out;
    }
    fprintf(stderr, "%s: %s: the population was not checked: %s\n", prog, a->file, err);
  }
  for (int i = 0; i < c.nspec; i++)
    if (res[i].status != FL_CAL_CONVERGED)
      fprintf(stderr, "%s: %s:%d: row %d (%s) is left out of the population: %s: %s\n", prog, c.table_path,
              c.spec[i].line, i + 1, c.spec[i].id, res[i].status == FL_CAL_MAX_ITERATIONS ? "did not converge"
              : "failed", res[i].message);
  fl_campaign_output out = {prefix, a->cmd, a->plot, a->plot_given};
  fl_campaign_paths paths;
  if ((rc = fl_campaign_write(&c, res, pp, &out, &paths, err, sizeof err))) {
    fprintf(stderr, "%s: %s\n", prog, err);
  } else {
    fl_campaign_checkpoints_remove(prefix, c.nspec);
    if ((rc = fl_campaign_summary(stdout, &c, res, pp, &paths, wall_now() - t0)))
      fl_cli_summary_failed(prog, rc);
    else
      status = pp && pp->nused == c.nspec ? 0 : 1;
  }
  fl_population_free(&pop);
out:
#ifdef HAVE_MPI
  if (mpi_ranks > 1 && !rc && !rc_any) {
    int s0 = status;
    MPI_Bcast(&s0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    status = s0;
  }
#endif
  fl_campaign_results_free(res, c.nspec);
  free(res);
  fl_campaign_free(&c);
  return status;
}

static int calibrate_main(int argc, char **argv);

/* Under mpirun (built with --with-mpi), MPI starts and ends around the program. */
int main(int argc, char **argv)
{
  fl_mpi_start(&argc, &argv);
  mpi_rank = fl_mpi_rank();
  mpi_ranks = fl_mpi_ranks();
  int status = calibrate_main(argc, argv);
  fl_mpi_end();
  return status;
}

static int calibrate_main(int argc, char **argv)
{
  const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                       {"set", required_argument, NULL, 's'},
                                       {"device", required_argument, NULL, 'd'},
                                       {"solver", required_argument, NULL, 'v'},
                                       {"plot", required_argument, NULL, 'p'},
                                       {"seed", required_argument, NULL, 'S'},
                                       {"threads", required_argument, NULL, 'T'},
                                       {"quiet", no_argument, NULL, 'q'},
                                       {"progress", no_argument, NULL, 'P'},
                                       {"resume", no_argument, NULL, 'R'},
                                       {"stop-after", required_argument, NULL, 'A'},
                                       {"help", no_argument, NULL, 'h'},
                                       {"version", no_argument, NULL, 'V'},
                                       {NULL, 0, NULL, 0}};
  const char *prefix = NULL, *sets[MAX_SETS + 2], *device_arg = NULL;
  char seedset[64], solverset[64];
  enum fl_solver solver = FL_SOLVER_AUTO;
  int solver_given = 0;
  int nsets = 0, quiet = 0, force_progress = 0, plot_given = 0, seed_given = 0, device = 0, resume = 0, stop_after = 0, c;
  long threads = 1;
  enum fl_plot plot = FL_PLOT_PNG;
  gsl_set_error_handler_off();
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
    case 'd':
      device_arg = optarg; /* checked once --solver is known too */
      break;
    case 'v':
      if (fl_cli_parse_solver(prog, optarg, &solver))
        return 2;
      snprintf(solverset, sizeof solverset, "simulation.solver=%s", fl_solver_name(solver));
      solver_given = 1;
      break;
    case 'p':
      plot_given = 1;
      if (fl_cli_parse_plot(prog, optarg, &plot))
        return 2;
      break;
    case 'S': {
      char *end;
      if (!*optarg || *optarg == '-' || (strtoul(optarg, &end, 10), *end)) {
        fprintf(stderr, "%s: --seed '%s': allowed: an integer >= 0\n", prog, optarg);
        return 2;
      }
      snprintf(seedset, sizeof seedset, "simulation.seed=%.40s", optarg);
      seed_given = 1;
      break;
    }
    case 'T': {
      char *end;
      threads = strtol(optarg, &end, 10);
      if (!*optarg || *end || threads < 1 || threads > 1024) {
        fprintf(stderr, "%s: --threads '%s': allowed: an integer in [1, 1024]\n", prog, optarg);
        return 2;
      }
      break;
    }
    case 'q':
      quiet = 1;
      break;
    case 'P':
      force_progress = 1;
      break;
    case 'R':
      resume = 1;
      break;
    case 'A': {
      char *end;
      long v = strtol(optarg, &end, 10);
      if (!*optarg || *end || v < 1 || v > 1000000) {
        fprintf(stderr, "%s: --stop-after '%s': allowed: an integer in [1, 1000000]\n", prog, optarg);
        return 2;
      }
      stop_after = (int)v;
      break;
    }
    case 'h':
      usage(stdout, prog);
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
            optind >= argc ? "missing the fit FILE.yaml" : "more than one fit file given", prog);
    return 2;
  }
  const char *file = argv[optind];
  if (seed_given)
    sets[nsets++] = seedset;
  if (solver_given)
    sets[nsets++] = solverset;
  char cmd[4096];
  size_t n = 0;
  for (int i = 0; i < argc && n < sizeof cmd - 1; i++)
    n += (size_t)snprintf(cmd + n, sizeof cmd - n, "%s%s", i ? " " : "", argv[i]);
  if (fl_campaign_detect(file)) {
    cli_args a = {prog, file, prefix, cmd, sets, nsets, quiet, force_progress, resume, stop_after, device,
                  solver_given, plot_given, threads, plot, solver};
    return campaign_main(&a);
  }
  if (mpi_ranks > 1 && resume) {
    /* every rank runs the fit and rank 0 keeps the checkpoint: a replay on rank 0
     * alone would leave the others' batches without it */
    if (mpi_rank == 0)
      fprintf(stderr, "%s: %s: --resume under mpirun with %d ranks; allowed: --resume without mpirun (the "
              "checkpoint is the same)\n", prog, file, mpi_ranks);
    return 2;
  }
  char err[16384];
  fl_fit fit;
  int rc = fl_fit_load(file, sets, nsets, &fit, err, sizeof err);
  if (rc) {
    fprintf(stderr, "%s: %s\n", prog, err);
    return 2;
  }
  /* the experiments' warnings (an item's set: may add its own), each line once */
  static char shown[16384];
  size_t nshown = 0;
  for (int d = -1; d < fit.ndata && mpi_rank == 0; d++) {
    const char *path = d < 0 ? fit.exp_path : fit.data[d].exp_path;
    char warn[4096];
    if (fl_experiment_warnings(d < 0 ? &fit.exp : &fit.data[d].exp, path, warn, sizeof warn) <= 0)
      continue;
    for (char *line = strtok(warn, "\n"); line; line = strtok(NULL, "\n")) {
      int seen = 0;
      for (const char *q = shown; !seen && q < shown + nshown; q += strlen(q) + 1)
        seen = strcmp(q, line) == 0;
      if (seen)
        continue;
      fprintf(stderr, "%s: warning: %s\n", prog, line);
      size_t ln = strlen(line) + 1;
      if (nshown + ln <= sizeof shown) {
        memcpy(shown + nshown, line, ln);
        nshown += ln;
      }
    }
  }
  /* the fit file's warnings and notes (rows left out, the toe shift) */
  for (char *line = strtok(fit.notes, "\n"); line && mpi_rank == 0; line = strtok(NULL, "\n"))
    fprintf(stderr, "%s: %s\n", prog, line);
  char pbuf[FL_FIT_PATH];
  int prefix_given = prefix != NULL;
  if (!prefix) {
    default_prefix(file, pbuf, sizeof pbuf);
    prefix = pbuf;
  }
  /* every input has been read: no output may replace one */
  {
    char perr[8192];
    if ((rc = fl_calibration_prepare(prefix, plot, perr, sizeof perr))) {
      fl_fit_free(&fit);
      return rc == FL_ENOMEM ? 1 : fl_cli_prefix_refused(prog, prefix, prefix_given, perr);
    }
  }
  if (plot != FL_PLOT_NONE && plot_given && !fl_gnuplot_available()) {
    fprintf(stderr, "%s: --plot %s: gnuplot not found on PATH; install gnuplot, or use --plot none\n", prog,
            plot == FL_PLOT_SVG ? "svg" : "png");
    fl_fit_free(&fit);
    return 1;
  }
  catch_signals();

  int use_gpu;
  {
    char where[4200];
    fl_experiment_where(&fit.exp, fit.exp_path, "simulation.solver", where, sizeof where);
    if (fl_cli_check_solver(prog, device, fit.exp.sim.solver, solver_given, where)) {
      fl_fit_free(&fit);
      return 2;
    }
  }
  if (fl_cli_use_gpu(prog, fit.exp.sim.solver == FL_SOLVER_STATIC ? 0 : device, &use_gpu)) {
    fl_fit_free(&fit);
    return 2;
  }
  /* the checkpoint: a memo log of the evaluations, replayed by --resume */
  char ckpath[FL_FIT_PATH + 16], settings[MAX_SETS * 64 + 64];
  size_t sn = 0;
  snprintf(ckpath, sizeof ckpath, "%s.checkpoint", prefix);
  for (int i = 0; i < nsets && sn < sizeof settings - 1; i++)
    sn += (size_t)snprintf(settings + sn, sizeof settings - sn, "set %s\n", sets[i]);
  if (sn < sizeof settings - 1)
    snprintf(settings + sn, sizeof settings - sn, "device %s\nthreads %ld\n", use_gpu ? "gpu" : "cpu", threads);
  fl_checkpoint *ck = NULL;
  /* under mpirun every rank runs the fit, its batches spread over the ranks
   * (mpi_batch.h); rank 0 keeps the checkpoint, logs and writes */
  rc = mpi_rank == 0 ? fl_checkpoint_open(ckpath, &fit, settings, resume, &ck, err, sizeof err) : FL_OK;
#ifdef HAVE_MPI
  if (mpi_ranks > 1)
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
  if (rc) {
    fprintf(stderr, "%s: %s\n", prog, err);
    fl_fit_free(&fit);
    return rc == FL_EINPUT ? 2 : 1;
  }
  if (resume && !fl_checkpoint_found(ck))
    fprintf(stderr, "%s: note: --resume: no checkpoint %s; the calibration starts from the beginning\n", prog,
            ckpath);
  fl_calibrate_opts co = {(int)threads, use_gpu, force_progress || (!quiet && isatty(STDERR_FILENO)), stderr, prog,
                          &stop_flag, ck, stop_after, 0};
  if (mpi_rank != 0) {
    co.progress = 0;
    co.log = NULL;
  }
  fl_calibration cal;
  rc = fl_calibrate(&fit, &co, &cal, err, sizeof err);
  if (mpi_rank != 0) { /* the same fit as rank 0's, which reports it */
    int st = rc ? (rc == FL_EINPUT && !stop_flag ? 2 : 1) : cal.status == FL_CAL_CONVERGED ? 0 : 1;
    if (!rc)
      fl_calibration_free(&cal);
    fl_fit_free(&fit);
    return st;
  }
  if (resume)
    fprintf(stderr, "%s: --resume: %ld evaluations replayed from %s (%ld records in it)\n", prog,
            fl_checkpoint_replayed(ck), ckpath, fl_checkpoint_loaded(ck));
  if (rc) {
    /* no point was evaluated (an input the runs refuse, or an interrupt before the
     * starting point was done): there is no best point to report */
    for (int d = -1; !stop_flag && d < fit.ndata; d++)
      fl_cli_unit_cause(prog, d < 0 ? &fit.exp : &fit.data[d].exp, d < 0 ? fit.exp_path : fit.data[d].exp_path);
    if (stop_flag)
      fprintf(stderr, "%s: %s: interrupted before the starting point was evaluated: no best point yet, no output "
              "written\n", prog, file);
    else if (strncmp(err, file, strlen(file)) == 0 && err[strlen(file)] == ':')
      fprintf(stderr, "%s: %s; no point could be evaluated, no output written\n", prog, err);
    else
      fprintf(stderr, "%s: %s: %s; no point could be evaluated, no output written\n", prog, file, err);
    fl_checkpoint_close(ck, !stop_flag);
    fl_fit_free(&fit);
    return rc == FL_EINPUT && !stop_flag ? 2 : 1; /* a start the experiment's checks refuse is bad input */
  }
  char bw[4096];
  if (fl_calibration_warnings(&fit, &cal, bw, sizeof bw) > 0)
    for (char *line = strtok(bw, "\n"); line; line = strtok(NULL, "\n"))
      fprintf(stderr, "%s: warning: %s\n", prog, line);
  fl_calibration_output oo = {prefix, cmd, plot, plot_given};
  fl_calibration_paths paths;
  rc = fl_calibration_write(&fit, &cal, &oo, &paths, err, sizeof err);
  /* a calibration that ran to its end needs no checkpoint; an interrupted one keeps it */
  int stopped = stop_flag || cal.interrupted;
  fl_checkpoint_close(ck, !rc && !stopped);
  if (stopped)
    fprintf(stderr, "%s: interrupted: the checkpoint %s is kept; rerun with --resume to continue\n", prog, ckpath);
  if (rc) {
    fprintf(stderr, "%s: %s\n", prog, err);
    fl_calibration_free(&cal);
    fl_fit_free(&fit);
    return 1;
  }
  if ((rc = fl_calibration_summary(stdout, &fit, &cal, &paths))) {
    fl_cli_summary_failed(prog, rc);
    fl_calibration_free(&cal);
    fl_fit_free(&fit);
    return 1;
  }
  int status = cal.status;
  if (status != FL_CAL_CONVERGED)
    fprintf(stderr, "%s: %s: the fit %s: %s; the report of the best point found is written\n", prog, file,
            status == FL_CAL_MAX_ITERATIONS ? "did not converge" : "failed", cal.message);
  fl_calibration_free(&cal);
  fl_fit_free(&fit);
  return status == FL_CAL_CONVERGED ? 0 : 1;
}
