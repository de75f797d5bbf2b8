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

#include "files.h"
#include "fl_defs.h"
#include "measured.h"
#include "table_text.h"

#define DEG (FL_PI / 180.0)
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
    {"Pa", FL_Q_STRESS, 1.0},    {"kPa", FL_Q_STRESS, 1e3},  {"MPa", FL_Q_STRESS, 1e6},
    {"GPa", FL_Q_STRESS, 1e9},
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

static int parse_number(const char *text, size_t len, double *v)
{
  char buf[96];
  if (len == 0 || len >= sizeof buf)
    return 0;
  memcpy(buf, text, len);
  buf[len] = '\0';
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
static int is_data(const fl_splitter *sp, int n)
{
  int nonempty = 0, numeric = 0;
  double v;
  for (int i = 0; i < n; i++) {
    size_t len;
    const char *t = fl_field(sp, i, &len);
    if (len == 0)
      continue;
    nonempty++;
    numeric += parse_number(t, len, &v);
  }
  return numeric > 0 && 2 * numeric >= nonempty;
}

/* The separator: the first of comma, semicolon and tab found outside quotes in the
 * first line that starts like a number (quoted or not), else blanks. */
static char find_separator(const fl_lines *L)
{
  for (int i = 0; i < L->n; i++) {
    const char *s = L->line[i];
    if (fl_line_skipped(s))
      continue;
    while (*s == ' ' || *s == '\t')
      s++;
    const char *c = *s == '"' ? s + 1 : s;
    if (!(isdigit((unsigned char)*c) || *c == '-' || *c == '+' || *c == '.'))
      continue;
    if (fl_line_has_unquoted(s, ','))
      return ',';
    if (fl_line_has_unquoted(s, ';'))
      return ';';
    if (fl_line_has_unquoted(s, '\t'))
      return '\t';
    return ' ';
  }
  return ',';
}

/* "column 3 (load_N)" or "column 3". */
static void column_label(int number, char **names, int nnames, char *buf, size_t len)
{
  char shown[300];
  if (number <= nnames && names[number - 1][0]) {
    fl_name_shown(names[number - 1], shown, sizeof shown);
    snprintf(buf, len, "column %d (%s)", number, shown);
  } else {
    snprintf(buf, len, "column %d", number);
  }
}

/* "a, b, c": the header names, as messages show them. */
static void name_list(char **names, int n, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    char shown[300];
    fl_name_shown(names[i], shown, sizeof shown);
    int k = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", shown);
    if (k < 0 || (size_t)k >= len - used) {
      if (len > 4)
        strcpy(buf + len - 4, "...");
      break;
    }
    used += (size_t)k;
  }
}

/* FL_EINPUT with err when two non-empty header names are the same (a column chosen by
 * that name would be a guess).  shown names the file, line its header's line. */
static int names_once(char **names, int n, const char *shown, int line, char *err, size_t errlen)
{
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n && names[i][0]; j++)
      if (strcmp(names[i], names[j]) == 0) {
        char q[300];
        fl_name_shown(names[i], q, sizeof q);
        snprintf(err, errlen, "%s:%d: the header names columns %d and %d both %s%s%s; allowed: each column named once",
                 shown, line, i + 1, j + 1, q[0] == '"' ? "" : "'", q, q[0] == '"' ? "" : "'");
        return FL_EINPUT;
      }
  return FL_OK;
}

/* The hint for a row with more fields than the header, or a cell that is no number. */
static const char *comma_hint(char sep, const char *cell)
{
  if (cell)
    return fl_number_hint(cell);
  return sep == ',' ? " (a decimal comma? write numbers with a decimal point, or separate the columns with ';')" : "";
}

/* FL_EINPUT with err when data row line (1-based) has nf fields where the table has
 * ncols (what: "the header (line 3)" or "the first data row (line 4)"). */
static int row_width(const fl_splitter *sp, const char *shown, int line, int row, int nf, int ncols, const char *what,
                     char *err, size_t errlen)
{
  if (nf == ncols)
    return FL_OK;
  snprintf(err, errlen, "%s:%d: row %d has %d field%s, %s %d; allowed: one field for each column in every row%s",
           shown, line, row, nf, nf == 1 ? "" : "s", what, ncols, nf > ncols ? comma_hint(fl_splitter_sep(sp), NULL) : "");
  return FL_EINPUT;
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

/* Read the open table fp whole into L; on failure err names the file (shown, as
 * prefix says it, e.g. "fit.yaml:5:11: data[1].file: 'a.csv'"). */
static int read_table(FILE *fp, const char *shown, const char *prefix, const char *readable, fl_lines *L, char *err,
                      size_t errlen)
{
  fl_lines_stop stop;
  int rc = fl_lines_read(fp, MAX_TABLE_BYTES, L, &stop);
  if (rc == FL_ELIMIT)
    snprintf(err, errlen, "%s has more than %ld bytes, more than a table may have; allowed: at most %ld MiB (%ld "
             "bytes)", prefix, MAX_TABLE_BYTES, MAX_TABLE_BYTES >> 20, MAX_TABLE_BYTES);
  else if (rc == FL_EINPUT)
    snprintf(err, errlen, "%s:%d:%d: a NUL byte; allowed: a text table (UTF-8 or ASCII), not binary data or UTF-16 "
             "text", shown, stop.line, stop.column);
  else if (rc)
    snprintf(err, errlen, "%s cannot be read: %s; allowed: %s", prefix, rc == FL_ENOMEM ? "out of memory" : strerror(errno),
             readable);
  return rc;
}

int fl_measured_read(const fl_measured_source *src, const fl_measured_column *x, const fl_measured_column *y,
                     fl_measured *m, char *err, size_t errlen)
{
  fl_lines L = {0};
  char **names = NULL;
  int nnames = 0, rc = FL_EINPUT;
  fl_splitter *sp = NULL;
  memset(m, 0, sizeof *m);
  FILE *fp = fopen(src->path, "rb");
  if (!fp) {
    snprintf(err, errlen, "%s: %s: '%s' cannot be read: %s; allowed: a readable table file, relative to the fit file",
             src->where, src->key, src->shown, strerror(errno));
    return FL_EIO;
  }
  {
    char what[600];
    if (strcmp(src->where, src->path) != 0)
      snprintf(what, sizeof what, "%.200s at %.300s", src->key, src->where);
    else
      snprintf(what, sizeof what, "%.200s", src->key);
    fl_input_note(src->path, fp, what);
  }
  struct stat st;
  if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > MAX_TABLE_BYTES) {
    snprintf(err, errlen, "%s: %s: '%s' has %lld bytes, more than a measured table may have; allowed: at most %ld MiB "
             "(%ld bytes)", src->where, src->key, src->shown, (long long)st.st_size, MAX_TABLE_BYTES >> 20,
             MAX_TABLE_BYTES);
    fclose(fp);
    return FL_ELIMIT;
  }
  {
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "%.400s: %.200s: '%.500s'", src->where, src->key, src->shown);
    rc = read_table(fp, src->path, prefix, "a readable table file, relative to the fit file", &L, err, errlen);
  }
  fclose(fp);
  if (rc)
    goto done;
  char sep = find_separator(&L);
  m->sep = sep;
  if (!(sp = fl_splitter_new(sep)))
    goto nomem;
  rc = FL_EINPUT;
  /* Header lines, then the first data row. */
  int first = -1, header = -1;
  for (int i = 0; i < L.n && first < 0; i++) {
    if (fl_line_skipped(L.line[i]))
      continue;
    int nf = fl_split(sp, L.line[i]);
    if (nf < 0)
      goto nomem;
    if (is_data(sp, nf))
      first = i;
    else
      header = i;
  }
  if (first < 0) {
    snprintf(err, errlen, "%s: %s: '%s' has no data rows; allowed: a table with rows of numbers", src->where,
             src->key, src->shown);
    goto done;
  }
  int ncols = fl_split(sp, L.line[first]);
  if (ncols < 0)
    goto nomem;
  char width_of[64];
  snprintf(width_of, sizeof width_of, "the first data row (line %d)", first + 1);
  if (header >= 0) {
    int nh = fl_split(sp, L.line[header]);
    if (nh < 0 || !(names = calloc((size_t)nh + 1, sizeof *names)))
      goto nomem;
    for (int i = 0; i < nh; i++) {
      if (!(names[i] = strdup(fl_field(sp, i, NULL))))
        goto nomem;
      nnames++;
    }
    if (names_once(names, nnames, src->path, header + 1, err, errlen))
      goto done;
    ncols = nh;
    snprintf(width_of, sizeof width_of, "the header (line %d)", header + 1);
  }
  const fl_measured_column *cols[2] = {x, y};
  int num[2] = {0, 0};
  for (int k = 0; k < 2; k++)
    if (cols[k] && !(num[k] = resolve_column(cols[k], src->shown, names, nnames, ncols, err, errlen)))
      goto done;
  size_t cap = (size_t)(L.n - first);
  m->y = malloc(cap * sizeof *m->y);
  m->line = malloc(cap * sizeof *m->line);
  m->x = x ? malloc(cap * sizeof *m->x) : NULL;
  if (!m->y || !m->line || (x && !m->x)) {
    rc = FL_ENOMEM;
    snprintf(err, errlen, "out of memory for %zu rows of %s", cap, src->shown);
    goto done;
  }
  for (int i = first; i < L.n; i++) {
    if (fl_line_skipped(L.line[i]))
      continue;
    int nf = fl_split(sp, L.line[i]);
    if (nf < 0)
      goto nomem;
    if (row_width(sp, src->path, i + 1, m->n + 1, nf, ncols, width_of, err, errlen))
      goto done;
    double v[2] = {0.0, 0.0};
    for (int k = 0; k < 2; k++) {
      if (!cols[k])
        continue;
      char label[512];
      column_label(num[k], names, nnames, label, sizeof label);
      size_t len;
      const char *cell = fl_field(sp, num[k] - 1, &len);
      if (len == 0) {
        snprintf(err, errlen, "%s:%d:%zu: %s: no value in data row %d, which has %d field%s; allowed: a number in "
                 "every data row", src->path, i + 1, fl_field_column(sp, L.line[i], num[k] - 1), label, m->n + 1, nf,
                 nf == 1 ? "" : "s");
        goto done;
      }
      if (!parse_number(cell, len, &v[k])) {
        char bad[61]; /* the cell as shown; fl_field_column splits the line again */
        snprintf(bad, sizeof bad, "%s", cell);
        const char *hint = comma_hint(sep, bad);
        snprintf(err, errlen, "%s:%d:%zu: %s: '%s' is not a number (data row %d)%s; allowed: a number in every data "
                 "row", src->path, i + 1, fl_field_column(sp, L.line[i], num[k] - 1), label, bad, m->n + 1, hint);
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
  fl_lines_free(&L);
  fl_splitter_free(sp);
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
  return fl_line_has_unquoted(line, ',') ? ','
         : fl_line_has_unquoted(line, ';') ? ';'
         : fl_line_has_unquoted(line, '\t') ? '\t'
                                            : ' ';
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
  fl_lines L = {0};
  fl_splitter *sp = NULL;
  int rc;
  memset(t, 0, sizeof *t);
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    snprintf(err, errlen, "%s: cannot be read: %s; allowed: a readable table file", shown, strerror(errno));
    return FL_EIO;
  }
  fl_input_note(path, fp, "the specimen table");
  rc = read_table(fp, shown, shown, "a readable table file", &L, err, errlen);
  fclose(fp);
  if (rc)
    return rc;
  int header = 0;
  while (header < L.n && fl_line_skipped(L.line[header]))
    header++;
  if (header == L.n) {
    snprintf(err, errlen, "%s:1:1: the table is empty; allowed: a header line naming the columns, then one row per "
             "specimen", shown);
    rc = FL_EINPUT;
    goto done;
  }
  if (!(sp = fl_splitter_new(header_separator(L.line[header]))))
    goto nomem;
  int nf = fl_split(sp, L.line[header]);
  if (nf < 0 || !(t->names = calloc((size_t)(nf > 0 ? nf : 1), sizeof *t->names)))
    goto nomem;
  for (int i = 0; i < nf; i++) {
    if (!(t->names[i] = strdup(fl_field(sp, i, NULL))))
      goto nomem;
    t->ncols++;
  }
  if ((rc = names_once(t->names, t->ncols, shown, header + 1, err, errlen)))
    goto done;
  size_t cap = (size_t)(L.n - header);
  t->cell = calloc(cap * (size_t)(t->ncols > 0 ? t->ncols : 1), sizeof *t->cell);
  t->line = malloc(cap * sizeof *t->line);
  if (!t->cell || !t->line)
    goto nomem;
  char width_of[64];
  snprintf(width_of, sizeof width_of, "the header (line %d)", header + 1);
  for (int i = header + 1; i < L.n; i++) {
    if (fl_line_skipped(L.line[i]))
      continue;
    if ((nf = fl_split(sp, L.line[i])) < 0)
      goto nomem;
    if ((rc = row_width(sp, shown, i + 1, t->nrows + 1, nf, t->ncols, width_of, err, errlen)))
      goto done;
    for (int c = 0; c < t->ncols; c++)
      if (!(t->cell[(size_t)t->nrows * t->ncols + c] = strdup(fl_field(sp, c, NULL))))
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
  fl_lines_free(&L);
  fl_splitter_free(sp);
  return rc;
}
