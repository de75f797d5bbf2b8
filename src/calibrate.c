/* calibrate.c: the least-squares driver of fiber-calibrate (gsl_multifit_nlinear, trust
 * region): bounded parameters by a smooth transform, residuals of simulated against
 * measured curves, a finite-difference Jacobian whose perturbed runs go through the
 * engine as one batch, starting values from beam theory, the evaluations the global
 * stage asks for (fit_global.h), and the report (calibrated experiment, curves CSV,
 * gnuplot overlay, YAML summary). */
#include <config.h>

#include <errno.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dem_sheet.h"
#include "fit.h"
#include "cantilever.h"
#include "fit_global.h"
#include "fl_defs.h"
#include "output.h" /* gnuplot and atomic-output helpers */
#include "run.h"
#include "static.h" /* fl_solver_resolve */
#include "system.h" /* fl_section_hollow */
#include "yaml_emit.h"

#define X_MARGIN 1.05   /* simulated maximum over the largest measured abscissa */
#define BOUND_FRAC 1e-3 /* a value this close to a bound (fraction of the range) is at it */
#define MAX_RESTARTS 10 /* trust regions started again from a cheaper difference point (stall_probe) */
#define CRAWL_STEPS 4   /* accepted iterations over which a crawl along a valley is judged (valley_leap): */
#define CRAWL_GAIN 0.01 /* ... together lowering the cost by less than this fraction of it, */
#define CRAWL_COS 0.9   /* ... each step within this cosine of their sum */
#define MAX_LEAPS 10    /* leaps along a valley tried a fit */

/* The numbers of the buckling envelope a fit may free, in fl_drop_features' order (the
 * peak, the plateau, its end, the slope beyond it). */
static const char *const buckling_keys[4] = {"bond.buckling.max_force", "bond.buckling.min_force",
                                             "bond.buckling.displacement_at_min_force",
                                             "bond.buckling.slope_after_min_force"};

/* ---- bounds by a smooth transform ---------------------------------------------------
 * theta = min + (max - min) s(u) with the logistic s(u) = 1 / (1 + e^-u); when min > 0
 * the same is done on log(theta), so that a range over decades is searched evenly. */

static double param_frac(const fl_fit_param *p, double theta)
{
  if (p->min > 0.0)
    return (log(theta) - log(p->min)) / (log(p->max) - log(p->min));
  return (theta - p->min) / (p->max - p->min);
}

/* The least-squares cost of residuals f: half their sum of squares. */
static double cost_of(const gsl_vector *f)
{
  double chi = gsl_blas_dnrm2(f);
  return 0.5 * chi * chi;
}

/* A curve's difference step in the transformed parameter u (solver.difference_step,
 * relative, at least of 1e-2). */
static double diff_step(const fl_fit *fit, double u)
{
  return fit->solver.fd_step * fmax(fabs(u), 1e-2);
}

/* Whether theta is at one of p's bounds (within BOUND_FRAC of the range). */
static int at_bound(const fl_fit_param *p, double theta)
{
  double fr = param_frac(p, theta);
  return fr < BOUND_FRAC || fr > 1.0 - BOUND_FRAC;
}

static double to_u(const fl_fit_param *p, double theta)
{
  double f = param_frac(p, theta);
  if (f < 1e-12)
    f = 1e-12;
  if (f > 1.0 - 1e-12)
    f = 1.0 - 1e-12;
  return log(f / (1.0 - f));
}

/* theta(u), and d theta / d u in *deriv (may be NULL). */
static double from_u(const fl_fit_param *p, double u, double *deriv)
{
  double s = 1.0 / (1.0 + exp(-u)), ds = s * (1.0 - s), theta;
  if (p->min > 0.0) {
    double a = log(p->min), b = log(p->max);
    theta = exp(a + (b - a) * s);
    if (deriv)
      *deriv = theta * (b - a) * ds;
  } else {
    theta = p->min + (p->max - p->min) * s;
    if (deriv)
      *deriv = (p->max - p->min) * ds;
  }
  if (theta <= p->min) /* rounding at |u| large */
    theta = nextafter(p->min, p->max);
  if (theta >= p->max)
    theta = nextafter(p->max, p->min);
  return theta;
}

/* The point a fraction f of the way through the bounds (in the transform's scale). */
static double param_at(const fl_fit_param *p, double f)
{
  if (p->min > 0.0)
    return exp(log(p->min) + f * (log(p->max) - log(p->min)));
  return p->min + f * (p->max - p->min);
}

static double clamp_inside(const fl_fit_param *p, double theta)
{
  if (!(param_frac(p, theta) > 0.01))
    return param_at(p, 0.01);
  if (!(param_frac(p, theta) < 0.99))
    return param_at(p, 0.99);
  return theta;
}

/* ---- the checkpoint: a memo log of the evaluations (fit.h) ------------------------- */

#define CK_MAGIC "FLCALCK1"
#define CK_TAG_F 0x66u    /* 'f': residuals */
#define CK_TAG_DF 0x4au   /* 'J': Jacobian */
#define CK_FAILED_TRIAL 1u /* flags: a trial point that did not run */

typedef struct {
  uint32_t tag, flags;
  int64_t dsim, dbatch;
  uint32_t nu, nv;
  double *u, *v;
} ck_record;

struct fl_checkpoint {
  char path[FL_FIT_PATH];
  FILE *f;            /* open for appending; NULL after a write error */
  int found;
  ck_record *rec;
  long nrec, cap, loaded, replayed, cursor;
  int write_failed;
};

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
  const fl_fit_solver *s = &fit->solver;
  h = fnv1a(h, &s->method, sizeof s->method);
  h = fnv1a(h, &s->scale, sizeof s->scale);
  h = fnv1a(h, &s->max_iterations, sizeof s->max_iterations);
  h = fnv1a(h, &s->xtol, sizeof s->xtol);
  h = fnv1a(h, &s->gtol, sizeof s->gtol);
  h = fnv1a(h, &s->ftol, sizeof s->ftol);
  h = fnv1a(h, &s->fd_step, sizeof s->fd_step);
  h = fnv1a(h, &s->central, sizeof s->central);
  h = fnv1a(h, &s->global, sizeof s->global);
  h = fnv1a(h, &s->global_points, sizeof s->global_points);
  h = fnv1a(h, &s->global_refine, sizeof s->global_refine);
  h = fnv1a(h, &fit->npoints, sizeof fit->npoints);
  h = fnv1a(h, &fit->nfree, sizeof fit->nfree);
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

/* The test hook FL_CALIBRATE_PAUSE (man 1 fiber-calibrate, ENVIRONMENT): "checkpoint:K"
 * stops the process with SIGSTOP once the K-th checkpoint of the process is open and its
 * header written, "record:N" once it has appended its N-th record.  A test waits for the
 * stopped state, sends its signal and continues the process, so what the signal meets does
 * not depend on how fast the machine is.  Any other value, or none, never pauses. */
static void ck_pause(int is_record)
{
  static int parsed = 0, kind = -1;
  static long at = 0, opens = 0, records = 0;
  if (!parsed) {
    parsed = 1;
    const char *v = getenv("FL_CALIBRATE_PAUSE");
    char *end = NULL;
    if (v && !strncmp(v, "checkpoint:", 11)) {
      at = strtol(v + 11, &end, 10);
      kind = end && !*end && at > 0 ? 0 : -1;
    } else if (v && !strncmp(v, "record:", 7)) {
      at = strtol(v + 7, &end, 10);
      kind = end && !*end && at > 0 ? 1 : -1;
    }
  }
  long count = is_record ? ++records : ++opens;
  if (kind == is_record && count == at)
    raise(SIGSTOP);
}

static int ck_write_all(fl_checkpoint *ck, const void *data, size_t len)
{
  if (!ck->f || fwrite(data, 1, len, ck->f) != len || fflush(ck->f) || fsync(fileno(ck->f)))
    return -1;
  return 0;
}

int fl_checkpoint_open(const char *path, const fl_fit *fit, const char *settings, int resume, fl_checkpoint **out,
                       char *err, size_t errlen)
{
  *out = NULL;
  uint64_t fit_hash, fit_len, set_hash;
  if (hash_file(fit->file, &fit_hash, &fit_len) || settings_hash(fit, settings, &set_hash)) {
    snprintf(err, errlen, "cannot read the inputs again to check the checkpoint: %s", strerror(errno));
    return FL_EIO;
  }
  fl_checkpoint *ck = calloc(1, sizeof *ck);
  if (!ck) {
    snprintf(err, errlen, "out of memory");
    return FL_ENOMEM;
  }
  snprintf(ck->path, sizeof ck->path, "%s", path);
  /* the header */
  ck_buf hb = {NULL, 0, 0};
  uint32_t n32 = (uint32_t)fit->npoints, p32 = (uint32_t)fit->nfree, namelen = (uint32_t)strlen(fit->file);
  int ok = !buf_put(&hb, CK_MAGIC, 8) && !buf_put(&hb, &fit_len, 8) && !buf_put(&hb, &fit_hash, 8) &&
           !buf_put(&hb, &set_hash, 8) && !buf_put(&hb, &n32, 4) && !buf_put(&hb, &p32, 4) &&
           !buf_put(&hb, &namelen, 4) && !buf_put(&hb, fit->file, namelen);
  uint64_t hsum = fnv1a(FNV0, hb.b, hb.len);
  ok = ok && !buf_put(&hb, &hsum, 8);
  if (!ok) {
    free(hb.b);
    free(ck);
    snprintf(err, errlen, "out of memory");
    return FL_ENOMEM;
  }
  int rc = FL_OK;
  size_t valid = 0;
  FILE *in = resume ? fopen(path, "rb") : NULL;
  if (resume && !in && errno != ENOENT) {
    snprintf(err, errlen, "--resume: cannot read the checkpoint %s: %s", path, strerror(errno));
    rc = FL_EIO;
    goto done;
  }
  if (in) {
    ck->found = 1;
    ck_buf fb = {NULL, 0, 0};
    unsigned char chunk[65536];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, in)) > 0)
      if (buf_put(&fb, chunk, k)) {
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
    /* its header */
    size_t pos = 0;
    char magic[8];
    uint64_t flen = 0, fhash = 0, shash = 0, sum = 0;
    uint32_t cn = 0, cp = 0, cl = 0;
    char name[FL_FIT_PATH] = "";
    int hdr = !rc && !buf_get(fb.b, fb.len, &pos, magic, 8) && memcmp(magic, CK_MAGIC, 8) == 0 &&
              !buf_get(fb.b, fb.len, &pos, &flen, 8) && !buf_get(fb.b, fb.len, &pos, &fhash, 8) &&
              !buf_get(fb.b, fb.len, &pos, &shash, 8) && !buf_get(fb.b, fb.len, &pos, &cn, 4) &&
              !buf_get(fb.b, fb.len, &pos, &cp, 4) && !buf_get(fb.b, fb.len, &pos, &cl, 4) && cl < sizeof name &&
              !buf_get(fb.b, fb.len, &pos, name, cl);
    if (hdr) {
      name[cl] = '\0';
      uint64_t want = fnv1a(FNV0, fb.b, pos);
      hdr = !buf_get(fb.b, fb.len, &pos, &sum, 8) && sum == want;
    }
    if (!rc && !hdr) {
      snprintf(err, errlen, "--resume: %s is not a fiber-calibrate checkpoint, or its header is damaged; allowed: "
               "the PREFIX.checkpoint of an interrupted run, or run without --resume to start over", path);
      rc = FL_EINPUT;
    } else if (!rc && (flen != fit_len || fhash != fit_hash)) {
      snprintf(err, errlen, "--resume: the checkpoint %s was written for the fit file %.1000s (%llu bytes), whose "
               "bytes differ from %.1000s (%llu bytes); allowed: --resume with the fit file and settings of the "
               "interrupted run, or run without --resume to start over", path, name, (unsigned long long)flen,
               fit->file, (unsigned long long)fit_len);
      rc = FL_EINPUT;
    } else if (!rc && (shash != set_hash || cn != n32 || cp != p32)) {
      snprintf(err, errlen, "--resume: the checkpoint %s was written with other settings (an experiment or data "
               "file, --set, --seed, --device or --threads differs) than this run of %.1000s; allowed: --resume "
               "with the fit file and settings of the interrupted run, or run without --resume to start over",
               path, fit->file);
      rc = FL_EINPUT;
    }
    valid = pos;
    /* its records, up to the first that is cut short or damaged */
    while (!rc) {
      size_t r0 = pos;
      ck_record r;
      memset(&r, 0, sizeof r);
      if (buf_get(fb.b, fb.len, &pos, &r.tag, 4) || buf_get(fb.b, fb.len, &pos, &r.flags, 4) ||
          buf_get(fb.b, fb.len, &pos, &r.dsim, 8) || buf_get(fb.b, fb.len, &pos, &r.dbatch, 8) ||
          buf_get(fb.b, fb.len, &pos, &r.nu, 4) || buf_get(fb.b, fb.len, &pos, &r.nv, 4))
        break;
      uint32_t wantv = r.tag == CK_TAG_F ? n32 : r.tag == CK_TAG_DF ? n32 * p32 : 0;
      if (r.nu != p32 || r.nv != wantv || wantv == 0)
        break;
      if (fb.len - pos < ((size_t)r.nu + r.nv) * sizeof(double) + 8)
        break;
      const unsigned char *data = fb.b + pos;
      pos += ((size_t)r.nu + r.nv) * sizeof(double);
      uint64_t rsum;
      memcpy(&rsum, fb.b + pos, 8);
      pos += 8;
      if (rsum != fnv1a(FNV0, fb.b + r0, pos - 8 - r0))
        break;
      r.u = malloc(r.nu * sizeof(double));
      r.v = malloc(r.nv * sizeof(double));
      if (ck->nrec == ck->cap) {
        long cap = ck->cap ? 2 * ck->cap : 64;
        ck_record *nr = realloc(ck->rec, (size_t)cap * sizeof *nr);
        if (nr) {
          ck->rec = nr;
          ck->cap = cap;
        }
      }
      if (!r.u || !r.v || ck->nrec == ck->cap) {
        free(r.u);
        free(r.v);
        snprintf(err, errlen, "out of memory");
        rc = FL_ENOMEM;
        break;
      }
      memcpy(r.u, data, r.nu * sizeof(double));
      memcpy(r.v, data + r.nu * sizeof(double), r.nv * sizeof(double));
      ck->rec[ck->nrec++] = r;
      valid = pos;
    }
    free(fb.b);
    ck->loaded = ck->nrec;
    /* cut off a record the interrupted run left half written */
    if (!rc && truncate(path, (off_t)valid)) {
      snprintf(err, errlen, "--resume: cannot truncate the checkpoint %s: %s", path, strerror(errno));
      rc = FL_EIO;
    }
    if (!rc && !(ck->f = fopen(path, "ab"))) {
      snprintf(err, errlen, "--resume: cannot append to the checkpoint %s: %s", path, strerror(errno));
      rc = FL_EIO;
    }
  } else {
    /* a new log (replacing any earlier one) */
    if (!(ck->f = fopen(path, "wb")) || ck_write_all(ck, hb.b, hb.len)) {
      snprintf(err, errlen, "cannot write the checkpoint %s: %s", path, strerror(errno));
      rc = FL_EIO;
    }
  }
done:
  free(hb.b);
  if (rc) {
    if (ck->f)
      fclose(ck->f);
    ck_free_records(ck);
    free(ck);
    return rc;
  }
  *out = ck;
  ck_pause(0);
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

/* The stored record of (tag, u), or NULL: the next in order first, then any. */
static const ck_record *ck_lookup(fl_checkpoint *ck, uint32_t tag, const gsl_vector *u)
{
  if (!ck || ck->loaded == 0)
    return NULL;
  size_t p = u->size;
  double key[FL_FIT_MAX_FREE];
  for (size_t j = 0; j < p; j++)
    key[j] = gsl_vector_get(u, j);
  for (long k = 0; k < ck->loaded; k++) {
    long i = (ck->cursor + k) % ck->loaded;
    const ck_record *r = &ck->rec[i];
    if (r->tag == tag && r->nu == p && memcmp(r->u, key, p * sizeof(double)) == 0) {
      ck->cursor = (i + 1) % ck->loaded;
      ck->replayed++;
      return r;
    }
  }
  return NULL;
}

/* Append one evaluation, synced; a write error is noted once and ends the logging. */
static void ck_append(fl_checkpoint *ck, FILE *log, const char *prog, uint32_t tag, uint32_t flags, long dsim,
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
  } else {
    ck_pause(1);
  }
  free(b.b);
}

/* ---- the model --------------------------------------------------------------------- */

typedef struct {
  double ymax;      /* curves: largest |measured y| */
  double norm;      /* curves: weight / (ymax sqrt(n)) */
  double mean, sd;  /* peaks: measured */
  double se_mean;   /* peaks: standard error of the mean, measured and simulated */
  double se_cv;     /* peaks: of the coefficient of variation sd / mean */
  int row0;         /* first residual row */
  int kink;         /* curves: 1 when a kink residual follows the rows (kink_weight > 0) */
  double kink_x;    /* its measured kink's displacement, m */
  double kink_norm; /* kink_weight / the fitted range's length, 1/m */
  int batchable[FL_FIT_MAX_FREE]; /* param j may vary inside a batch of this item */
} item_info;

typedef struct {
  fl_fit *fit;
  const fl_calibrate_opts *opts;
  int n, p;
  item_info *item;
  long simulations, batches;
  double *ybuf;        /* scratch, (1 + p) * largest curve */
  double *fbuf;        /* scratch, 2 * (largest curve + 1) residual rows */
  gsl_vector *last_u;  /* the last point f was evaluated at */
  gsl_vector *last_f;  /* its residuals */
  int have_last;
  int iterating;       /* past the starting point: a failed trial run rejects its step */
  int failed_trials;   /* trial points the engine could not run */
  int fallbacks;       /* batches the explicit engine ran after the static solver failed */
  int noted[FL_FIT_MAX_FREE];
  char err[8192];      /* why an evaluation failed */
  int rc;              /* its status */
  double t0;           /* s, monotonic clock at the start */
  double t_iter0;      /* s, when iteration iter0 + 1 began (the starting point evaluated) */
  int iter0;           /* iterations before the local fit's own (the global stage's winner's) */
  int drop_item;       /* the curve whose drop aligns the buckling numbers (-1: none) */
  int drop_jb[4];      /* the free buckling numbers, indices into fit->free (-1: fixed) */
  int drop_js;         /* free max_stress of bonds that yield before they buckle (-1: none) */
  double drop_want[5]; /* its measured features (fl_drop_features) */
  /* the global stage (fit_global.h) */
  int ndesign;         /* points whose residuals it keeps, so a refinement starts without a run */
  double *design_u;    /* ndesign rows of p */
  double *design_f;    /* ndesign rows of n; a row of HUGE_VAL for a point that did not run */
  gsl_multifit_nlinear_workspace *gw[FL_GLOBAL_MAX_REFINE]; /* each refinement's solver */
  int giter[FL_GLOBAL_MAX_REFINE];     /* its iterations */
  int gconv[FL_GLOBAL_MAX_REFINE];     /* 1: its convergence test passed */
  int genoprog[FL_GLOBAL_MAX_REFINE];  /* 1: it stopped with no trial step lowering the cost */
  const gsl_multifit_nlinear_parameters *gparams; /* the solver's parameters */
  gsl_multifit_nlinear_fdf *gfdf;      /* its functions */
  /* shared beginnings (fl_prefix_cache): runs of an item that differ only in the free
   * numbers of the buckling envelope start from each other's states */
  fl_prefix_cache *prefix;
  int envelope[FL_FIT_MAX_FREE]; /* 1: free parameter j is such a number (buckling_keys) */
} cal_state;

static void note(const cal_state *st, const char *fmt, ...)
{
  if (!st->opts || !st->opts->log)
    return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(st->opts->log, "%s: ", st->opts->prog ? st->opts->prog : "fiber-calibrate");
  vfprintf(st->opts->log, fmt, ap);
  fputc('\n', st->opts->log);
  va_end(ap);
}

/* A batch that simulation.solver auto ran on the explicit engine after the static
 * solver found no equilibrium: said once, since the fit then mixes the two engines'
 * curves, which differ a little. */
static void note_fallback(cal_state *st, const fl_result *r)
{
  if (!r->static_fallback[0] || st->fallbacks++ > 0)
    return;
  note(st, "note: a run found no static equilibrium (%s); simulation.solver auto ran its batch on the explicit "
           "engine, whose curves differ a little from the static solver's, so the fit mixes the two (set "
           "simulation.solver or --solver to fit on one throughout)",
       r->static_fallback);
}

/* Item d's experiment at parameter values theta, its maximum covering the curve. */
static int item_experiment(cal_state *st, int d, const double *theta, fl_experiment *e)
{
  const fl_fit_data *it = &st->fit->data[d];
  *e = it->exp;
  int rc = fl_fit_apply(st->fit, theta, e, it->exp_path, st->err, sizeof st->err);
  if (rc)
    return rc;
  if (it->kind == FL_FIT_CURVE) {
    double target = X_MARGIN * it->x_max;
    if (fl_test_bends(it->test))
      e->test.max_displacement_m = target;
    else if (it->test == FL_TEST_TENSION)
      e->test.max_elongation_m = target;
    else if (it->test == FL_TEST_COMPRESSION)
      e->test.max_shortening_m = target;
    else if (it->test == FL_TEST_CANTILEVER) {
      /* under displacement control the tip follows the spring's far end closely; under
       * load control the experiment's own max_tip_load stays */
      if (e->test.tip_control == FL_TIP_DISPLACEMENT)
        e->test.max_tip_displacement_m = target;
    } else
      e->test.max_twist_rad = target;
  }
  return FL_OK;
}

static fl_run_hooks hooks_of(const cal_state *st)
{
  fl_run_hooks h;
  memset(&h, 0, sizeof h);
  h.stop = st->opts->stop;
  h.threads = st->opts->threads;
  h.gpu = st->opts->gpu;
  h.prefix = st->prefix;
  return h;
}

/* Linear interpolation of the nondecreasing rows (xs, ys) at x; 0 beyond them. */
static int interpolate(const double *xs, const double *ys, int n, double x, double *y)
{
  double tol = 1e-9 * fabs(xs[n - 1]);
  if (n < 2 || x < xs[0] - tol || x > xs[n - 1] + tol)
    return 0;
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (xs[mid] <= x)
      lo = mid;
    else
      hi = mid;
  }
  double dx = xs[hi] - xs[lo];
  *y = dx > 0.0 ? ys[lo] + (ys[hi] - ys[lo]) * (x - xs[lo]) / dx : ys[lo];
  if (x >= xs[n - 1])
    *y = ys[n - 1];
  return 1;
}

/* Whether item d's experiment admits the values theta (fl_fit_apply's checks: a
 * buckling envelope's min_force at most its max_force, ...). */
static int admissible(cal_state *st, int d, const double *theta)
{
  fl_experiment e;
  char keep[sizeof st->err];
  memcpy(keep, st->err, sizeof keep);
  int ok = item_experiment(st, d, theta, &e) == FL_OK;
  memcpy(st->err, keep, sizeof keep);
  return ok;
}

/* The kink of a simulated quasi-static curve (qx, qy, nq rows) as item it's kink
 * residual reads it: the peak before its deepest fall within the measured range, from
 * the simulated rows themselves (the static solver's located buckling point, which
 * moves smoothly with the parameters, not the nearest measured abscissa); where it
 * has no drop there, its highest row in the range (where a drop would have to come). */
static double simulated_kink(const fl_fit_data *it, const double *qx, const double *qy, int nq)
{
  double out[5], lo = it->data.x[0], hi = it->data.x[it->data.n - 1];
  int i0 = 0, i1 = nq;
  while (i0 < nq && qx[i0] < lo)
    i0++;
  while (i1 > i0 && qx[i1 - 1] > hi)
    i1--;
  if (i1 - i0 < 3)
    return hi;
  if (fl_drop_features(qx + i0, qy + i0, i1 - i0, 1, out))
    return out[4];
  int top = i0;
  for (int i = i0 + 1; i < i1; i++)
    if (qy[i] > qy[top])
      top = i;
  return qx[top];
}

/* Run curve item d once for each of nset parameter vectors, as one batch; y gets the
 * simulated loads at the measured abscissae, row k * npoints + i, and kink (NULL: not
 * wanted) each run's simulated kink (simulated_kink), where the item has a kink
 * residual. */
static int run_curve(cal_state *st, int d, int nset, const double *const *theta, double *y, double *kink)
{
  const fl_fit_data *it = &st->fit->data[d];
  fl_experiment *exps = malloc((size_t)nset * sizeof *exps);
  const fl_experiment **ptr = malloc((size_t)nset * sizeof *ptr);
  double *qx = NULL, *qy = NULL;
  int rc = FL_ENOMEM;
  fl_curve c;
  fl_result r;
  memset(&c, 0, sizeof c);
  memset(&r, 0, sizeof r);
  if (!exps || !ptr) {
    snprintf(st->err, sizeof st->err, "out of memory");
    goto out;
  }
  for (int k = 0; k < nset; k++) {
    if ((rc = item_experiment(st, d, theta[k], &exps[k])))
      goto out;
    ptr[k] = &exps[k];
  }
  fl_run_hooks h = hooks_of(st);
  char msg[1536];
  /* each run's tag for the shared beginnings: the item and the parameters, the buckling
   * envelope's zeroed */
  double *tags = st->prefix ? malloc((size_t)nset * (size_t)(st->p + 1) * sizeof *tags) : NULL;
  for (int k = 0; tags && k < nset; k++) {
    double *tg = tags + (size_t)k * (size_t)(st->p + 1);
    tg[0] = d;
    for (int j = 0; j < st->p; j++)
      tg[1 + j] = st->envelope[j] ? 0.0 : theta[k][j];
  }
  if (tags)
    fl_prefix_cache_tags(st->prefix, nset, st->p + 1, tags);
  rc = fl_run_many(ptr, nset, &h, &c, &r, msg, sizeof msg);
  if (tags)
    fl_prefix_cache_tags(st->prefix, 0, 0, NULL);
  free(tags);
  st->simulations += nset;
  st->batches++;
  note_fallback(st, &r);
  if (rc) {
    snprintf(st->err, sizeof st->err, "%s: %s", it->exp_path, msg);
    goto out;
  }
  qx = malloc((size_t)(c.npoints + 2 * (FL_MAX_SNAPS + 1)) * sizeof *qx);
  qy = malloc((size_t)(c.npoints + 2 * (FL_MAX_SNAPS + 1)) * sizeof *qy);
  if (!qx || !qy) {
    snprintf(st->err, sizeof st->err, "out of memory");
    rc = FL_ENOMEM;
    goto out;
  }
  for (int k = 0; k < nset; k++) {
    int nq = fl_curve_quasi_static(&c, &r.spec[k], it->test, k, qx, qy);
    const double *xs = qx, *ys = qy;
    if (kink && st->item[d].kink)
      kink[k] = simulated_kink(it, qx, qy, nq);
    for (int i = 0; i < it->data.n; i++)
      if (!interpolate(xs, ys, nq, it->data.x[i], &y[(size_t)k * it->data.n + i])) {
        snprintf(st->err, sizeof st->err,
                 "%.2000s: the simulated curve of data[%d] ends at x = %.6g, before the measured x = %.6g (%.2000s line %d)",
                 it->exp_path, d + 1, nq ? xs[nq - 1] : 0.0, it->data.x[i], it->file, it->data.line[i]);
        rc = FL_EUNSTABLE;
        goto out;
      }
  }
out:
  fl_curve_free(&c);
  fl_result_free(&r);
  free(exps);
  free(ptr);
  free(qx);
  free(qy);
  return rc;
}

/* Run nspec specimens of item d's experiment e (counted), with a message naming the
 * experiment on failure. */
static int run_item(cal_state *st, int d, const fl_experiment *e, int nspec, fl_curve *c, fl_result *r)
{
  fl_run_hooks h = hooks_of(st);
  char msg[1536];
  int rc = fl_run(e, nspec, &h, c, r, msg, sizeof msg);
  st->simulations += nspec;
  st->batches++;
  note_fallback(st, r);
  if (rc)
    snprintf(st->err, sizeof st->err, "%s: %s", st->fit->data[d].exp_path, msg);
  return rc;
}

/* Run ring-down item d at theta: the simulated first frequency (Hz) and logarithmic
 * decrement, and, when ytip is not NULL, the simulated tip displacement at the
 * measured times (beyond the simulated ones: the last). */
static int run_ringdown(cal_state *st, int d, const double *theta, double *freq, double *dec, double *ytip)
{
  const fl_fit_data *it = &st->fit->data[d];
  fl_experiment e;
  int rc = item_experiment(st, d, theta, &e);
  if (rc)
    return rc;
  /* long enough for the measured record: ring_periods counts Euler-Bernoulli's
   * periods, a little shorter than the chain's; a record the experiment falls short of
   * gets a longer ring-down (at fewer rows a period) */
  double tmax = it->data.x[it->data.n - 1];
  if (tmax * it->ring_frequency * 1.05 > e.test.ring_periods)
    e.test.ring_periods = tmax * it->ring_frequency * 1.05;
  fl_curve c;
  fl_result r;
  rc = run_item(st, d, &e, 1, &c, &r);
  if (rc == FL_OK) {
    /* the simulated tip displacement read as the measured one is (the same rows per
     * period, the same estimator), not the summary's first-mode figures */
    double *te = malloc((size_t)c.npoints * sizeof *te), *xe = malloc((size_t)c.npoints * sizeof *xe);
    fl_ringdown rd;
    memset(&rd, 0, sizeof rd);
    int nw = 0; /* the rows over the measured record's time */
    while (nw < c.npoints && c.time[nw] <= tmax * (1.0 + 1e-9))
      nw++;
    if (te && xe) {
      int ne = fl_ringdown_extremes(c.time, c.x, nw, te, xe);
      fl_ringdown_fit(te, xe, ne, &rd);
    }
    free(te);
    free(xe);
    *freq = rd.frequency;
    *dec = rd.log_decrement;
    for (int i = 0; ytip && i < it->data.n; i++)
      if (!interpolate(c.time, c.x, c.npoints, it->data.x[i], &ytip[i]))
        ytip[i] = c.x[c.npoints - 1];
    if (!(*freq > 0.0)) {
      snprintf(st->err, sizeof st->err, "%s: the simulated ring-down has no first frequency", it->exp_path);
      rc = FL_EUNSTABLE;
    }
  }
  fl_curve_free(&c);
  fl_result_free(&r);
  return rc;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Run peaks item d at theta: mean and standard deviation of the simulated peaks, and
 * the peaks sorted into sorted (NULL: not wanted). */
static int run_peaks(cal_state *st, int d, const double *theta, double *mean, double *sd, double *sorted)
{
  const fl_fit_data *it = &st->fit->data[d];
  fl_experiment e;
  int rc = item_experiment(st, d, theta, &e);
  if (rc)
    return rc;
  fl_curve c;
  fl_result r;
  rc = run_item(st, d, &e, it->specimens, &c, &r);
  if (rc == FL_OK) {
    double s = 0, s2 = 0;
    int n = it->specimens;
    for (int k = 0; k < n; k++)
      s += r.spec[k].peak;
    *mean = s / n;
    for (int k = 0; k < n; k++)
      s2 += (r.spec[k].peak - *mean) * (r.spec[k].peak - *mean);
    *sd = sqrt(s2 / (n - 1));
    if (sorted) {
      for (int k = 0; k < n; k++)
        sorted[k] = r.spec[k].peak;
      qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
    }
  }
  fl_curve_free(&c);
  fl_result_free(&r);
  return rc;
}

static void theta_of(const cal_state *st, const gsl_vector *u, double *theta)
{
  for (int j = 0; j < st->p; j++)
    theta[j] = from_u(&st->fit->free[j], gsl_vector_get(u, (size_t)j), NULL);
}

/* Residual rows of one item at theta into f[row0 ...]. */
/* Row i's weight by its region (fiberlab-fit(5), weights). */
static double row_weight(const fl_fit_data *it, int i)
{
  return it->row_weight ? it->row_weight[i] : 1.0;
}

/* A curve item's residual rows from its simulated y at the measured abscissae: each
 * row's misfit, weighted, and with kink_weight the simulated kink's misfit (kink, from
 * run_curve) over the fitted range's length (fiberlab-fit(5), kink_weight). */
static void curve_residuals(const cal_state *st, int d, const double *y, double kink, double *f)
{
  const fl_fit_data *it = &st->fit->data[d];
  const item_info *ii = &st->item[d];
  for (int i = 0; i < it->data.n; i++)
    f[i] = ii->norm * row_weight(it, i) * (y[i] - it->data.y[i]);
  if (ii->kink)
    f[it->data.n] = ii->kink_norm * (kink - ii->kink_x);
}

/* The misfit of a positive figure r = simulated / measured: log r, which the bonds'
 * parameters move nearly linearly on their log scale (a frequency as the square root of
 * a stiffness, a decrement as the damping), so Gauss-Newton steps land near the answer
 * from a start several times off; the same as r - 1 to first order near the fit.  Below
 * r = 0.1 (a simulated decrement of zero or less) the line tangent at 0.1 continues it. */
static double log_ratio(double r)
{
  return r >= 0.1 ? log(r) : log(0.1) + (r - 0.1) / 0.1;
}

static int item_residuals(cal_state *st, int d, const double *theta, double *f)
{
  const fl_fit_data *it = &st->fit->data[d];
  const item_info *ii = &st->item[d];
  if (it->kind == FL_FIT_PEAKS) {
    double m, s;
    int rc = run_peaks(st, d, theta, &m, &s, NULL);
    if (rc)
      return rc;
    f[0] = it->weight * (m - ii->mean) / ii->se_mean;
    f[1] = it->weight * (s / m - ii->sd / ii->mean) / ii->se_cv;
    return FL_OK;
  }
  if (it->kind == FL_FIT_RINGDOWN) {
    /* relative misfits of the frequency and the decrement */
    double fr, dec;
    int rc = run_ringdown(st, d, theta, &fr, &dec, NULL);
    if (rc)
      return rc;
    f[0] = it->weight * log_ratio(fr / it->ring_frequency);
    f[1] = it->weight * log_ratio(dec / it->ring_decrement);
    return FL_OK;
  }
  const double *t[1] = {theta};
  double kink = 0.0;
  int rc = run_curve(st, d, 1, t, st->ybuf, &kink);
  if (rc)
    return rc;
  curve_residuals(st, d, st->ybuf, kink, f);
  return FL_OK;
}

static int eval_f(const gsl_vector *u, void *params, gsl_vector *f)
{
  cal_state *st = params;
  double theta[FL_FIT_MAX_FREE];
  double key[FL_FIT_MAX_FREE];
  for (int j = 0; j < st->p; j++)
    key[j] = gsl_vector_get(u, (size_t)j);
  for (int k = 0; k < st->ndesign; k++)
    if (memcmp(st->design_u + (size_t)k * (size_t)st->p, key, (size_t)st->p * sizeof(double)) == 0 &&
        isfinite(st->design_f[(size_t)k * (size_t)st->n])) {
      /* a point of the global stage's design: its residuals are known (and counted,
       * also in the checkpoint, where a replay must not count them again) */
      for (int i = 0; i < st->n; i++)
        gsl_vector_set(f, (size_t)i, st->design_f[(size_t)k * (size_t)st->n + (size_t)i]);
      gsl_vector_memcpy(st->last_u, u);
      gsl_vector_memcpy(st->last_f, f);
      st->have_last = 1;
      return GSL_SUCCESS;
    }
  const ck_record *r = ck_lookup(st->opts->checkpoint, CK_TAG_F, u);
  if (r) {
    /* replayed from the checkpoint: the stored bytes and simulation counts */
    for (size_t i = 0; i < f->size; i++)
      gsl_vector_set(f, i, r->v[i]);
    st->simulations += r->dsim;
    st->batches += r->dbatch;
    if (r->flags & CK_FAILED_TRIAL) {
      if (st->failed_trials++ == 0)
        note(st, "note: a trial point did not run (replayed from the checkpoint); its step is rejected");
      return GSL_SUCCESS;
    }
    gsl_vector_memcpy(st->last_u, u);
    gsl_vector_memcpy(st->last_f, f);
    st->have_last = 1;
    return GSL_SUCCESS;
  }
  long sim0 = st->simulations, batch0 = st->batches;
  theta_of(st, u, theta);
  for (int d = 0; d < st->fit->ndata; d++) {
    int rc = item_residuals(st, d, theta, f->data + st->item[d].row0);
    if (rc && st->iterating && (rc == FL_EUNSTABLE || rc == FL_ETIMESTEP || rc == FL_EINPUT)) {
      /* a trial point the engine cannot run, or one that breaks a check across keys
       * (bond.buckling.min_force above max_force): a residual so large that the trust
       * region rejects the step and shrinks */
      if (st->failed_trials++ == 0)
        note(st, "note: a trial point did not run (%s); its step is rejected", st->err);
      gsl_vector_set_all(f, 1e10);
      if (!(st->opts->stop && *st->opts->stop))
        ck_append(st->opts->checkpoint, st->opts->log, st->opts->prog, CK_TAG_F, CK_FAILED_TRIAL,
                  st->simulations - sim0, st->batches - batch0, u, f->data, f->size);
      return GSL_SUCCESS;
    }
    if (rc) {
      st->rc = rc;
      return GSL_EBADFUNC;
    }
  }
  gsl_vector_memcpy(st->last_u, u);
  gsl_vector_memcpy(st->last_f, f);
  st->have_last = 1;
  if (!(st->opts->stop && *st->opts->stop) && st->opts->checkpoint) {
    double *tmp = malloc(f->size * sizeof *tmp);
    if (tmp) {
      for (size_t i = 0; i < f->size; i++)
        tmp[i] = gsl_vector_get(f, i);
      ck_append(st->opts->checkpoint, st->opts->log, st->opts->prog, CK_TAG_F, 0, st->simulations - sim0,
                st->batches - batch0, u, tmp, f->size);
      free(tmp);
    }
  }
  return GSL_SUCCESS;
}

/* Whether curve item d at theta runs on the static solver (fl_solver_resolve: the
 * experiment's solver, auto resolved, the explicit engine on the GPU). */
static int on_static_solver(cal_state *st, int d, const double *theta)
{
  fl_experiment e;
  return item_experiment(st, d, theta, &e) == FL_OK && fl_solver_resolve(&e, st->opts->gpu) == FL_SOLVER_STATIC;
}

/* The Jacobian by forward (or, with solver.differences: central, central) differences
 * in u, step h_j = s max(|u_j|, 1e-2), s the solver's difference_step, 1e-3 unless the
 * fit file says otherwise (peaks
 * items: 0.05, their peaks being known to a time step only).  For a curve, the base
 * and every perturbed parameter that a batch may vary run as one batch, and the
 * differences are taken inside it (one time step, one loading path); the others run
 * alone, against the base run alone. */
static int eval_df(const gsl_vector *u, void *params, gsl_matrix *J)
{
  cal_state *st = params;
  const fl_fit *fit = st->fit;
  int p = st->p;
  double theta0[FL_FIT_MAX_FREE], thetas[FL_FIT_MAX_FREE][FL_FIT_MAX_FREE], h[FL_FIT_MAX_FREE];
  double thetam[FL_FIT_MAX_FREE][FL_FIT_MAX_FREE], den[FL_FIT_MAX_FREE];
  int central = fit->solver.central;
  const ck_record *r = ck_lookup(st->opts->checkpoint, CK_TAG_DF, u);
  if (r) {
    /* replayed from the checkpoint: the stored bytes and simulation counts */
    for (int i = 0; i < st->n; i++)
      for (int j = 0; j < p; j++)
        gsl_matrix_set(J, (size_t)i, (size_t)j, r->v[(size_t)i * (size_t)p + (size_t)j]);
    st->simulations += r->dsim;
    st->batches += r->dbatch;
    return GSL_SUCCESS;
  }
  long sim0 = st->simulations, batch0 = st->batches;
  theta_of(st, u, theta0);
  gsl_matrix_set_zero(J);
  double *base = NULL, *pert = NULL;
  int rc = FL_OK;
  base = malloc((size_t)st->n * sizeof *base);
  pert = malloc((size_t)st->n * sizeof *pert);
  if (!base || !pert) {
    snprintf(st->err, sizeof st->err, "out of memory");
    rc = FL_ENOMEM;
    goto out;
  }
  int have_base = st->have_last && gsl_vector_equal(st->last_u, u);
  if (have_base)
    memcpy(base, st->last_f->data, (size_t)st->n * sizeof *base);
  for (int d = 0; d < fit->ndata && rc == FL_OK; d++) {
    const fl_fit_data *it = &fit->data[d];
    const item_info *ii = &st->item[d];
    int rows = it->kind != FL_FIT_CURVE ? 2 : it->data.n + ii->kink;
    for (int j = 0; j < p; j++) {
      double uj = gsl_vector_get(u, (size_t)j);
      h[j] = it->kind == FL_FIT_PEAKS ? 0.05 : diff_step(fit, uj);
      memcpy(thetas[j], theta0, (size_t)p * sizeof(double));
      thetas[j][j] = from_u(&fit->free[j], uj + h[j], NULL);
      memcpy(thetam[j], theta0, (size_t)p * sizeof(double));
      thetam[j][j] = from_u(&fit->free[j], uj - h[j], NULL);
      den[j] = central ? 2.0 * h[j] : h[j];
      if (!admissible(st, d, thetas[j])) {
        /* a difference point the experiment refuses (min_force above max_force just
         * past a point where they nearly meet): the other side's difference instead */
        if (central) {
          memcpy(thetas[j], theta0, (size_t)p * sizeof(double));
          den[j] = h[j];
        } else {
          thetas[j][j] = thetam[j][j];
          den[j] = -h[j];
        }
      } else if (central && !admissible(st, d, thetam[j])) {
        memcpy(thetam[j], theta0, (size_t)p * sizeof(double));
        den[j] = h[j];
      }
    }
    int alone = 0;
    if (it->kind == FL_FIT_CURVE) {
      /* the base, then per batchable parameter its forward run (and, for central
       * differences, its backward run right after).  On the static solver, whose runs
       * share nothing inside a batch, the base is left out where its residuals are known
       * (forward differences at the point just evaluated) or not wanted (central); a
       * batch that falls back to the explicit engine runs again with it, so that its
       * differences are taken on one engine and one time step */
      const double *set[2 * FL_FIT_MAX_FREE + 1];
      int col[2 * FL_FIT_MAX_FREE + 1], nset = 0;
      int skip = (central || have_base) && on_static_solver(st, d, theta0);
      set[nset] = theta0;
      col[nset++] = -1;
      for (int j = 0; j < p; j++)
        if (ii->batchable[j]) {
          set[nset] = thetas[j];
          col[nset++] = j;
          if (central) {
            set[nset] = thetam[j];
            col[nset++] = j;
          }
        } else {
          alone = 1;
        }
      if (nset > 1) {
        double kink[2 * FL_FIT_MAX_FREE + 1] = {0};
        size_t ny = (size_t)it->data.n;
        int fell = st->fallbacks;
        if (skip && (rc = run_curve(st, d, nset - 1, set + 1, st->ybuf + ny, kink + 1)))
          break;
        if ((!skip || st->fallbacks != fell) && (rc = run_curve(st, d, nset, set, st->ybuf, kink)))
          break;
        skip = skip && st->fallbacks == fell;
        double *fp = st->fbuf, *fm = st->fbuf + rows;
        for (int k = 1; k < nset; k += central ? 2 : 1) {
          int km = central ? k + 1 : 0;
          curve_residuals(st, d, st->ybuf + (size_t)k * ny, kink[k], fp);
          if (km == 0 && skip) /* the base's residuals, known */
            memcpy(fm, base + ii->row0, (size_t)rows * sizeof *fm);
          else
            curve_residuals(st, d, st->ybuf + (size_t)km * ny, kink[km], fm);
          for (int i = 0; i < rows; i++)
            gsl_matrix_set(J, (size_t)(ii->row0 + i), (size_t)col[k], (fp[i] - fm[i]) / den[col[k]]);
        }
      }
    } else {
      alone = 1;
    }
    if (!alone)
      continue;
    if (!central && !have_base && (rc = item_residuals(st, d, theta0, base + ii->row0)))
      break;
    for (int j = 0; j < p && rc == FL_OK; j++) {
      if (it->kind == FL_FIT_CURVE && ii->batchable[j])
        continue;
      if ((rc = item_residuals(st, d, thetas[j], pert + ii->row0)))
        break;
      /* central differences: the backward run takes the base's place (and buffer) */
      if (central && (rc = item_residuals(st, d, thetam[j], base + ii->row0)))
        break;
      for (int i = 0; i < rows; i++)
        gsl_matrix_set(J, (size_t)(ii->row0 + i), (size_t)j,
                       (pert[ii->row0 + i] - base[ii->row0 + i]) / den[j]);
    }
  }
out:
  free(base);
  free(pert);
  if (rc) {
    st->rc = rc;
    return GSL_EBADFUNC;
  }
  if (!(st->opts->stop && *st->opts->stop) && st->opts->checkpoint) {
    double *tmp = malloc((size_t)st->n * (size_t)p * sizeof *tmp);
    if (tmp) {
      for (int i = 0; i < st->n; i++)
        for (int j = 0; j < p; j++)
          tmp[(size_t)i * (size_t)p + (size_t)j] = gsl_matrix_get(J, (size_t)i, (size_t)j);
      ck_append(st->opts->checkpoint, st->opts->log, st->opts->prog, CK_TAG_DF, 0, st->simulations - sim0,
                st->batches - batch0, u, tmp, (size_t)st->n * (size_t)p);
      free(tmp);
    }
  }
  return GSL_SUCCESS;
}

/* ---- starting values ------------------------------------------------------------- */

/* Slope of the measured curve over its rows from 10 % to 50 % of the peak, before the
 * peak (the rule the virtual tests use for initial_stiffness). */
static double measured_slope(const fl_measured *m)
{
  int ip = 0;
  for (int i = 0; i < m->n; i++)
    if (m->y[i] > m->y[ip])
      ip = i;
  double peak = m->y[ip];
  double *x = malloc((size_t)m->n * sizeof *x), *y = malloc((size_t)m->n * sizeof *y);
  int k = 0;
  if (!x || !y) {
    free(x);
    free(y);
    return 0.0;
  }
  for (int i = 0; i <= ip; i++)
    if (m->y[i] >= 0.1 * peak && m->y[i] <= 0.5 * peak) {
      x[k] = m->x[i];
      y[k] = m->y[i];
      k++;
    }
  double s = k >= 2 ? fl_fit_slope(x, y, 0, k) : (m->x[ip] > 0 ? peak / m->x[ip] : 0.0);
  free(x);
  free(y);
  return s;
}

static double measured_peak(const fl_measured *m)
{
  double p = -HUGE_VAL;
  for (int i = 0; i < m->n; i++)
    if (m->y[i] > p)
      p = m->y[i];
  return p;
}

/* The stress a load y makes in a beam-theory specimen of experiment e. */
static double beam_stress(const fl_experiment *e, double y)
{
  double R = e->fiber.outer_radius_m;
  fl_section s = fl_section_hollow(R, e->fiber.inner_radius_ratio * R);
  if (e->test.kind == FL_TEST_BEND3PT)
    return y * e->test.span_m * fl_fiber_outer_fibre(&e->fiber) / (4.0 * s.inertia); /* M = F L / 4, sigma = M c / I */
  if (e->test.kind == FL_TEST_TENSION)
    return y / s.area;
  return sqrt(3.0) * y * R / s.polar; /* von Mises of the shear tau = T R / J */
}

static int find_param(const fl_fit *fit, const char *path)
{
  for (int j = 0; j < fit->nfree; j++)
    if (strcmp(fit->free[j].path, path) == 0)
      return j;
  return -1;
}

/* Run item d alone at theta: specimen 0's figures. */
static int run_one(cal_state *st, int d, const double *theta, int failure_off, fl_specimen_result *sr)
{
  fl_experiment e;
  int rc = item_experiment(st, d, theta, &e);
  if (rc)
    return rc;
  if (failure_off)
    e.bond.failure.criterion = FL_CRIT_NONE;
  fl_curve c;
  fl_result r;
  fl_run_hooks h = hooks_of(st);
  h.until_event = failure_off; /* the stiffness start: its first slope alone */
  char msg[1536];
  rc = fl_run(&e, 1, &h, &c, &r, msg, sizeof msg);
  st->simulations++;
  st->batches++;
  note_fallback(st, &r);
  if (rc)
    snprintf(st->err, sizeof st->err, "%s: %s", st->fit->data[d].exp_path, msg);
  else
    *sr = r.spec[0];
  fl_curve_free(&c);
  fl_result_free(&r);
  return rc;
}


/* A free min_force (jb[1]) kept below nine tenths of max_force (jb[0]): the plateau
 * stays below the envelope's peak, or the next run does not start. */
static void plateau_below_peak(const fl_fit *fit, const int jb[4], double *start)
{
  if (jb[1] >= 0)
    start[jb[1]] = clamp_inside(&fit->free[jb[1]], fmin(start[jb[1]], 0.9 * start[jb[0]]));
}

/* Align the free buckling numbers jb (indices into fit->free, -1 when fixed) at start
 * to the measured drop features want of curve item db (fiber-calibrate(1), STARTING
 * VALUES): runs that each scale the forces by the measured over the simulated feature
 * and shift the displacement and slope by their differences; a correction that does
 * not run leaves the last point that did.
 * With bonds that yield before they buckle (st->drop_js, their free max_stress), the
 * yield sets the height of the peak and the envelope's peak only the bending angle at
 * which the bond buckles, so the peak's load aligns max_stress and its displacement
 * max_force: a secant on the logarithms of max_force and of the kink's displacement
 * (the first step taking the displacement as the square root of max_force, roughly
 * what a plastic hinge gives), kept inside the bracket of the runs so far (a kink
 * early below, a kink late or none in the range above: then halved in the
 * logarithm); the start is the run whose kink came closest, with its max_stress and
 * min_force corrections. */
static int align_drop(cal_state *st, int db, const int jb[4], const double want[5], double *start)
{
  const fl_fit *fit = st->fit;
  const fl_measured *m = &fit->data[db].data;
  int p = st->p, rc, js = st->drop_js, yield_first = js >= 0 && jb[0] >= 0;
  double prev[FL_FIT_MAX_FREE], lf0 = 0.0, lx0 = 0.0;
  int secant = 0; /* 1: (lf0, lx0) is the last pass's point */
  /* yield first: log max_force of the runs that kinked early (lo, its log kink lo_x) and
   * late or not in the range (hi, hi_x; INFINITY: no drop), and the closest run */
  double lo = -INFINITY, lo_x = 0.0, hi = INFINITY, hi_x = INFINITY, best[FL_FIT_MAX_FREE], best_d = INFINITY;
  if (yield_first) {
    /* in the envelope's terms the bonds yield at the force fy (beam theory, M = F L / 4):
     * the plateau after the drop starts below it in the measured ratio, the envelope's
     * peak above it */
    fl_experiment e;
    if ((rc = item_experiment(st, db, start, &e)))
      return rc;
    double fy = want[0] * start[js] / beam_stress(&e, want[0]);
    start[jb[0]] = clamp_inside(&fit->free[jb[0]], fmax(start[jb[0]], 2.0 * fy));
    if (jb[1] >= 0)
      start[jb[1]] = clamp_inside(&fit->free[jb[1]], fy * want[1] / want[0]);
  }
  for (int pass = 0, passes = yield_first ? 12 : 4; pass < passes; pass++) {
    const double *t[1] = {start};
    double got[5];
    rc = run_curve(st, db, 1, t, st->ybuf, NULL);
    if (rc && pass > 0 && (rc == FL_EINPUT || rc == FL_EUNSTABLE || rc == FL_ETIMESTEP)) {
      /* the correction went too far (min_force above max_force, say): keep the last
       * point that ran */
      memcpy(start, prev, (size_t)p * sizeof *start);
      break;
    }
    if (rc)
      return rc;
    memcpy(prev, start, (size_t)p * sizeof *start);
    if (!fl_drop_features(m->x, st->ybuf, m->n, 1, got)) {
      /* no drop inside the measured range: bring the simulated curve's highest
       * force down to the measured peak, so that the next run drops (with yield first:
       * the plateau after the drop below the yield, and the kink earlier) */
      double top = 0.0;
      for (int i = 0; i < m->n; i++)
        top = fmax(top, st->ybuf[i]);
      if (yield_first) {
        /* the bond does not reach its buckling angle within the range: buckle earlier */
        double lf = log(start[jb[0]]);
        if (lf < hi) {
          hi = lf;
          hi_x = INFINITY;
        }
        start[jb[0]] = clamp_inside(&fit->free[jb[0]], exp(isfinite(lo) ? 0.5 * (lo + hi) : lf + log(0.7)));
        plateau_below_peak(fit, jb, start);
        secant = 0;
        continue;
      }
      if (jb[0] < 0 || !(top > want[0]))
        break;
      start[jb[0]] = clamp_inside(&fit->free[jb[0]], start[jb[0]] * want[0] / top);
      continue;
    }
    for (int k = yield_first; k < 2; k++)
      if (jb[k] >= 0)
        start[jb[k]] = clamp_inside(&fit->free[jb[k]], start[jb[k]] * want[k] / got[k]);
    for (int k = 2; k < 4; k++)
      if (jb[k] >= 0)
        start[jb[k]] = clamp_inside(&fit->free[jb[k]], start[jb[k]] + want[k] - got[k]);
    if (yield_first) {
      /* a run whose peak is off by more than 5 % yields elsewhere: its kink neither
       * brackets max_force nor competes with those whose peak is right */
      int peak_right = fabs(got[0] - want[0]) <= 0.05 * want[0];
      start[js] = clamp_inside(&fit->free[js], start[js] * want[0] / got[0]);
      double lf = log(start[jb[0]]), lx = log(got[4]), lw = log(want[4]), slope = 0.5;
      double d = fabs(got[4] - want[4]) + (peak_right ? 0.0 : 2.0 * (m->x[m->n - 1] - m->x[0])); /* the peak first */
      plateau_below_peak(fit, jb, start);
      if (d < best_d) {
        best_d = d;
        memcpy(best, start, (size_t)p * sizeof *best);
      }
      if (peak_right && lx < lw && lf > lo) {
        lo = lf;
        lo_x = lx;
      } else if (peak_right && lx >= lw && lf < hi) {
        hi = lf;
        hi_x = lx;
      }
      if (secant && lf != lf0 && (lx - lx0) / (lf - lf0) > 0.05)
        slope = (lx - lx0) / (lf - lf0);
      secant = 1;
      lf0 = lf;
      lx0 = lx;
      double next = lf + (lw - lx) / slope;
      if (isfinite(lo) && isfinite(hi) && isfinite(hi_x) && hi_x > lo_x)
        next = lo + (lw - lo_x) * (hi - lo) / (hi_x - lo_x); /* between the bracket's runs */
      if (!(next > lo && next < hi))
        next = isfinite(lo) && isfinite(hi) ? 0.5 * (lo + hi)
               : isfinite(hi)                ? fmin(next, hi + log(0.7))
                                             : fmax(next, lo - log(0.7));
      start[jb[0]] = clamp_inside(&fit->free[jb[0]], exp(next));
      plateau_below_peak(fit, jb, start);
    }
  }
  if (yield_first && best_d < INFINITY)
    memcpy(start, best, (size_t)p * sizeof *start);
  return FL_OK;
}

/* Resolve start: auto (fiber-calibrate(1), STARTING VALUES). */
static int auto_starts(cal_state *st, double *start)
{
  fl_fit *fit = st->fit;
  int p = st->p, rc;
  for (int j = 0; j < p; j++)
    start[j] = fit->free[j].start_auto ? param_at(&fit->free[j], 0.5) : fit->free[j].start;
  /* stiffness scales: measured over simulated initial slope, from a run at scale 1 */
  static const char *const scales[2] = {"bond.torque_stiffness_scale", "bond.force_stiffness_scale"};
  for (int k = 0; k < 2; k++) {
    int j = find_param(fit, scales[k]);
    if (j < 0 || !fit->free[j].start_auto)
      continue;
    for (int d = 0; d < fit->ndata; d++) {
      const fl_fit_data *it = &fit->data[d];
      if (it->kind != FL_FIT_CURVE || (k == 0) != (it->test != FL_TEST_TENSION))
        continue;
      double theta[FL_FIT_MAX_FREE];
      fl_specimen_result sr;
      memcpy(theta, start, (size_t)p * sizeof *theta);
      theta[j] = 1.0;
      if ((rc = run_one(st, d, theta, 1, &sr)))
        return rc;
      double km = measured_slope(&it->data);
      if (sr.initial_stiffness > 0.0 && km > 0.0)
        start[j] = clamp_inside(&fit->free[j], km / sr.initial_stiffness);
      break;
    }
  }
  /* strength variation: the measured coefficient of variation of the peaks */
  int jcv = find_param(fit, "bond.failure.strength_variation");
  if (jcv >= 0 && fit->free[jcv].start_auto)
    for (int d = 0; d < fit->ndata; d++)
      if (fit->data[d].kind == FL_FIT_PEAKS) {
        start[jcv] = clamp_inside(&fit->free[jcv], st->item[d].sd / st->item[d].mean);
        break;
      }
  /* strength: beam theory on the measured peak, then scaled by the measured over the
   * simulated peak of a run that reached its limit */
  int js = find_param(fit, "bond.failure.max_stress");
  if (js >= 0 && fit->free[js].start_auto) {
    int dc = -1;
    for (int d = 0; d < fit->ndata && dc < 0; d++)
      if (fit->data[d].kind == FL_FIT_CURVE && fit->data[d].exp.bond.failure.criterion != FL_CRIT_NONE)
        dc = d;
    for (int d = 0; d < fit->ndata && dc < 0; d++)
      if (fit->data[d].kind == FL_FIT_PEAKS)
        dc = d;
    if (dc >= 0) {
      const fl_fit_data *it = &fit->data[dc];
      fl_experiment e;
      if ((rc = item_experiment(st, dc, start, &e)))
        return rc;
      double peak = it->kind == FL_FIT_PEAKS ? st->item[dc].mean : measured_peak(&it->data);
      start[js] = clamp_inside(&fit->free[js], beam_stress(&e, peak));
      if (it->kind == FL_FIT_PEAKS) {
        double m, s;
        if ((rc = run_peaks(st, dc, start, &m, &s, NULL)))
          return rc;
        if (m > 0.0)
          start[js] = clamp_inside(&fit->free[js], start[js] * peak / m);
      } else {
        fl_specimen_result sr;
        if ((rc = run_one(st, dc, start, 0, &sr)))
          return rc;
        if (sr.failure_row >= 0 && sr.peak > 0.0)
          start[js] = clamp_inside(&fit->free[js], start[js] * peak / sr.peak);
      }
    }
  }
  /* buckling numbers: read off the first bending curve that has a drop after its peak */
  int jb[4], any = 0, db = -1;
  for (int k = 0; k < 4; k++) {
    jb[k] = find_param(fit, buckling_keys[k]);
    any |= jb[k] >= 0;
  }
  double want[5];
  for (int d = 0; d < fit->ndata && any && db < 0; d++) {
    const fl_measured *m = &fit->data[d].data;
    if (fit->data[d].kind != FL_FIT_CURVE || fit->data[d].test != FL_TEST_BEND3PT ||
        fit->data[d].exp.bond.buckling.type == FL_BUCKLING_NONE || !fl_drop_features(m->x, m->y, m->n, 0, want))
      continue;
    db = d;
    for (int k = 0; k < 4; k++)
      if (jb[k] >= 0 && fit->free[jb[k]].start_auto)
        start[jb[k]] = clamp_inside(&fit->free[jb[k]], want[k]);
  }
  /* Then align the free forces, given or auto: the virtual test does not give back the
   * envelope's forces as they are (the contacts move inwards on the rollers as the
   * specimen turns, a shorter lever arm; damping holds part of the moment while the
   * hinge turns), and a drop in the wrong place is a step in the residuals that the
   * trust region cannot cross; a plateau that ends before the drop leaves
   * displacement_at_min_force without influence.  Run the test and scale each free
   * force by the measured over the simulated feature, and shift the displacement by the
   * measured less the simulated end of the plateau and the slope by the measured less
   * the simulated slope beyond it, four times (fiber-calibrate(1), STARTING VALUES). */
  st->drop_item = db >= 0 && (jb[0] >= 0 || jb[1] >= 0 || jb[2] >= 0 || jb[3] >= 0) ? db : -1;
  st->drop_js = -1;
  if (db >= 0 && fit->data[db].exp.bond.buckling.type == FL_BUCKLING_PLASTIC &&
      fit->data[db].exp.bond.failure.criterion != FL_CRIT_NONE &&
      fit->data[db].exp.bond.failure.post_failure != FL_POST_TOTAL_BREAKAGE)
    st->drop_js = js;
  memcpy(st->drop_jb, jb, sizeof jb);
  if (db >= 0)
    memcpy(st->drop_want, want, sizeof want);
  if (db >= 0 && (jb[0] >= 0 || jb[1] >= 0 || jb[2] >= 0 || jb[3] >= 0)) {
    double given[4], given_s = st->drop_js >= 0 ? start[st->drop_js] : 0.0;
    for (int k = 0; k < 4; k++)
      given[k] = jb[k] >= 0 ? start[jb[k]] : 0.0;
    if ((rc = align_drop(st, db, jb, want, start)))
      return rc;
    int yf = st->drop_js >= 0 && jb[0] >= 0; /* max_force aligns the kink's displacement, max_stress the peak */
    for (int k = 0; k < 4; k++)
      if (jb[k] >= 0 && !fit->free[jb[k]].start_auto && start[jb[k]] != given[k])
        note(st, "note: the start of %s moved from %.6g to %.6g, where the simulated %s meets the measured one",
             buckling_keys[k], given[k], start[jb[k]], k == 0   ? (yf ? "peak's displacement" : "peak")
             : k == 1 ? "plateau after the drop"
             : k == 2 ? "end of the plateau"
                      : "slope beyond the plateau");
    if (yf && !fit->free[st->drop_js].start_auto && start[st->drop_js] != given_s)
      note(st, "note: the start of bond.failure.max_stress moved from %.6g to %.6g, where the simulated peak meets "
           "the measured one", given_s, start[st->drop_js]);
  }
  return FL_OK;
}

/* The measured drop's features (fl_calibration_features): item -1 when no 3-point curve
 * with buckling bonds has a drop. */
static void features_measured(const fl_fit *fit, fl_calibration_features *ft)
{
  double out[5];
  ft->item = -1;
  for (int d = 0; d < fit->ndata && ft->item < 0; d++) {
    const fl_fit_data *it = &fit->data[d];
    if (it->kind == FL_FIT_CURVE && it->test == FL_TEST_BEND3PT && it->exp.bond.buckling.type != FL_BUCKLING_NONE &&
        fl_drop_features(it->data.x, it->data.y, it->data.n, 0, out)) {
      ft->item = d;
      ft->measured[0] = out[4];
      ft->measured[1] = out[0];
      ft->measured[2] = out[1];
      ft->measured[3] = out[2];
    }
  }
}

/* The same features of the simulated curve whose residuals are f: at the global stage's
 * winner (fitted 0) or at the fitted values (fitted 1). */
static void features_at(const cal_state *st, const gsl_vector *f, fl_calibration_features *ft, int fitted)
{
  const fl_fit *fit = st->fit;
  double out[5];
  if (ft->item < 0)
    return;
  const fl_fit_data *it = &fit->data[ft->item];
  const item_info *ii = &st->item[ft->item];
  double *y = malloc((size_t)it->data.n * sizeof *y);
  if (!y)
    return;
  for (int i = 0; i < it->data.n; i++)
    y[i] = it->data.y[i] + gsl_vector_get(f, (size_t)(ii->row0 + i)) / (ii->norm * row_weight(it, i));
  int found = fl_drop_features(it->data.x, y, it->data.n, 1, out);
  double *dst = fitted ? ft->fitted : ft->global;
  if (found) {
    dst[0] = out[4];
    dst[1] = out[0];
    dst[2] = out[1];
    dst[3] = out[2];
  }
  if (fitted)
    ft->fitted_found = found;
  else
    ft->global_found = found;
  free(y);
}

/* ---- the driver -------------------------------------------------------------------- */

void fl_calibration_free(fl_calibration *cal)
{
  if (cal->curve)
    for (int i = 0; i < cal->ncurves; i++) {
      free(cal->curve[i].x);
      free(cal->curve[i].measured);
      free(cal->curve[i].fitted);
    }
  free(cal->curve);
  cal->curve = NULL;
  cal->ncurves = 0;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void progress_line(const cal_state *st, int iter, const gsl_vector *u, const gsl_vector *f)
{
  FILE *log = st->opts->log;
  fprintf(log, "%s: iteration %d: cost %.6g,", st->opts->prog ? st->opts->prog : "fiber-calibrate", iter,
          cost_of(f));
  for (int j = 0; j < st->p; j++)
    fprintf(log, " %s %.6g%s", st->fit->free[j].path, from_u(&st->fit->free[j], gsl_vector_get(u, (size_t)j), NULL),
            j + 1 < st->p ? "," : "");
  /* elapsed time, and the most that is left: the iterations up to solver.max_iterations
   * at the mean time of those so far */
  double t = now(), elapsed = t - st->t0;
  fprintf(log, " (%ld simulations, %.1f s elapsed", st->simulations, elapsed);
  if (iter > st->iter0) {
    int left = st->fit->solver.max_iterations - iter;
    double per = (t - st->t_iter0) / (iter - st->iter0);
    fprintf(log, ", %.3g s per iteration, at most %d more: about %.3g s left at most", per, left, per * left);
  }
  fprintf(log, ")\n");
  fflush(log);
}

/* The report rows of each item at the best point u, with residuals f. */
static int report_curves(cal_state *st, const gsl_vector *u, const gsl_vector *f, fl_calibration *cal)
{
  fl_fit *fit = st->fit;
  double theta[FL_FIT_MAX_FREE], ss_res = 0, ss_tot = 0;
  theta_of(st, u, theta);
  cal->ncurves = fit->ndata;
  cal->curve = calloc((size_t)fit->ndata, sizeof *cal->curve);
  if (!cal->curve)
    return FL_ENOMEM;
  for (int d = 0; d < fit->ndata; d++) {
    const fl_fit_data *it = &fit->data[d];
    const item_info *ii = &st->item[d];
    fl_calibration_curve *cc = &cal->curve[d];
    int n = it->data.n;
    cc->points = n;
    cc->x = malloc((size_t)n * sizeof(double));
    cc->measured = malloc((size_t)n * sizeof(double));
    cc->fitted = malloc((size_t)n * sizeof(double));
    if (!cc->x || !cc->measured || !cc->fitted)
      return FL_ENOMEM;
    double ymax = 0;
    if (it->kind == FL_FIT_RINGDOWN) {
      /* the measured ring-down against the simulated one at the fitted values */
      double fr, dec;
      int rc = run_ringdown(st, d, theta, &fr, &dec, cc->fitted);
      if (rc)
        return rc;
      for (int i = 0; i < n; i++) {
        cc->x[i] = it->data.x[i];
        cc->measured[i] = it->data.y[i];
        ymax = fmax(ymax, fabs(it->data.y[i]));
      }
    } else if (it->kind == FL_FIT_CURVE) {
      ymax = ii->ymax;
      for (int i = 0; i < n; i++) {
        cc->x[i] = it->data.x[i];
        cc->measured[i] = it->data.y[i];
        cc->fitted[i] = it->data.y[i] + gsl_vector_get(f, (size_t)(ii->row0 + i)) / (ii->norm * row_weight(it, i));
      }
    } else {
      /* quantiles: measured peaks sorted against the simulated ones at the same
       * cumulative probability (i - 0.5) / n */
      int ns = it->specimens;
      double *sim = malloc((size_t)ns * sizeof *sim), m, s;
      if (!sim)
        return FL_ENOMEM;
      int rc = run_peaks(st, d, theta, &m, &s, sim);
      if (rc) {
        free(sim);
        return rc;
      }
      memcpy(cc->measured, it->data.y, (size_t)n * sizeof(double));
      qsort(cc->measured, (size_t)n, sizeof(double), cmp_double);
      for (int i = 0; i < n; i++) {
        double pr = (i + 0.5) / n, pos = pr * ns - 0.5;
        int k = (int)floor(pos);
        double w = pos - k;
        if (k < 0) {
          k = 0;
          w = 0;
        }
        if (k >= ns - 1) {
          k = ns - 2;
          w = 1;
        }
        cc->x[i] = pr;
        cc->fitted[i] = (1 - w) * sim[k] + w * sim[k + 1];
        if (fabs(cc->measured[i]) > ymax)
          ymax = fabs(cc->measured[i]);
      }
      free(sim);
    }
    double mean = 0, sr = 0, stt = 0;
    for (int i = 0; i < n; i++)
      mean += cc->measured[i] / n;
    for (int i = 0; i < n; i++) {
      sr += (cc->fitted[i] - cc->measured[i]) * (cc->fitted[i] - cc->measured[i]);
      stt += (cc->measured[i] - mean) * (cc->measured[i] - mean);
    }
    cc->rms = sqrt(sr / n) / ymax;
    cc->r_squared = stt > 0 ? 1.0 - sr / stt : NAN;
    ss_res += sr / (ymax * ymax);
    ss_tot += stt / (ymax * ymax);
  }
  cal->r_squared = ss_tot > 0 ? 1.0 - ss_res / ss_tot : NAN;
  return FL_OK;
}

/* Standard errors and correlations at the best point from J (covariance of u scaled
 * by chi^2 / (n - p) when curves are fitted, mapped through d theta / d u). Returns the
 * index of a parameter that is not determined, or -1. */
static int uncertainties(cal_state *st, const gsl_vector *u, const gsl_matrix *J, const gsl_vector *f,
                         fl_calibration *cal)
{
  int p = st->p, n = st->n, undetermined = -1, curves = 0;
  for (int d = 0; d < st->fit->ndata; d++)
    curves += st->fit->data[d].kind != FL_FIT_PEAKS;
  gsl_matrix *cov = gsl_matrix_alloc((size_t)p, (size_t)p);
  double chi2;
  gsl_blas_ddot(f, f, &chi2);
  double scale = curves ? (n > p ? chi2 / (n - p) : NAN) : 1.0;
  for (int j = 0; j < p * p; j++)
    cal->correlation[j] = NAN;
  for (int j = 0; j < p; j++)
    cal->std_error[j] = NAN;
  if (!cov)
    return -1;
  gsl_multifit_nlinear_covar(J, 1e-10, cov);
  for (int j = 0; j < p; j++) {
    double cjj = gsl_matrix_get(cov, (size_t)j, (size_t)j), deriv;
    /* a column GSL left out, or J_j all zero */
    double colnorm = 0;
    for (int i = 0; i < n; i++)
      colnorm += gsl_matrix_get(J, (size_t)i, (size_t)j) * gsl_matrix_get(J, (size_t)i, (size_t)j);
    if (!(cjj > 0.0) || !(colnorm > 0.0)) {
      if (undetermined < 0)
        undetermined = j;
      continue;
    }
    from_u(&st->fit->free[j], gsl_vector_get(u, (size_t)j), &deriv);
    cal->std_error[j] = fabs(deriv) * sqrt(cjj * scale);
  }
  for (int a = 0; a < p; a++)
    for (int b = 0; b < p; b++) {
      double ca = gsl_matrix_get(cov, (size_t)a, (size_t)a), cb = gsl_matrix_get(cov, (size_t)b, (size_t)b);
      if (ca > 0 && cb > 0)
        cal->correlation[a * p + b] = gsl_matrix_get(cov, (size_t)a, (size_t)b) / sqrt(ca * cb);
    }
  gsl_matrix_free(cov);
  return undetermined;
}

/* The Gauss-Newton step of the local model at the present point, (J^T J) du = -J^T f,
 * into du, and the cost it would remove, 1/2 du^T J^T J du (the linear model's gain,
 * at most the cost 1/2 f^T f), into *gain.  Returns 0 when J^T J is not positive
 * definite. */
static int gauss_newton_step(const gsl_matrix *J, const gsl_vector *f, gsl_vector *du, double *gain)
{
  size_t p = J->size2;
  gsl_matrix *A = gsl_matrix_alloc(p, p);
  gsl_vector *g = gsl_vector_alloc(p);
  int ok = 0;
  if (A && g) {
    gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1.0, J, J, 0.0, A);
    gsl_blas_dgemv(CblasTrans, -1.0, J, f, 0.0, g);
    if (!gsl_linalg_cholesky_decomp1(A) && !gsl_linalg_cholesky_solve(A, g, du)) {
      gsl_blas_ddot(du, g, gain);
      *gain *= 0.5;
      ok = 1;
    }
  }
  if (A)
    gsl_matrix_free(A);
  if (g)
    gsl_vector_free(g);
  return ok;
}

/* The stopping tests after an accepted iteration: GSL's step and gradient tests
 * (xtol, gtol; GSL leaves its residual test out), and fiberlab's ftol, converged
 * when the Gauss-Newton step from here would remove at most ftol of the cost: the
 * minimum of the local model is as good as reached.  On n curve residuals that step
 * is s standard errors long (in the metric of the covariance) when its gain is
 * s^2 / (n - p) of the cost, whatever the parameters' scales. */
static int converged(const fl_fit *fit, gsl_multifit_nlinear_workspace *w)
{
  int info;
  if (gsl_multifit_nlinear_test(fit->solver.xtol, fit->solver.gtol, fit->solver.ftol, &info, w) == GSL_SUCCESS)
    return 1;
  const gsl_matrix *J = gsl_multifit_nlinear_jac(w);
  const gsl_vector *f = gsl_multifit_nlinear_residual(w);
  gsl_vector *du = gsl_vector_alloc(J->size2);
  double cost, gain;
  gsl_blas_ddot(f, f, &cost);
  cost *= 0.5;
  int small = du && gauss_newton_step(J, f, du, &gain) && gain <= fit->solver.ftol * cost;
  if (du)
    gsl_vector_free(du);
  return small;
}

/* At a point where no trial step lowers the cost (GSL_ENOPROG): the fit has converged
 * to the resolution of the runs when the Gauss-Newton step (gauss_newton_step) moves no
 * parameter by more than a fifth of its standard error, 0.1 % of its value, or its own
 * difference step (the finest change the differences of the Jacobian resolve).
 * Returns -1 then, else the index of a parameter that would move (p when the step
 * cannot be computed). */
static int gauss_newton_small(cal_state *st, const gsl_vector *u, const gsl_matrix *J, const gsl_vector *f,
                              const fl_calibration *cal)
{
  size_t p = (size_t)st->p;
  gsl_vector *du = gsl_vector_alloc(p);
  double gain;
  int moved = (int)p;
  if (!du || !gauss_newton_step(J, f, du, &gain))
    goto out;
  moved = -1;
  for (size_t j = 0; j < p && moved < 0; j++) {
    double deriv, theta = from_u(&st->fit->free[j], gsl_vector_get(u, j), &deriv);
    double step = fabs(deriv * gsl_vector_get(du, j));
    double uj = gsl_vector_get(u, j), h = diff_step(st->fit, uj);
    double tol = fmax(isfinite(cal->std_error[j]) ? 0.2 * cal->std_error[j] : 0.0, 1e-3 * fabs(theta));
    tol = fmax(tol, fabs(deriv) * h);
    if (!(step <= tol))
      moved = (int)j;
  }
out:
  if (du)
    gsl_vector_free(du);
  return moved;
}


/* ---- the global stage's evaluations (fit_global.h) ------------------------------------ */

/* Residuals of the points rows of theta that the checkpoint does not hold, into rows of
 * f (n each); ok[k] 0 for a point that did not run.  Per curve item the points whose
 * experiments a batch may share run as one batch, as the Jacobian's columns do; a batch
 * that fails runs again point by point, so that one bad point fails alone.  A start
 * (row 0 when is_start) that the experiment's checks refuse ends the calibration, as
 * it does without the stage. */
static int design_residuals(cal_state *st, int m, const int *rows, double (*theta)[FL_FIT_MAX_FREE], int has_start,
                            double *f, int *ok)
{
  const fl_fit *fit = st->fit;
  int rc = FL_OK;
  fl_experiment *e = malloc((size_t)(m > 0 ? m : 1) * sizeof *e);
  const double **set = malloc((size_t)(m > 0 ? m : 1) * sizeof *set);
  int *idx = malloc((size_t)(m > 0 ? m : 1) * sizeof *idx);
  int maxrows = 0;
  for (int d = 0; d < fit->ndata; d++)
    if (fit->data[d].data.n > maxrows)
      maxrows = fit->data[d].data.n;
  double *y = malloc((size_t)(m > 0 ? m : 1) * (size_t)(maxrows > 0 ? maxrows : 1) * sizeof *y);
  double *kinks = calloc((size_t)(m > 0 ? m : 1), sizeof *kinks);
  if (!e || !set || !idx || !y || !kinks) {
    snprintf(st->err, sizeof st->err, "out of memory");
    rc = FL_ENOMEM;
    goto out;
  }
  for (int k = 0; k < m; k++)
    ok[k] = 1;
  for (int d = 0; d < fit->ndata && rc == FL_OK; d++) {
    const fl_fit_data *it = &fit->data[d];
    const item_info *ii = &st->item[d];
    /* the points the checks accept, and of them the ones that share the first's batch */
    int nb = 0, first = -1;
    for (int k = 0; k < m; k++) {
      if (!ok[k])
        continue;
      int erc = item_experiment(st, d, theta[rows[k]], &e[k]);
      if (erc && has_start && k == 0) {
        rc = erc;
        goto out;
      }
      if (erc) {
        ok[k] = 0;
        continue;
      }
      if (it->kind == FL_FIT_CURVE && !st->opts->separate_runs &&
          (first < 0 || fl_experiment_batchable(&e[first], &e[k]))) {
        if (first < 0)
          first = k;
        set[nb] = theta[rows[k]];
        idx[nb++] = k;
      }
    }
    int batched = 0;
    if (nb > 1) {
      int brc = run_curve(st, d, nb, set, y, kinks);
      if (brc == FL_ENOMEM || (st->opts->stop && *st->opts->stop)) {
        rc = brc ? brc : FL_EINTERRUPT;
        goto out;
      }
      if (!brc) {
        batched = 1;
        for (int b = 0; b < nb; b++)
          curve_residuals(st, d, y + (size_t)b * (size_t)it->data.n, kinks[b],
                          f + (size_t)idx[b] * (size_t)st->n + ii->row0);
      }
    }
    /* the others one by one (and all of a batch that failed) */
    for (int k = 0; k < m; k++) {
      if (!ok[k])
        continue;
      int in_batch = 0;
      for (int b = 0; b < nb && batched; b++)
        in_batch |= idx[b] == k;
      if (in_batch)
        continue;
      int prc = item_residuals(st, d, theta[rows[k]], f + (size_t)k * (size_t)st->n + (size_t)ii->row0);
      if (prc == FL_ENOMEM || (st->opts->stop && *st->opts->stop)) {
        rc = prc ? prc : FL_EINTERRUPT;
        goto out;
      }
      if (prc && has_start && k == 0 && prc == FL_EINPUT) {
        rc = prc;
        goto out;
      }
      if (prc)
        ok[k] = 0;
    }
  }
out:
  free(e);
  free(set);
  free(idx);
  free(y);
  free(kinks);
  return rc;
}

/* The costs of npoints points u (p each, in the transformed parameters): every point's
 * residuals from the checkpoint where it holds them, else simulated (in batches, as
 * design_residuals runs them) and appended to it; kept in the design, so that eval_f at
 * one of them runs nothing.  A point that does not run costs HUGE_VAL; first_is_start:
 * point 0 is the fit's start, and a start the experiment's checks refuse ends the
 * calibration. */
static int point_costs(cal_state *st, int npoints, const double *u, double *cost, int first_is_start)
{
  int p = st->p, n = st->n, rc = FL_OK, m = 0;
  free(st->design_u);
  free(st->design_f);
  st->ndesign = 0;
  st->design_u = malloc((size_t)npoints * (size_t)p * sizeof(double));
  st->design_f = malloc((size_t)npoints * (size_t)n * sizeof(double));
  double(*theta)[FL_FIT_MAX_FREE] = malloc((size_t)npoints * sizeof *theta);
  int *rows = malloc((size_t)npoints * sizeof *rows), *ok = malloc((size_t)npoints * sizeof *ok);
  double *fnew = malloc((size_t)npoints * (size_t)n * sizeof *fnew);
  gsl_vector *uk = gsl_vector_alloc((size_t)p);
  if (!st->design_u || !st->design_f || !theta || !rows || !ok || !fnew || !uk) {
    snprintf(st->err, sizeof st->err, "out of memory");
    rc = FL_ENOMEM;
    goto out;
  }
  memcpy(st->design_u, u, (size_t)npoints * (size_t)p * sizeof(double));
  for (int k = 0; k < npoints; k++) {
    double *fk = st->design_f + (size_t)k * (size_t)n;
    for (int j = 0; j < p; j++)
      gsl_vector_set(uk, (size_t)j, u[(size_t)k * (size_t)p + (size_t)j]);
    theta_of(st, uk, theta[k]);
    const ck_record *r = ck_lookup(st->opts->checkpoint, CK_TAG_F, uk);
    if (r) {
      st->simulations += r->dsim;
      st->batches += r->dbatch;
      for (int i = 0; i < n; i++)
        fk[i] = r->flags & CK_FAILED_TRIAL ? HUGE_VAL : r->v[i];
      continue;
    }
    rows[m++] = k;
  }
  long sim0 = st->simulations, batch0 = st->batches;
  if ((rc = design_residuals(st, m, rows, theta, first_is_start && m > 0 && rows[0] == 0, fnew, ok)))
    goto out;
  for (int b = 0; b < m; b++) {
    int k = rows[b];
    double *fk = st->design_f + (size_t)k * (size_t)n;
    for (int i = 0; i < n; i++)
      fk[i] = ok[b] ? fnew[(size_t)b * (size_t)n + (size_t)i] : HUGE_VAL;
    for (int j = 0; j < p; j++)
      gsl_vector_set(uk, (size_t)j, u[(size_t)k * (size_t)p + (size_t)j]);
    /* the batch's simulations go with its first record, so that a replay counts them once */
    if (ok[b])
      ck_append(st->opts->checkpoint, st->opts->log, st->opts->prog, CK_TAG_F, 0, b ? 0 : st->simulations - sim0,
                b ? 0 : st->batches - batch0, uk, fk, (size_t)n);
    else {
      for (int i = 0; i < n; i++)
        fnew[(size_t)b * (size_t)n + (size_t)i] = 1e10;
      ck_append(st->opts->checkpoint, st->opts->log, st->opts->prog, CK_TAG_F, CK_FAILED_TRIAL,
                b ? 0 : st->simulations - sim0, b ? 0 : st->batches - batch0, uk, fnew + (size_t)b * (size_t)n,
                (size_t)n);
    }
  }
  st->ndesign = npoints;
  for (int k = 0; k < npoints; k++) {
    const double *fk = st->design_f + (size_t)k * (size_t)n;
    double c = 0.0;
    for (int i = 0; i < n; i++)
      c += fk[i] * fk[i];
    cost[k] = isfinite(c) ? 0.5 * c : HUGE_VAL;
  }
out:
  free(theta);
  free(rows);
  free(ok);
  free(fnew);
  if (uk)
    gsl_vector_free(uk);
  return rc;
}

/* fl_global_ops.costs: point_costs, the design's first point the start. */
static int global_costs(void *ctx, int npoints, const double *u, double *cost)
{
  return point_costs(ctx, npoints, u, cost, 1);
}

/* At a point where no trial step lowers the cost while the Gauss-Newton step is not
 * small (gauss_newton_small): a corner of the cost, where two of the curve's events
 * change places, or a valley narrower than the differences see.  Runs the 2 p points
 * one difference step either way along each parameter (a curve's difference step,
 * solver.difference_step) through point_costs, and writes the cheapest into best, its
 * cost into *best_cost; *unrun: the points that did not run.  Returns its index (2 j
 * forward, 2 j + 1 backward along parameter j), -1 when none costs less than cost0
 * (the point is then a minimum to the resolution of the differences), or -2 when a
 * batch fell back to the explicit engine, whose costs do not compare with cost0's run;
 * *rc an error of the runs (FL_OK). */
static int stall_probe(cal_state *st, const gsl_vector *u, double cost0, gsl_vector *best, double *best_cost,
                       int *unrun, int *rc)
{
  int p = st->p, k_best = -1, fell = st->fallbacks;
  double pts[2 * FL_FIT_MAX_FREE * FL_FIT_MAX_FREE], cost[2 * FL_FIT_MAX_FREE];
  for (int k = 0; k < 2 * p; k++) {
    int j = k / 2;
    double uj = gsl_vector_get(u, (size_t)j), h = diff_step(st->fit, uj);
    for (int i = 0; i < p; i++)
      pts[k * p + i] = gsl_vector_get(u, (size_t)i);
    pts[k * p + j] = k % 2 ? uj - h : uj + h;
  }
  if ((*rc = point_costs(st, 2 * p, pts, cost, 0)))
    return -1;
  if (st->fallbacks != fell)
    return -2;
  *best_cost = cost0;
  *unrun = 0;
  for (int k = 0; k < 2 * p; k++)
    *unrun += !(cost[k] < HUGE_VAL);
  for (int k = 0; k < 2 * p; k++)
    if (cost[k] < *best_cost) {
      *best_cost = cost[k];
      k_best = k;
    }
  for (int i = 0; i < p && k_best >= 0; i++)
    gsl_vector_set(best, (size_t)i, pts[k_best * p + i]);
  return k_best;
}

/* fl_global_ops.refine: a trust-region solver of its own for the slot, a few
 * iterations from u; the winner's goes on as the local fit. */
static int global_refine(void *ctx, int slot, const double *u, int iterations, double *u_out, double *cost)
{
  cal_state *st = ctx;
  int p = st->p;
  gsl_vector *u0 = gsl_vector_alloc((size_t)p);
  gsl_multifit_nlinear_workspace *w =
      gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, st->gparams, (size_t)st->n, (size_t)p);
  if (!u0 || !w) {
    if (u0)
      gsl_vector_free(u0);
    if (w)
      gsl_multifit_nlinear_free(w);
    snprintf(st->err, sizeof st->err, "out of memory for the solver");
    return FL_ENOMEM;
  }
  st->gw[slot] = w;
  for (int j = 0; j < p; j++)
    gsl_vector_set(u0, (size_t)j, u[j]);
  if (st->drop_item >= 0) {
    /* the candidate's drop first lands where the measured one is, as the start's does:
     * a drop in the wrong place is a step the trust region cannot cross */
    double theta[FL_FIT_MAX_FREE];
    theta_of(st, u0, theta);
    if (align_drop(st, st->drop_item, st->drop_jb, st->drop_want, theta) == FL_OK)
      for (int j = 0; j < p; j++)
        gsl_vector_set(u0, (size_t)j, to_u(&st->fit->free[j], theta[j]));
    else if (st->opts->stop && *st->opts->stop) {
      gsl_vector_free(u0);
      return FL_EINTERRUPT;
    }
  }
  st->rc = 0;
  int status = gsl_multifit_nlinear_init(u0, st->gfdf, w);
  for (int j = 0; j < p; j++)
    u_out[j] = gsl_vector_get(u0, (size_t)j);
  gsl_vector_free(u0);
  if (status && (st->rc == FL_ENOMEM || (st->opts->stop && *st->opts->stop)))
    return st->rc ? st->rc : FL_EINTERRUPT;
  if (status) {
    /* a candidate whose residuals or Jacobian do not run is left out */
    note(st, "note: global: candidate %d cannot be refined: %s", slot + 1, st->rc ? st->err : gsl_strerror(status));
    gsl_multifit_nlinear_free(w);
    st->gw[slot] = NULL;
    *cost = HUGE_VAL;
    return FL_OK;
  }
  for (int iter = 1; iter <= iterations && iter <= st->fit->solver.max_iterations; iter++) {
    st->rc = 0;
    status = gsl_multifit_nlinear_iterate(w);
    if (status == GSL_ENOPROG) {
      st->genoprog[slot] = 1;
      break;
    }
    if (status && st->rc == FL_ENOMEM)
      return st->rc;
    if (status) {
      /* a run that failed: this refinement ends where it stands */
      note(st, "note: global: the refinement of candidate %d stopped: %s", slot + 1,
           st->rc ? st->err : gsl_strerror(status));
      break;
    }
    st->giter[slot] = iter;
    if (converged(st->fit, w)) {
      st->gconv[slot] = 1;
      break;
    }
    if (st->opts->stop && *st->opts->stop)
      break;
  }
  gsl_vector *x = gsl_multifit_nlinear_position(w);
  for (int j = 0; j < p; j++)
    u_out[j] = gsl_vector_get(x, (size_t)j);
  *cost = cost_of(gsl_multifit_nlinear_residual(w));
  return FL_OK;
}

/* An interrupt while a stall is handled: the report of the point reached, as inside an
 * iteration. */
static void stall_interrupted(fl_calibration *cal)
{
  cal->status = FL_CAL_FAILED;
  cal->interrupted = 1;
  snprintf(cal->message, sizeof cal->message, "interrupted after iteration %d", cal->iterations);
}

/* After the runs of a stall's probe or of a leap, which returned *rc: an interrupt
 * (stall_interrupted, *rc cleared) or an error (left in *rc, err set) ends the
 * handling, returning 1; else 0. */
static int probe_ended(const cal_state *st, fl_calibration *cal, int *rc, char *err, size_t errlen)
{
  if (*rc == FL_EINTERRUPT || (st->opts->stop && *st->opts->stop)) {
    *rc = FL_OK;
    stall_interrupted(cal);
    return 1;
  }
  if (*rc)
    snprintf(err, errlen, "%s", *rc == FL_ENOMEM ? "out of memory" : st->err);
  return *rc != FL_OK;
}

/* A trust region of its own from point ub (a fresh workspace, so that a start that fails,
 * a run of its Jacobian say, leaves the point reached as it was).  Returns 1 with *w
 * the new one (the old one freed), else 0: the fit goes on from the point reached (a
 * note says why), or cal's status is set by an interrupt, or *rc holds an error that
 * ends the calibration (err set). */
static int restart_at(cal_state *st, const gsl_multifit_nlinear_parameters *params, gsl_multifit_nlinear_fdf *fdf,
                      gsl_multifit_nlinear_workspace **w, const gsl_vector *ub, fl_calibration *cal, int *rc,
                      char *err, size_t errlen)
{
  gsl_multifit_nlinear_workspace *w2 =
      gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, params, (size_t)st->n, (size_t)st->p);
  if (!w2) {
    snprintf(err, errlen, "out of memory for the solver (%d residuals, %d parameters)", st->n, st->p);
    *rc = FL_ENOMEM;
    return 0;
  }
  st->iterating = 0;
  int status = gsl_multifit_nlinear_init(ub, fdf, w2);
  st->iterating = 1;
  if (status) {
    gsl_multifit_nlinear_free(w2);
    if (st->rc == FL_EINTERRUPT || (st->opts->stop && *st->opts->stop)) {
      stall_interrupted(cal);
    } else if (st->rc == FL_ENOMEM) {
      *rc = FL_ENOMEM;
      snprintf(err, errlen, "out of memory");
    } else { /* the trust region where it was */
      note(st, "note: the start again did not run (%s); going on from the point reached",
           st->rc ? st->err : gsl_strerror(status));
    }
    return 0;
  }
  gsl_multifit_nlinear_free(*w);
  *w = w2;
  if (st->opts->progress && st->opts->log)
    progress_line(st, cal->iterations, gsl_multifit_nlinear_position(*w), gsl_multifit_nlinear_residual(*w));
  return 1;
}

/* No trial step lowered the cost at *w's point.  Where the Gauss-Newton step is not
 * small (gauss_newton_small), the difference points around it are run (stall_probe):
 * returns 1 with *w a fresh trust region at the cheapest of them (the old one freed; a
 * note says so), 0 where the fit stops here (*at_resolution 1 when none was cheaper: a
 * minimum to the resolution of the differences; cal's status and message set where a
 * run or an interrupt ended it).  *rc: an error that ends the calibration (err set),
 * else FL_OK. */
static int after_stall(cal_state *st, const gsl_multifit_nlinear_parameters *params, gsl_multifit_nlinear_fdf *fdf,
                       gsl_multifit_nlinear_workspace **w, fl_calibration *cal, int *at_resolution, int *rc,
                       char *err, size_t errlen)
{
  const fl_fit *fit = st->fit;
  gsl_vector *uc = gsl_multifit_nlinear_position(*w), *fc = gsl_multifit_nlinear_residual(*w);
  gsl_matrix *J = gsl_multifit_nlinear_jac(*w);
  double c0 = cost_of(fc), cb = 0.0;
  if (uncertainties(st, uc, J, fc, cal) >= 0)
    return 0; /* a parameter without influence: the fit fails as it is */
  for (int j = 0; j < st->p; j++)
    if (at_bound(&fit->free[j], from_u(&fit->free[j], gsl_vector_get(uc, (size_t)j), NULL)))
      return 0; /* at a bound: the same */
  if (gauss_newton_small(st, uc, J, fc, cal) < 0)
    return 0; /* converged as it is */
  gsl_vector *ub = gsl_vector_alloc(uc->size);
  if (!ub) {
    snprintf(err, errlen, "out of memory");
    *rc = FL_ENOMEM;
    return 0;
  }
  int again = 0, unrun = 0;
  st->rc = 0;
  int k = stall_probe(st, uc, c0, ub, &cb, &unrun, rc);
  if (probe_ended(st, cal, rc, err, errlen)) {
    /* interrupted, or an error */
  } else if (k == -2) {
    note(st, "note: no trial step lowered the cost after iteration %d, and the points around it ran on the "
             "explicit engine (no static equilibrium at one of them): their costs do not compare", cal->iterations);
  } else if (k < 0) {
    *at_resolution = unrun < 2 * st->p; /* some ran, none cheaper */
    if (unrun > 0)
      note(st, "note: %d of the %d difference points around iteration %d did not run", unrun, 2 * st->p,
           cal->iterations);
  } else {
    note(st, "note: no trial step lowered the cost after iteration %d; going on from %s %s by its difference "
             "step (cost %.6g, was %.6g)", cal->iterations, fit->free[k / 2].path, k % 2 ? "lowered" : "raised",
         cb, c0);
    again = restart_at(st, params, fdf, w, ub, cal, rc, err, errlen);
  }
  gsl_vector_free(ub);
  return again;
}

/* The last accepted points of a trust region, for valley_leap: u (transformed) and cost,
 * the latest last. */
typedef struct {
  double u[CRAWL_STEPS + 1][FL_FIT_MAX_FREE];
  double cost[CRAWL_STEPS + 1];
  int n; /* points held, up to CRAWL_STEPS + 1 */
} crawl_track;

/* Add w's point to the track, dropping the oldest when it is full. */
static void crawl_add(crawl_track *t, gsl_multifit_nlinear_workspace *w, int p)
{
  if (t->n == CRAWL_STEPS + 1) {
    memmove(t->u[0], t->u[1], CRAWL_STEPS * sizeof t->u[0]);
    memmove(t->cost, t->cost + 1, CRAWL_STEPS * sizeof t->cost[0]);
    t->n--;
  }
  gsl_vector *u = gsl_multifit_nlinear_position(w);
  for (int j = 0; j < p; j++)
    t->u[t->n][j] = gsl_vector_get(u, (size_t)j);
  t->cost[t->n++] = cost_of(gsl_multifit_nlinear_residual(w));
}

/* Start a track at w's point. */
static void crawl_start(crawl_track *t, gsl_multifit_nlinear_workspace *w, int p)
{
  t->n = 0;
  crawl_add(t, w, p);
}

/* Add w's point; returns 1 when the last CRAWL_STEPS accepted steps crawl along a
 * valley: together they lowered the cost by less than CRAWL_GAIN of it, each in nearly
 * the direction of their sum (CRAWL_COS). */
static int crawl_push(crawl_track *t, gsl_multifit_nlinear_workspace *w, int p)
{
  crawl_add(t, w, p);
  if (t->n < CRAWL_STEPS + 1 || !(t->cost[0] - t->cost[CRAWL_STEPS] < CRAWL_GAIN * t->cost[CRAWL_STEPS]))
    return 0;
  double d[FL_FIT_MAX_FREE], dd = 0.0;
  for (int j = 0; j < p; j++) {
    d[j] = t->u[CRAWL_STEPS][j] - t->u[0][j];
    dd += d[j] * d[j];
  }
  for (int k = 0; k < CRAWL_STEPS; k++) {
    double sd = 0.0, ss = 0.0;
    for (int j = 0; j < p; j++) {
      double sj = t->u[k + 1][j] - t->u[k][j];
      sd += sj * d[j];
      ss += sj * sj;
    }
    if (!(sd > CRAWL_COS * sqrt(ss * dd)))
      return 0;
  }
  return 1;
}

/* The trust region crawls along a valley (crawl_push): steps of nearly one direction,
 * each held short by a local model that the valley's curved or cornered floor leaves
 * behind.  Leaps along the crawl's last CRAWL_STEPS steps, d: the points u + a d for a =
 * 1, 2, 4 ... 64, one run each, while the cost keeps falling; from the cheapest, below
 * the present cost, the trust region starts again (restart_at).  Returns 1 then, else 0
 * (*rc an error that ends the calibration, err set; cal's status set where a run or an
 * interrupt ended it). */
static int valley_leap(cal_state *st, const gsl_multifit_nlinear_parameters *params, gsl_multifit_nlinear_fdf *fdf,
                       gsl_multifit_nlinear_workspace **w, const crawl_track *t, fl_calibration *cal, int *rc,
                       char *err, size_t errlen)
{
  int p = st->p, n = st->n, fell = st->fallbacks, kept = 0;
  double best = t->cost[CRAWL_STEPS], a_best = 0.0, pt[FL_FIT_MAX_FREE];
  double *fbest = malloc((size_t)n * sizeof *fbest); /* the cheapest point's residuals */
  if (!fbest) {
    snprintf(err, errlen, "out of memory");
    *rc = FL_ENOMEM;
    return 0;
  }
  for (double a = 1.0; a <= 64.0; a *= 2.0) {
    double c;
    for (int j = 0; j < p; j++)
      pt[j] = t->u[CRAWL_STEPS][j] + a * (t->u[CRAWL_STEPS][j] - t->u[0][j]);
    *rc = point_costs(st, 1, pt, &c, 0);
    if (probe_ended(st, cal, rc, err, errlen)) {
      free(fbest);
      return 0;
    }
    if (st->fallbacks != fell) {
      a_best = 0.0; /* an explicit run's cost does not compare with the static ones */
      break;
    }
    if (!(c < best))
      break;
    best = c;
    a_best = a;
    memcpy(fbest, st->design_f, (size_t)n * sizeof *fbest);
    kept = 1;
  }
  if (a_best == 0.0) {
    free(fbest);
    return 0;
  }
  gsl_vector *ub = gsl_vector_alloc((size_t)p);
  if (!ub) {
    free(fbest);
    snprintf(err, errlen, "out of memory");
    *rc = FL_ENOMEM;
    return 0;
  }
  /* the design holds the last point tried: make it the cheapest, whose residuals the
   * restart's evaluation then takes without running it again */
  for (int j = 0; j < p; j++)
    st->design_u[j] = t->u[CRAWL_STEPS][j] + a_best * (t->u[CRAWL_STEPS][j] - t->u[0][j]);
  if (kept)
    memcpy(st->design_f, fbest, (size_t)n * sizeof *fbest);
  st->ndesign = 1;
  free(fbest);
  for (int j = 0; j < p; j++)
    gsl_vector_set(ub, (size_t)j, t->u[CRAWL_STEPS][j] + a_best * (t->u[CRAWL_STEPS][j] - t->u[0][j]));
  note(st, "note: after iteration %d the trust region crawled along a valley (%d steps of one direction, the cost "
           "%.3g %% lower); leapt %g times their length along it (cost %.6g, was %.6g)",
       cal->iterations, CRAWL_STEPS, 100.0 * (t->cost[0] - t->cost[CRAWL_STEPS]) / t->cost[CRAWL_STEPS], a_best,
       best, t->cost[CRAWL_STEPS]);
  int again = restart_at(st, params, fdf, w, ub, cal, rc, err, errlen);
  gsl_vector_free(ub);
  return again;
}

int fl_calibrate(fl_fit *fit, const fl_calibrate_opts *opts, fl_calibration *cal, char *err, size_t errlen)
{
  static const fl_calibrate_opts quiet = {1, 0, 0, NULL, NULL, NULL, NULL, 0, 0};
  cal_state st;
  int p = fit->nfree, n = fit->npoints, rc = FL_OK, maxrows = 0;
  double t0 = now();
  memset(cal, 0, sizeof *cal);
  features_measured(fit, &cal->features);
  memset(&st, 0, sizeof st);
  st.drop_item = -1;
  st.drop_js = -1;
  st.fit = fit;
  st.t0 = t0;
  st.opts = opts ? opts : &quiet;
  st.n = n;
  st.p = p;
  cal->nfree = p;
  st.item = calloc((size_t)fit->ndata, sizeof *st.item);
  st.prefix = fl_prefix_cache_new(); /* none: nothing shared */
  for (int j = 0; j < p; j++)
    for (int k = 0; k < 4; k++)
      st.envelope[j] |= strcmp(fit->free[j].path, buckling_keys[k]) == 0;
  st.last_u = gsl_vector_alloc((size_t)p);
  st.last_f = gsl_vector_alloc((size_t)n);
  gsl_vector *u0 = gsl_vector_alloc((size_t)p);
  gsl_multifit_nlinear_workspace *w = NULL;
  if (!st.item || !st.last_u || !st.last_f || !u0) {
    snprintf(err, errlen, "out of memory");
    rc = FL_ENOMEM;
    goto out;
  }
  /* residual rows and their scales */
  int row = 0;
  for (int d = 0; d < fit->ndata; d++) {
    fl_fit_data *it = &fit->data[d];
    item_info *ii = &st.item[d];
    const fl_measured *m = &it->data;
    ii->row0 = row;
    if (it->kind == FL_FIT_RINGDOWN) {
      row += 2;
    } else if (it->kind == FL_FIT_CURVE) {
      for (int i = 0; i < m->n; i++)
        if (fabs(m->y[i]) > ii->ymax)
          ii->ymax = fabs(m->y[i]);
      ii->norm = it->weight / (ii->ymax * sqrt((double)m->n));
      row += m->n;
      double feat[5]; /* a kink row where the loader counted one (fl_fit_has_kink) */
      if (it->kink_weight > 0.0 && fl_drop_features(m->x, m->y, m->n, 0, feat)) {
        ii->kink = 1;
        ii->kink_x = feat[4];
        ii->kink_norm = it->kink_weight / (m->x[m->n - 1] - m->x[0]);
        row++;
      }
      if (m->n > maxrows)
        maxrows = m->n;
    } else {
      double s = 0, s2 = 0;
      for (int i = 0; i < m->n; i++)
        s += m->y[i];
      ii->mean = s / m->n;
      for (int i = 0; i < m->n; i++)
        s2 += (m->y[i] - ii->mean) * (m->y[i] - ii->mean);
      ii->sd = sqrt(s2 / (m->n - 1));
      /* sampling errors of the measured and of the simulated moments (normal
       * samples: var(mean) = sd^2 / n, var(cv) = cv^2 (1 / (2 (n - 1)) + cv^2 / n)) */
      double cv = ii->sd / ii->mean;
      int ns = it->specimens;
      ii->se_mean = ii->sd * sqrt(1.0 / m->n + 1.0 / ns);
      ii->se_cv = cv * sqrt(1.0 / (2.0 * (m->n - 1)) + cv * cv / m->n + 1.0 / (2.0 * (ns - 1)) + cv * cv / ns);
      row += 2;
    }
  }
  st.ybuf = malloc((size_t)(2 * p + 1) * (size_t)(maxrows > 0 ? maxrows : 1) * sizeof *st.ybuf);
  st.fbuf = malloc(2 * (size_t)(maxrows + 1) * sizeof *st.fbuf);
  if (row != n) {
    snprintf(err, errlen, "%s: %d residual rows where the loader counted %d", fit->file, row, n);
    rc = FL_EINPUT;
    goto out;
  }
  if (!st.ybuf || !st.fbuf) {
    snprintf(err, errlen, "out of memory");
    rc = FL_ENOMEM;
    goto out;
  }
  /* starting values */
  double start[FL_FIT_MAX_FREE];
  if ((rc = auto_starts(&st, start))) {
    snprintf(err, errlen, "%s", st.err);
    goto out;
  }
  for (int j = 0; j < p; j++) {
    fit->free[j].start = start[j];
    cal->start[j] = start[j];
    gsl_vector_set(u0, (size_t)j, to_u(&fit->free[j], start[j]));
  }
  /* which parameters a batch may vary, per curve */
  for (int d = 0; d < fit->ndata; d++) {
    fl_experiment e0, e1;
    double th[FL_FIT_MAX_FREE];
    memcpy(th, start, sizeof th);
    if ((rc = item_experiment(&st, d, th, &e0))) {
      snprintf(err, errlen, "%s", st.err);
      goto out;
    }
    for (int j = 0; j < p; j++) {
      memcpy(th, start, sizeof th);
      double uj = gsl_vector_get(u0, (size_t)j);
      th[j] = from_u(&fit->free[j], uj + 1e-3 * fmax(fabs(uj), 1e-2), NULL); /* a Jacobian step */
      if (!admissible(&st, d, th)) /* refused there: the step the other way, as eval_df takes it */
        th[j] = from_u(&fit->free[j], uj - 1e-3 * fmax(fabs(uj), 1e-2), NULL);
      if ((rc = item_experiment(&st, d, th, &e1))) {
        snprintf(err, errlen, "%s", st.err);
        goto out;
      }
      st.item[d].batchable[j] = fl_experiment_batchable(&e0, &e1);
      if (st.opts->separate_runs) {
        st.item[d].batchable[j] = 0;
      } else if (!st.item[d].batchable[j] && fit->data[d].kind == FL_FIT_CURVE && !st.noted[j]) {
        note(&st, "note: %s changes what the specimens of a batch share (geometry, density, test or simulation): "
             "its Jacobian column comes from separate runs", fit->free[j].path);
        st.noted[j] = 1;
      }
    }
  }
  /* the solver */
  gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
  params.trs = *fl_fit_methods[fit->solver.method].trs;
  params.scale = fit->solver.scale == FL_SCALE_LEVENBERG   ? gsl_multifit_nlinear_scale_levenberg
                 : fit->solver.scale == FL_SCALE_MARQUARDT ? gsl_multifit_nlinear_scale_marquardt
                                                           : gsl_multifit_nlinear_scale_more;
  gsl_multifit_nlinear_fdf fdf;
  memset(&fdf, 0, sizeof fdf);
  fdf.f = eval_f;
  fdf.df = eval_df;
  fdf.fvv = NULL;
  fdf.n = (size_t)n;
  fdf.p = (size_t)p;
  fdf.params = &st;
  int enoprog = 0, iter0 = 0, status;
  st.iterating = 1;
  cal->status = FL_CAL_MAX_ITERATIONS;
  if (fl_global_wanted(fit)) {
    /* the global stage: its winner's solver goes on as the local fit */
    st.gparams = &params;
    st.gfdf = &fdf;
    fl_global_ops ops = {global_costs, global_refine, &st, st.opts->log, st.opts->prog};
    fl_global_result gr;
    double ustart[FL_FIT_MAX_FREE];
    long sim0 = st.simulations;
    for (int j = 0; j < p; j++)
      ustart[j] = gsl_vector_get(u0, (size_t)j);
    rc = fl_global_run(p, ustart, fit->solver.global_points, fit->solver.global_refine, &ops, &gr);
    if (rc) {
      if (st.opts->stop && *st.opts->stop)
        snprintf(err, errlen, "interrupted in the global stage");
      else if (rc == FL_EUNSTABLE && gr.refined > 0)
        snprintf(err, errlen, "global: none of the %d candidates could be refined (%s)", gr.refined, st.err);
      else if (rc == FL_EUNSTABLE && gr.points > 0)
        snprintf(err, errlen, "global: none of the %d points of the design and the start ran (%s)", gr.points, st.err);
      else
        snprintf(err, errlen, "%s", st.err[0] ? st.err : "global stage failed");
      goto out;
    }
    int win = gr.winner;
    w = st.gw[win];
    st.gw[win] = NULL;
    iter0 = st.giter[win];
    cal->global.used = 1;
    cal->global.points = gr.points;
    cal->global.failed = gr.failed;
    cal->global.refined = gr.refined;
    cal->global.winner = win;
    cal->global.simulations = st.simulations - sim0;
    for (int r = 0; r < gr.refined; r++) {
      cal->global.design_index[r] = gr.design_index[r];
      cal->global.cost_start[r] = gr.cost_start[r];
      cal->global.cost_refined[r] = gr.cost_refined[r];
      for (int j = 0; j < p; j++) {
        cal->global.start[r][j] = from_u(&fit->free[j], gr.u_start[r][j], NULL);
        cal->global.refined_value[r][j] = from_u(&fit->free[j], gr.u_refined[r][j], NULL);
      }
    }
    /* where the winner's simulated features land */
    features_at(&st, gsl_multifit_nlinear_residual(w), &cal->features, 0);
    if (st.gconv[win])
      cal->status = FL_CAL_CONVERGED;
    enoprog = st.genoprog[win];
    cal->iterations = iter0;
  } else {
    w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, (size_t)n, (size_t)p);
    if (!w) {
      snprintf(err, errlen, "out of memory for the solver (%d residuals, %d parameters)", n, p);
      rc = FL_ENOMEM;
      goto out;
    }
    st.iterating = 0;
    status = gsl_multifit_nlinear_init(u0, &fdf, w);
    st.iterating = 1;
    if (status) {
      snprintf(err, errlen, "%s", st.rc ? st.err : gsl_strerror(status));
      rc = st.rc ? st.rc : FL_EUNSTABLE;
      goto out;
    }
  }
  st.t_iter0 = now();
  st.iter0 = iter0;
  if (st.opts->progress && st.opts->log)
    progress_line(&st, iter0, gsl_multifit_nlinear_position(w), gsl_multifit_nlinear_residual(w));
  if (iter0 > 0 && ((st.opts->stop && *st.opts->stop) || (st.opts->stop_after > 0 && iter0 >= st.opts->stop_after))) {
    cal->status = FL_CAL_FAILED;
    cal->interrupted = 1;
    snprintf(cal->message, sizeof cal->message, "interrupted after iteration %d%s", iter0,
             st.opts->stop && *st.opts->stop ? "" : " (--stop-after)");
  }
  /* the trust region's iterations; where no trial step lowers the cost any more while
   * the local model's step is not small, the difference points around the current one
   * are tried (stall_probe): from a cheaper one the trust region starts again, up to
   * MAX_RESTARTS times; with none cheaper the point is a minimum to the resolution of
   * the differences */
  int restarts = 0, at_resolution = 0, leaps = 0;
  crawl_track track;
  cal->iterations = iter0;
restart:
  crawl_start(&track, w, p);
  for (int iter = cal->iterations + 1;
       iter <= fit->solver.max_iterations && cal->status == FL_CAL_MAX_ITERATIONS && !enoprog; iter++) {
    st.rc = 0;
    status = gsl_multifit_nlinear_iterate(w);
    if (status == GSL_ENOPROG) {
      /* no trial step lowered the cost: decided below from the Gauss-Newton step */
      enoprog = 1;
      break;
    }
    if (status) {
      cal->status = FL_CAL_FAILED;
      snprintf(cal->message, sizeof cal->message, "%.2000s", st.rc ? st.err : gsl_strerror(status));
      break;
    }
    cal->iterations = iter;
    if (st.opts->progress && st.opts->log)
      progress_line(&st, iter, gsl_multifit_nlinear_position(w), gsl_multifit_nlinear_residual(w));
    if (converged(fit, w)) {
      cal->status = FL_CAL_CONVERGED;
      break;
    }
    if ((st.opts->stop && *st.opts->stop) || (st.opts->stop_after > 0 && iter >= st.opts->stop_after)) {
      cal->status = FL_CAL_FAILED;
      cal->interrupted = 1;
      snprintf(cal->message, sizeof cal->message, "interrupted after iteration %d%s", iter,
               st.opts->stop && *st.opts->stop ? "" : " (--stop-after)");
      break;
    }
    if (crawl_push(&track, w, p) && leaps < MAX_LEAPS && iter < fit->solver.max_iterations) {
      leaps++;
      int again = valley_leap(&st, &params, &fdf, &w, &track, cal, &rc, err, errlen);
      if (rc)
        goto out;
      if (again)
        goto restart;
      if (cal->status != FL_CAL_MAX_ITERATIONS)
        break;
      crawl_start(&track, w, p); /* no leap: the next judged over as many steps again */
    }
  }
  if (enoprog && cal->status == FL_CAL_MAX_ITERATIONS && restarts < MAX_RESTARTS &&
      cal->iterations < fit->solver.max_iterations) {
    int again = after_stall(&st, &params, &fdf, &w, cal, &at_resolution, &rc, err, errlen);
    if (rc)
      goto out;
    if (again) {
      restarts++;
      enoprog = 0;
      goto restart;
    }
  }
  if (cal->status == FL_CAL_MAX_ITERATIONS && !enoprog) /* no progress: decided below */
    snprintf(cal->message, sizeof cal->message, "no convergence in solver.max_iterations = %d iterations",
             fit->solver.max_iterations);
  /* the best point: the solver's current one */
  gsl_vector *u = gsl_multifit_nlinear_position(w), *f = gsl_multifit_nlinear_residual(w);
  gsl_matrix *J = gsl_multifit_nlinear_jac(w);
  cal->cost = cost_of(f);
  for (int j = 0; j < p; j++)
    cal->value[j] = from_u(&fit->free[j], gsl_vector_get(u, (size_t)j), NULL);
  int und = uncertainties(&st, u, J, f, cal), bound = -1;
  /* a value pinned at a bound: the data ask for more than the bounds allow */
  for (int j = 0; j < p && bound < 0; j++)
    if (at_bound(&fit->free[j], cal->value[j]))
      bound = j;
  if (cal->status == FL_CAL_FAILED) {
    /* a run that failed, or an interrupt: its message stands */
  } else if (bound >= 0) {
    double fr = param_frac(&fit->free[bound], cal->value[bound]);
    cal->status = FL_CAL_FAILED;
    snprintf(cal->message, sizeof cal->message,
             "%s ran to its bound %s = %g: the data cannot be matched within the bounds (data from another "
             "specimen or test, a wrong experiment, or bounds too narrow)", fit->free[bound].path,
             fr < 0.5 ? "min" : "max", fr < 0.5 ? fit->free[bound].min : fit->free[bound].max);
  } else if (und >= 0) {
    cal->status = FL_CAL_FAILED;
    snprintf(cal->message, sizeof cal->message,
             "%s has no influence on the residuals (singular covariance): these data cannot determine it; fix it, "
             "or add data it changes", fit->free[und].path);
  } else if (enoprog) {
    int j = gauss_newton_small(&st, u, J, f, cal);
    if (j < 0) {
      cal->status = FL_CAL_CONVERGED;
    } else if (at_resolution) {
      cal->status = FL_CAL_CONVERGED;
      note(&st, "note: converged to the resolution of the differences after iteration %d: no trial step lowered "
                "the cost, nor does any parameter moved by its difference step either way (the local model "
                "still asks to move %s: a corner of the cost, which the differences do not resolve)",
           cal->iterations, j < st.p ? fit->free[j].path : "the parameters");
    } else {
      cal->status = FL_CAL_FAILED;
      snprintf(cal->message, sizeof cal->message,
               "no progress after iteration %d: no trial step lowered the cost, yet the local model asks to move %s "
               "further (the simulated curves may be too coarse for the differences of the Jacobian)",
               cal->iterations, j < st.p ? fit->free[j].path : "the parameters");
    }
  }
  cal->calibrated = fit->exp;
  if ((rc = fl_fit_apply(fit, cal->value, &cal->calibrated, fit->exp_path, err, errlen)))
    goto out;
  features_at(&st, f, &cal->features, 1);
  st.rc = 0;
  if ((rc = report_curves(&st, u, f, cal))) {
    snprintf(err, errlen, "%s", rc == FL_ENOMEM ? "out of memory" : st.err);
    goto out;
  }
out:
  cal->simulations = st.simulations;
  cal->batches = st.batches;
  cal->wall_time = now() - t0;
  if (rc)
    fl_calibration_free(cal);
  if (w)
    gsl_multifit_nlinear_free(w);
  for (int k = 0; k < FL_GLOBAL_MAX_REFINE; k++)
    if (st.gw[k])
      gsl_multifit_nlinear_free(st.gw[k]);
  free(st.design_u);
  free(st.design_f);
  if (u0)
    gsl_vector_free(u0);
  if (st.last_u)
    gsl_vector_free(st.last_u);
  if (st.last_f)
    gsl_vector_free(st.last_f);
  free(st.ybuf);
  free(st.fbuf);
  free(st.item);
  fl_prefix_cache_free(st.prefix);
  return rc;
}

int fl_calibration_warnings(const fl_fit *fit, const fl_calibration *cal, char *buf, size_t len)
{
  int n = 0;
  size_t used = 0;
  buf[0] = '\0';
  for (int j = 0; j < cal->nfree && used < len; j++) {
    const fl_fit_param *fp = &fit->free[j];
    double fr = param_frac(fp, cal->value[j]);
    if (!(fr < BOUND_FRAC || fr > 1.0 - BOUND_FRAC))
      continue;
    used += (size_t)snprintf(buf + used, len - used,
                             "%s%s:%u:%u: free.%s: the fitted value %g is at its bound %s = %g: the fit is held "
                             "there, not determined by the data (widen the bounds, or check the data and units)",
                             n ? "\n" : "", fit->file, fp->line, fp->col, fp->path, cal->value[j],
                             fr < 0.5 ? "min" : "max", fr < 0.5 ? fp->min : fp->max);
    n++;
  }
  /* a drop the fit lost: its status may say converged, with the kink nowhere */
  const fl_calibration_features *ft = &cal->features;
  if (ft->item >= 0 && !ft->fitted_found && !cal->interrupted && used < len) {
    const fl_fit_data *it = &fit->data[ft->item];
    used += (size_t)snprintf(buf + used, len - used,
                             "%s%s: data[%d] (%s): the measured curve drops after its peak at %g %s, the fitted one "
                             "has no drop in the fitted range: the buckling envelope's kink is not where the data "
                             "have it, whatever the status says", n ? "\n" : "", fit->file, ft->item + 1, it->file,
                             ft->measured[0] / it->x_unit_si, it->x_unit);
    n++;
  }
  return n;
}

/* ---- the report ---------------------------------------------------------------------- */

static int write_csv(FILE *f, const fl_calibration *cal, const fl_calibration_output *o)
{
  fprintf(f, "# fiberlab %s: %s\n", PACKAGE_VERSION, o->command ? o->command : "fiber-calibrate");
  fprintf(f, "curve,x,measured,fitted\n");
  for (int d = 0; d < cal->ncurves; d++) {
    const fl_calibration_curve *c = &cal->curve[d];
    for (int i = 0; i < c->points; i++)
      fprintf(f, "%d,%.10g,%.10g,%.10g\n", d + 1, c->x[i], c->measured[i], c->fitted[i]);
  }
  return ferror(f) ? FL_EIO : FL_OK;
}

/* The last component of a path: plot titles stay short whatever the folders. */
static const char *base_name(const char *path)
{
  const char *b = strrchr(path, '/');
  return b && b[1] ? b + 1 : path;
}

static int write_gp(FILE *f, const fl_fit *fit, const fl_calibration *cal, const fl_calibration_output *o,
                    const fl_calibration_paths *p)
{
  int nd = fit->ndata, cols = nd <= 1 ? 1 : nd <= 4 ? 2 : 3, rows = (nd + cols - 1) / cols;
  fprintf(f, "# fiberlab %s plot script; rerun with: gnuplot %s\n", PACKAGE_VERSION, p->gp);
  fprintf(f, "if (!exists(\"fl_csv\")) fl_csv = ");
  fl_gnuplot_quote(f, p->csv);
  fprintf(f, "\nif (!exists(\"fl_out\")) fl_out = ");
  fl_gnuplot_quote(f, p->plot);
  fprintf(f, "\n");
  if (o->plot == FL_PLOT_SVG)
    fprintf(f, "set terminal svg size %d,%d dynamic enhanced font 'sans,12'\n", 600 * cols, 450 * rows);
  else
    fprintf(f, "set terminal pngcairo size %d,%d enhanced font 'sans,11'\n", 600 * cols, 450 * rows);
  fprintf(f, "set output fl_out\nset datafile separator ','\nset grid\nset key top left\n");
  fprintf(f, "set multiplot layout %d,%d title ", rows, cols);
  char title[FL_FIT_PATH + 64];
  snprintf(title, sizeof title, "fiber-calibrate %s: R^2 = %.4f", base_name(fit->file), cal->r_squared);
  fl_gnuplot_quote(f, title);
  fprintf(f, " noenhanced\n");
  for (int d = 0; d < nd; d++) {
    const fl_fit_data *it = &fit->data[d];
    const char *xl, *yl, *xs;
    if (it->kind == FL_FIT_RINGDOWN) {
      xl = "Time (ms)";
      yl = "Tip displacement (m)";
      xs = "1e3";
    } else if (it->kind == FL_FIT_PEAKS) {
      xl = "Cumulative probability";
      yl = it->test == FL_TEST_TORSION ? "Peak torque (N m)" : "Peak force (N)";
      xs = "1";
    } else if (it->test == FL_TEST_BEND3PT) {
      xl = "Nose displacement (mm)";
      yl = "Force on the nose (N)";
      xs = "1e3";
    } else if (it->test == FL_TEST_TENSION) {
      xl = "Elongation (mm)";
      yl = "Grip force (N)";
      xs = "1e3";
    } else {
      xl = "Twist (deg)";
      yl = "Grip torque (N m)";
      xs = "180.0/pi";
    }
    snprintf(title, sizeof title, "%d: %s (R^2 = %.4f)", d + 1, base_name(it->file), cal->curve[d].r_squared);
    fprintf(f, "set title ");
    fl_gnuplot_quote(f, title);
    fprintf(f, " noenhanced\nset xlabel '%s'\nset ylabel '%s'\n", xl, yl);
    fprintf(f, "plot fl_csv using (column(1) == %d ? column(2)*%s : NaN):3 with points pt 7 ps 0.5 "
               "lc rgb '#707070' title '%s', \\\n", d + 1, xs,
            it->kind == FL_FIT_CURVE && it->toe_shift != 0.0 ? "measured, toe corrected" : "measured");
    if (it->kind == FL_FIT_CURVE && it->toe_shift != 0.0)
      fprintf(f, "     fl_csv using (column(1) == %d ? (column(2) + %.10g)*%s : NaN):3 with points pt 6 ps 0.5 "
                 "lc rgb '#4060c0' title 'measured, as read (before the toe shift)', \\\n", d + 1, it->toe_shift, xs);
    fprintf(f, "     fl_csv using (column(1) == %d ? column(2)*%s : NaN):4 with lines lw 2 lc rgb '#c00000' "
               "title '%s'\n", d + 1, xs, it->kind == FL_FIT_PEAKS ? "simulated" : "fitted");
  }
  fprintf(f, "unset multiplot\n");
  return ferror(f) ? FL_EIO : FL_OK;
}

/* The calibrated experiment, under its comment lines: the fit file, the status, R^2
 * and the fitted values, then one line per parameter with its value, standard error
 * and the fit's R^2. */
static int write_calibrated(FILE *f, const fl_fit *fit, const fl_calibration *cal)
{
  char *values = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&values, &len);
  if (!m)
    return FL_ENOMEM;
  for (int j = 0; j < fit->nfree; j++)
    fprintf(m, "%s %s = %.10g", j ? "," : "", fit->free[j].path, cal->value[j]);
  if (fclose(m)) {
    free(values);
    return FL_ENOMEM;
  }
  fl_yaml_out *y = fl_yaml_out_open(f);
  fl_yaml_comment(y, "Calibrated by fiber-calibrate (fiberlab %s) from %s: status %s, R^2 = %.6f.", PACKAGE_VERSION,
                  fit->file, cal->status == FL_CAL_CONVERGED ? "converged"
                             : cal->status == FL_CAL_MAX_ITERATIONS ? "max_iterations" : "failed", cal->r_squared);
  fl_yaml_comment(y, "The experiment %s with%s.", fit->exp_path, values);
  for (int j = 0; j < fit->nfree; j++) {
    char se[40];
    if (isnan(cal->std_error[j]))
      snprintf(se, sizeof se, "not determined");
    else
      snprintf(se, sizeof se, "%.4g", cal->std_error[j]);
    fl_yaml_comment(y, "%s: value %.10g, std_error %s, R^2 = %.6f", fit->free[j].path, cal->value[j], se,
                    cal->r_squared);
  }
  fl_experiment_emit(y, &cal->calibrated);
  free(values);
  return fl_yaml_out_close(&y);
}

int fl_calibration_write(const fl_fit *fit, const fl_calibration *cal, const fl_calibration_output *o,
                         fl_calibration_paths *p, char *err, size_t errlen)
{
  char tyaml[FL_FIT_PATH + 32] = "", tcsv[FL_FIT_PATH + 32] = "", tgp[FL_FIT_PATH + 32] = "",
       tplot[FL_FIT_PATH + 32] = "", tdt[FL_FIT_PATH + 48] = "", tdc[FL_FIT_PATH + 48] = "";
  fl_dem_sheet sheet;
  int rc = FL_OK, do_plot = o->plot != FL_PLOT_NONE;
  if (do_plot && !fl_gnuplot_available()) {
    if (o->plot_required) {
      snprintf(err, errlen, "gnuplot not found on PATH; install it, or use --plot none");
      return FL_EGNUPLOT;
    }
    fprintf(stderr, "warning: gnuplot not found on PATH: no plot made (the .gp script is written)\n");
    do_plot = 0;
  }
  snprintf(p->yaml, sizeof p->yaml, "%s.yaml", o->prefix);
  snprintf(p->csv, sizeof p->csv, "%s.csv", o->prefix);
  snprintf(p->gp, sizeof p->gp, "%s.gp", o->prefix);
  snprintf(p->plot, sizeof p->plot, "%s.%s", o->prefix, o->plot == FL_PLOT_SVG ? "svg" : "png");
  snprintf(p->dem_txt, sizeof p->dem_txt, "%s-dem.txt", o->prefix);
  snprintf(p->dem_csv, sizeof p->dem_csv, "%s-dem.csv", o->prefix);
  fl_dem_sheet_make(&cal->calibrated, &sheet);
  FILE *f = fl_output_open_temp(p->yaml, tyaml, sizeof tyaml);
  if (!f || write_calibrated(f, fit, cal) || fclose(f)) {
    snprintf(err, errlen, "cannot write %s: %s", p->yaml, strerror(errno));
    rc = FL_EIO;
    goto fail;
  }
  f = fl_output_open_temp(p->csv, tcsv, sizeof tcsv);
  if (!f || write_csv(f, cal, o) || fclose(f)) {
    snprintf(err, errlen, "cannot write %s: %s", p->csv, strerror(errno));
    rc = FL_EIO;
    goto fail;
  }
  f = fl_output_open_temp(p->gp, tgp, sizeof tgp);
  if (!f || write_gp(f, fit, cal, o, p) || fclose(f)) {
    snprintf(err, errlen, "cannot write %s: %s", p->gp, strerror(errno));
    rc = FL_EIO;
    goto fail;
  }
  f = fl_output_open_temp(p->dem_txt, tdt, sizeof tdt);
  if (!f || fl_dem_sheet_write_text(f, &sheet, p->yaml) || fclose(f)) {
    snprintf(err, errlen, "cannot write %s: %s", p->dem_txt, strerror(errno));
    rc = FL_EIO;
    goto fail;
  }
  f = fl_output_open_temp(p->dem_csv, tdc, sizeof tdc);
  if (!f || fl_dem_sheet_write_csv(f, &sheet) || fclose(f)) {
    snprintf(err, errlen, "cannot write %s: %s", p->dem_csv, strerror(errno));
    rc = FL_EIO;
    goto fail;
  }
  if (do_plot) {
    snprintf(tplot, sizeof tplot, "%s.tmp%ld", p->plot, (long)getpid());
    if ((rc = fl_gnuplot_run(tgp, tcsv, tplot, err, errlen)))
      goto fail;
  }
  mode_t mask = umask(0);
  umask(mask);
  chmod(tyaml, 0666 & ~mask);
  chmod(tcsv, 0666 & ~mask);
  chmod(tgp, 0666 & ~mask);
  chmod(tdt, 0666 & ~mask);
  chmod(tdc, 0666 & ~mask);
  if (rename(tyaml, p->yaml) || rename(tcsv, p->csv) || rename(tgp, p->gp) || rename(tdt, p->dem_txt) ||
      rename(tdc, p->dem_csv) || (do_plot && rename(tplot, p->plot))) {
    snprintf(err, errlen, "cannot rename outputs into place: %s", strerror(errno));
    rc = FL_EIO;
    goto fail;
  }
  if (!do_plot)
    p->plot[0] = '\0';
  return FL_OK;
fail:
  if (*tyaml)
    unlink(tyaml);
  if (*tcsv)
    unlink(tcsv);
  if (*tgp)
    unlink(tgp);
  if (*tplot)
    unlink(tplot);
  if (*tdt)
    unlink(tdt);
  if (*tdc)
    unlink(tdc);
  return rc;
}

/* The summary's global: block (fiber-calibrate(1)): the design, and per refined
 * candidate where it started, its cost there and after its refinement. */
static void summary_global(fl_yaml_out *y, const fl_fit *fit, const fl_calibration *cal)
{
  const fl_calibration_global *g = &cal->global;
  if (!g->used)
    return;
  fl_yaml_str(y, "global");
  fl_yaml_map_begin(y, 0);
  fl_yaml_key_int(y, "points", g->points);
  fl_yaml_key_int(y, "failed", g->failed);
  fl_yaml_key_int(y, "refined", g->refined);
  fl_yaml_key_int(y, "simulations", g->simulations);
  fl_yaml_key_int(y, "winner", g->winner + 1);
  fl_yaml_str(y, "candidates");
  fl_yaml_seq_begin(y, 0);
  for (int r = 0; r < g->refined; r++) {
    fl_yaml_map_begin(y, 0);
    if (g->design_index[r])
      fl_yaml_key_int(y, "point", g->design_index[r]);
    else
      fl_yaml_key_str(y, "point", "start");
    fl_yaml_key_num(y, "cost", "%.6g", g->cost_start[r]);
    fl_yaml_key_num(y, "refined_cost", "%.6g", g->cost_refined[r]);
    fl_yaml_str(y, "start");
    fl_yaml_map_begin(y, 1);
    for (int j = 0; j < cal->nfree; j++)
      fl_yaml_key_num(y, fit->free[j].path, "%.8g", g->start[r][j]);
    fl_yaml_map_end(y);
    fl_yaml_str(y, "refined");
    fl_yaml_map_begin(y, 1);
    for (int j = 0; j < cal->nfree; j++)
      fl_yaml_key_num(y, fit->free[j].path, "%.8g", g->refined_value[r][j]);
    fl_yaml_map_end(y);
    fl_yaml_map_end(y);
  }
  fl_yaml_seq_end(y);
  fl_yaml_map_end(y);
}

static void features_block(fl_yaml_out *y, const char *key, const double *v, double xs)
{
  fl_yaml_str(y, key);
  fl_yaml_map_begin(y, 1);
  fl_yaml_key_num(y, "peak_displacement", "%.6g", v[0] / xs);
  fl_yaml_key_num(y, "peak_force", "%.6g", v[1]);
  fl_yaml_key_num(y, "plateau_level", "%.6g", v[2]);
  fl_yaml_key_num(y, "plateau_end", "%.6g", v[3] / xs);
  fl_yaml_map_end(y);
}

/* The summary's features: block: where the drop is measured and where the simulated
 * one lands, after the global stage and at the fitted values; displacements in the
 * table's unit, forces in N. */
static void summary_features(fl_yaml_out *y, const fl_fit *fit, const fl_calibration *cal)
{
  const fl_calibration_features *ft = &cal->features;
  if (ft->item < 0)
    return;
  const fl_fit_data *it = &fit->data[ft->item];
  fl_yaml_str(y, "features");
  fl_yaml_map_begin(y, 0);
  fl_yaml_key_str(y, "file", it->file);
  fl_yaml_key_str(y, "unit", it->x_unit);
  features_block(y, "measured", ft->measured, it->x_unit_si);
  if (cal->global.used) {
    if (ft->global_found)
      features_block(y, "global", ft->global, it->x_unit_si);
    else
      fl_yaml_key_null(y, "global");
  }
  if (ft->fitted_found)
    features_block(y, "fitted", ft->fitted, it->x_unit_si);
  else
    fl_yaml_key_null(y, "fitted");
  fl_yaml_map_end(y);
}

int fl_calibration_summary(FILE *out, const fl_fit *fit, const fl_calibration *cal, const fl_calibration_paths *p)
{
  static const char *const names[] = {"converged", "max_iterations", "failed"};
  int np = cal->nfree;
  fl_yaml_out *y = fl_yaml_out_open(out);
  fl_yaml_map_begin(y, 0);
  fl_yaml_key_str(y, "test", "calibrate");
  fl_yaml_key_str(y, "status", names[cal->status]);
  fl_yaml_key_int(y, "iterations", cal->iterations);
  fl_yaml_key_int(y, "simulations", cal->simulations);
  fl_yaml_str(y, "parameters");
  fl_yaml_map_begin(y, 0);
  for (int j = 0; j < np; j++) {
    fl_yaml_str(y, fit->free[j].path);
    fl_yaml_map_begin(y, 1);
    fl_yaml_key_num(y, "value", "%.8g", cal->value[j]);
    fl_yaml_key_num(y, "std_error", "%.4g", cal->std_error[j]);
    fl_yaml_key_num(y, "start", "%.8g", cal->start[j]);
    fl_yaml_map_end(y);
  }
  fl_yaml_map_end(y);
  /* A strength fitted with strength variation describes specimens of this segment
   * length only (man 7, Strength and segment length): say which. */
  int strength = 0;
  for (int j = 0; j < np; j++)
    strength |= strncmp(fit->free[j].path, "bond.failure.", 13) == 0;
  if (strength) {
    const fl_fiber_def *fb = &fit->exp.fiber;
    double h = fb->length_m / fb->segments;
    fl_yaml_str(y, "strength_calibrated_at");
    fl_yaml_map_begin(y, 0);
    fl_yaml_key_num(y, "segment_length", "%.6g", h);
    for (int d = 0; d < fit->ndata; d++) {
      const fl_test_def *t = &fit->data[d].exp.test;
      if (t->kind == FL_TEST_BEND3PT)
        continue;
      fl_yaml_key_int(y, "equally_loaded_bonds", fl_equally_loaded_bonds(&fit->data[d].exp));
      break;
    }
    fl_yaml_map_end(y);
  }
  fl_yaml_str(y, "correlation");
  fl_yaml_seq_begin(y, 1);
  for (int a = 0; a < np; a++) {
    fl_yaml_seq_begin(y, 1);
    for (int b = 0; b < np; b++)
      fl_yaml_num(y, "%.4f", cal->correlation[a * np + b]);
    fl_yaml_seq_end(y);
  }
  fl_yaml_seq_end(y);
  fl_yaml_str(y, "curves");
  fl_yaml_seq_begin(y, 0);
  for (int d = 0; d < cal->ncurves; d++) {
    fl_yaml_map_begin(y, 1);
    fl_yaml_key_str(y, "file", fit->data[d].file);
    fl_yaml_key_int(y, "points", cal->curve[d].points);
    fl_yaml_key_num(y, "rms", "%.4g", cal->curve[d].rms);
    fl_yaml_key_num(y, "r_squared", "%.6f", cal->curve[d].r_squared);
    if (fit->data[d].kind == FL_FIT_CURVE && fit->data[d].toe_auto) {
      fl_yaml_str(y, "toe_shift");
      fl_yaml_map_begin(y, 1);
      fl_yaml_key_num(y, "value", "%.6g", fit->data[d].toe_shift / fit->data[d].x_unit_si);
      fl_yaml_key_str(y, "unit", fit->data[d].x_unit);
      fl_yaml_key_num(y, "si", "%.6g", fit->data[d].toe_shift);
      fl_yaml_map_end(y);
    }
    fl_yaml_map_end(y);
  }
  fl_yaml_seq_end(y);
  fl_yaml_key_num(y, "r_squared", "%.6f", cal->r_squared);
  summary_global(y, fit, cal);
  summary_features(y, fit, cal);
  fl_yaml_key_str(y, "calibrated", p->yaml);
  fl_yaml_key_str(y, "csv", p->csv);
  fl_yaml_key_str_or_null(y, "plot", p->plot);
  fl_yaml_key_str(y, "dem_sheet", p->dem_txt);
  fl_yaml_key_str(y, "dem_sheet_csv", p->dem_csv);
  fl_yaml_map_end(y);
  return fl_yaml_out_close(&y);
}
