/* yaml_emit.c: one YAML document through libyaml's emitter, with comment lines above it
 * and comments at the end of key lines (libyaml's emitter writes no comments). */
#include <config.h>

#include <errno.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "fl_defs.h"
#include "yaml_emit.h"

#define MAX_DEPTH 32 /* nesting of collections */

typedef struct {
  char *b;
  size_t len, cap;
} text_buf;

/* One open collection, and where its children land in the output. */
typedef struct {
  int map;          /* 1: mapping, 0: sequence */
  int flow;         /* 1: flow style, itself or inside one: all on the line it starts on */
  int inline_first; /* 1: an item of a block sequence: its first child is on the "- " line */
  long children;    /* nodes so far (keys and values of a mapping) */
} level;

typedef struct {
  long line;  /* 0-based line of the document */
  char *text; /* cleaned */
} note;

struct fl_yaml_out {
  FILE *f;
  yaml_emitter_t em;
  int em_ready;       /* em initialized */
  int started;        /* stream and document started */
  int status;         /* the first error, or FL_OK */
  text_buf head;      /* the comment lines */
  text_buf doc;       /* what the emitter wrote */
  note *notes;
  int nnotes, notes_cap;
  long line;          /* the line the last node started on; -1 before the first */
  int depth;
  level stack[MAX_DEPTH];
};

static int buf_add(text_buf *t, const void *data, size_t len)
{
  if (t->len + len + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 256;
    while (t->len + len + 1 > cap)
      cap *= 2;
    char *b = realloc(t->b, cap);
    if (!b)
      return FL_ENOMEM;
    t->b = b;
    t->cap = cap;
  }
  memcpy(t->b + t->len, data, len);
  t->len += len;
  t->b[t->len] = '\0';
  return FL_OK;
}

/* The emitter's output handler: everything is kept until the close. */
static int collect(void *data, unsigned char *buffer, size_t size)
{
  fl_yaml_out *y = data;
  if (buf_add(&y->doc, buffer, size)) {
    y->status = FL_ENOMEM;
    return 0;
  }
  return 1;
}

fl_yaml_out *fl_yaml_out_open(FILE *f)
{
  fl_yaml_out *y = calloc(1, sizeof *y);
  if (!y)
    return NULL;
  y->f = f;
  y->line = -1;
  if (!yaml_emitter_initialize(&y->em)) {
    free(y);
    return NULL;
  }
  y->em_ready = 1;
  yaml_emitter_set_output(&y->em, collect, y);
  yaml_emitter_set_unicode(&y->em, 1); /* letters as they are, not \u escapes */
  yaml_emitter_set_width(&y->em, -1);  /* no folding: a scalar stays on its line */
  yaml_emitter_set_indent(&y->em, 2);
  yaml_emitter_set_break(&y->em, YAML_LN_BREAK);
  return y;
}

/* ---- text ---------------------------------------------------------------------------- */

/* The length (1 to 4) of the UTF-8 sequence s starts with, its code point in *cp; 0 when
 * s does not start a well-formed one (overlong, a surrogate, above U+10FFFF, cut short). */
static int utf8_seq(const unsigned char *s, unsigned long *cp)
{
  int n;
  unsigned long v, min;
  if (s[0] < 0x80) {
    *cp = s[0];
    return 1;
  }
  if ((s[0] & 0xE0) == 0xC0) {
    n = 2, v = s[0] & 0x1Fu, min = 0x80;
  } else if ((s[0] & 0xF0) == 0xE0) {
    n = 3, v = s[0] & 0x0Fu, min = 0x800;
  } else if ((s[0] & 0xF8) == 0xF0) {
    n = 4, v = s[0] & 0x07u, min = 0x10000;
  } else {
    return 0;
  }
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) /* the terminating NUL stops here too */
      return 0;
    v = v << 6 | (s[i] & 0x3Fu);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
    return 0;
  *cp = v;
  return n;
}

/* A character a YAML stream may not carry as it is on a line: a control character, a
 * line break (NEL, LS, PS among them), a byte order mark, a noncharacter. */
static int unsafe_char(unsigned long cp)
{
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || cp == 0xFEFF || cp == 0xFFFE ||
         cp == 0xFFFF;
}

/* s as one line of comment text: unsafe characters become spaces, bytes that are not
 * UTF-8 '?'. */
static int add_comment_text(text_buf *t, const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  int rc = FL_OK;
  while (*p && !rc) {
    unsigned long cp;
    int n = utf8_seq(p, &cp);
    if (n == 0)
      rc = buf_add(t, "?", 1), n = 1;
    else if (unsafe_char(cp))
      rc = buf_add(t, " ", 1);
    else
      rc = buf_add(t, p, (size_t)n);
    p += n;
  }
  return rc;
}

void fl_yaml_comment(fl_yaml_out *y, const char *fmt, ...)
{
  if (!y || y->status)
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!s) {
    y->status = n < 0 ? FL_EINPUT : FL_ENOMEM;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  if (buf_add(&y->head, "# ", 2) || add_comment_text(&y->head, s) || buf_add(&y->head, "\n", 1))
    y->status = FL_ENOMEM;
  free(s);
}

void fl_yaml_note(fl_yaml_out *y, const char *text)
{
  if (!y || y->status)
    return;
  if (y->line < 0) {
    y->status = FL_EINPUT; /* no line yet */
    return;
  }
  text_buf t = {0};
  if (y->nnotes == y->notes_cap) {
    int cap = y->notes_cap ? 2 * y->notes_cap : 16;
    note *n = realloc(y->notes, (size_t)cap * sizeof *n);
    if (!n) {
      y->status = FL_ENOMEM;
      return;
    }
    y->notes = n;
    y->notes_cap = cap;
  }
  if (add_comment_text(&t, text) || buf_add(&t, "", 0)) {
    free(t.b);
    y->status = FL_ENOMEM;
    return;
  }
  y->notes[y->nnotes].line = y->line;
  y->notes[y->nnotes].text = t.b;
  y->nnotes++;
}

/* Whether a plain s would be read as something other than a string, by a YAML 1.1 or
 * 1.2 reader: null, a boolean, a number, a date, a merge key.  Errs on the side of
 * quoting. */
static int reads_as_other_type(const char *s)
{
  static const char *const words[] = {"~",   "null", "Null", "NULL", "true", "True", "TRUE", "false", "False",
                                      "FALSE", "yes", "Yes", "YES",  "no",   "No",   "NO",   "on",    "On",
                                      "ON",  "off",  "Off",  "OFF",  "y",    "Y",    "n",    "N",     "=",
                                      "<<",  NULL};
  for (int i = 0; words[i]; i++)
    if (strcmp(s, words[i]) == 0)
      return 1;
  return strchr("+-.0123456789", s[0]) && strspn(s, "0123456789abcdefABCDEF+-._:xXoOiInNtTzZ ") == strlen(s);
}

/* ---- events ------------------------------------------------------------------------ */

static void emit(fl_yaml_out *y, yaml_event_t *ev)
{
  if (y->status)
    return;
  if (!yaml_emitter_emit(&y->em, ev) && !y->status)
    y->status = y->em.error == YAML_MEMORY_ERROR ? FL_ENOMEM : FL_EINPUT; /* out of order */
}

static int start(fl_yaml_out *y)
{
  yaml_event_t ev;
  if (y->status)
    return y->status;
  if (y->started)
    return FL_OK;
  y->started = 1;
  if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING))
    return y->status = FL_ENOMEM;
  emit(y, &ev);
  if (!y->status && !yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1))
    y->status = FL_ENOMEM;
  emit(y, &ev);
  return y->status;
}

/* A node begins: the line it is on, as libyaml lays out block collections. */
static void place(fl_yaml_out *y)
{
  if (y->depth == 0)
    return;
  level *p = &y->stack[y->depth - 1];
  int is_value = p->map && p->children % 2 == 1;
  if (!p->flow && !is_value && !(p->inline_first && p->children == 0))
    y->line++;
  p->children++;
}

static void collection_begin(fl_yaml_out *y, int map, int flow)
{
  yaml_event_t ev;
  if (start(y))
    return;
  if (y->depth == MAX_DEPTH) {
    y->status = FL_ELIMIT;
    return;
  }
  const level *parent = y->depth ? &y->stack[y->depth - 1] : NULL;
  place(y);
  level *l = &y->stack[y->depth++];
  l->map = map;
  l->flow = flow || (parent && parent->flow);
  l->inline_first = parent && !parent->map && !parent->flow;
  l->children = 0;
  int ok = map ? yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                                     l->flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE)
               : yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                                      l->flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
  if (!ok) {
    y->status = FL_ENOMEM;
    return;
  }
  emit(y, &ev);
}

static void collection_end(fl_yaml_out *y, int map)
{
  yaml_event_t ev;
  if (!y || y->status)
    return;
  if (y->depth == 0 || y->stack[y->depth - 1].map != map || (map && y->stack[y->depth - 1].children % 2)) {
    y->status = FL_EINPUT;
    return;
  }
  y->depth--;
  if (!(map ? yaml_mapping_end_event_initialize(&ev) : yaml_sequence_end_event_initialize(&ev))) {
    y->status = FL_ENOMEM;
    return;
  }
  emit(y, &ev);
}

void fl_yaml_map_begin(fl_yaml_out *y, int flow)
{
  if (y)
    collection_begin(y, 1, flow);
}
void fl_yaml_map_end(fl_yaml_out *y) { collection_end(y, 1); }
void fl_yaml_seq_begin(fl_yaml_out *y, int flow)
{
  if (y)
    collection_begin(y, 0, flow);
}
void fl_yaml_seq_end(fl_yaml_out *y) { collection_end(y, 0); }

static void scalar(fl_yaml_out *y, const char *text, size_t len, yaml_scalar_style_t style)
{
  yaml_event_t ev;
  if (start(y))
    return;
  place(y);
  if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)text, (int)len, 1, 1, style)) {
    y->status = FL_ENOMEM;
    return;
  }
  emit(y, &ev);
}

void fl_yaml_str(fl_yaml_out *y, const char *s)
{
  if (!y || y->status)
    return;
  /* the UTF-8 text, U+FFFD for each byte that is not part of it */
  text_buf t = {0};
  int quote = *s == '\0' || reads_as_other_type(s), rc = FL_OK;
  for (const unsigned char *p = (const unsigned char *)s; *p && !rc;) {
    unsigned long cp;
    int n = utf8_seq(p, &cp);
    if (n == 0) {
      rc = buf_add(&t, "\xEF\xBF\xBD", 3);
      n = 1;
    } else {
      quote |= unsafe_char(cp);
      rc = buf_add(&t, p, (size_t)n);
    }
    p += n;
  }
  if (!rc)
    rc = buf_add(&t, "", 0);
  if (rc)
    y->status = rc;
  else
    scalar(y, t.b, t.len, quote ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
  free(t.b);
}

void fl_yaml_plain(fl_yaml_out *y, const char *text)
{
  if (y && !y->status)
    scalar(y, text, strlen(text), YAML_PLAIN_SCALAR_STYLE);
}

void fl_yaml_num(fl_yaml_out *y, const char *fmt, double v)
{
  char buf[64];
  if (!isfinite(v)) {
    fl_yaml_null(y);
    return;
  }
  int n = snprintf(buf, sizeof buf, fmt, v);
  if (n < 0 || (size_t)n >= sizeof buf) {
    if (y && !y->status)
      y->status = FL_EINPUT;
    return;
  }
  fl_yaml_plain(y, buf);
}

void fl_yaml_int(fl_yaml_out *y, long v)
{
  char buf[32];
  snprintf(buf, sizeof buf, "%ld", v);
  fl_yaml_plain(y, buf);
}

void fl_yaml_null(fl_yaml_out *y) { fl_yaml_plain(y, "null"); }

void fl_yaml_key_str(fl_yaml_out *y, const char *key, const char *s)
{
  fl_yaml_str(y, key);
  fl_yaml_str(y, s);
}
void fl_yaml_key_plain(fl_yaml_out *y, const char *key, const char *text)
{
  fl_yaml_str(y, key);
  fl_yaml_plain(y, text);
}
void fl_yaml_key_num(fl_yaml_out *y, const char *key, const char *fmt, double v)
{
  fl_yaml_str(y, key);
  fl_yaml_num(y, fmt, v);
}
void fl_yaml_key_int(fl_yaml_out *y, const char *key, long v)
{
  fl_yaml_str(y, key);
  fl_yaml_int(y, v);
}
void fl_yaml_key_null(fl_yaml_out *y, const char *key)
{
  fl_yaml_str(y, key);
  fl_yaml_null(y);
}

void fl_yaml_key_str_or_null(fl_yaml_out *y, const char *key, const char *s)
{
  if (s && s[0])
    fl_yaml_key_str(y, key, s);
  else
    fl_yaml_key_null(y, key);
}

/* ---- the close ------------------------------------------------------------------------ */

/* The document with each note at the end of its line.  The notes are left out if the
 * lines are not the ones counted (a key too long to be a simple key takes two). */
static void write_document(fl_yaml_out *y)
{
  long lines = 0;
  for (size_t i = 0; i < y->doc.len; i++)
    lines += y->doc.b[i] == '\n';
  if (y->nnotes == 0 || lines != y->line + 1 || (y->doc.len && y->doc.b[y->doc.len - 1] != '\n')) {
    fwrite(y->doc.b, 1, y->doc.len, y->f);
    return;
  }
  const char *p = y->doc.b;
  int k = 0;
  for (long line = 0; line < lines; line++) {
    const char *eol = strchr(p, '\n');
    fwrite(p, 1, (size_t)(eol - p), y->f);
    for (; k < y->nnotes && y->notes[k].line <= line; k++)
      if (y->notes[k].line == line)
        fprintf(y->f, "  # %s", y->notes[k].text);
    fputc('\n', y->f);
    p = eol + 1;
  }
}

int fl_yaml_out_close(fl_yaml_out **yp)
{
  fl_yaml_out *y = *yp;
  yaml_event_t ev;
  if (!y)
    return FL_ENOMEM;
  if (!y->status && (!y->started || y->depth != 0))
    y->status = FL_EINPUT; /* no root, or a collection left open */
  if (!y->status) {
    if (!yaml_document_end_event_initialize(&ev, 1))
      y->status = FL_ENOMEM;
    emit(y, &ev);
    if (!y->status && !yaml_stream_end_event_initialize(&ev))
      y->status = FL_ENOMEM;
    emit(y, &ev);
    if (!y->status && !yaml_emitter_flush(&y->em))
      y->status = FL_ENOMEM;
  }
  if (!y->status) {
    fwrite(y->head.b ? y->head.b : "", 1, y->head.len, y->f);
    write_document(y);
    errno = 0;
    if (fflush(y->f) || ferror(y->f))
      y->status = FL_EIO;
  }
  int rc = y->status, saved = errno; /* why the write failed (ENOSPC: a full disk), for the caller */
  if (y->em_ready)
    yaml_emitter_delete(&y->em);
  for (int i = 0; i < y->nnotes; i++)
    free(y->notes[i].text);
  free(y->notes);
  free(y->head.b);
  free(y->doc.b);
  free(y);
  *yp = NULL;
  errno = saved;
  return rc;
}
