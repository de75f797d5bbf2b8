/* fuzz_experiment.c: libFuzzer target for the experiment YAML loader.  The input is a
 * file's bytes; loading, the checks across keys, the warnings and writing it back must
 * never crash, hang or leak, whatever the bytes. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "experiment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char path[] = "/tmp/fl-fuzz-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0)
    return 0;
  if (write(fd, data, size) != (ssize_t)size) {
    close(fd);
    unlink(path);
    return 0;
  }
  close(fd);
  char err[2048], warn[4096];
  fl_experiment e = fl_experiment_default();
  if (fl_experiment_load(path, &e, err, sizeof err) == 0 && fl_experiment_finish(&e, path, err, sizeof err) == 0) {
    fl_experiment_warnings(&e, path, warn, sizeof warn);
    FILE *null = fopen("/dev/null", "w");
    if (null) {
      fl_experiment_write(null, &e);
      fclose(null);
    }
  }
  unlink(path);
  return 0;
}
