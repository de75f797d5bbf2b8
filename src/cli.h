/* cli.h: the command line shared by the virtual-test programs. */
#ifndef FL_CLI_H
#define FL_CLI_H

#include <stdio.h>

#include "experiment.h"
#include "output.h" /* enum fl_plot */

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

#endif
