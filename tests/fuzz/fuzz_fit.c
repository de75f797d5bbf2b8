/* fuzz_fit.c: libFuzzer target for the Fit YAML loader.  The input is a fit file's
 * bytes, read from a folder that also holds a valid experiment (exp.yaml) and a
 * measured curve (data.csv), so the inputs can get past the file references. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fit.h"

static char dir[64];

static void setup(void)
{
  if (dir[0])
    return;
  snprintf(dir, sizeof dir, "/tmp/fl-fuzz-fit-%d", (int)getpid());
  char path[128];
  mkdir(dir, 0700);
  snprintf(path, sizeof path, "%s/exp.yaml", dir);
  FILE *f = fopen(path, "w");
  if (f) {
    fputs("fiber: {segments: 12, length: 0.024}\ntest: {kind: tension, gauge_length: 0.016, grip_length: 0.004}\n",
          f);
    fclose(f);
  }
  snprintf(path, sizeof path, "%s/data.csv", dir);
  f = fopen(path, "w");
  if (f) {
    fputs("x_mm,y_N\n0,0\n0.01,1\n0.02,2\n0.03,3\n", f);
    fclose(f);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  setup();
  char path[128], err[2048];
  snprintf(path, sizeof path, "%s/fit.yaml", dir);
  FILE *f = fopen(path, "wb");
  if (!f)
    return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  fl_fit fit;
  memset(&fit, 0, sizeof fit);
  if (fl_fit_load(path, NULL, 0, &fit, err, sizeof err) == 0)
    fl_fit_free(&fit);
  return 0;
}
