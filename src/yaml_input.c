/* yaml_input.c: a YAML file read within the size and nesting limits of yaml_input.h. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "files.h"
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
  fl_input_note(path, f, what);
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

/* The line and column (1-based) of byte offset in text. */
static void place_of(const unsigned char *text, size_t len, size_t offset, size_t *line, size_t *col)
{
  *line = 1;
  size_t start = 0;
  for (size_t i = 0; i < offset && i < len; i++)
    if (text[i] == '\n') {
      (*line)++;
      start = i + 1;
    }
  *col = offset - start + 1;
}

/* The syntax error libyaml found, with its place and what is allowed there. */
static void syntax_error(const yaml_parser_t *p, const unsigned char *text, size_t len, const char *path,
                         const char *man, char *err, size_t errlen)
{
  size_t line = p->problem_mark.line + 1, col = p->problem_mark.column + 1;
  const char *problem = p->problem ? p->problem : "syntax error";
  if (p->error == YAML_READER_ERROR) {
    /* the reader tells a byte offset, not a mark */
    place_of(text, len, p->problem_offset, &line, &col);
    if (p->problem_value == 0 && p->problem_offset < len && text[p->problem_offset] == 0)
      snprintf(err, errlen, "%s:%zu:%zu: not valid YAML: a NUL byte; allowed: UTF-8 text (binary data, or text saved "
               "as UTF-16 without a byte-order mark, is not a YAML file)", path, line, col);
    else
      snprintf(err, errlen, "%s:%zu:%zu: not valid YAML: %s (byte 0x%02x); allowed: UTF-8 text (binary data is not a "
               "YAML file)", path, line, col, problem, (unsigned)p->problem_value & 0xffu);
    return;
  }
  size_t at = 0; /* the byte at the mark */
  for (size_t l = 1, i = 0; i < len; i++) {
    if (l == line) {
      at = i + col - 1;
      break;
    }
    l += text[i] == '\n';
  }
  if (at < len && text[at] == '\t')
    snprintf(err, errlen, "%s:%zu:%zu: not valid YAML: a tab; allowed: spaces for indentation (YAML has no tabs "
             "there)", path, line, col);
  else
    snprintf(err, errlen, "%s:%zu:%zu: not valid YAML: %s%s%s; allowed: key: value lines, blocks indented with "
             "spaces (%s)", path, line, col, problem, p->context ? " " : "", p->context ? p->context : "", man);
}

int fl_yaml_load(const char *path, const char *what, const char *man, yaml_document_t *doc, char *err, size_t errlen)
{
  unsigned char *text;
  size_t len;
  yaml_parser_t parser;
  yaml_document_t extra;
  int rc = fl_yaml_input_read(path, what, &text, &len, err, errlen);
  if (rc != FL_OK)
    return rc;
  if (!yaml_parser_initialize(&parser)) {
    free(text);
    snprintf(err, errlen, "%s: out of memory", path);
    return FL_ENOMEM;
  }
  yaml_parser_set_input_string(&parser, text, len);
  rc = FL_EINPUT;
  if (!yaml_parser_load(&parser, doc)) {
    syntax_error(&parser, text, len, path, man, err, errlen);
    goto done;
  }
  if (!yaml_parser_load(&parser, &extra)) {
    syntax_error(&parser, text, len, path, man, err, errlen);
    yaml_document_delete(doc);
    goto done;
  }
  if (yaml_document_get_root_node(&extra)) {
    const char *kind = strncmp(what, "an ", 3) == 0 ? what + 3 : strncmp(what, "a ", 2) == 0 ? what + 2 : what;
    snprintf(err, errlen, "%s:%zu:%zu: a second YAML document; allowed: one document per %s", path,
             extra.start_mark.line + 1, extra.start_mark.column + 1, kind);
    yaml_document_delete(&extra);
    yaml_document_delete(doc);
    goto done;
  }
  yaml_document_delete(&extra);
  rc = FL_OK;
done:
  yaml_parser_delete(&parser);
  free(text);
  return rc;
}

int fl_yaml_fail_at(const char *file, char *err, size_t errlen, const yaml_node_t *n, const char *fmt, va_list ap)
{
  char msg[1536];
  vsnprintf(msg, sizeof msg, fmt, ap);
  snprintf(err, errlen, "%s:%zu:%zu: %s", file, n ? n->start_mark.line + 1 : 1, n ? n->start_mark.column + 1 : 1,
           msg);
  return FL_EINPUT;
}
