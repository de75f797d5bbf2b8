/* files.c: the inputs a program has read, the output sets it writes atomically, and
 * the paths it joins, none of them cut short. */
#include <config.h>

#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "fl_defs.h"

/* One input: what identifies the file, and how messages name it. */
typedef struct {
  dev_t dev;
  ino_t ino;
  char *path; /* as it was opened */
  char *what; /* which input it is */
} input;

static input *inputs;
static int ninputs, cap_inputs;

void fl_input_note(const char *path, FILE *f, const char *what)
{
  struct stat st;
  if ((f ? fstat(fileno(f), &st) : stat(path, &st)) != 0)
    return;
  int known = 0;
#pragma omp critical(fl_inputs)
  {
    for (int i = 0; i < ninputs && !known; i++)
      known = inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino;
    if (!known && ninputs == cap_inputs) {
      int cap = cap_inputs ? 2 * cap_inputs : 16;
      input *grown = realloc(inputs, (size_t)cap * sizeof *grown);
      if (grown) {
        inputs = grown;
        cap_inputs = cap;
      }
    }
    /* out of memory: the input goes unnoted, and an output may then replace it;
     * the program ends on that same shortage before it writes anything */
    if (!known && ninputs < cap_inputs) {
      input *in = &inputs[ninputs];
      in->dev = st.st_dev;
      in->ino = st.st_ino;
      in->path = strdup(path);
      in->what = strdup(what ? what : "an input");
      if (in->path && in->what)
        ninputs++;
      else {
        free(in->path);
        free(in->what);
      }
    }
  }
}

void fl_inputs_forget(void)
{
  for (int i = 0; i < ninputs; i++) {
    free(inputs[i].path);
    free(inputs[i].what);
  }
  free(inputs);
  inputs = NULL;
  ninputs = cap_inputs = 0;
}

int fl_output_check_one(const char *path, char *err, size_t errlen)
{
  struct stat st;
  if (stat(path, &st) != 0)
    return FL_OK; /* not there: no input can be it */
  for (int i = 0; i < ninputs; i++)
    if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino) {
      snprintf(err, errlen, "the output %s is the input %s (%s); allowed: outputs (-o PREFIX) that are not inputs",
               path, inputs[i].path, inputs[i].what);
      return FL_EINPUT;
    }
  return FL_OK;
}

void fl_outset_init(fl_outset *s, const char *prefix)
{
  memset(s, 0, sizeof *s);
  s->prefix = prefix;
}

int fl_outset_add(fl_outset *s, const char *suffix, const char *what)
{
  if (s->n == FL_OUTSET_MAX)
    return -1;
  size_t np = strlen(s->prefix), ns = strlen(suffix);
  char *name = malloc(np + ns + 1);
  if (!name)
    return -1;
  memcpy(name, s->prefix, np);
  memcpy(name + np, suffix, ns + 1);
  fl_outfile *o = &s->file[s->n];
  o->final = name;
  o->tmp = NULL;
  o->what = what;
  return s->n++;
}

int fl_outset_check(const fl_outset *s, char *err, size_t errlen)
{
  for (int k = 0; k < s->n; k++)
    if (fl_output_check_one(s->file[k].final, err, errlen))
      return FL_EINPUT;
  return FL_OK;
}

int fl_outset_prepare(const fl_outset *s, char *err, size_t errlen)
{
  size_t np = strlen(s->prefix), longest = 0;
  for (int k = 0; k < s->n; k++)
    if (strlen(s->file[k].final) - np > longest)
      longest = strlen(s->file[k].final) - np;
  size_t room = FL_OUTPUT_PATH - 1 - longest - strlen(".tmpXXXXXX");
  if (np > room) {
    snprintf(err, errlen, "the output prefix is %zu bytes long; allowed: at most %zu bytes", np, room);
    return FL_EINPUT;
  }
  int rc = fl_outset_check(s, err, errlen);
  if (rc == FL_OK)
    fl_outset_sweep(s);
  return rc;
}

/* A new temporary beside file k's final name, created empty (mkstemp: never an
 * existing file); its descriptor, or -1 with errno. */
static int make_temp(fl_outfile *o)
{
  size_t n = strlen(o->final);
  char *t = malloc(n + sizeof ".tmpXXXXXX");
  if (!t)
    return -1;
  memcpy(t, o->final, n);
  memcpy(t + n, ".tmpXXXXXX", sizeof ".tmpXXXXXX");
  int fd = mkstemp(t);
  if (fd < 0) {
    int e = errno;
    free(t);
    errno = e;
    return -1;
  }
  o->tmp = t;
  return fd;
}

FILE *fl_outset_open(fl_outset *s, int k)
{
  int fd = make_temp(&s->file[k]);
  if (fd < 0)
    return NULL;
  FILE *f = fdopen(fd, "w");
  if (!f) {
    int e = errno;
    close(fd);
    errno = e;
  }
  return f;
}

const char *fl_outset_reserve(fl_outset *s, int k)
{
  int fd = make_temp(&s->file[k]);
  if (fd < 0)
    return NULL;
  close(fd);
  return s->file[k].tmp;
}

int fl_outset_commit(fl_outset *s, char *err, size_t errlen)
{
  mode_t mask = umask(0);
  umask(mask);
  for (int k = 0; k < s->n; k++) {
    fl_outfile *o = &s->file[k];
    if (!o->tmp)
      continue;
    if (chmod(o->tmp, 0666 & ~mask) || rename(o->tmp, o->final)) {
      snprintf(err, errlen, "cannot move %s into place: %s", o->final, strerror(errno));
      fl_outset_abort(s);
      return FL_EIO;
    }
    free(o->tmp);
    o->tmp = NULL;
  }
  return FL_OK;
}

void fl_outset_abort(fl_outset *s)
{
  for (int k = 0; k < s->n; k++)
    if (s->file[k].tmp) {
      unlink(s->file[k].tmp);
      free(s->file[k].tmp);
      s->file[k].tmp = NULL;
    }
}

void fl_outset_sweep(const fl_outset *s)
{
  for (int k = 0; k < s->n; k++) {
    /* the final name as a pattern: its own wildcards escaped */
    const char *f = s->file[k].final;
    size_t n = strlen(f);
    char *pat = malloc(2 * n + sizeof ".tmp??????");
    if (!pat)
      return;
    char *p = pat;
    for (const char *c = f; *c; c++) {
      if (strchr("*?[\\", *c))
        *p++ = '\\';
      *p++ = *c;
    }
    memcpy(p, ".tmp??????", sizeof ".tmp??????");
    glob_t g;
    if (glob(pat, GLOB_NOSORT, NULL, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; i++) {
        struct stat st;
        if (lstat(g.gl_pathv[i], &st) == 0 && S_ISREG(st.st_mode))
          unlink(g.gl_pathv[i]);
      }
      globfree(&g);
    }
    free(pat);
  }
}

void fl_outset_free(fl_outset *s)
{
  fl_outset_abort(s);
  for (int k = 0; k < s->n; k++)
    free(s->file[k].final);
  s->n = 0;
}

int fl_path_join(const char *folder, const char *name, char *out, size_t len)
{
  int n = !folder || !*folder || name[0] == '/' ? snprintf(out, len, "%s", name)
                                                 : snprintf(out, len, "%s/%s", folder, name);
  return n < 0 || (size_t)n >= len ? FL_EINPUT : FL_OK;
}

int fl_path_relative(const char *base, const char *rel, char *out, size_t len)
{
  const char *slash = strrchr(base, '/');
  if (rel[0] == '/' || !slash) {
    int n = snprintf(out, len, "%s", rel);
    return n < 0 || (size_t)n >= len ? FL_EINPUT : FL_OK;
  }
  int n = snprintf(out, len, "%.*s/%s", (int)(slash - base), base, rel);
  return n < 0 || (size_t)n >= len ? FL_EINPUT : FL_OK;
}
