/* fiber-compression: the virtual compression test program. */
#include <config.h>

#include "cli.h"

int main(int argc, char **argv) { return fl_cli_main(FL_TEST_COMPRESSION, argc, argv); }
