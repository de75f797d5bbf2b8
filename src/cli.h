/* cli.h: the command line shared by the virtual-test programs. */
#ifndef FL_CLI_H
#define FL_CLI_H

#include "experiment.h"
#include "output.h" /* enum fl_plot */

/* --device cpu | gpu | auto as 0, 1, 2, and --plot png | svg | none: 0, or 2 after a
 * message on stderr naming the value and what is allowed. */
int fl_cli_parse_device(const char *prog, const char *arg, int *device);
int fl_cli_parse_plot(const char *prog, const char *arg, enum fl_plot *plot);

/* With more than one thread, restart the program with OpenMP waiting passively (once:
 * it returns when OMP_WAIT_POLICY is already set, or the restart failed). */
void fl_cli_passive_threads(int threads, char **argv);

/* main() of fiber-bend3pt, fiber-tension and fiber-torsion. */
int fl_cli_main(enum fl_test_kind kind, int argc, char **argv);

#endif
