/* fiber-bend3pt: the virtual bend3pt test program. */
#include <config.h>

#include "cli.h"

int main(int argc, char **argv) { return fl_cli_main(FL_TEST_BEND3PT, argc, argv); }
