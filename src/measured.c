/* measured.c: the measured-curve reader: delimited text tables with header lines,
 * columns by number or header name, units converted to SI. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl_defs.h"
#include "measured.h"

#define DEG (3.14159265358979323846 / 180.0)
#define MAX_FIELDS 256
#define IN_LB (0.0254 * 4.4482216152605) /* N m: 1 in x 1 lbf (NIST SP 811) */

static const fl_unit units[] = {
    {"mm", FL_Q_LENGTH, 1e-3},   {"um", FL_Q_LENGTH, 1e-6},  {"m", FL_Q_LENGTH, 1.0},
    {"deg", FL_Q_ANGLE, DEG},    {"rad", FL_Q_ANGLE, 1.0},   {"N", FL_Q_FORCE, 1.0},
    {"kN", FL_Q_FORCE, 1e3},     {"N mm", FL_Q_TORQUE, 1e-3}, {"N m", FL_Q_TORQUE, 1.0},
    {"in lb", FL_Q_TORQUE, IN_LB},
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

/* One field of a line: [start, start + len) after trimming, and its 1-based column. */
typedef struct {
  const char *start;
  size_t len;
  size_t col;
} field;

/* Split line into fields by sep (' ': runs of blanks); trims blanks and one pair of
 * double quotes.  Returns the number of fields (at most MAX_FIELDS). */
static int split(const char *line, char sep, field *f)
{
  int n = 0;
  const char *p = line;
  if (sep == ' ') {
    while (*p && n < MAX_FIELDS) {
      while (*p == ' ' || *p == '\t')
        p++;
      if (!*p)
        break;
      const char *s = p;
      while (*p && *p != ' ' && *p != '\t')
        p++;
      f[n].start = s;
      f[n].len = (size_t)(p - s);
      f[n].col = (size_t)(s - line) + 1;
      n++;
    }
  } else {
    for (;;) {
      const char *e = strchr(p, sep);
      size_t len = e ? (size_t)(e - p) : strlen(p);
      const char *s = p;
      while (len && (*s == ' ' || *s == '\t')) {
        s++;
        len--;
      }
      while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
      if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
        s++;
        len -= 2;
      }
      if (n < MAX_FIELDS) {
        f[n].start = s;
        f[n].len = len;
        f[n].col = (size_t)(s - line) + 1;
        n++;
      }
      if (!e)
        break;
      p = e + 1;
    }
  }
  return n;
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

/* The separator: the first of comma, semicolon and tab in the first line that starts
 * like a number, else blanks. */
static char find_separator(char **lines, int nlines)
{
  for (int i = 0; i < nlines; i++) {
    const char *s = lines[i];
    if (skip_line(s))
      continue;
    while (*s == ' ' || *s == '\t')
      s++;
    if (!(isdigit((unsigned char)*s) || *s == '-' || *s == '+' || *s == '.'))
      continue;
    if (strchr(s, ','))
      return ',';
    if (strchr(s, ';'))
      return ';';
    if (strchr(s, '\t'))
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

/* Read the whole file as lines (newline and carriage return stripped). */
static int read_lines(FILE *f, char ***lines_out, int *n_out)
{
  char **lines = NULL, *buf = NULL;
  size_t cap = 0, bufcap = 0;
  int n = 0;
  ssize_t len;
  while ((len = getline(&buf, &bufcap, f)) >= 0) {
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
  memset(m, 0, sizeof *m);
  if (!f) {
    snprintf(err, errlen, "out of memory");
    return FL_ENOMEM;
  }
  FILE *fp = fopen(src->path, "rb");
  if (!fp) {
    snprintf(err, errlen, "%s: %s: '%s' cannot be read: %s; allowed: a readable table file, relative to the fit file",
             src->where, src->key, src->shown, strerror(errno));
    free(f);
    return FL_EIO;
  }
  rc = read_lines(fp, &lines, &nlines);
  int read_errno = errno;
  fclose(fp);
  if (rc) {
    snprintf(err, errlen, "%s: %s: '%s' cannot be read: %s; allowed: a readable table file, relative to the fit file",
             src->where, src->key, src->shown, rc == FL_ENOMEM ? "out of memory" : strerror(read_errno));
    goto done;
  }
  rc = FL_EINPUT;
  char sep = find_separator(lines, nlines);
  m->sep = sep;
  /* Header lines, then the first data row. */
  int first = -1, header = -1;
  for (int i = 0; i < nlines && first < 0; i++) {
    if (skip_line(lines[i]))
      continue;
    int nf = split(lines[i], sep, f);
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
  int ncols = split(lines[first], sep, f);
  if (header >= 0) {
    int nh = split(lines[header], sep, f);
    names = calloc((size_t)nh, sizeof *names);
    if (!names) {
      rc = FL_ENOMEM;
      snprintf(err, errlen, "out of memory");
      goto done;
    }
    for (int i = 0; i < nh; i++) {
      names[i] = strndup(f[i].start, f[i].len);
      if (!names[i]) {
        rc = FL_ENOMEM;
        snprintf(err, errlen, "out of memory");
        goto done;
      }
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
    int nf = split(lines[i], sep, f);
    double v[2] = {0.0, 0.0};
    for (int k = 0; k < 2; k++) {
      if (!cols[k])
        continue;
      char label[512];
      column_label(num[k], names, nnames, label, sizeof label);
      if (num[k] > nf || f[num[k] - 1].len == 0) {
        snprintf(err, errlen, "%s:%d:%zu: %s: no value in data row %d, which has %d field%s; allowed: a number in "
                 "every data row", src->path, i + 1, num[k] > nf ? strlen(lines[i]) + 1 : f[num[k] - 1].col, label,
                 m->n + 1, nf, nf == 1 ? "" : "s");
        goto done;
      }
      if (!parse_number(&f[num[k] - 1], &v[k])) {
        snprintf(err, errlen, "%s:%d:%zu: %s: '%.*s' is not a number (data row %d); allowed: a number in every "
                 "data row", src->path, i + 1, f[num[k] - 1].col, label, (int)(f[num[k] - 1].len > 60 ? 60 :
                 f[num[k] - 1].len), f[num[k] - 1].start, m->n + 1);
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
done:
  if (rc)
    fl_measured_free(m);
  for (int i = 0; i < nnames; i++)
    free(names[i]);
  free(names);
  for (int i = 0; i < nlines; i++)
    free(lines[i]);
  free(lines);
  free(f);
  return rc;
}
