/* fiber-bend4pt: the virtual 4-point bending test program. */
#include <config.h>

#include "cli.h"

int main(int argc, char **argv) { return fl_cli_main(FL_TEST_BEND4PT, argc, argv); }
