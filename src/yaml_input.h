/* yaml_input.h: a YAML file read for a loader, refused when it is larger or nests
 * deeper than any experiment or fit file needs, before libyaml builds a document
 * (whose time grows with the square of the nesting depth). */
#ifndef FL_YAML_INPUT_H
#define FL_YAML_INPUT_H

#include <stdarg.h>
#include <stddef.h>
#include <yaml.h>

/* The largest YAML file read, bytes: 1 MiB.  The experiment and fit files are a few
 * kB (the largest in experiments/ and fits/ has 2 kB), long lists of numbers live in
 * tables (measured.h), and libyaml's nodes take several times the file in memory. */
#define FL_YAML_MAX_BYTES (1024L * 1024L)

/* The deepest nesting of blocks and lists: 16.  An experiment file uses 3 (the top
 * block, bond, bond.failure; or test, test.cycles), a fit file 4 (the top block, the
 * data list, an item, its columns, units or set block). */
#define FL_YAML_MAX_DEPTH 16

/* Read the file at path into *text (*len bytes, to free()), for a loader to parse with
 * yaml_parser_set_input_string.  what names the kind of file for messages ("an
 * experiment file").  The size is checked before reading (fstat) and the nesting in a
 * pass over libyaml's events that stops at the limit; a file libyaml cannot parse is
 * left to the loader, which reports the error at its place.  Returns FL_OK; FL_EIO
 * ("PATH: cannot open: ..." or "cannot read"), FL_ELIMIT (too large, too deep: the
 * message names the limit) or FL_ENOMEM, with the message in err. */
int fl_yaml_input_read(const char *path, const char *what, unsigned char **text, size_t *len, char *err,
                       size_t errlen);

/* Read the file at path (fl_yaml_input_read: what names it, "an experiment file") and
 * load its one YAML document into doc (the caller deletes it; its root may be NULL for
 * an empty file).  A syntax error names its line and column and what YAML allows there
 * (spaces, not tabs, for indentation; UTF-8 text), and man names the man page of the
 * file's keys ("fiberlab-experiment(5)"); a second document is an error.  FL_OK, or
 * FL_EINPUT, FL_EIO, FL_ELIMIT, FL_ENOMEM with err. */
int fl_yaml_load(const char *path, const char *what, const char *man, yaml_document_t *doc, char *err, size_t errlen);

/* "FILE:LINE:COLUMN: message" of node n (line and column 1 without a node) into err,
 * the message made by fmt from ap: how fit and campaign files report an error at its
 * place.  Returns FL_EINPUT. */
int fl_yaml_fail_at(const char *file, char *err, size_t errlen, const yaml_node_t *n, const char *fmt, va_list ap);

#endif
