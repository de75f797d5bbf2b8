/* files.h: the files a program reads and the sets of files it writes; no output ever
 * replaces an input.
 *
 * Every reader notes the file it opened (fl_input_note), by its identity: device and
 * inode.  A writer gathers its outputs in an fl_outset: the final names first, checked
 * against every input before anything is opened (fl_outset_check: another spelling of
 * the same file, a link to it, is caught), then each written under a temporary name
 * beside its final one, and all renamed into place once every one is complete, or all
 * temporaries removed.  Names are allocated, never cut to a buffer. */
#ifndef FL_FILES_H
#define FL_FILES_H

#include <stddef.h>
#include <stdio.h>

/* Note that the file at path, open as f (or NULL: looked up by name), is an input;
 * what says which ("the specimen table", "data[1].file of fit.yaml"), for messages. */
void fl_input_note(const char *path, FILE *f, const char *what);
/* Forget every input noted (a program that starts over, the tests). */
void fl_inputs_forget(void);

/* The most files one writer writes at once. */
#define FL_OUTSET_MAX 16

typedef struct {
  char *final;      /* the name it gets once the set is complete */
  char *tmp;        /* its temporary while written (NULL: none yet) */
  const char *what; /* the summary key that names it ("csv", "plot"), or NULL */
} fl_outfile;

typedef struct {
  const char *prefix;             /* every file is PREFIX SUFFIX */
  int n;                          /* files in the set */
  fl_outfile file[FL_OUTSET_MAX]; /* in the order they were added */
} fl_outset;

/* The longest name an output may have, its temporary's suffix included (the
 * system's path limit). */
#define FL_OUTPUT_PATH 4096

void fl_outset_init(fl_outset *s, const char *prefix);
/* Add the file PREFIX SUFFIX; returns its index, or -1 when out of memory or the set
 * is full. */
int fl_outset_add(fl_outset *s, const char *suffix, const char *what);
/* FL_OK, or FL_EINPUT when a final name is a file the program has read, with err
 * "the output X is the input Y (what); allowed: ...". */
int fl_outset_check(const fl_outset *s, char *err, size_t errlen);
/* Before anything is written: FL_EINPUT with err when a name, with its temporary's
 * suffix, would be longer than FL_OUTPUT_PATH - 1 bytes (the prefix is too long), or
 * fl_outset_check fails; else the temporaries an earlier, killed run left beside the
 * files are removed (fl_outset_sweep) and FL_OK. */
int fl_outset_prepare(const fl_outset *s, char *err, size_t errlen);
/* Open file k's temporary for writing (mkstemp beside the final name); NULL with errno. */
FILE *fl_outset_open(fl_outset *s, int k);
/* Reserve file k's temporary for another program to write (gnuplot); its name, or NULL. */
const char *fl_outset_reserve(fl_outset *s, int k);
/* Rename every temporary into place (mode 0666 less the umask); FL_EIO with err.  The
 * files without a temporary are left out (a plot not made). */
int fl_outset_commit(fl_outset *s, char *err, size_t errlen);
/* Remove every temporary still there (a failed write). */
void fl_outset_abort(fl_outset *s);
/* Remove the temporaries that an earlier run of the same outputs left when it was
 * killed while writing (FINAL.tmpXXXXXX, regular files). */
void fl_outset_sweep(const fl_outset *s);
void fl_outset_free(fl_outset *s);

/* The output named path, checked alone as fl_outset_check checks a set. */
int fl_output_check_one(const char *path, char *err, size_t errlen);

/* folder/name into out (name alone when folder is empty or name is absolute).  FL_OK,
 * or FL_EINPUT when the path would not fit in len bytes (longer than the system opens). */
int fl_path_join(const char *folder, const char *name, char *out, size_t len);
/* rel taken relative to the folder of the file base (unless rel is absolute or base has
 * no folder), into out: how experiment, fit and campaign files name the files they use.
 * FL_OK, or FL_EINPUT when it would not fit in len bytes. */
int fl_path_relative(const char *base, const char *rel, char *out, size_t len);

#endif
