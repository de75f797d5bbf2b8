/* cli.h: the command line of fiberlab's programs: the options they share, parsed once
 * (cli_options.c), and the run of a virtual test (cli.c). */
#ifndef FL_CLI_H
#define FL_CLI_H

#include <stdio.h>

#include "experiment.h"
#include "output.h" /* enum fl_plot */

/* The most --set options. */
#define FL_CLI_MAX_SETS 256

/* Options beyond those every program takes (-o, -s, --device, --solver, --plot,
 * --seed, --threads, -q, --progress, -h, -V). */
enum {
  FL_CLI_BATCH = 1,  /* --batch N */
  FL_CLI_EXPORT = 2, /* --export lammps */
  FL_CLI_RESUME = 4  /* --resume, --stop-after N */
};

/* A command line, parsed. */
typedef struct {
  const char *prog;     /* the program's name: argv[0] without its folder */
  const char *file;     /* the one file argument */
  const char *prefix;   /* -o, or NULL */
  const char *sets[FL_CLI_MAX_SETS + 2]; /* --set, in order (room for two more a program adds) */
  int nsets;
  long batch;           /* --batch, 1 */
  long threads;         /* --threads, 1 */
  const char *device_arg; /* --device as written, or NULL */
  int device;           /* 0 cpu, 1 gpu, 2 auto */
  enum fl_solver solver; /* --solver */
  int solver_given;
  enum fl_plot plot;    /* --plot, png */
  int plot_given;
  unsigned long seed;   /* --seed */
  const char *seed_text; /* as written */
  int seed_given;
  int quiet, force_progress, export_lammps, resume, stop_after;
  char cmd[4096];       /* the command line, for the outputs' first lines */
} fl_cli_options;

/* A program's --help text on f. */
typedef void (*fl_cli_usage)(FILE *f, const char *prog, const void *ctx);

/* Parse argv into o: the shared options and those of extra (FL_CLI_*), and exactly one
 * file (file_kind names it in messages: "experiment").  Returns -1 to go on, or the
 * exit status: 0 after --help (usage(stdout, prog, ctx)) or --version, 2 after a
 * message on stderr for a usage error.  With --threads above 1 the program may restart
 * itself first (fl_cli_passive_threads). */
int fl_cli_parse(int argc, char **argv, unsigned extra, const char *file_kind, fl_cli_usage usage, const void *ctx,
                 fl_cli_options *o);
/* The default output prefix of file: its base name without .yaml or .yml, then suffix. */
void fl_cli_default_prefix(const char *file, const char *suffix, char *buf, size_t len);

/* --device cpu | gpu | auto as 0, 1, 2, and --plot png | svg | none: 0, or 2 after a
 * message on stderr naming the value and what is allowed. */
int fl_cli_parse_device(const char *prog, const char *arg, int *device);
int fl_cli_parse_plot(const char *prog, const char *arg, enum fl_plot *plot);

/* --solver auto | explicit | static as enum fl_solver: 0, or 2 after a message. */
int fl_cli_parse_solver(const char *prog, const char *arg, enum fl_solver *solver);
/* 2 after a message when the device asked for (0 cpu, 1 gpu, 2 auto) cannot run the
 * solver the experiment asks for (the static solver runs on the CPU only); where, when
 * not NULL, names the file position of simulation.solver, for the message. */
int fl_cli_check_solver(const char *prog, int device, enum fl_solver solver, int solver_option, const char *where);

/* --version's text on stdout: the program, fiberlab's version, whether CUDA is in,
 * the copyright and licence lines of GNU programs. */
void fl_cli_version(const char *prog);
/* The closing lines of --help: where to report bugs. */
void fl_cli_help_footer(FILE *f);
/* The message for an option getopt_long did not take (its return ':' or '?'), on
 * stderr: a short option by itself ("-Z", not the cluster "-qZ" it came in), a long
 * one by name without its "=value".  Returns 2, the exit status. */
int fl_cli_bad_option(const char *prog, char **argv, int optind_now, int optopt_now, int missing_value);
/* Whether to run on the GPU for --device (0 cpu, 1 gpu, 2 auto): 2 after a message when
 * gpu was asked for and no device answers; auto falls back to the CPU with a note. */
int fl_cli_use_gpu(const char *prog, int device, int *use_gpu);
/* fl_cli_use_gpu for a run of exp: the CPU for the static solver; where
 * simulation.solver auto would take it on the CPU (a quasi-static test), auto keeps the
 * CPU and gpu runs the test explicit, each with a note. */
int fl_cli_device_for(const char *prog, int device, const fl_experiment *exp, int *use_gpu);

/* With more than one thread, restart the program with OpenMP waiting passively (once:
 * it returns when OMP_WAIT_POLICY is already set, or the restart failed). */
void fl_cli_passive_threads(int threads, char **argv);

/* main() of fiber-bend3pt, fiber-tension and fiber-torsion. */
int fl_cli_main(enum fl_test_kind kind, int argc, char **argv);
/* A run of exp (file) failed: when a value of the file looks like a unit mistake
 * (fl_experiment_unit_warnings), say on stderr that it is the likely cause. */
void fl_cli_unit_cause(const char *prog, const fl_experiment *exp, const char *file);
/* The summary could not be written (rc from the writer; errno says why for FL_EIO, such
 * as a full disk): the message on stderr; returns 1. */
int fl_cli_summary_failed(const char *prog, int rc);
/* The outputs of prefix refused before anything ran (a clash with an input, a prefix
 * too long: err): the message on stderr, naming -o or the default prefix; returns 2. */
int fl_cli_prefix_refused(const char *prog, const char *prefix, int given, const char *err);

#endif
