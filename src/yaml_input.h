/* yaml_input.h: what the experiment, fit and campaign loaders share: a YAML file loaded
 * as one document (refused when it is larger or nests deeper than any of their files
 * needs, before libyaml builds a document, whose time grows with the square of the
 * nesting depth), its nodes read as keys, values, numbers and choices, and the messages
 * at a node's line and column. */
#ifndef FL_YAML_INPUT_H
#define FL_YAML_INPUT_H

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

/* Read the file at path (what names it for messages: "an experiment file") and load its
 * one YAML document into doc (the caller deletes it; its root may be NULL for an empty
 * file).  The size is checked before reading and the nesting in a pass over libyaml's
 * events that stops at the limit.  A syntax error names its line and column and what
 * YAML allows there (spaces, not tabs, for indentation; UTF-8 text), and man names the
 * man page of the file's keys ("fiberlab-experiment(5)"); a second document is an
 * error.  FL_OK, or FL_EINPUT, FL_EIO ("PATH: cannot open: ..."), FL_ELIMIT (too large,
 * too deep: the message names the limit), FL_ENOMEM with err. */
int fl_yaml_load(const char *path, const char *what, const char *man, yaml_document_t *doc, char *err, size_t errlen);

/* ---- the nodes of a loaded document, as the loaders read them ---------------- */

/* A document being read, and where its messages go. */
typedef struct {
  const char *file;     /* the file, for messages */
  yaml_document_t *doc; /* loaded by fl_yaml_load */
  char *err;            /* "FILE:LINE:COLUMN: message" */
  size_t errlen;
} fl_yaml_reader;

/* The message made by fmt, at node n of r's file (line and column 1 without a node),
 * into r->err.  Returns FL_EINPUT. */
int fl_yaml_fail(const fl_yaml_reader *r, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* n's text when it is a scalar, else NULL (also for a NULL n). */
const char *fl_yaml_scalar(const yaml_node_t *n);
/* What n is, for messages: "a block of keys", "a list" or "a value". */
const char *fl_yaml_node_kind(const yaml_node_t *n);
/* The value of key in block map, or NULL; *keynode, when keynode is not NULL, gets the
 * key's node. */
yaml_node_t *fl_yaml_value(yaml_document_t *doc, const yaml_node_t *map, const char *key, yaml_node_t **keynode);
/* names (a list ending with NULL) joined by sep into buf: "a | b | c". */
void fl_yaml_join(const char *const *names, const char *sep, char *buf, size_t len);

/* The messages of every loader about a block and its keys, "KEY: ...; allowed: ...",
 * without their place (the loader adds it), into msg (len bytes).  what names a block
 * in messages ("bond.failure", "data[1]"; "" for the top level), key or path a key by
 * its full name ("data[1].weight"). */
/* Block map is not one (key "": the top level), list its allowed keys. */
void fl_yaml_msg_not_block(const char *key, const yaml_node_t *map, const char *list, char *msg, size_t len);
/* Node keynode, a key of block what, is not a plain name. */
void fl_yaml_msg_not_plain(const char *what, const yaml_node_t *keynode, char *msg, size_t len);
/* The value n of key is not a single value. */
void fl_yaml_msg_not_scalar(const char *key, const yaml_node_t *n, char *msg, size_t len);
/* Key path is not allowed: in block in ("" : no block named), or, with note, for note
 * ("a peaks item", "a tension test"); list says which are. */
void fl_yaml_msg_unknown(const char *path, const char *in, const char *note, const char *list, char *msg, size_t len);
/* The key of pair p of block map (named what), when it repeats an earlier key of map
 * (libyaml keeps both silently): the earlier key's node, with the message in msg;
 * NULL when it does not. */
const yaml_node_t *fl_yaml_duplicate(yaml_document_t *doc, const yaml_node_t *map, const yaml_node_pair_t *p,
                                     const char *what, char *msg, size_t len);

/* ---- scalars as numbers, integers and choices ---------------------------------- */

/* The numbers a key allows. */
typedef struct {
  double min, max;        /* bounds */
  int min_open, max_open; /* 1: the bound is excluded */
  const char *unit;       /* for messages; "" for a number without unit */
} fl_yaml_range;

/* 1 with *v when the whole of text is a finite number (strtod), else 0 (text NULL too). */
int fl_yaml_parse_double(const char *text, double *v);
/* text, the value of key, as a number in r: FL_OK with *v, or FL_EINPUT with "KEY:
 * 'TEXT' is not a number; allowed: a number in (0, 1000] m" (with a hint for a decimal
 * comma) or "... is out of range; ..." in msg.  or_auto: the key also takes auto, which
 * the caller has tried, and the messages say so. */
int fl_yaml_number(const char *key, const char *text, const fl_yaml_range *r, int or_auto, double *v, char *msg,
                   size_t len);
/* text as an integer in [lo, hi]: FL_OK with *v, or FL_EINPUT with the message. */
int fl_yaml_integer(const char *key, const char *text, long lo, long hi, int *v, char *msg, size_t len);
/* text as one of names (ending with NULL): FL_OK with its index, or FL_EINPUT. */
int fl_yaml_choice(const char *key, const char *text, const char *const *names, int *v, char *msg, size_t len);

/* The same on a node of r's document, failing at the node: a single value, then a
 * number, an integer or a choice. */
int fl_yaml_need_scalar(const fl_yaml_reader *r, const yaml_node_t *n, const char *key, const char **text);
int fl_yaml_read_number(const fl_yaml_reader *r, const yaml_node_t *n, const char *key, const fl_yaml_range *range,
                        double *v);
int fl_yaml_read_integer(const fl_yaml_reader *r, const yaml_node_t *n, const char *key, long lo, long hi, int *v);
int fl_yaml_read_choice(const fl_yaml_reader *r, const yaml_node_t *n, const char *key, const char *const *names,
                        int *v);

#endif
