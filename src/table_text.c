/* table_text.c: a table file's text read whole and bounded, its lines, and each line's
 * fields split by libcsv. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>

#include "fl_defs.h"
#include "table_text.h"

int fl_lines_read(FILE *f, long max_bytes, fl_lines *L, fl_lines_stop *stop)
{
  memset(L, 0, sizeof *L);
  memset(stop, 0, sizeof *stop);
  size_t cap = 0, n = 0, limit = (size_t)max_bytes + 1;
  char *buf = NULL;
  for (;;) {
    if (n == cap) {
      size_t grown = cap ? 2 * cap : 65536;
      if (grown > limit + 1)
        grown = limit + 1;
      char *b = realloc(buf, grown);
      if (!b) {
        free(buf);
        return FL_ENOMEM;
      }
      buf = b;
      cap = grown;
    }
    size_t want = cap - n;
    size_t got = fread(buf + n, 1, want, f);
    n += got;
    if (n >= limit) {
      free(buf);
      stop->bytes = (long)n;
      return FL_ELIMIT;
    }
    if (got < want)
      break;
  }
  if (ferror(f)) {
    int e = errno;
    free(buf);
    errno = e;
    return FL_EIO;
  }
  /* the text, NUL-terminated; n < cap since n < limit <= cap - 1 */
  buf[n] = '\0';
  const char *nul = memchr(buf, '\0', n);
  if (nul) {
    stop->line = 1;
    const char *start = buf;
    for (const char *c = buf; c < nul; c++)
      if (*c == '\n') {
        stop->line++;
        start = c + 1;
      }
    stop->column = (int)(nul - start) + 1;
    free(buf);
    return FL_EINPUT;
  }
  char *text = buf;
  if (n >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
    text += 3; /* a UTF-8 byte-order mark, written by some spreadsheets */
  int lines = 1;
  for (const char *c = text; *c; c++)
    lines += *c == '\n';
  L->line = malloc((size_t)lines * sizeof *L->line);
  if (!L->line) {
    free(buf);
    return FL_ENOMEM;
  }
  L->buf = buf;
  char *c = text;
  while (*c) {
    char *end = strchr(c, '\n');
    char *next = end ? end + 1 : c + strlen(c);
    if (end)
      *end = '\0';
    size_t len = strlen(c);
    while (len > 0 && c[len - 1] == '\r')
      c[--len] = '\0';
    L->line[L->n++] = c;
    c = next;
  }
  return FL_OK;
}

void fl_lines_free(fl_lines *L)
{
  free(L->buf);
  free(L->line);
  memset(L, 0, sizeof *L);
}

int fl_line_skipped(const char *s)
{
  while (*s == ' ' || *s == '\t')
    s++;
  return *s == '\0' || *s == '#';
}

int fl_line_has_unquoted(const char *s, char c)
{
  int quoted = 0;
  for (; *s; s++) {
    if (*s == '"')
      quoted = !quoted;
    else if (*s == c && !quoted)
      return 1;
  }
  return 0;
}

/* The fields libcsv hands over for one line, kept until the line is done. */
typedef struct {
  char *text;         /* the fields' texts one after another, each NUL-terminated */
  size_t used, cap;   /* bytes of text in use and allocated */
  size_t *off, *len;  /* where each field's text starts in text, and its length */
  size_t *from;       /* 0-based byte of the line where it starts (when tracked) */
  int n, nmax;        /* fields kept, and room for */
  int blanks;         /* blank separator: an empty field is one more blank of a run */
  int nomem;          /* a field could not be kept */
  size_t pos;         /* the byte libcsv is given, when parsed a byte at a time */
  size_t next_from;   /* where the next field starts, idem */
} line_fields;

struct fl_splitter {
  struct csv_parser csv;
  char sep;        /* ',', ';', '\t', or ' ' for runs of blanks */
  line_fields r;   /* the fields of the line last split */
  char *blank;     /* blank separator: the line with tabs outside quotes made spaces */
  size_t blankcap; /* bytes allocated for blank */
};

static int grow_fields(line_fields *r)
{
  int nmax = r->nmax ? 2 * r->nmax : 16;
  size_t *off = realloc(r->off, (size_t)nmax * sizeof *off);
  if (off)
    r->off = off;
  size_t *len = realloc(r->len, (size_t)nmax * sizeof *len);
  if (len)
    r->len = len;
  size_t *from = realloc(r->from, (size_t)nmax * sizeof *from);
  if (from)
    r->from = from;
  if (!off || !len || !from)
    return FL_ENOMEM;
  r->nmax = nmax;
  return FL_OK;
}

static void on_field(void *text, size_t len, void *data)
{
  line_fields *r = data;
  size_t from = r->next_from;
  r->next_from = r->pos + 1; /* past the separator that ended this field */
  if (r->blanks && len == 0)
    return;
  if ((r->n == r->nmax && grow_fields(r)) || r->nomem) {
    r->nomem = 1;
    return;
  }
  if (r->used + len + 1 > r->cap) {
    size_t cap = 2 * (r->used + len + 1);
    char *t = realloc(r->text, cap);
    if (!t) {
      r->nomem = 1;
      return;
    }
    r->text = t;
    r->cap = cap;
  }
  memcpy(r->text + r->used, text, len);
  r->text[r->used + len] = '\0';
  r->off[r->n] = r->used;
  r->len[r->n] = len;
  r->from[r->n] = from;
  r->n++;
  r->used += len + 1;
}

/* Lines come one at a time without their newline: no byte ends a row early. */
static int no_terminator(unsigned char c)
{
  (void)c;
  return 0;
}

fl_splitter *fl_splitter_new(char sep)
{
  fl_splitter *sp = calloc(1, sizeof *sp);
  if (!sp)
    return NULL;
  if (csv_init(&sp->csv, CSV_APPEND_NULL) != 0) {
    free(sp);
    return NULL;
  }
  csv_set_delim(&sp->csv, (unsigned char)sep);
  csv_set_term_func(&sp->csv, no_terminator);
  sp->sep = sep;
  sp->r.blanks = sep == ' ';
  return sp;
}

void fl_splitter_free(fl_splitter *sp)
{
  if (!sp)
    return;
  csv_free(&sp->csv);
  free(sp->r.text);
  free(sp->r.off);
  free(sp->r.len);
  free(sp->r.from);
  free(sp->blank);
  free(sp);
}

char fl_splitter_sep(const fl_splitter *sp)
{
  return sp->sep;
}

/* The text libcsv is given for line: the line itself, or for the blank separator a
 * copy whose tabs outside quotes are spaces (libcsv has one separator byte, and a run
 * of spaces and tabs is one separator).  NULL: out of memory. */
static const char *csv_input(fl_splitter *sp, const char *line, size_t len)
{
  if (sp->sep != ' ')
    return line;
  if (len + 1 > sp->blankcap) {
    char *b = realloc(sp->blank, len + 1);
    if (!b)
      return NULL;
    sp->blank = b;
    sp->blankcap = len + 1;
  }
  int quoted = 0;
  for (size_t i = 0; i <= len; i++) {
    char c = line[i];
    if (c == '"')
      quoted = !quoted;
    sp->blank[i] = c == '\t' && !quoted ? ' ' : c;
  }
  return sp->blank;
}

/* Split line; with bytewise, each field's first byte is found as well (in r.from). */
static int split(fl_splitter *sp, const char *line, int bytewise)
{
  line_fields *r = &sp->r;
  size_t len = strlen(line);
  const char *in = csv_input(sp, line, len);
  r->used = 0;
  r->n = 0;
  r->nomem = 0;
  r->pos = 0;
  r->next_from = 0;
  if (!in)
    return -1;
  if (len == 0)
    return 0; /* nothing to parse (and libcsv has no buffer to end a field in yet) */
  if (bytewise) {
    for (size_t i = 0; i < len; i++) {
      r->pos = i;
      if (csv_parse(&sp->csv, in + i, 1, on_field, NULL, r) != 1)
        r->nomem = 1;
    }
    r->pos = len;
  } else if (csv_parse(&sp->csv, in, len, on_field, NULL, r) != len) {
    r->nomem = 1;
  }
  csv_fini(&sp->csv, on_field, NULL, r);
  return r->nomem ? -1 : r->n;
}

int fl_split(fl_splitter *sp, const char *line)
{
  return split(sp, line, 0);
}

const char *fl_field(const fl_splitter *sp, int i, size_t *len)
{
  if (len)
    *len = sp->r.len[i];
  return sp->r.text + sp->r.off[i];
}

size_t fl_field_column(fl_splitter *sp, const char *line, int k)
{
  int n = split(sp, line, 1);
  if (k >= n)
    return strlen(line) + 1;
  size_t i = sp->r.from[k];
  while ((line[i] == ' ' || line[i] == '\t') && line[i] != sp->sep)
    i++;
  if (line[i] == '"')
    i++;
  return i + 1;
}

void fl_name_shown(const char *name, char *buf, size_t len)
{
  size_t n = strlen(name);
  int quote = n > 0 && (isspace((unsigned char)name[0]) || isspace((unsigned char)name[n - 1]));
  for (const char *c = name; *c && !quote; c++)
    quote = *c == ',' || *c == ';' || *c == '\t' || *c == '"';
  if (!quote) {
    snprintf(buf, len, "%s", name);
    return;
  }
  size_t k = 0;
  if (len < 3) {
    if (len)
      buf[0] = '\0';
    return;
  }
  buf[k++] = '"';
  for (const char *c = name; *c && k + 3 < len; c++) {
    if (*c == '"')
      buf[k++] = '"';
    buf[k++] = *c;
  }
  buf[k++] = '"';
  buf[k] = '\0';
}

/* Past a run of digits; NULL when there is none. */
static const char *digits(const char *t)
{
  if (!isdigit((unsigned char)*t))
    return NULL;
  while (isdigit((unsigned char)*t))
    t++;
  return t;
}

int fl_decimal_comma(const char *t)
{
  while (*t == ' ')
    t++;
  if (*t == '+' || *t == '-')
    t++;
  if (!(t = digits(t)) || *t++ != ',' || !(t = digits(t)))
    return 0;
  if (*t == 'e' || *t == 'E') {
    t++;
    if (*t == '+' || *t == '-')
      t++;
    if (!(t = digits(t)))
      return 0;
  }
  while (*t == ' ')
    t++;
  return *t == '\0';
}

const char *fl_number_hint(const char *text)
{
  return fl_decimal_comma(text) ? " (a decimal comma? write the number with a decimal point)" : "";
}
