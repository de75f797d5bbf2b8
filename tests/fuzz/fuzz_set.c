/* fuzz_set.c: libFuzzer target for the -s KEY=VALUE parser.  Each line of the input is
 * one assignment, applied in order to the default experiment, then the checks across
 * keys. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = malloc(size + 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char err[2048];
  fl_experiment e = fl_experiment_default();
  int rc = 0;
  for (char *line = text, *next; line && rc == 0; line = next) {
    next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    rc = fl_experiment_set(&e, line, err, sizeof err);
  }
  if (rc == 0)
    fl_experiment_finish(&e, "fuzz", err, sizeof err);
  free(text);
  return 0;
}
