/* experiment_keys.h: the table of an experiment's keys and the record of where each was
 * given, shared by the loader (yaml_experiment.c), the checks (experiment_checks.c) and
 * the writer (experiment_write.c); private to them (experiment.h is the public side). */
#ifndef FL_EXPERIMENT_KEYS_H
#define FL_EXPERIMENT_KEYS_H

#include <stdarg.h>
#include <stddef.h>

#include "experiment.h"

#define DEG (FL_PI / 180.0)

enum key_type {
  KT_SECTION, /* a mapping of further keys */
  KT_REAL,    /* double in [min, max] */
  KT_REAL_AUTO, /* double, or "auto" stored as -1 */
  KT_DEG,     /* degrees in YAML, radians inside */
  KT_INT,
  KT_SEED,
  KT_BOOL,
  KT_ENUM,
  KT_CYCLES,  /* a list of turning points */
  KT_FILE     /* a file name, relative to the experiment file (char[FL_PATH_LEN]) */
};

/* Bit per test kind a key belongs to; 0 for keys outside the test block. */
#define K_BEND (1 << FL_TEST_BEND3PT)
#define K_TENS (1 << FL_TEST_TENSION)
#define K_TORS (1 << FL_TEST_TORSION)
#define K_CANT (1 << FL_TEST_CANTILEVER)
#define K_B4 (1 << FL_TEST_BEND4PT)
#define K_COMP (1 << FL_TEST_COMPRESSION)
#define K_ALL (K_BEND | K_TENS | K_TORS | K_CANT | K_B4 | K_COMP)

typedef struct {
  const char *path;           /* dotted path */
  enum key_type type;
  size_t offset;              /* of the value in fl_experiment */
  double min, max;            /* allowed range */
  int min_open, max_open;     /* 1: bound excluded */
  const char *unit;           /* for messages */
  const char *const *names;   /* KT_ENUM */
  int kinds;                  /* test kinds (test block only) */
  long given;                 /* offset of an int flag set when the key is given, or -1 */
} key_def;

/* The keys in the order a written experiment lists them, each section before its keys. */
extern const key_def fl_exp_keys[];
extern const size_t fl_exp_nkeys;

/* The names of the enumerations, in the order of their enums, each list ending with NULL. */
extern const char *const fl_exp_kind_names[];
extern const char *const fl_exp_criterion_names[];
extern const char *const fl_exp_post_names[];
extern const char *const fl_exp_buckling_names[];
extern const char *const fl_exp_shape_names[];

/* The key at a dotted path, or NULL; its index into the key_* arrays of fl_experiment. */
const key_def *fl_exp_key_find(const char *path);
static inline size_t fl_exp_key_index(const key_def *k) { return (size_t)(k - fl_exp_keys); }
/* "a, b, c": the keys allowed directly under prefix ("" the top level), those of test
 * kind kind only (-1: of every kind). */
void fl_exp_keys_allowed(const char *prefix, int kind, char *buf, size_t len);

/* Where a value came from, for messages. */
typedef struct {
  const char *file; /* file name, or NULL for a -s option */
  const char *arg;  /* the -s argument */
  size_t line, col; /* 1-based */
} fl_exp_origin;

/* "file:line:col: message", or "--set 'ARG': message", into err; returns FL_EINPUT. */
int fl_exp_fail(char *err, size_t errlen, const fl_exp_origin *o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int fl_exp_vfail(char *err, size_t errlen, const fl_exp_origin *o, const char *fmt, va_list ap);
/* Where key path was given: its line in the file (or in the fit file that set it), or
 * the command line; line 1 of file when it was not given. */
fl_exp_origin fl_exp_key_origin(const fl_experiment *exp, const char *file, const char *path);
/* 1 when the file or an option gave key path. */
int fl_exp_key_given(const fl_experiment *exp, const char *path);

/* An experiment being finished (fl_experiment_finish: experiment_checks.c and each test
 * kind's checks), and where its messages go. */
typedef struct fl_exp_checker {
  fl_experiment *exp;
  const char *path; /* the experiment file, for messages */
  char *err;
  size_t errlen;
} fl_exp_checker;
/* A failed check, at the place key was given: the message into c->err; FL_EINPUT. */
int fl_exp_check_fail(const fl_exp_checker *c, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int fl_exp_check_vfail(const fl_exp_checker *c, const char *key, const char *fmt, va_list ap);

/* Warnings about a valid experiment gathered one a line into buf
 * (fl_experiment_warnings). */
typedef struct fl_exp_warner {
  const fl_experiment *exp;
  const char *path; /* the experiment file, for messages */
  char *buf;
  size_t len, used; /* used: as snprintf counts, which may pass len */
  int n;            /* lines written, and before buf (unit warnings) */
} fl_exp_warner;
/* One warning about key, at the place it was given, while buf has room. */
void fl_exp_warn(fl_exp_warner *w, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void fl_exp_vwarn(fl_exp_warner *w, const char *key, const char *fmt, va_list ap);

#endif
