/* measured.c: the measured-curve reader: delimited text tables with header lines,
 * columns by number or header name, units converted to SI. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <csv.h>

#include "fl_defs.h"
#include "measured.h"

#define DEG (FL_PI / 180.0)
#define MAX_FIELDS 256
/* The largest table read, bytes: 64 MiB, some 2.5 million rows of 25 bytes.  The
 * measured curves in fits/data have 50 kB (2 000 rows); the fit evaluates every row
 * (its Jacobian has rows x free parameters doubles), so a table this size is already
 * far past a useful fit.  Every line is kept in memory while the table is read (some
 * 40 bytes besides its text): a table of 64 MiB of 4-byte lines takes some 700 MB. */
#define MAX_TABLE_BYTES (64L * 1024L * 1024L)
#define IN_LB (0.0254 * 4.4482216152605) /* N m: 1 in x 1 lbf (NIST SP 811) */

static const fl_unit units[] = {
    {"mm", FL_Q_LENGTH, 1e-3},   {"um", FL_Q_LENGTH, 1e-6},  {"m", FL_Q_LENGTH, 1.0},
    {"deg", FL_Q_ANGLE, DEG},    {"rad", FL_Q_ANGLE, 1.0},   {"N", FL_Q_FORCE, 1.0},
    {"kN", FL_Q_FORCE, 1e3},     {"N mm", FL_Q_TORQUE, 1e-3}, {"N m", FL_Q_TORQUE, 1.0},
    {"in lb", FL_Q_TORQUE, IN_LB}, {"s", FL_Q_TIME, 1.0},     {"ms", FL_Q_TIME, 1e-3},
};
#define NUNITS (sizeof units / sizeof units[0])

const fl_unit *fl_unit_find(const char *name)
{
  for (size_t i = 0; i < NUNITS; i++)
    if (strcmp(units[i].name, name) == 0)
      return &units[i];
  return NULL;
}

void fl_unit_names(enum fl_quantity q, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < NUNITS; i++) {
    if (units[i].quantity != q)
      continue;
    int n = snprintf(buf + used, len - used, "%s%s", used ? " | " : "", units[i].name);
    if (n < 0 || (size_t)n >= len - used)
      break;
    used += (size_t)n;
  }
}

void fl_measured_free(fl_measured *m)
{
  free(m->x);
  free(m->y);
  free(m->line);
  memset(m, 0, sizeof *m);
}

/* One field of a line: its text, quotes removed and NUL-terminated, and its length. */
typedef struct {
  const char *start;
  size_t len;
} field;

/* The fields libcsv hands over for one line, kept until the line is done. */
typedef struct {
  char *text;             /* the fields' texts one after another, each NUL-terminated */
  size_t used, cap;       /* bytes of text in use and allocated */
  size_t off[MAX_FIELDS]; /* where each field's text starts in text */
  size_t len[MAX_FIELDS]; /* its length */
  size_t from[MAX_FIELDS]; /* 0-based byte of the line where it starts (when tracked) */
  int n;                  /* fields kept: at most MAX_FIELDS, the rest are dropped */
  int blanks;             /* blank separator: an empty field is one more blank of a run */
  int nomem;              /* a field could not be kept */
  size_t pos;             /* the byte libcsv is given, when parsed a byte at a time */
  size_t next_from;       /* where the next field starts, idem */
} line_fields;

/* A separator and a libcsv parser set up for it, with the buffers of one line. */
typedef struct {
  struct csv_parser csv;
  char sep;       /* ',', ';', '\t', or ' ' for runs of blanks */
  line_fields r;  /* the fields of the line last split */
  char *blank;    /* blank separator: the line with tabs outside quotes made spaces */
  size_t blankcap; /* bytes allocated for blank */
} splitter;

static void on_field(void *text, size_t len, void *data)
{
  line_fields *r = data;
  size_t from = r->next_from;
  r->next_from = r->pos + 1; /* past the separator that ended this field */
  if ((r->blanks && len == 0) || r->n >= MAX_FIELDS)
    return;
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

static int splitter_init(splitter *sp, char sep)
{
  memset(sp, 0, sizeof *sp);
  if (csv_init(&sp->csv, CSV_APPEND_NULL) != 0)
    return FL_ENOMEM;
  csv_set_delim(&sp->csv, (unsigned char)sep);
  csv_set_term_func(&sp->csv, no_terminator);
  sp->sep = sep;
  sp->r.blanks = sep == ' ';
  return FL_OK;
}

static void splitter_free(splitter *sp)
{
  csv_free(&sp->csv);
  free(sp->r.text);
  free(sp->blank);
  memset(sp, 0, sizeof *sp);
}

/* The text libcsv is given for line: the line itself, or for the blank separator a
 * copy whose tabs outside quotes are spaces (libcsv has one separator byte, and a run
 * of spaces and tabs is one separator).  NULL: out of memory. */
static const char *csv_input(splitter *sp, const char *line, size_t len)
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

/* Split line into fields with libcsv (RFC 4180 quoting: a quoted field may hold the
 * separator, "" in it is one quote; blanks around a field are trimmed; a quote left
 * open ends with the line; a quoted field does not go past its line).  With bytewise,
 * each field's first byte is found as well (in r.from), for messages.  Returns the
 * number of fields (at most MAX_FIELDS), or -1 when out of memory. */
static int split_line(splitter *sp, const char *line, field *f, int bytewise)
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
  if (r->nomem)
    return -1;
  for (int i = 0; i < r->n; i++) {
    f[i].start = r->text + r->off[i];
    f[i].len = r->len[i];
  }
  return r->n;
}

/* The 1-based column of field k (0-based) of line, past its leading blanks and its
 * opening quote.  libcsv tells no positions: the line is split again a byte at a time,
 * and a field ends at the byte libcsv was given when it handed the field over. */
static size_t field_column(splitter *sp, const char *line, int k)
{
  field f[MAX_FIELDS];
  int n = split_line(sp, line, f, 1);
  if (k >= n)
    return strlen(line) + 1;
  size_t i = sp->r.from[k];
  while ((line[i] == ' ' || line[i] == '\t') && line[i] != sp->sep)
    i++;
  if (line[i] == '"')
    i++;
  return i + 1;
}

static int parse_number(const field *f, double *v)
{
  char buf[96];
  if (f->len == 0 || f->len >= sizeof buf)
    return 0;
  memcpy(buf, f->start, f->len);
  buf[f->len] = '\0';
  char *end;
  errno = 0;
  double d = strtod(buf, &end);
  if (end == buf)
    return 0;
  while (*end == ' ' || *end == '\t') /* blanks inside quotes, as in " 12.5 " */
    end++;
  if (*end || errno == ERANGE || !isfinite(d))
    return 0;
  *v = d;
  return 1;
}

/* A data row: at least one field, and at least half its non-empty fields numbers. */
static int is_data(const field *f, int n)
{
  int nonempty = 0, numeric = 0;
  double v;
  for (int i = 0; i < n; i++) {
    if (f[i].len == 0)
      continue;
    nonempty++;
    numeric += parse_number(&f[i], &v);
  }
  return numeric > 0 && 2 * numeric >= nonempty;
}

static int skip_line(const char *s)
{
  while (*s == ' ' || *s == '\t')
    s++;
  return *s == '\0' || *s == '#';
}

/* Whether c occurs in s outside double quotes. */
static int has_unquoted(const char *s, char c)
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

/* The separator: the first of comma, semicolon and tab found outside quotes in the
 * first line that starts like a number (quoted or not), else blanks. */
static char find_separator(char **lines, int nlines)
{
  for (int i = 0; i < nlines; i++) {
    const char *s = lines[i];
    if (skip_line(s))
      continue;
    while (*s == ' ' || *s == '\t')
      s++;
    const char *c = *s == '"' ? s + 1 : s;
    if (!(isdigit((unsigned char)*c) || *c == '-' || *c == '+' || *c == '.'))
      continue;
    if (has_unquoted(s, ','))
      return ',';
    if (has_unquoted(s, ';'))
      return ';';
    if (has_unquoted(s, '\t'))
      return '\t';
    return ' ';
  }
  return ',';
}

/* "column 3 (load_N)" or "column 3". */
static void column_label(int number, char **names, int nnames, char *buf, size_t len)
{
  if (number <= nnames && names[number - 1][0])
    snprintf(buf, len, "column %d (%s)", number, names[number - 1]);
  else
    snprintf(buf, len, "column %d", number);
}

/* "a, b, c": the header names. */
static void name_list(char **names, int n, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    int k = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
    if (k < 0 || (size_t)k >= len - used)
      break;
    used += (size_t)k;
  }
}

/* The 1-based column number col names, or 0 with err set. */
static int resolve_column(const fl_measured_column *c, const char *shown, char **names, int nnames, int ncols,
                          char *err, size_t errlen)
{
  char list[1024];
  name_list(names, nnames, list, sizeof list);
  if (c->number > 0) {
    if (c->number <= ncols)
      return c->number;
    if (nnames)
      snprintf(err, errlen, "%s: %s: '%d' is not a column of %s, which has %d; allowed: a number in [1, %d], or a "
               "header name: %s", c->where, c->key, c->number, shown, ncols, ncols, list);
    else
      snprintf(err, errlen, "%s: %s: '%d' is not a column of %s, which has %d; allowed: a number in [1, %d]",
               c->where, c->key, c->number, shown, ncols, ncols);
    return 0;
  }
  for (int i = 0; i < nnames; i++)
    if (strcmp(names[i], c->name) == 0)
      return i + 1;
  if (nnames)
    snprintf(err, errlen, "%s: %s: '%s' is not a column of %s; allowed: a number in [1, %d], or a header name: %s",
             c->where, c->key, c->name, shown, ncols, list);
  else
    snprintf(err, errlen, "%s: %s: '%s' is not a column of %s, which has no header line; allowed: a number in [1, %d]",
             c->where, c->key, c->name, shown, ncols);
  return 0;
}

/* Read the whole file as lines (newline and carriage return stripped); FL_ELIMIT past
 * MAX_TABLE_BYTES (a pipe, or a file that grew since fstat). */
static int read_lines(FILE *f, char ***lines_out, int *n_out)
{
  char **lines = NULL, *buf = NULL;
  size_t cap = 0, bufcap = 0, total = 0;
  int n = 0;
  ssize_t len;
  while ((len = getline(&buf, &bufcap, f)) >= 0) {
    if ((total += (size_t)len) > (size_t)MAX_TABLE_BYTES) {
      free(buf);
      for (int i = 0; i < n; i++)
        free(lines[i]);
      free(lines);
      return FL_ELIMIT;
    }
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
      buf[--len] = '\0';
    if ((size_t)n == cap) {
      cap = cap ? 2 * cap : 256;
      char **nl = realloc(lines, cap * sizeof *lines);
      if (!nl)
        goto nomem;
      lines = nl;
    }
    lines[n] = strdup(buf);
    if (!lines[n])
      goto nomem;
    n++;
  }
  free(buf);
  *lines_out = lines;
  *n_out = n;
  return ferror(f) ? FL_EIO : FL_OK;
nomem:
  free(buf);
  for (int i = 0; i < n; i++)
    free(lines[i]);
  free(lines);
  return FL_ENOMEM;
}

int fl_measured_read(const fl_measured_source *src, const fl_measured_column *x, const fl_measured_column *y,
                     fl_measured *m, char *err, size_t errlen)
{
  char **lines = NULL, **names = NULL;
  int nlines = 0, nnames = 0, rc = FL_EINPUT;
  field *f = malloc(MAX_FIELDS * sizeof *f);
  splitter *sp = calloc(1, sizeof *sp);
  memset(m, 0, sizeof *m);
  if (!f || !sp) {
    snprintf(err, errlen, "out of memory");
    free(f);
    free(sp);
    return FL_ENOMEM;
  }
  FILE *fp = fopen(src->path, "rb");
  if (!fp) {
    snprintf(err, errlen, "%s: %s: '%s' cannot be read: %s; allowed: a readable table file, relative to the fit file",
             src->where, src->key, src->shown, strerror(errno));
    free(f);
    free(sp);
    return FL_EIO;
  }
  struct stat st;
  if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > MAX_TABLE_BYTES) {
    snprintf(err, errlen, "%s: %s: '%s' has %lld bytes, more than a measured table may have; allowed: at most %ld MiB "
             "(%ld bytes)", src->where, src->key, src->shown, (long long)st.st_size, MAX_TABLE_BYTES >> 20,
             MAX_TABLE_BYTES);
    fclose(fp);
    free(f);
    free(sp);
    return FL_ELIMIT;
  }
  rc = read_lines(fp, &lines, &nlines);
  int read_errno = errno;
  fclose(fp);
  if (rc == FL_ELIMIT) {
    snprintf(err, errlen, "%s: %s: '%s' has more than %ld bytes, more than a measured table may have; allowed: at most "
             "%ld MiB (%ld bytes)", src->where, src->key, src->shown, MAX_TABLE_BYTES, MAX_TABLE_BYTES >> 20,
             MAX_TABLE_BYTES);
    goto done;
  }
  if (rc) {
    snprintf(err, errlen, "%s: %s: '%s' cannot be read: %s; allowed: a readable table file, relative to the fit file",
             src->where, src->key, src->shown, rc == FL_ENOMEM ? "out of memory" : strerror(read_errno));
    goto done;
  }
  char sep = find_separator(lines, nlines);
  m->sep = sep;
  if ((rc = splitter_init(sp, sep)) != FL_OK) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  rc = FL_EINPUT;
  /* Header lines, then the first data row. */
  int first = -1, header = -1;
  for (int i = 0; i < nlines && first < 0; i++) {
    if (skip_line(lines[i]))
      continue;
    int nf = split_line(sp, lines[i], f, 0);
    if (nf < 0)
      goto nomem;
    if (is_data(f, nf))
      first = i;
    else
      header = i;
  }
  if (first < 0) {
    snprintf(err, errlen, "%s: %s: '%s' has no data rows; allowed: a table with rows of numbers", src->where,
             src->key, src->shown);
    goto done;
  }
  int ncols = split_line(sp, lines[first], f, 0);
  if (ncols < 0)
    goto nomem;
  if (header >= 0) {
    int nh = split_line(sp, lines[header], f, 0);
    if (nh < 0 || !(names = calloc((size_t)nh + 1, sizeof *names)))
      goto nomem;
    for (int i = 0; i < nh; i++) {
      if (!(names[i] = strdup(f[i].start)))
        goto nomem;
      nnames++;
    }
    if (nh > ncols)
      ncols = nh;
  }
  const fl_measured_column *cols[2] = {x, y};
  int num[2] = {0, 0};
  for (int k = 0; k < 2; k++)
    if (cols[k] && !(num[k] = resolve_column(cols[k], src->shown, names, nnames, ncols, err, errlen)))
      goto done;
  size_t cap = (size_t)(nlines - first);
  m->y = malloc(cap * sizeof *m->y);
  m->line = malloc(cap * sizeof *m->line);
  m->x = x ? malloc(cap * sizeof *m->x) : NULL;
  if (!m->y || !m->line || (x && !m->x)) {
    rc = FL_ENOMEM;
    snprintf(err, errlen, "out of memory for %zu rows of %s", cap, src->shown);
    goto done;
  }
  for (int i = first; i < nlines; i++) {
    if (skip_line(lines[i]))
      continue;
    int nf = split_line(sp, lines[i], f, 0);
    if (nf < 0)
      goto nomem;
    double v[2] = {0.0, 0.0};
    for (int k = 0; k < 2; k++) {
      if (!cols[k])
        continue;
      char label[512];
      column_label(num[k], names, nnames, label, sizeof label);
      if (num[k] > nf || f[num[k] - 1].len == 0) {
        snprintf(err, errlen, "%s:%d:%zu: %s: no value in data row %d, which has %d field%s; allowed: a number in "
                 "every data row", src->path, i + 1, field_column(sp, lines[i], num[k] - 1), label, m->n + 1, nf,
                 nf == 1 ? "" : "s");
        goto done;
      }
      if (!parse_number(&f[num[k] - 1], &v[k])) {
        char bad[61]; /* the cell as shown; field_column splits the line again */
        snprintf(bad, sizeof bad, "%s", f[num[k] - 1].start);
        snprintf(err, errlen, "%s:%d:%zu: %s: '%s' is not a number (data row %d); allowed: a number in every data "
                 "row", src->path, i + 1, field_column(sp, lines[i], num[k] - 1), label, bad, m->n + 1);
        goto done;
      }
    }
    if (x)
      m->x[m->n] = v[0] * x->to_si;
    m->y[m->n] = v[1] * y->to_si;
    m->line[m->n] = i + 1;
    m->n++;
  }
  rc = FL_OK;
  goto done;
nomem:
  rc = FL_ENOMEM;
  snprintf(err, errlen, "out of memory reading %s", src->shown);
done:
  if (rc)
    fl_measured_free(m);
  for (int i = 0; i < nnames; i++)
    free(names[i]);
  free(names);
  for (int i = 0; i < nlines; i++)
    free(lines[i]);
  free(lines);
  splitter_free(sp);
  free(sp);
  free(f);
  return rc;
}

/* The toe compensation of ASTM D790 and ISO 178: the steepest straight part of the
 * rising curve (the least-squares line over the window of rows, up to the peak load,
 * with the largest slope), extended to zero load, marks the corrected origin.
 * Returns the abscissa where that line meets zero load (the shift), or NAN when the
 * rise has too few rows or no positive slope. */
double fl_measured_toe_shift(const fl_measured *m)
{
  int peak = 0;
  for (int i = 1; i < m->n; i++)
    if (fabs(m->y[i]) > fabs(m->y[peak]))
      peak = i;
  int rows = peak + 1, w = rows / 10;
  if (w < 3)
    w = 3;
  if (rows < w)
    return NAN;
  double best = 0.0, xc = 0.0, yc = 0.0;
  for (int s = 0; s + w <= rows; s++) {
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (int i = s; i < s + w; i++) {
      mx += m->x[i] / w;
      my += fabs(m->y[i]) / w;
    }
    for (int i = s; i < s + w; i++) {
      sxx += (m->x[i] - mx) * (m->x[i] - mx);
      sxy += (m->x[i] - mx) * (fabs(m->y[i]) - my);
    }
    if (sxx > 0 && sxy / sxx > best) {
      best = sxy / sxx;
      xc = mx;
      yc = my;
    }
  }
  return best > 0 ? xc - yc / best : NAN;
}

/* The separator of a table whose first line is a header: the first of comma,
 * semicolon and tab found outside quotes in it, else blanks. */
static char header_separator(const char *line)
{
  return has_unquoted(line, ',') ? ',' : has_unquoted(line, ';') ? ';' : has_unquoted(line, '\t') ? '\t' : ' ';
}

void fl_table_free(fl_table *t)
{
  if (t->cell)
    for (long i = 0; i < (long)t->nrows * t->ncols; i++)
      free(t->cell[i]);
  if (t->names)
    for (int i = 0; i < t->ncols; i++)
      free(t->names[i]);
  free(t->cell);
  free(t->names);
  free(t->line);
  memset(t, 0, sizeof *t);
}

int fl_table_read(const char *path, const char *shown, fl_table *t, char *err, size_t errlen)
{
  char **lines = NULL;
  int nlines = 0, rc;
  field *f = malloc(MAX_FIELDS * sizeof *f);
  splitter *sp = calloc(1, sizeof *sp);
  memset(t, 0, sizeof *t);
  if (!f || !sp) {
    free(f);
    free(sp);
    snprintf(err, errlen, "out of memory");
    return FL_ENOMEM;
  }
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    snprintf(err, errlen, "%s: cannot be read: %s; allowed: a readable table file", shown, strerror(errno));
    free(f);
    free(sp);
    return FL_EIO;
  }
  rc = read_lines(fp, &lines, &nlines);
  fclose(fp);
  if (rc) {
    snprintf(err, errlen, "%s: %s", shown, rc == FL_ELIMIT ? "larger than a table may be (64 MiB)" : "cannot be read");
    goto done;
  }
  int header = 0;
  while (header < nlines && skip_line(lines[header]))
    header++;
  if (header == nlines) {
    snprintf(err, errlen, "%s:1:1: the table is empty; allowed: a header line naming the columns, then one row per "
             "specimen", shown);
    rc = FL_EINPUT;
    goto done;
  }
  if ((rc = splitter_init(sp, header_separator(lines[header]))) != FL_OK) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  int nf = split_line(sp, lines[header], f, 0);
  if (nf < 0 || !(t->names = calloc((size_t)(nf > 0 ? nf : 1), sizeof *t->names)))
    goto nomem;
  for (int i = 0; i < nf; i++) {
    if (!(t->names[i] = strdup(f[i].start)))
      goto nomem;
    t->ncols++;
  }
  size_t cap = (size_t)(nlines - header);
  t->cell = calloc(cap * (size_t)(t->ncols > 0 ? t->ncols : 1), sizeof *t->cell);
  t->line = malloc(cap * sizeof *t->line);
  if (!t->cell || !t->line)
    goto nomem;
  for (int i = header + 1; i < nlines; i++) {
    if (skip_line(lines[i]))
      continue;
    if ((nf = split_line(sp, lines[i], f, 0)) < 0)
      goto nomem;
    for (int c = 0; c < t->ncols; c++)
      if (!(t->cell[(size_t)t->nrows * t->ncols + c] = strdup(c < nf ? f[c].start : "")))
        goto nomem;
    t->line[t->nrows++] = i + 1;
  }
  rc = FL_OK;
  goto done;
nomem:
  rc = FL_ENOMEM;
  snprintf(err, errlen, "out of memory reading %s", shown);
done:
  if (rc)
    fl_table_free(t);
  for (int i = 0; i < nlines; i++)
    free(lines[i]);
  free(lines);
  splitter_free(sp);
  free(sp);
  free(f);
  return rc;
}
