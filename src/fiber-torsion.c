/* fiber-torsion: the virtual torsion test program. */
#include <config.h>

#include "cli.h"

int main(int argc, char **argv) { return fl_cli_main(FL_TEST_TORSION, argc, argv); }
