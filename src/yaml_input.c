/* yaml_input.c: what the experiment, fit and campaign loaders share (yaml_input.h): a YAML
 * file loaded within its size and nesting limits, its nodes read as keys and values, and
 * their messages. */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "files.h"
#include "fl_defs.h"
#include "table_text.h"
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

/* Read the file at path into *text (*len bytes, to free()), within the limits: a file
 * libyaml cannot parse is left to fl_yaml_load, which reports the error at its place. */
static int read_text(const char *path, const char *what, unsigned char **text, size_t *len, char *err, size_t errlen)
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
  int rc = read_text(path, what, &text, &len, err, errlen);
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

/* ---- the nodes of a loaded document ---------------------------------------------- */

int fl_yaml_fail(const fl_yaml_reader *r, const yaml_node_t *n, const char *fmt, ...)
{
  char msg[1536];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(r->err, r->errlen, "%s:%zu:%zu: %s", r->file, n ? n->start_mark.line + 1 : 1,
           n ? n->start_mark.column + 1 : 1, msg);
  return FL_EINPUT;
}

const char *fl_yaml_scalar(const yaml_node_t *n)
{
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

const char *fl_yaml_node_kind(const yaml_node_t *n)
{
  return n->type == YAML_MAPPING_NODE ? "a block of keys" : n->type == YAML_SEQUENCE_NODE ? "a list" : "a value";
}

yaml_node_t *fl_yaml_value(yaml_document_t *doc, const yaml_node_t *map, const char *key, yaml_node_t **keynode)
{
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(doc, p->key);
    const char *name = fl_yaml_scalar(k);
    if (name && strcmp(name, key) == 0) {
      if (keynode)
        *keynode = k;
      return yaml_document_get_node(doc, p->value);
    }
  }
  return NULL;
}

void fl_yaml_join(const char *const *names, const char *sep, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; names[i]; i++) {
    int n = snprintf(buf + used, len - used, "%s%s", i ? sep : "", names[i]);
    if (n < 0 || (size_t)n >= len - used)
      break;
    used += (size_t)n;
  }
}

void fl_yaml_msg_not_block(const char *key, const yaml_node_t *map, const char *list, char *msg, size_t len)
{
  if (!*key)
    snprintf(msg, len, "the top level is %s; allowed: a block with %s", fl_yaml_node_kind(map), list);
  else
    snprintf(msg, len, "%s: is %s; allowed: a block of keys (%s)", key, fl_yaml_node_kind(map), list);
}

void fl_yaml_msg_not_plain(const char *what, const yaml_node_t *keynode, char *msg, size_t len)
{
  snprintf(msg, len, "%s%skey is %s; allowed: a plain key name", what, *what ? ": " : "", fl_yaml_node_kind(keynode));
}

void fl_yaml_msg_not_scalar(const char *key, const yaml_node_t *n, char *msg, size_t len)
{
  snprintf(msg, len, "%s: is %s; allowed: a single value", key, fl_yaml_node_kind(n));
}

void fl_yaml_msg_unknown(const char *path, const char *in, const char *note, const char *list, char *msg, size_t len)
{
  if (note)
    snprintf(msg, len, "%s: unknown key for %s; allowed: %s", path, note, list);
  else
    snprintf(msg, len, "%s: unknown key; allowed%s%s: %s", path, *in ? " in " : "", in, list);
}

const yaml_node_t *fl_yaml_duplicate(yaml_document_t *doc, const yaml_node_t *map, const yaml_node_pair_t *p,
                                     const char *what, char *msg, size_t len)
{
  const char *name = fl_yaml_scalar(yaml_document_get_node(doc, p->key));
  if (!name)
    return NULL;
  for (const yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
    const yaml_node_t *kq = yaml_document_get_node(doc, q->key);
    const char *other = fl_yaml_scalar(kq);
    if (other && strcmp(other, name) == 0) {
      snprintf(msg, len, "%s%s%s: duplicate key (first at line %zu); allowed: each key once", what, *what ? "." : "",
               name, kq->start_mark.line + 1);
      return kq;
    }
  }
  return NULL;
}

/* ---- scalars as numbers, integers and choices ------------------------------------ */

int fl_yaml_parse_double(const char *text, double *v)
{
  char *end;
  if (!text || !*text)
    return 0;
  errno = 0;
  double x = strtod(text, &end);
  if (*end || errno == ERANGE || !isfinite(x))
    return 0;
  *v = x;
  return 1;
}

/* "(0, 1000]": r's bounds as messages write them, without unit. */
static void range_text(const fl_yaml_range *r, char *buf, size_t len)
{
  snprintf(buf, len, "%s%g, %g%s", r->min_open ? "(" : "[", r->min, r->max, r->max_open ? ")" : "]");
}

static int in_range(const fl_yaml_range *r, double v)
{
  if (r->min_open ? !(v > r->min) : !(v >= r->min))
    return 0;
  if (r->max_open ? !(v < r->max) : !(v <= r->max))
    return 0;
  return 1;
}

int fl_yaml_number(const char *key, const char *text, const fl_yaml_range *r, int or_auto, double *v, char *msg,
                   size_t len)
{
  char range[96];
  range_text(r, range, sizeof range);
  const char *sp = *r->unit ? " " : "";
  if (!fl_yaml_parse_double(text, v)) {
    if (or_auto)
      snprintf(msg, len, "%s: '%s' is not a number or auto%s; allowed: auto, or a number in %s%s%s", key, text,
               fl_number_hint(text), range, sp, r->unit);
    else
      snprintf(msg, len, "%s: '%s' is not a number%s; allowed: a number in %s%s%s", key, text, fl_number_hint(text),
               range, sp, r->unit);
    return FL_EINPUT;
  }
  if (!in_range(r, *v)) {
    snprintf(msg, len, "%s: '%s' is out of range; allowed: a number in %s%s%s%s", key, text, range, sp, r->unit,
             or_auto ? ", or auto" : "");
    return FL_EINPUT;
  }
  return FL_OK;
}

int fl_yaml_integer(const char *key, const char *text, long lo, long hi, int *v, char *msg, size_t len)
{
  char *end;
  errno = 0;
  long n = strtol(text, &end, 10);
  if (!*text || *end || errno == ERANGE) {
    snprintf(msg, len, "%s: '%s' is not an integer; allowed: an integer in [%ld, %ld]", key, text, lo, hi);
    return FL_EINPUT;
  }
  if (n < lo || n > hi) {
    snprintf(msg, len, "%s: '%s' is out of range; allowed: an integer in [%ld, %ld]", key, text, lo, hi);
    return FL_EINPUT;
  }
  *v = (int)n;
  return FL_OK;
}

int fl_yaml_choice(const char *key, const char *text, const char *const *names, int *v, char *msg, size_t len)
{
  char list[256];
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], text) == 0) {
      *v = i;
      return FL_OK;
    }
  fl_yaml_join(names, " | ", list, sizeof list);
  snprintf(msg, len, "%s: '%s' is not allowed; allowed: %s", key, text, list);
  return FL_EINPUT;
}

int fl_yaml_need_scalar(const fl_yaml_reader *r, const yaml_node_t *n, const char *key, const char **text)
{
  char msg[1536];
  *text = fl_yaml_scalar(n);
  if (*text)
    return FL_OK;
  fl_yaml_msg_not_scalar(key, n, msg, sizeof msg);
  return fl_yaml_fail(r, n, "%s", msg);
}

int fl_yaml_read_number(const fl_yaml_reader *r, const yaml_node_t *n, const char *key, const fl_yaml_range *range,
                        double *v)
{
  const char *t;
  char msg[1536];
  if (fl_yaml_need_scalar(r, n, key, &t))
    return FL_EINPUT;
  if (fl_yaml_number(key, t, range, 0, v, msg, sizeof msg))
    return fl_yaml_fail(r, n, "%s", msg);
  return FL_OK;
}

int fl_yaml_read_integer(const fl_yaml_reader *r, const yaml_node_t *n, const char *key, long lo, long hi, int *v)
{
  const char *t;
  char msg[1536];
  if (fl_yaml_need_scalar(r, n, key, &t))
    return FL_EINPUT;
  if (fl_yaml_integer(key, t, lo, hi, v, msg, sizeof msg))
    return fl_yaml_fail(r, n, "%s", msg);
  return FL_OK;
}

int fl_yaml_read_choice(const fl_yaml_reader *r, const yaml_node_t *n, const char *key, const char *const *names,
                        int *v)
{
  const char *t;
  char msg[1536];
  if (fl_yaml_need_scalar(r, n, key, &t))
    return FL_EINPUT;
  if (fl_yaml_choice(key, t, names, v, msg, sizeof msg))
    return fl_yaml_fail(r, n, "%s", msg);
  return FL_OK;
}
