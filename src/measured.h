/* measured.h: measured curves from text tables (CSV with comma, semicolon, tab or
 * space separators and RFC 4180 quotes, read by libcsv; header lines, columns by
 * number or name), converted to SI. */
#ifndef FL_MEASURED_H
#define FL_MEASURED_H

#include <stddef.h>

/* What a measured column holds. */
enum fl_quantity {
  FL_Q_LENGTH = 0, /* displacement or elongation, SI m */
  FL_Q_ANGLE = 1,  /* twist, SI rad */
  FL_Q_FORCE = 2,  /* SI N */
  FL_Q_TORQUE = 3, /* SI N m */
  FL_Q_TIME = 4,   /* a ring-down's time, SI s */
  FL_Q_STRESS = 5  /* a modulus or a strength, SI Pa (a campaign's mapped column) */
};

/* One unit a fit file may name. */
typedef struct {
  const char *name;          /* as written in YAML, e.g. "in lb" */
  enum fl_quantity quantity; /* what it measures */
  double to_si;              /* SI value of one unit */
} fl_unit;

/* The unit called name, or NULL. */
const fl_unit *fl_unit_find(const char *name);
/* "mm | um | m": the names of the units of a quantity, for messages. */
void fl_unit_names(enum fl_quantity q, char *buf, size_t len);

/* Where the table comes from, for messages. */
typedef struct {
  const char *path;  /* the file to open */
  const char *shown; /* the name messages use (as the fit file wrote it) */
  const char *key;   /* the fit key that named the file, e.g. "data[1].file" */
  const char *where; /* "fit.yaml:5:11", where that key's value is */
} fl_measured_source;

/* One column to read. */
typedef struct {
  int number;        /* 1-based column number, or 0: by name */
  const char *name;  /* header name when number is 0 */
  double to_si;      /* factor from the file's unit to SI */
  const char *key;   /* the fit key that chose it, e.g. "data[1].columns.y" */
  const char *where; /* "fit.yaml:7:18", where that key's value is */
} fl_measured_column;

/* Rows of a measured table, in SI. */
typedef struct {
  int n;     /* rows read */
  double *x; /* first column read (NULL when only one was asked for) */
  double *y; /* second column read */
  int *line; /* file line of each row, 1-based */
  char sep;  /* separator found: ',', ';', '\t' or ' ' (runs of blanks) */
} fl_measured;

/* Read the rows of src: lines starting with '#' and empty lines are skipped; a field in
 * double quotes may hold the separator ("" in it is one quote) but not a line break; the lines
 * before the first data row (a line with at least half its non-empty fields numbers)
 * are header lines, and the last of them names the columns, each once.  Every data row
 * has as many fields as that header (or the first data row).  x may be NULL (one
 * column: the peaks of a strength test).  The file is noted as an input (files.h).
 * Errors name the file, line and column (FL_EIO: unreadable; FL_ELIMIT: larger than
 * 64 MiB, refused before reading a file, or read no further than that from a stream;
 * FL_EINPUT: a NUL byte, a header naming a column twice, a row of another width, a
 * column that does not exist, a non-numeric or missing cell, with its data row, or no
 * data rows). */
int fl_measured_read(const fl_measured_source *src, const fl_measured_column *x, const fl_measured_column *y,
                     fl_measured *m, char *err, size_t errlen);
void fl_measured_free(fl_measured *m);

/* The toe compensation of ASTM D790 and ISO 178 for a rising curve: the abscissa where
 * the steepest straight part (the least-squares line of the window of rows, up to the
 * peak |y|, with the largest slope; a tenth of those rows, at least 3) meets zero load.
 * Subtracting it from every x moves that line through the origin: positive for a toe,
 * negative for a preload.  NAN when the rise has fewer than 3 rows or no positive slope. */
double fl_measured_toe_shift(const fl_measured *m);

/* A table of text cells under a header line (a campaign's specimen table): the first
 * line that is not empty or a '#' comment names the columns, each once, every later
 * such line is a row with as many fields; the separator is the first of comma,
 * semicolon and tab in the header, else blanks; quotes, limits and byte-order mark as
 * in fl_measured_read. */
typedef struct {
  int ncols;    /* columns: the header's fields */
  int nrows;    /* rows below the header */
  char **names; /* ncols header names */
  char **cell;  /* nrows x ncols texts, row-major, never NULL */
  int *line;    /* file line of each row, 1-based */
} fl_table;

/* Read the table at path (shown: its name in messages).  FL_EIO, FL_ELIMIT, FL_ENOMEM,
 * or FL_EINPUT for a file without a header line, a name given twice or a row of
 * another width, with err set. */
int fl_table_read(const char *path, const char *shown, fl_table *t, char *err, size_t errlen);
void fl_table_free(fl_table *t);

#endif
