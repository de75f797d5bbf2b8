/* fiber-calibrate.c: fit an experiment's bond parameters to measured curves: parse the
 * options, load the fit, calibrate, write the report (fiber-calibrate(1)). */
#include <config.h>

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

static void usage(FILE *f, const char *prog, const void *ctx)
{
  (void)ctx;
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

static double wall_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* fiber-calibrate CAMPAIGN.yaml (fiberlab-campaign(5)): load and check every row, fit
 * the specimens with a checkpoint each, write the reports. */
/* On stderr: the rows that converged on a retry (a note), then every row left out of
 * the population, with its message. */
static void say_rows(const char *prog, const fl_campaign *c, const fl_campaign_result *res)
{
  for (int i = 0; i < c->nspec; i++)
    if (res[i].retried_from > 0)
      fprintf(stderr, "%s: note: %s:%d: row %d (%s): %s\n", prog, c->table_path, c->spec[i].line, i + 1,
              c->spec[i].id, res[i].message);
  for (int i = 0; i < c->nspec; i++)
    if (res[i].status != FL_CAL_CONVERGED)
      fprintf(stderr, "%s: %s:%d: row %d (%s) is left out of the population: %s: %s\n", prog, c->table_path,
              c->spec[i].line, i + 1, c->spec[i].id, res[i].status == FL_CAL_MAX_ITERATIONS ? "did not converge"
              : "failed", res[i].message);
}

static int campaign_main(const fl_cli_options *a)
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
    fl_cli_default_prefix(a->file, "", pbuf, sizeof pbuf);
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
  char settings[FL_CLI_MAX_SETS * 64 + 64];
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
  o.cal.no_hold = 1; /* a row's retries come before holding a parameter (fl_campaign_retry) */
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
  if (mpi_rank == 0 && !rc && !rc_any && !interrupted_any) {
    /* the rows that did not converge, again from the converged rows' solutions */
    rc = fl_campaign_retry(&c, &o, res, &interrupted, err, sizeof err);
    interrupted_any = interrupted || stop_flag;
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
  say_rows(prog, &c, res);
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

/* The experiments' warnings (an item's set: may add its own), each line once, and the
 * fit file's notes (rows left out, the toe shift), on rank 0. */
static void fit_warnings(const char *prog, fl_fit *fit)
{
  static char shown[16384];
  size_t nshown = 0;
  for (int d = -1; d < fit->ndata && mpi_rank == 0; d++) {
    const char *path = d < 0 ? fit->exp_path : fit->data[d].exp_path;
    char warn[4096];
    if (fl_experiment_warnings(d < 0 ? &fit->exp : &fit->data[d].exp, path, warn, sizeof warn) <= 0)
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
  for (char *line = strtok(fit->notes, "\n"); line && mpi_rank == 0; line = strtok(NULL, "\n"))
    fprintf(stderr, "%s: %s\n", prog, line);
}

/* The checkpoint of the fit, a memo log of the evaluations that --resume replays, on
 * rank 0 (every rank runs the fit, its batches spread over the ranks: mpi_batch.h);
 * FL_OK, or the status with the message printed. */
static int fit_checkpoint(const fl_cli_options *o, const fl_fit *fit, const char *ckpath, int use_gpu,
                          fl_checkpoint **ck)
{
  char settings[FL_CLI_MAX_SETS * 64 + 64], err[16384];
  size_t sn = 0;
  for (int i = 0; i < o->nsets && sn < sizeof settings - 1; i++)
    sn += (size_t)snprintf(settings + sn, sizeof settings - sn, "set %s\n", o->sets[i]);
  if (sn < sizeof settings - 1)
    snprintf(settings + sn, sizeof settings - sn, "device %s\nthreads %ld\n", use_gpu ? "gpu" : "cpu", o->threads);
  *ck = NULL;
  int rc = mpi_rank == 0 ? fl_checkpoint_open(ckpath, fit, settings, o->resume, ck, err, sizeof err) : FL_OK;
#ifdef HAVE_MPI
  if (mpi_ranks > 1)
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
  if (rc)
    fprintf(stderr, "%s: %s\n", o->prog, err);
  else if (o->resume && !fl_checkpoint_found(*ck))
    fprintf(stderr, "%s: note: --resume: no checkpoint %s; the calibration starts from the beginning\n", o->prog,
            ckpath);
  return rc;
}

/* No point was evaluated (an input the runs refuse, or an interrupt before the starting
 * point was done): there is no best point to report; the exit status. */
static int fit_not_started(const fl_cli_options *o, fl_fit *fit, const char *err)
{
  const char *prog = o->prog, *file = o->file;
  for (int d = -1; !stop_flag && d < fit->ndata; d++)
    fl_cli_unit_cause(prog, d < 0 ? &fit->exp : &fit->data[d].exp, d < 0 ? fit->exp_path : fit->data[d].exp_path);
  if (stop_flag)
    fprintf(stderr, "%s: %s: interrupted before the starting point was evaluated: no best point yet, no output "
            "written\n", prog, file);
  else if (strncmp(err, file, strlen(file)) == 0 && err[strlen(file)] == ':')
    fprintf(stderr, "%s: %s; no point could be evaluated, no output written\n", prog, err);
  else
    fprintf(stderr, "%s: %s: %s; no point could be evaluated, no output written\n", prog, file, err);
  return !stop_flag ? 2 : 1; /* a start the experiment's checks refuse is bad input (with FL_EINPUT) */
}

/* The report of a calibration that ran: the files, the checkpoint kept or removed, the
 * summary; the exit status. */
static int fit_report(const fl_cli_options *o, const fl_fit *fit, const fl_calibration *cal, const char *prefix,
                      fl_checkpoint *ck, const char *ckpath)
{
  const char *prog = o->prog;
  char err[16384], bw[4096];
  if (fl_calibration_warnings(fit, cal, bw, sizeof bw) > 0)
    for (char *line = strtok(bw, "\n"); line; line = strtok(NULL, "\n"))
      fprintf(stderr, "%s: warning: %s\n", prog, line);
  fl_calibration_output oo = {prefix, o->cmd, o->plot, o->plot_given};
  fl_calibration_paths paths;
  int rc = fl_calibration_write(fit, cal, &oo, &paths, err, sizeof err);
  /* a calibration that ran to its end needs no checkpoint; an interrupted one keeps it */
  int stopped = stop_flag || cal->interrupted;
  fl_checkpoint_close(ck, !rc && !stopped);
  if (stopped)
    fprintf(stderr, "%s: interrupted: the checkpoint %s is kept; rerun with --resume to continue\n", prog, ckpath);
  if (rc) {
    fprintf(stderr, "%s: %s\n", prog, err);
    return 1;
  }
  if ((rc = fl_calibration_summary(stdout, fit, cal, &paths)))
    return fl_cli_summary_failed(prog, rc);
  if (cal->status != FL_CAL_CONVERGED)
    fprintf(stderr, "%s: %s: the fit %s: %s; the report of the best point found is written\n", prog, o->file,
            cal->status == FL_CAL_MAX_ITERATIONS ? "did not converge" : "failed", cal->message);
  return cal->status == FL_CAL_CONVERGED ? 0 : 1;
}

/* The fit's output prefix checked, the device chosen; -1, or the exit status. */
static int fit_setup(const fl_cli_options *o, const fl_fit *fit, const char *prefix, int *use_gpu)
{
  const char *prog = o->prog;
  char perr[8192];
  /* every input has been read: no output may replace one */
  int rc = fl_calibration_prepare(prefix, o->plot, perr, sizeof perr);
  if (rc)
    return rc == FL_ENOMEM ? 1 : fl_cli_prefix_refused(prog, prefix, o->prefix != NULL, perr);
  if (o->plot != FL_PLOT_NONE && o->plot_given && !fl_gnuplot_available()) {
    fprintf(stderr, "%s: --plot %s: gnuplot not found on PATH; install gnuplot, or use --plot none\n", prog,
            o->plot == FL_PLOT_SVG ? "svg" : "png");
    return 1;
  }
  catch_signals();
  char where[4200];
  fl_experiment_where(&fit->exp, fit->exp_path, "simulation.solver", where, sizeof where);
  if (fl_cli_check_solver(prog, o->device, fit->exp.sim.solver, o->solver_given, where) ||
      fl_cli_use_gpu(prog, fit->exp.sim.solver == FL_SOLVER_STATIC ? 0 : o->device, use_gpu))
    return 2;
  return -1;
}

/* fiber-calibrate FIT.yaml: one calibration. */
static int fit_main(const fl_cli_options *o)
{
  const char *prog = o->prog, *file = o->file;
  if (mpi_ranks > 1 && o->resume) {
    /* every rank runs the fit and rank 0 keeps the checkpoint: a replay on rank 0
     * alone would leave the others' batches without it */
    if (mpi_rank == 0)
      fprintf(stderr, "%s: %s: --resume under mpirun with %d ranks; allowed: --resume without mpirun (the "
              "checkpoint is the same)\n", prog, file, mpi_ranks);
    return 2;
  }
  char err[16384], pbuf[FL_FIT_PATH], ckpath[FL_FIT_PATH + 16];
  fl_fit fit;
  int rc = fl_fit_load(file, o->sets, o->nsets, &fit, err, sizeof err);
  if (rc) {
    fprintf(stderr, "%s: %s\n", prog, err);
    return 2;
  }
  fit_warnings(prog, &fit);
  const char *prefix = o->prefix;
  if (!prefix) { /* "-calibrated", so that PREFIX.yaml never replaces the fit file */
    fl_cli_default_prefix(file, "-calibrated", pbuf, sizeof pbuf);
    prefix = pbuf;
  }
  int use_gpu, st = fit_setup(o, &fit, prefix, &use_gpu);
  fl_checkpoint *ck = NULL;
  snprintf(ckpath, sizeof ckpath, "%s.checkpoint", prefix);
  if (st < 0 && (rc = fit_checkpoint(o, &fit, ckpath, use_gpu, &ck)))
    st = rc == FL_EINPUT ? 2 : 1;
  if (st >= 0) {
    fl_fit_free(&fit);
    return st;
  }
  fl_calibrate_opts co = {(int)o->threads, use_gpu, o->force_progress || (!o->quiet && isatty(STDERR_FILENO)),
                          stderr, prog, &stop_flag, ck, o->stop_after, 0, 0};
  if (mpi_rank != 0) {
    co.progress = 0;
    co.log = NULL;
  }
  fl_calibration cal;
  rc = fl_calibrate(&fit, &co, &cal, err, sizeof err);
  if (mpi_rank != 0) /* the same fit as rank 0's, which reports it */
    st = rc ? (rc == FL_EINPUT && !stop_flag ? 2 : 1) : cal.status == FL_CAL_CONVERGED ? 0 : 1;
  else {
    if (o->resume)
      fprintf(stderr, "%s: --resume: %ld evaluations replayed from %s (%ld records in it)\n", prog,
              fl_checkpoint_replayed(ck), ckpath, fl_checkpoint_loaded(ck));
    if (rc) {
      st = fit_not_started(o, &fit, err);
      if (rc != FL_EINPUT)
        st = 1;
      fl_checkpoint_close(ck, !stop_flag);
    } else {
      st = fit_report(o, &fit, &cal, prefix, ck, ckpath);
    }
  }
  if (!rc)
    fl_calibration_free(&cal);
  fl_fit_free(&fit);
  return st;
}

static int calibrate_main(int argc, char **argv)
{
  fl_cli_options o;
  gsl_set_error_handler_off();
  int st = fl_cli_parse(argc, argv, FL_CLI_RESUME, "fit", usage, NULL, &o);
  if (st >= 0)
    return st;
  /* --seed and --solver as settings of every experiment, after the --set options */
  static char seedset[64], solverset[64];
  if (o.seed_given) {
    snprintf(seedset, sizeof seedset, "simulation.seed=%.40s", o.seed_text);
    o.sets[o.nsets++] = seedset;
  }
  if (o.solver_given) {
    snprintf(solverset, sizeof solverset, "simulation.solver=%s", fl_solver_name(o.solver));
    o.sets[o.nsets++] = solverset;
  }
  return fl_campaign_detect(o.file) ? campaign_main(&o) : fit_main(&o);
}
