/* check_folder.h: a Check test program's scratch folder: made fresh under /tmp for a
 * test (make_dir), its files named (at) and written (write_text), removed after
 * (remove_dir).  CHECK_FOLDER names the program in the folder's name. */
#ifndef FL_CHECK_FOLDER_H
#define FL_CHECK_FOLDER_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static char dir[256];

static void make_dir(void)
{
  snprintf(dir, sizeof dir, "/tmp/%s.XXXXXX", CHECK_FOLDER);
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* name inside the folder (one of four buffers, so that a call may take several) */
static const char *at(const char *name)
{
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

static void write_text(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void write_text(const char *name, const char *fmt, ...)
{
  FILE *f = fopen(at(name), "w");
  ck_assert_ptr_nonnull(f);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  ck_assert_int_eq(fclose(f), 0);
}

#endif
