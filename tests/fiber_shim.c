/* fiber_shim.c: the fiber-* programs (cli.c, built here as in a build with CUDA) over
 * the CUDA engine compiled for the CPU through the host shim of the CUDA runtime
 * (tests/gpu-shim.sh): `fiber_shim KIND ARGS...` is `fiber-KIND ARGS...` with a GPU
 * that answers, so that --device gpu and auto run the whole way through the programs
 * without a device. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "test_kind.h"

int main(int argc, char **argv)
{
  for (int k = FL_TEST_BEND3PT; argc > 1 && k <= FL_TEST_COMPRESSION; k++)
    if (strcmp(argv[1], fl_test_kind_name((enum fl_test_kind)k)) == 0)
      return fl_cli_main((enum fl_test_kind)k, argc - 1, argv + 1);
  fprintf(stderr, "usage: fiber_shim bend3pt|tension|torsion|cantilever|bend4pt|compression ARGS...\n");
  return 2;
}
