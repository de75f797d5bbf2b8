/* yaml_emit.h: one YAML document written through libyaml's emitter, so that any string
 * (a path, a name, a message) reads back as the same text and numbers keep the printf
 * format the caller chose.
 *
 * A writer is opened on a FILE, filled with mappings, sequences and scalars in document
 * order, and closed: the document is held in memory and reaches the FILE only at
 * fl_yaml_out_close, which returns the first error met.  The calls between open and close
 * return nothing; after an error they do nothing.
 *
 *   fl_yaml_out *y = fl_yaml_out_open(stdout);
 *   fl_yaml_map_begin(y, 0);
 *   fl_yaml_key_str(y, "csv", path);
 *   fl_yaml_key_num(y, "peak_force", "%.8g", peak);
 *   fl_yaml_map_end(y);
 *   rc = fl_yaml_out_close(&y);
 */
#ifndef FL_YAML_EMIT_H
#define FL_YAML_EMIT_H

#include <stdio.h>

typedef struct fl_yaml_out fl_yaml_out;

/* A writer of one document to f; NULL when out of memory. */
fl_yaml_out *fl_yaml_out_open(FILE *f);
/* End the document and write it to f, after the comment lines: FL_OK, or the first
 * error (FL_ENOMEM, FL_EIO, or FL_EINPUT for calls out of order).  Frees *y and sets it
 * to NULL; a NULL *y returns FL_ENOMEM, so an open that failed is reported here. */
int fl_yaml_out_close(fl_yaml_out **y);

/* A "# ..." line above the document, whenever it is called.  Line breaks, control
 * characters and bytes that are not UTF-8 become spaces or '?', so no text can end the
 * comment early. */
void fl_yaml_comment(fl_yaml_out *y, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A "  # text" comment at the end of the line the last key of a block mapping is on
 * (a unit, say); cleaned as fl_yaml_comment's text.  Dropped, never misplaced, if the
 * document is not laid out one key a line. */
void fl_yaml_note(fl_yaml_out *y, const char *text);

/* Collections; flow: 1 for { a: 1 } or [1, 2] on one line, 0 for block style. */
void fl_yaml_map_begin(fl_yaml_out *y, int flow);
void fl_yaml_map_end(fl_yaml_out *y);
void fl_yaml_seq_begin(fl_yaml_out *y, int flow);
void fl_yaml_seq_end(fl_yaml_out *y);

/* Scalars, as a mapping key or a value.  A string is quoted when its plain form would
 * read back as another string or as another type (a number, true, null), and double
 * quoted when it holds a line break or a control character, so it stays on its line;
 * bytes that are not UTF-8 become U+FFFD, as YAML text must be Unicode. */
void fl_yaml_str(fl_yaml_out *y, const char *s);
/* text as a plain scalar: a number, true, false, null, an enum name the caller
 * vouches for (libyaml still quotes it if it cannot be plain). */
void fl_yaml_plain(fl_yaml_out *y, const char *text);
/* v in printf format fmt (one double conversion), or null when v is not finite. */
void fl_yaml_num(fl_yaml_out *y, const char *fmt, double v);
void fl_yaml_int(fl_yaml_out *y, long v);
void fl_yaml_null(fl_yaml_out *y);

/* key: value pairs of a mapping. */
void fl_yaml_key_str(fl_yaml_out *y, const char *key, const char *s);
void fl_yaml_key_plain(fl_yaml_out *y, const char *key, const char *text);
void fl_yaml_key_num(fl_yaml_out *y, const char *key, const char *fmt, double v);
void fl_yaml_key_int(fl_yaml_out *y, const char *key, long v);
void fl_yaml_key_null(fl_yaml_out *y, const char *key);
/* key: s, or key: null when s is empty (a file that was not written). */
void fl_yaml_key_str_or_null(fl_yaml_out *y, const char *key, const char *s);

#endif
