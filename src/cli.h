/* cli.h: the command line shared by the virtual-test programs. */
#ifndef FL_CLI_H
#define FL_CLI_H

#include "experiment.h"

/* With more than one thread, restart the program with OpenMP waiting passively (once:
 * it returns when OMP_WAIT_POLICY is already set, or the restart failed). */
void fl_cli_passive_threads(int threads, char **argv);

/* main() of fiber-bend3pt, fiber-tension and fiber-torsion. */
int fl_cli_main(enum fl_test_kind kind, int argc, char **argv);

#endif
