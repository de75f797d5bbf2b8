/* cli.h: the command line shared by the virtual-test programs. */
#ifndef FL_CLI_H
#define FL_CLI_H

#include "experiment.h"

/* main() of fiber-bend3pt, fiber-tension and fiber-torsion. */
int fl_cli_main(enum fl_test_kind kind, int argc, char **argv);

#endif
