/* fit/checkpoint.c: the checkpoint of a calibration, a memo log of its evaluations
 * (fit.h): the header that ties it to the fit file and settings, the records keyed by
 * the bytes of the parameter vector, and the reading back of a log at --resume. */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "fl_defs.h"

#define CK_MAGIC "FLCALCK1"

struct fl_checkpoint {
  char path[FL_FIT_PATH];
  FILE *f;            /* open for appending; NULL after a write error */
  int found;
  fl_ck_record *rec;
  long nrec, cap, loaded, replayed, cursor;
};

/* What a log must have been written for: the fit file's length and hash, the hash of
 * everything else (settings_hash), the residuals and free parameters. */
typedef struct {
  uint64_t fit_len, fit_hash, set_hash;
  uint32_t n, p;
} ck_key;

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
  const unsigned char *c = data;
  for (size_t i = 0; i < len; i++) {
    h ^= c[i];
    h *= 1099511628211ULL;
  }
  return h;
}
#define FNV0 14695981039346656037ULL

/* Hash and length of a file's bytes; -1 when it cannot be read. */
static int hash_file(const char *path, uint64_t *h, uint64_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return -1;
  unsigned char buf[65536];
  size_t k;
  *h = FNV0;
  *len = 0;
  while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
    *h = fnv1a(*h, buf, k);
    *len += k;
  }
  int bad = ferror(f);
  fclose(f);
  return bad ? -1 : 0;
}

/* Everything but the fit file the evaluations depend on. */
static int settings_hash(const fl_fit *fit, const char *settings, uint64_t *out)
{
  uint64_t h = FNV0, fh, fl;
  for (int d = -1; d < fit->ndata; d++) {
    const char *paths[2] = {d < 0 ? fit->exp_path : fit->data[d].exp_path, d < 0 ? NULL : fit->data[d].path};
    for (int k = 0; k < 2; k++) {
      if (!paths[k])
        continue;
      if (hash_file(paths[k], &fh, &fl))
        return -1;
      h = fnv1a(h, &fh, sizeof fh);
      h = fnv1a(h, &fl, sizeof fl);
    }
  }
  /* the solver's settings and the sizes, each field's bytes in this order */
  const fl_fit_solver *s = &fit->solver;
  const struct {
    const void *at;
    size_t size;
  } field[] = {{&s->method, sizeof s->method},
               {&s->scale, sizeof s->scale},
               {&s->max_iterations, sizeof s->max_iterations},
               {&s->xtol, sizeof s->xtol},
               {&s->gtol, sizeof s->gtol},
               {&s->ftol, sizeof s->ftol},
               {&s->fd_step, sizeof s->fd_step},
               {&s->central, sizeof s->central},
               {&s->broyden, sizeof s->broyden},
               {&s->global, sizeof s->global},
               {&s->global_points, sizeof s->global_points},
               {&s->global_refine, sizeof s->global_refine},
               {&fit->npoints, sizeof fit->npoints},
               {&fit->nfree, sizeof fit->nfree}};
  for (size_t k = 0; k < sizeof field / sizeof field[0]; k++)
    h = fnv1a(h, field[k].at, field[k].size);
  if (settings)
    h = fnv1a(h, settings, strlen(settings));
  *out = h;
  return 0;
}

typedef struct {
  unsigned char *b;
  size_t len, cap;
} ck_buf;

static int buf_put(ck_buf *b, const void *data, size_t len)
{
  if (b->len + len > b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 4096;
    while (cap < b->len + len)
      cap *= 2;
    unsigned char *nb = realloc(b->b, cap);
    if (!nb)
      return -1;
    b->b = nb;
    b->cap = cap;
  }
  memcpy(b->b + b->len, data, len);
  b->len += len;
  return 0;
}

/* Reads from a byte range: 0 when the bytes are there. */
static int buf_get(const unsigned char *b, size_t len, size_t *pos, void *out, size_t k)
{
  if (len - *pos < k)
    return -1;
  memcpy(out, b + *pos, k);
  *pos += k;
  return 0;
}

static void ck_free_records(fl_checkpoint *ck)
{
  for (long i = 0; i < ck->nrec; i++) {
    free(ck->rec[i].u);
    free(ck->rec[i].v);
  }
  free(ck->rec);
  ck->rec = NULL;
  ck->nrec = ck->cap = 0;
}

static int ck_write_all(fl_checkpoint *ck, const void *data, size_t len)
{
  if (!ck->f || fwrite(data, 1, len, ck->f) != len || fflush(ck->f) || fsync(fileno(ck->f)))
    return -1;
  return 0;
}

/* The header of a log for fit into hb, and what it holds into key: FL_EIO when the
 * inputs cannot be read again, FL_ENOMEM (err set). */
static int ck_header(const fl_fit *fit, const char *settings, ck_key *key, ck_buf *hb, char *err, size_t errlen)
{
  if (hash_file(fit->file, &key->fit_hash, &key->fit_len) || settings_hash(fit, settings, &key->set_hash)) {
    snprintf(err, errlen, "cannot read the inputs again to check the checkpoint: %s", strerror(errno));
    return FL_EIO;
  }
  key->n = (uint32_t)fit->npoints;
  key->p = (uint32_t)fit->nfree;
  uint32_t namelen = (uint32_t)strlen(fit->file);
  int ok = !buf_put(hb, CK_MAGIC, 8) && !buf_put(hb, &key->fit_len, 8) && !buf_put(hb, &key->fit_hash, 8) &&
           !buf_put(hb, &key->set_hash, 8) && !buf_put(hb, &key->n, 4) && !buf_put(hb, &key->p, 4) &&
           !buf_put(hb, &namelen, 4) && !buf_put(hb, fit->file, namelen);
  uint64_t hsum = fnv1a(FNV0, hb->b, hb->len);
  ok = ok && !buf_put(hb, &hsum, 8);
  if (!ok) {
    snprintf(err, errlen, "out of memory");
    return FL_ENOMEM;
  }
  return FL_OK;
}

/* The whole of the open log in, at path, into fb; in closed. */
static int ck_slurp(FILE *in, const char *path, ck_buf *fb, char *err, size_t errlen)
{
  unsigned char chunk[65536];
  size_t k;
  int rc = FL_OK;
  while ((k = fread(chunk, 1, sizeof chunk, in)) > 0)
    if (buf_put(fb, chunk, k)) {
      rc = FL_ENOMEM;
      break;
    }
  if (ferror(in) && !rc) {
    snprintf(err, errlen, "--resume: cannot read the checkpoint %s: %s", path, strerror(errno));
    rc = FL_EIO;
  }
  fclose(in);
  if (rc == FL_ENOMEM)
    snprintf(err, errlen, "out of memory");
  return rc;
}

/* The header of the log fb read from path, checked against key: FL_EINPUT when it is
 * not a checkpoint or was written for another fit file or other settings (err says
 * which); *pos past the header as far as it could be read. */
static int ck_check_header(const ck_buf *fb, const char *path, const fl_fit *fit, const ck_key *key, size_t *pos,
                           char *err, size_t errlen)
{
  char magic[8];
  uint64_t flen = 0, fhash = 0, shash = 0, sum = 0;
  uint32_t cn = 0, cp = 0, cl = 0;
  char name[FL_FIT_PATH] = "";
  int hdr = !buf_get(fb->b, fb->len, pos, magic, 8) && memcmp(magic, CK_MAGIC, 8) == 0 &&
            !buf_get(fb->b, fb->len, pos, &flen, 8) && !buf_get(fb->b, fb->len, pos, &fhash, 8) &&
            !buf_get(fb->b, fb->len, pos, &shash, 8) && !buf_get(fb->b, fb->len, pos, &cn, 4) &&
            !buf_get(fb->b, fb->len, pos, &cp, 4) && !buf_get(fb->b, fb->len, pos, &cl, 4) && cl < sizeof name &&
            !buf_get(fb->b, fb->len, pos, name, cl);
  if (hdr) {
    name[cl] = '\0';
    uint64_t want = fnv1a(FNV0, fb->b, *pos);
    hdr = !buf_get(fb->b, fb->len, pos, &sum, 8) && sum == want;
  }
  if (!hdr) {
    snprintf(err, errlen, "--resume: %s is not a fiber-calibrate checkpoint, or its header is damaged; allowed: "
             "the PREFIX.checkpoint of an interrupted run, or run without --resume to start over", path);
    return FL_EINPUT;
  }
  if (flen != key->fit_len || fhash != key->fit_hash) {
    snprintf(err, errlen, "--resume: the checkpoint %s was written for the fit file %.1000s (%llu bytes), whose "
             "bytes differ from %.1000s (%llu bytes); allowed: --resume with the fit file and settings of the "
             "interrupted run, or run without --resume to start over", path, name, (unsigned long long)flen,
             fit->file, (unsigned long long)key->fit_len);
    return FL_EINPUT;
  }
  if (shash != key->set_hash || cn != key->n || cp != key->p) {
    snprintf(err, errlen, "--resume: the checkpoint %s was written with other settings (an experiment or data "
             "file, --set, --seed, --device or --threads differs) than this run of %.1000s; allowed: --resume "
             "with the fit file and settings of the interrupted run, or run without --resume to start over",
             path, fit->file);
    return FL_EINPUT;
  }
  return FL_OK;
}

/* The records of the log fb from pos, up to the first that is cut short or damaged,
 * into ck; *valid: the end of the last whole one.  FL_ENOMEM (err set) or FL_OK. */
static int ck_read_records(fl_checkpoint *ck, const ck_buf *fb, size_t pos, const ck_key *key, size_t *valid,
                           char *err, size_t errlen)
{
  for (;;) {
    size_t r0 = pos;
    fl_ck_record r;
    memset(&r, 0, sizeof r);
    if (buf_get(fb->b, fb->len, &pos, &r.tag, 4) || buf_get(fb->b, fb->len, &pos, &r.flags, 4) ||
        buf_get(fb->b, fb->len, &pos, &r.dsim, 8) || buf_get(fb->b, fb->len, &pos, &r.dbatch, 8) ||
        buf_get(fb->b, fb->len, &pos, &r.nu, 4) || buf_get(fb->b, fb->len, &pos, &r.nv, 4))
      return FL_OK;
    uint32_t wantv = r.tag == FL_CK_TAG_F ? key->n : r.tag == FL_CK_TAG_DF ? key->n * key->p : 0;
    if (r.nu != key->p || r.nv != wantv || wantv == 0)
      return FL_OK;
    if (fb->len - pos < ((size_t)r.nu + r.nv) * sizeof(double) + 8)
      return FL_OK;
    const unsigned char *data = fb->b + pos;
    pos += ((size_t)r.nu + r.nv) * sizeof(double);
    uint64_t rsum;
    memcpy(&rsum, fb->b + pos, 8);
    pos += 8;
    if (rsum != fnv1a(FNV0, fb->b + r0, pos - 8 - r0))
      return FL_OK;
    r.u = malloc(r.nu * sizeof(double));
    r.v = malloc(r.nv * sizeof(double));
    if (ck->nrec == ck->cap) {
      long cap = ck->cap ? 2 * ck->cap : 64;
      fl_ck_record *nr = realloc(ck->rec, (size_t)cap * sizeof *nr);
      if (nr) {
        ck->rec = nr;
        ck->cap = cap;
      }
    }
    if (!r.u || !r.v || ck->nrec == ck->cap) {
      free(r.u);
      free(r.v);
      snprintf(err, errlen, "out of memory");
      return FL_ENOMEM;
    }
    memcpy(r.u, data, r.nu * sizeof(double));
    memcpy(r.v, data + r.nu * sizeof(double), r.nv * sizeof(double));
    ck->rec[ck->nrec++] = r;
    *valid = pos;
  }
}

/* A resume from the log open as in at path: its header checked against key, its
 * records loaded, a record the interrupted run left half written cut off, and the
 * file opened for appending. */
static int ck_resume(fl_checkpoint *ck, FILE *in, const char *path, const fl_fit *fit, const ck_key *key, char *err,
                     size_t errlen)
{
  ck_buf fb = {NULL, 0, 0};
  size_t pos = 0, valid;
  ck->found = 1;
  int rc = ck_slurp(in, path, &fb, err, errlen);
  if (!rc)
    rc = ck_check_header(&fb, path, fit, key, &pos, err, errlen);
  valid = pos;
  if (!rc)
    rc = ck_read_records(ck, &fb, pos, key, &valid, err, errlen);
  free(fb.b);
  ck->loaded = ck->nrec;
  if (!rc && truncate(path, (off_t)valid)) {
    snprintf(err, errlen, "--resume: cannot truncate the checkpoint %s: %s", path, strerror(errno));
    rc = FL_EIO;
  }
  if (!rc && !(ck->f = fopen(path, "ab"))) {
    snprintf(err, errlen, "--resume: cannot append to the checkpoint %s: %s", path, strerror(errno));
    rc = FL_EIO;
  }
  return rc;
}

int fl_checkpoint_open(const char *path, const fl_fit *fit, const char *settings, int resume, fl_checkpoint **out,
                       char *err, size_t errlen)
{
  *out = NULL;
  ck_key key;
  ck_buf hb = {NULL, 0, 0};
  int rc = ck_header(fit, settings, &key, &hb, err, errlen);
  fl_checkpoint *ck = rc ? NULL : calloc(1, sizeof *ck);
  if (!rc && !ck) {
    snprintf(err, errlen, "out of memory");
    rc = FL_ENOMEM;
  }
  if (rc) {
    free(hb.b);
    return rc;
  }
  snprintf(ck->path, sizeof ck->path, "%s", path);
  FILE *in = resume ? fopen(path, "rb") : NULL;
  if (resume && !in && errno != ENOENT) {
    snprintf(err, errlen, "--resume: cannot read the checkpoint %s: %s", path, strerror(errno));
    rc = FL_EIO;
  } else if (in) {
    rc = ck_resume(ck, in, path, fit, &key, err, errlen);
  } else if (!(ck->f = fopen(path, "wb")) || ck_write_all(ck, hb.b, hb.len)) {
    /* a new log (replacing any earlier one) */
    snprintf(err, errlen, "cannot write the checkpoint %s: %s", path, strerror(errno));
    rc = FL_EIO;
  }
  free(hb.b);
  if (rc) {
    if (ck->f)
      fclose(ck->f);
    ck_free_records(ck);
    free(ck);
    return rc;
  }
  *out = ck;
  return FL_OK;
}

long fl_checkpoint_loaded(const fl_checkpoint *ck) { return ck ? ck->loaded : 0; }
long fl_checkpoint_replayed(const fl_checkpoint *ck) { return ck ? ck->replayed : 0; }
int fl_checkpoint_found(const fl_checkpoint *ck) { return ck ? ck->found : 0; }

void fl_checkpoint_close(fl_checkpoint *ck, int remove_file)
{
  if (!ck)
    return;
  if (ck->f)
    fclose(ck->f);
  if (remove_file)
    unlink(ck->path);
  ck_free_records(ck);
  free(ck);
}

const fl_ck_record *fl_checkpoint_lookup(fl_checkpoint *ck, uint32_t tag, const gsl_vector *u)
{
  if (!ck || ck->loaded == 0)
    return NULL;
  size_t p = u->size;
  double key[FL_FIT_MAX_FREE];
  for (size_t j = 0; j < p; j++)
    key[j] = gsl_vector_get(u, j);
  for (long k = 0; k < ck->loaded; k++) {
    long i = (ck->cursor + k) % ck->loaded;
    const fl_ck_record *r = &ck->rec[i];
    if (r->tag == tag && r->nu == p && memcmp(r->u, key, p * sizeof(double)) == 0) {
      ck->cursor = (i + 1) % ck->loaded;
      ck->replayed++;
      return r;
    }
  }
  return NULL;
}

void fl_checkpoint_append(fl_checkpoint *ck, FILE *log, const char *prog, uint32_t tag, uint32_t flags, long dsim,
                          long dbatch, const gsl_vector *u, const double *v, size_t nv)
{
  if (!ck || !ck->f)
    return;
  ck_buf b = {NULL, 0, 0};
  uint32_t nu = (uint32_t)u->size, nv32 = (uint32_t)nv;
  int64_t ds = dsim, db = dbatch;
  int ok = !buf_put(&b, &tag, 4) && !buf_put(&b, &flags, 4) && !buf_put(&b, &ds, 8) && !buf_put(&b, &db, 8) &&
           !buf_put(&b, &nu, 4) && !buf_put(&b, &nv32, 4);
  for (size_t j = 0; j < u->size && ok; j++) {
    double x = gsl_vector_get(u, j);
    ok = !buf_put(&b, &x, sizeof x);
  }
  ok = ok && !buf_put(&b, v, nv * sizeof(double));
  uint64_t sum = ok ? fnv1a(FNV0, b.b, b.len) : 0;
  ok = ok && !buf_put(&b, &sum, 8);
  if (!ok || ck_write_all(ck, b.b, b.len)) {
    if (log)
      fprintf(log, "%s: warning: cannot write the checkpoint %s (%s): the calibration goes on without it\n",
              prog ? prog : "fiber-calibrate", ck->path, ok ? strerror(errno) : "out of memory");
    fclose(ck->f);
    ck->f = NULL;
  }
  free(b.b);
}
