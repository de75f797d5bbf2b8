/* yaml_input.c: a YAML file read within the size and nesting limits of yaml_input.h. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "fl_defs.h"
#include "yaml_input.h"

static int too_large(const char *path, const char *what, long long bytes, char *err, size_t errlen)
{
  if (bytes > 0)
    snprintf(err, errlen, "%s: has %lld bytes, more than %s may have; allowed: at most %ld MiB (%ld bytes)", path,
             bytes, what, FL_YAML_MAX_BYTES >> 20, FL_YAML_MAX_BYTES);
  else
    snprintf(err, errlen, "%s: has more than %ld bytes, more than %s may have; allowed: at most %ld MiB (%ld bytes)",
             path, FL_YAML_MAX_BYTES, what, FL_YAML_MAX_BYTES >> 20, FL_YAML_MAX_BYTES);
  return FL_ELIMIT;
}

/* The nesting of blocks and lists, counted on libyaml's events, which come before any
 * node is built: the pass stops at the first level past the limit. */
static int check_depth(const unsigned char *text, size_t len, const char *path, char *err, size_t errlen)
{
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) {
    snprintf(err, errlen, "%s: out of memory", path);
    return FL_ENOMEM;
  }
  yaml_parser_set_input_string(&parser, text, len);
  int depth = 0, rc = FL_OK;
  for (;;) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&parser, &ev))
      break; /* not valid YAML: the loader says where */
    yaml_event_type_t type = ev.type;
    yaml_mark_t mark = ev.start_mark;
    yaml_event_delete(&ev);
    if (type == YAML_STREAM_END_EVENT)
      break;
    if (type == YAML_MAPPING_START_EVENT || type == YAML_SEQUENCE_START_EVENT) {
      if (++depth > FL_YAML_MAX_DEPTH) {
        snprintf(err, errlen, "%s:%zu:%zu: nesting deeper than %d levels; allowed: at most %d levels of blocks and "
                 "lists", path, mark.line + 1, mark.column + 1, FL_YAML_MAX_DEPTH, FL_YAML_MAX_DEPTH);
        rc = FL_ELIMIT;
        break;
      }
    } else if (type == YAML_MAPPING_END_EVENT || type == YAML_SEQUENCE_END_EVENT) {
      depth--;
    }
  }
  yaml_parser_delete(&parser);
  return rc;
}

int fl_yaml_input_read(const char *path, const char *what, unsigned char **text, size_t *len, char *err,
                       size_t errlen)
{
  *text = NULL;
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return FL_EIO;
  }
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > FL_YAML_MAX_BYTES) {
    fclose(f);
    return too_large(path, what, (long long)st.st_size, err, errlen);
  }
  /* At most one byte past the limit: a pipe, or a file that grew, tells no size. */
  size_t cap = (size_t)FL_YAML_MAX_BYTES + 1, n = 0, got;
  unsigned char *buf = malloc(cap);
  int rc = FL_OK;
  while (buf && n < cap && (got = fread(buf + n, 1, cap - n, f)) > 0)
    n += got;
  if (!buf) {
    snprintf(err, errlen, "%s: out of memory", path);
    rc = FL_ENOMEM;
  } else if (n > (size_t)FL_YAML_MAX_BYTES) {
    rc = too_large(path, what, 0, err, errlen);
  } else if (ferror(f)) {
    snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    rc = FL_EIO;
  }
  fclose(f);
  if (rc == FL_OK)
    rc = check_depth(buf, n, path, err, errlen);
  if (rc) {
    free(buf);
    return rc;
  }
  *text = buf;
  *len = n;
  return FL_OK;
}

void fl_path_relative(const char *base, const char *rel, char *out, size_t len)
{
  const char *slash = strrchr(base, '/');
  if (rel[0] == '/' || !slash)
    snprintf(out, len, "%s", rel);
  else
    snprintf(out, len, "%.*s/%s", (int)(slash - base), base, rel);
}

int fl_yaml_fail_at(const char *file, char *err, size_t errlen, const yaml_node_t *n, const char *fmt, va_list ap)
{
  char msg[1536];
  vsnprintf(msg, sizeof msg, fmt, ap);
  snprintf(err, errlen, "%s:%zu:%zu: %s", file, n ? n->start_mark.line + 1 : 1, n ? n->start_mark.column + 1 : 1,
           msg);
  return FL_EINPUT;
}
