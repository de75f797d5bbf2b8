/* table_text.h: the text of a table file: read whole up to a limit, its lines, and each
 * line's fields at a separator, with RFC 4180 quotes (libcsv). */
#ifndef FL_TABLE_TEXT_H
#define FL_TABLE_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* A file's lines, newline and carriage return stripped; a UTF-8 byte-order mark at the
 * start is dropped. */
typedef struct {
  char *buf;   /* the text, each line NUL-terminated in place */
  char **line; /* n lines, pointers into buf */
  int n;
} fl_lines;

/* What stopped fl_lines_read. */
typedef struct {
  long bytes;       /* FL_ELIMIT: the bytes read when the limit was passed (the limit + 1) */
  int line, column; /* FL_EINPUT: where the first NUL byte is, 1-based */
} fl_lines_stop;

/* Read the open file f whole, at most max_bytes (a pipe or an endless stream stops
 * there).  FL_OK; FL_ELIMIT past max_bytes; FL_EINPUT for a NUL byte (binary data, or
 * UTF-16 text) with its place in stop; FL_EIO (errno kept) or FL_ENOMEM. */
int fl_lines_read(FILE *f, long max_bytes, fl_lines *L, fl_lines_stop *stop);
void fl_lines_free(fl_lines *L);

/* 1 when line holds only blanks, or is a comment (its first non-blank is '#'). */
int fl_line_skipped(const char *line);
/* 1 when c occurs in s outside double quotes. */
int fl_line_has_unquoted(const char *s, char c);

/* Splits lines at one separator: ',', ';', '\t', or ' ' for runs of blanks (spaces and
 * tabs).  Fields are trimmed of blanks around them; a quoted field may hold the
 * separator ("" in it is one quote) but not a line break. */
typedef struct fl_splitter fl_splitter;

fl_splitter *fl_splitter_new(char sep);
void fl_splitter_free(fl_splitter *sp);
char fl_splitter_sep(const fl_splitter *sp);
/* Split line: the number of fields (any number), or -1 when out of memory.  The fields
 * stay valid until the next split. */
int fl_split(fl_splitter *sp, const char *line);
/* Field i of the last split, NUL-terminated, quotes removed; *len its length. */
const char *fl_field(const fl_splitter *sp, int i, size_t *len);
/* The 1-based column of line where field k (0-based) starts, past its blanks and its
 * opening quote (the line is split again: the fields of the last split are lost). */
size_t fl_field_column(fl_splitter *sp, const char *line, int k);

/* A header name as messages show it: as is, or in double quotes ("" for a quote) when
 * it holds a separator, a quote or blanks at its ends, so "Load, N" reads as one name. */
void fl_name_shown(const char *name, char *buf, size_t len);
/* 1 when text looks like a number written with a decimal comma ("1,518", "-0,5e3"). */
int fl_decimal_comma(const char *text);
/* " (a decimal comma? ...)" when text looks like one, else "": for "'X' is not a number". */
const char *fl_number_hint(const char *text);

#endif
