/* fuzz_csv.c: libFuzzer target for the measured-curve reader: any bytes, read by
 * column number and by header name, must give rows or a clear error, never a crash. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measured.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char path[] = "/tmp/fl-fuzz-csv-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0)
    return 0;
  if (write(fd, data, size) != (ssize_t)size) {
    close(fd);
    unlink(path);
    return 0;
  }
  close(fd);
  char err[2048];
  fl_measured_source src = {path, "data.csv", "data[1].file", "fit.yaml:3:11"};
  fl_measured_column bynum[2] = {{1, NULL, 1e-3, "data[1].columns.x", "fit.yaml:4:20"},
                                 {2, NULL, 1.0, "data[1].columns.y", "fit.yaml:4:26"}};
  fl_measured_column byname[2] = {{0, "x_mm", 1e-3, "data[1].columns.x", "fit.yaml:4:20"},
                                  {0, "y_N", 1.0, "data[1].columns.y", "fit.yaml:4:26"}};
  fl_measured m;
  memset(&m, 0, sizeof m);
  if (fl_measured_read(&src, &bynum[0], &bynum[1], &m, err, sizeof err) == 0)
    fl_measured_free(&m);
  memset(&m, 0, sizeof m);
  if (fl_measured_read(&src, &byname[0], &byname[1], &m, err, sizeof err) == 0)
    fl_measured_free(&m);
  memset(&m, 0, sizeof m);
  if (fl_measured_read(&src, NULL, &bynum[1], &m, err, sizeof err) == 0)
    fl_measured_free(&m);
  unlink(path);
  return 0;
}
