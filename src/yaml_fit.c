/* yaml_fit.c: the Fit YAML loader (libyaml document API): the experiment to calibrate,
 * the measured data, the free parameters with their bounds, the solver.  It loads every
 * experiment and measured table the file names, so that each input error comes out,
 * with its file, line and column, before any simulation. */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "experiment.h"
#include "fit.h"
#include "files.h"
#include "fl_defs.h"
#include "table_text.h"
#include "measured.h"
#include "cantilever.h"
#include "yaml_input.h"

const fl_fit_method fl_fit_methods[] = {
    {"lm", &gsl_multifit_nlinear_trs_lm},
    {"lmaccel", &gsl_multifit_nlinear_trs_lmaccel},
    {"dogleg", &gsl_multifit_nlinear_trs_dogleg},
    {"ddogleg", &gsl_multifit_nlinear_trs_ddogleg},
    {"subspace2D", &gsl_multifit_nlinear_trs_subspace2D},
    {NULL, NULL},
};

/* in the order of enum fl_test_kind */
static const char *const test_names[] = {"bend3pt", "tension", "torsion", "cantilever", "bend4pt", "compression", NULL};

/* Allowed keys of each block, for lookups and messages. */
static const char *const top_keys[] = {"experiment", "data", "free", "solver", NULL};
static const char *const curve_keys[] = {"test", "file", "columns", "units", "weight", "experiment", "set", "x_max",
                                         "x_min", "toe", "weights", "kink_weight", NULL};
static const char *const toe_names[] = {"none", "auto", NULL};
static const char *const region_keys[] = {"x_min", "x_max", "weight", NULL};
#define MAX_REGIONS 16 /* weights: regions of one curve */
static const char *const peaks_keys[] = {"test", "peaks", "columns", "units", "weight", "experiment", "set",
                                         "specimens", NULL};
static const char *const xy_keys[] = {"x", "y", NULL};
static const char *const y_keys[] = {"y", NULL};
static const char *const free_keys[] = {"start", "min", "max", NULL};
static const char *const solver_keys[] = {"method", "scale", "max_iterations", "xtol", "gtol", "ftol", "difference_step",
                                          "differences", "global", "global_points", "global_refine", NULL};

fl_fit_solver fl_fit_solver_default(void)
{
  fl_fit_solver s;
  s.method = 0;
  s.scale = FL_SCALE_MORE;
  s.max_iterations = 100;
  s.xtol = 1e-6;
  s.gtol = 1e-8;
  s.ftol = 1e-10;
  s.fd_step = 1e-3;
  s.central = 0;
  s.global = FL_GLOBAL_AUTO;
  s.global_points = 16;
  s.global_refine = 3;
  return s;
}

typedef struct {
  const char *file;      /* the fit file */
  yaml_document_t *doc;
  fl_fit *fit;
  const char *const *sets; /* -s KEY=VALUE for every experiment */
  int nsets;
  const char *data_file;   /* NULL, or the table that replaces the file of the curve item (a campaign) */
  double x_min;            /* >= 0: replaces the curve items' x_min, m or rad (a campaign's data.x_min) */
  double x_max;            /* > 0: replaces the curve items' x_max (a campaign's data.x_max) */
  char *err;
  size_t errlen;
} loader;

static int fail_at(loader *L, const yaml_node_t *n, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = fl_yaml_fail_at(L->file, L->err, L->errlen, n, fmt, ap);
  va_end(ap);
  return rc;
}

/* Append a line to the fit's notes: kind "warning" or "note", at node n (NULL: no
 * position). */
static void add_note(loader *L, const char *kind, const yaml_node_t *n, const char *fmt, ...)
{
  char msg[1536];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  size_t used = strlen(L->fit->notes), room = sizeof L->fit->notes - used;
  if (n)
    snprintf(L->fit->notes + used, room, "%s: %s:%zu:%zu: %s\n", kind, L->file, n->start_mark.line + 1,
             n->start_mark.column + 1, msg);
  else
    snprintf(L->fit->notes + used, room, "%s: %s: %s\n", kind, L->file, msg);
}

static void where(loader *L, const yaml_node_t *n, char *buf, size_t len)
{
  snprintf(buf, len, "%s:%zu:%zu", L->file, n->start_mark.line + 1, n->start_mark.column + 1);
}

static const char *node_kind(const yaml_node_t *n)
{
  return n->type == YAML_MAPPING_NODE ? "a block of keys" : n->type == YAML_SEQUENCE_NODE ? "a list" : "a value";
}

static void join(const char *const *names, const char *sep, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; names[i]; i++) {
    int n = snprintf(buf + used, len - used, "%s%s", i ? sep : "", names[i]);
    if (n < 0 || (size_t)n >= len - used)
      break;
    used += (size_t)n;
  }
}

static const char *scalar(const yaml_node_t *n)
{
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A value that must be a single scalar. */
static int need_scalar(loader *L, const yaml_node_t *n, const char *key, const char **text)
{
  *text = scalar(n);
  if (!*text)
    return fail_at(L, n, "%s: is %s; allowed: a single value", key, node_kind(n));
  return FL_OK;
}

/* A block of keys: no duplicates, nothing outside allowed (what names the block in
 * messages, e.g. "data[1]", "" at the top). */
static int check_block(loader *L, const yaml_node_t *map, const char *what, const char *const *allowed,
                       const char *kind_note)
{
  char list[512];
  join(allowed, ", ", list, sizeof list);
  if (map->type != YAML_MAPPING_NODE) {
    if (!*what)
      return fail_at(L, map, "the top level is %s; allowed: a block with %s", node_kind(map), list);
    return fail_at(L, map, "%s: is %s; allowed: a block of keys (%s)", what, node_kind(map), list);
  }
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(L->doc, p->key);
    const char *name = scalar(k);
    if (!name)
      return fail_at(L, k, "%s%skey is %s; allowed: a plain key name", what, *what ? ": " : "", node_kind(k));
    for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
      const char *other = scalar(yaml_document_get_node(L->doc, q->key));
      if (other && strcmp(other, name) == 0)
        return fail_at(L, k, "%s%s%s: duplicate key (first at line %zu); allowed: each key once", what,
                       *what ? "." : "", name, yaml_document_get_node(L->doc, q->key)->start_mark.line + 1);
    }
    int ok = 0;
    for (int i = 0; allowed[i] && !ok; i++)
      ok = strcmp(allowed[i], name) == 0;
    if (!ok) {
      if (kind_note)
        return fail_at(L, k, "%s.%s: unknown key for %s; allowed: %s", what, name, kind_note, list);
      return fail_at(L, k, "%s%s%s: unknown key; allowed%s%s: %s", what, *what ? "." : "", name, *what ? " in " : "",
                     what, list);
    }
  }
  return FL_OK;
}

/* The value of key in a block, or NULL; *keynode gets the key's node. */
static yaml_node_t *get(loader *L, const yaml_node_t *map, const char *key, yaml_node_t **keynode)
{
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(L->doc, p->key);
    if (scalar(k) && strcmp(scalar(k), key) == 0) {
      if (keynode)
        *keynode = k;
      return yaml_document_get_node(L->doc, p->value);
    }
  }
  return NULL;
}

static int parse_double(const char *s, double *out)
{
  char *end;
  if (!s || !*s)
    return 0;
  errno = 0;
  double v = strtod(s, &end);
  if (*end || errno == ERANGE || !isfinite(v))
    return 0;
  *out = v;
  return 1;
}

/* A number in (lo, hi] or [lo, hi] (lo_open). */
static int get_number(loader *L, const yaml_node_t *n, const char *key, double lo, double hi, int lo_open,
                      const char *unit, double *out)
{
  const char *t;
  char range[96];
  snprintf(range, sizeof range, "%s%g, %g]%s%s", lo_open ? "(" : "[", lo, hi, *unit ? " " : "", unit);
  if (need_scalar(L, n, key, &t))
    return FL_EINPUT;
  if (!parse_double(t, out))
    return fail_at(L, n, "%s: '%s' is not a number%s; allowed: a number in %s", key, t, fl_number_hint(t), range);
  if ((lo_open ? !(*out > lo) : !(*out >= lo)) || !(*out <= hi))
    return fail_at(L, n, "%s: '%s' is out of range; allowed: a number in %s", key, t, range);
  return FL_OK;
}

static int get_int(loader *L, const yaml_node_t *n, const char *key, long lo, long hi, int *out)
{
  const char *t;
  char *end;
  if (need_scalar(L, n, key, &t))
    return FL_EINPUT;
  errno = 0;
  long v = strtol(t, &end, 10);
  if (!*t || *end || errno == ERANGE)
    return fail_at(L, n, "%s: '%s' is not an integer; allowed: an integer in [%ld, %ld]", key, t, lo, hi);
  if (v < lo || v > hi)
    return fail_at(L, n, "%s: '%s' is out of range; allowed: an integer in [%ld, %ld]", key, t, lo, hi);
  *out = (int)v;
  return FL_OK;
}

static int get_enum(loader *L, const yaml_node_t *n, const char *key, const char *const *names, int *out)
{
  const char *t;
  char list[256];
  if (need_scalar(L, n, key, &t))
    return FL_EINPUT;
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], t) == 0) {
      *out = i;
      return FL_OK;
    }
  join(names, " | ", list, sizeof list);
  return fail_at(L, n, "%s: '%s' is not allowed; allowed: %s", key, t, list);
}


/* fl_experiment_set's message without its "--set 'KEY=VALUE': " prefix. */
static const char *set_message(const char *msg, const char *assignment)
{
  size_t n = strlen(assignment);
  if (strncmp(msg, "--set '", 7) == 0 && strncmp(msg + 7, assignment, n) == 0 && strncmp(msg + 7 + n, "': ", 3) == 0)
    return msg + 7 + n + 3;
  return msg;
}

/* Load the experiment named by the scalar node val into exp (path resolved into
 * path), then apply the -s options. */
static int load_experiment(loader *L, const yaml_node_t *val, const char *key, char *path, size_t plen,
                           fl_experiment *exp)
{
  const char *t;
  if (need_scalar(L, val, key, &t))
    return FL_EINPUT;
  if (fl_path_relative(L->file, t, path, plen))
    return fail_at(L, val, "%s: the path is longer than %zu bytes when taken relative to the fit file; allowed: a "
                   "path of at most %zu bytes", key, plen - 1, plen - 1);
  FILE *f = fopen(path, "rb");
  if (!f)
    return fail_at(L, val, "%s: '%s' cannot be read: %s; allowed: an experiment file, relative to the fit file", key,
                   t, strerror(errno));
  fclose(f);
  *exp = fl_experiment_default();
  int rc = fl_experiment_load(path, exp, L->err, L->errlen);
  for (int i = 0; rc == FL_OK && i < L->nsets; i++)
    rc = fl_experiment_set(exp, L->sets[i], L->err, L->errlen);
  return rc;
}

/* A column: a number from 1, or a header name. */
static int get_column(loader *L, const yaml_node_t *n, const char *key, int *number, char *name, size_t nlen)
{
  const char *t;
  if (need_scalar(L, n, key, &t))
    return FL_EINPUT;
  if (!*t)
    return fail_at(L, n, "%s: '' is not a column; allowed: a column number from 1, or a header name", key);
  char *end;
  long v = strtol(t, &end, 10);
  if (!*end) {
    if (v < 1 || v > 100000)
      return fail_at(L, n, "%s: '%s' is not a column; allowed: a column number from 1, or a header name", key, t);
    *number = (int)v;
    name[0] = '\0';
    return FL_OK;
  }
  *number = 0;
  snprintf(name, nlen, "%s", t);
  return FL_OK;
}

/* A unit for quantity q. */
static int get_unit(loader *L, const yaml_node_t *n, const char *key, enum fl_quantity q, const char *test,
                    double *to_si)
{
  const char *t;
  char list[128];
  if (need_scalar(L, n, key, &t))
    return FL_EINPUT;
  fl_unit_names(q, list, sizeof list);
  const fl_unit *u = fl_unit_find(t);
  if (!u)
    return fail_at(L, n, "%s: '%s' is not a unit; allowed: %s", key, t, list);
  if (u->quantity != q)
    return fail_at(L, n, "%s: '%s' does not go with a %s test; allowed: %s", key, t, test, list);
  *to_si = u->to_si;
  return FL_OK;
}

static int load_free(loader *L, const yaml_node_t *map)
{
  fl_fit *fit = L->fit;
  if (map->type != YAML_MAPPING_NODE)
    return fail_at(L, map, "free: is %s; allowed: a block of dotted paths, each with start, min and max",
                   node_kind(map));
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(L->doc, p->key), *v = yaml_document_get_node(L->doc, p->value);
    const char *path = scalar(k);
    char key[FL_FIT_KEY + 16];
    if (!path)
      return fail_at(L, k, "free: key is %s; allowed: a dotted path", node_kind(k));
    for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
      yaml_node_t *kq = yaml_document_get_node(L->doc, q->key);
      if (scalar(kq) && strcmp(scalar(kq), path) == 0)
        return fail_at(L, k, "free.%s: duplicate key (first at line %zu); allowed: each key once", path,
                       kq->start_mark.line + 1);
    }
    if (strlen(path) >= FL_FIT_KEY || !fl_experiment_key_is_number(path))
      return fail_at(L, k, "free: '%s' is not a numeric key of an experiment; allowed: the dotted path of a number, "
                     "such as bond.torque_stiffness_scale or bond.failure.max_stress", path);
    if (fit->nfree == FL_FIT_MAX_FREE)
      return fail_at(L, k, "free: '%s' is parameter %d; allowed: at most %d free parameters", path, fit->nfree + 1,
                     FL_FIT_MAX_FREE);
    snprintf(key, sizeof key, "free.%s", path);
    if (check_block(L, v, key, free_keys, NULL))
      return FL_EINPUT;
    fl_fit_param *fp = &fit->free[fit->nfree];
    memset(fp, 0, sizeof *fp);
    snprintf(fp->path, sizeof fp->path, "%s", path);
    fp->line = (unsigned)k->start_mark.line + 1;
    fp->col = (unsigned)k->start_mark.column + 1;
    yaml_node_t *vs = get(L, v, "start", NULL), *vmin = get(L, v, "min", NULL), *vmax = get(L, v, "max", NULL);
    const char *missing = !vs ? "start" : !vmin ? "min" : !vmax ? "max" : NULL;
    if (missing)
      return fail_at(L, v, "%s: missing key '%s'; allowed: a block with start, min and max", key, missing);
    char sub[FL_FIT_KEY + 32];
    const char *t;
    snprintf(sub, sizeof sub, "%s.min", key);
    if (need_scalar(L, vmin, sub, &t))
      return FL_EINPUT;
    if (!parse_double(t, &fp->min))
      return fail_at(L, vmin, "%s: '%s' is not a number%s; allowed: a number below max", sub, t, fl_number_hint(t));
    snprintf(sub, sizeof sub, "%s.max", key);
    if (need_scalar(L, vmax, sub, &t))
      return FL_EINPUT;
    if (!parse_double(t, &fp->max))
      return fail_at(L, vmax, "%s: '%s' is not a number%s; allowed: a number above min", sub, t, fl_number_hint(t));
    if (!(fp->max > fp->min))
      return fail_at(L, vmax, "%s: '%s' is not above min %g; allowed: a number above min", sub, t, fp->min);
    snprintf(sub, sizeof sub, "%s.start", key);
    if (need_scalar(L, vs, sub, &t))
      return FL_EINPUT;
    if (strcmp(t, "auto") == 0) {
      fp->start_auto = 1;
      fp->start = NAN;
    } else if (!parse_double(t, &fp->start)) {
      return fail_at(L, vs, "%s: '%s' is not a number or auto%s; allowed: auto, or a number in (%g, %g)", sub, t,
                     fl_number_hint(t), fp->min, fp->max);
    } else if (!(fp->start > fp->min && fp->start < fp->max)) {
      return fail_at(L, vs, "%s: '%s' is not strictly between min and max; allowed: auto, or a number in (%g, %g)",
                     sub, t, fp->min, fp->max);
    }
    fit->nfree++;
  }
  if (fit->nfree == 0)
    return fail_at(L, map, "free: is empty; allowed: at least one dotted path with start, min and max");
  return FL_OK;
}

static int load_solver(loader *L, const yaml_node_t *map)
{
  fl_fit_solver *s = &L->fit->solver;
  if (check_block(L, map, "solver", solver_keys, NULL))
    return FL_EINPUT;
  yaml_node_t *v;
  const char *method_names[8] = {NULL};
  for (int i = 0; fl_fit_methods[i].name && i < 7; i++)
    method_names[i] = fl_fit_methods[i].name;
  if ((v = get(L, map, "method", NULL)) && get_enum(L, v, "solver.method", method_names, &s->method))
    return FL_EINPUT;
  static const char *const scales[] = {"more", "levenberg", "marquardt", NULL}; /* enum fl_fit_scale */
  if ((v = get(L, map, "scale", NULL)) && get_enum(L, v, "solver.scale", scales, &s->scale))
    return FL_EINPUT;
  if ((v = get(L, map, "max_iterations", NULL)) && get_int(L, v, "solver.max_iterations", 1, 100000, &s->max_iterations))
    return FL_EINPUT;
  if ((v = get(L, map, "xtol", NULL)) && get_number(L, v, "solver.xtol", 0, 1, 1, "", &s->xtol))
    return FL_EINPUT;
  if ((v = get(L, map, "gtol", NULL)) && get_number(L, v, "solver.gtol", 0, 1, 1, "", &s->gtol))
    return FL_EINPUT;
  if ((v = get(L, map, "ftol", NULL)) && get_number(L, v, "solver.ftol", 0, 1, 0, "", &s->ftol))
    return FL_EINPUT;
  if ((v = get(L, map, "difference_step", NULL)) &&
      get_number(L, v, "solver.difference_step", 0, 0.1, 1, "", &s->fd_step))
    return FL_EINPUT;
  static const char *const differences[] = {"forward", "central", NULL};
  if ((v = get(L, map, "differences", NULL)) && get_enum(L, v, "solver.differences", differences, &s->central))
    return FL_EINPUT;
  static const char *const global_modes[] = {"auto", "on", "off", NULL}; /* enum fl_global_mode */
  if ((v = get(L, map, "global", NULL)) && get_enum(L, v, "solver.global", global_modes, &s->global))
    return FL_EINPUT;
  if ((v = get(L, map, "global_points", NULL)) &&
      get_int(L, v, "solver.global_points", FL_GLOBAL_MIN_POINTS, FL_GLOBAL_MAX_POINTS, &s->global_points))
    return FL_EINPUT;
  if ((v = get(L, map, "global_refine", NULL)) &&
      get_int(L, v, "solver.global_refine", 1, FL_GLOBAL_MAX_REFINE, &s->global_refine))
    return FL_EINPUT;
  if (s->global_refine > s->global_points + 1)
    return fail_at(L, v, "solver.global_refine: '%d' is more than the %d points of the design and the start; "
                   "allowed: an integer in [1, solver.global_points + 1]", s->global_refine, s->global_points + 1);
  return FL_OK;
}

/* Apply an item's set: block to its experiment. */
static int apply_sets(loader *L, const yaml_node_t *map, const char *what, fl_experiment *exp)
{
  if (map->type != YAML_MAPPING_NODE)
    return fail_at(L, map, "%s.set: is %s; allowed: a block of dotted paths and values", what, node_kind(map));
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(L->doc, p->key), *v = yaml_document_get_node(L->doc, p->value);
    const char *path = scalar(k), *val;
    if (!path)
      return fail_at(L, k, "%s.set: key is %s; allowed: a dotted path", what, node_kind(k));
    for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
      yaml_node_t *kq = yaml_document_get_node(L->doc, q->key);
      if (scalar(kq) && strcmp(scalar(kq), path) == 0)
        return fail_at(L, k, "%s.set.%s: duplicate key (first at line %zu); allowed: each key once", what, path,
                       kq->start_mark.line + 1);
    }
    char key[FL_FIT_KEY + 32], assignment[1024], msg[1536];
    snprintf(key, sizeof key, "%s.set.%s", what, path);
    if (need_scalar(L, v, key, &val))
      return FL_EINPUT;
    snprintf(assignment, sizeof assignment, "%s=%s", path, val);
    if (fl_experiment_set(exp, assignment, msg, sizeof msg)) {
      const char *m = set_message(msg, assignment);
      return fail_at(L, strstr(m, "unknown key") ? k : v, "%s", m);
    }
    /* later messages about this key point at its value here, not at an option */
    fl_experiment_mark_fit(exp, path, L->fit->file, (unsigned)v->start_mark.line + 1, (unsigned)v->start_mark.column + 1);
  }
  return FL_OK;
}

/* The share of a curve's range by which x may step back (noise) before the curve
 * counts as going out and back. */
#define TURN_TOLERANCE 0.01

/* FL_EINPUT when the kept rows of m turn back (x falls more than TURN_TOLERANCE of
 * their range below the largest x before): a loading and an unloading, which the
 * fit's interpolation at the measured x cannot match as one curve. */
static int one_way(loader *L, const fl_fit_data *d, const yaml_node_t *vf, const char *what, const char *key,
                   const char *t)
{
  const fl_measured *m = &d->data;
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (int i = 0; i < m->n; i++) {
    lo = fmin(lo, m->x[i]);
    hi = fmax(hi, m->x[i]);
  }
  const char *xu = d->test == FL_TEST_TORSION ? "rad" : "m";
  int top = 0;
  for (int i = 1; i < m->n; i++) {
    if (m->x[i] > m->x[top])
      top = i;
    else if (m->x[i] < m->x[top] - TURN_TOLERANCE * (hi - lo))
      return fail_at(L, vf, "%s: '%s' turns back at line %d: x = %g %s after %g %s at line %d (an unloading); "
                     "allowed: x that only grows: set %s.x_max below %.6g %s (the turning point) to fit the loading "
                     "alone", key, t, m->line[i], m->x[i] / d->x_unit_si, d->x_unit,
                     m->x[top] / d->x_unit_si, d->x_unit, m->line[top], what, m->x[top], xu);
  }
  return FL_OK;
}

/* A curve's rows: the toe shift (toe: auto), then the rows with x_min <= x and x >= 0
 * up to the first past x_max, their region weights, and the warnings about what was
 * left out. */
static int keep_rows(loader *L, fl_fit_data *d, const char *what, const yaml_node_t *vf, const char *key, const char *t,
                     const yaml_node_t *vxmin, const yaml_node_t *vxmax, int nreg, const double *lo, const double *hi,
                     const double *wt)
{
  fl_measured *m = &d->data;
  d->rows_read = m->n;
  if (d->toe_auto) {
    double s = fl_measured_toe_shift(m);
    if (isnan(s))
      return fail_at(L, vf, "%s: '%s' has no rising part for toe: auto (fewer than 3 rows up to the peak load, or no "
                     "positive slope); allowed: a curve that rises, or toe: none", key, t);
    d->toe_shift = s;
    for (int i = 0; i < m->n; i++)
      m->x[i] -= s;
  }
  double xmax_all = -HUGE_VAL, xmin_all = HUGE_VAL;
  for (int i = 0; i < m->n; i++) {
    xmax_all = fmax(xmax_all, m->x[i]);
    xmin_all = fmin(xmin_all, m->x[i]);
  }
  double xmax = -HUGE_VAL, ymax = 0.0;
  int k = 0, negative = 0;
  for (int i = 0; i < m->n; i++) {
    negative += m->x[i] < 0.0;
    if (d->x_max > 0.0 && m->x[i] > d->x_max)
      break; /* the rest is past the range, or an unloading after it */
    if (m->x[i] < 0.0 || m->x[i] < d->x_min)
      continue;
    m->x[k] = m->x[i];
    m->y[k] = m->y[i];
    m->line[k] = m->line[i];
    if (m->x[k] > xmax)
      xmax = m->x[k];
    if (fabs(m->y[k]) > ymax)
      ymax = fabs(m->y[k]);
    k++;
  }
  m->n = k;
  const char *xu = d->test == FL_TEST_TORSION ? "rad" : "m";
  if (k < 2)
    return fail_at(L, vf, "%s: '%s' has %d row%s with %s <= x%s; allowed: at least 2 rows", key, t, k,
                   k == 1 ? "" : "s", d->x_min > 0.0 ? "x_min" : "0", d->x_max > 0.0 ? " <= x_max" : "");
  if (!(ymax > 0.0))
    return fail_at(L, vf, "%s: '%s' has only zero loads; allowed: a curve with a load", key, t);
  if (!(xmax > 0.0))
    return fail_at(L, vf, "%s: '%s' has no row with x > 0; allowed: a curve that moves", key, t);
  if (one_way(L, d, vf, what, key, t))
    return FL_EINPUT;
  if (d->toe_auto)
    add_note(L, "note", vf, "%s: toe: auto shifts '%s' by %.6g %s (%.6g %s)%s", key, t, d->toe_shift / d->x_unit_si,
             d->x_unit, d->toe_shift, xu, negative ? "; rows left at x < 0 are dropped" : "");
  if (vxmax && d->x_max > xmax_all)
    add_note(L, "warning", vxmax, "%s.x_max: %g %s is beyond the data (largest x %g %s): it leaves nothing out; "
             "x_max is in %s, whatever the file's unit", what, d->x_max, xu, xmax_all, xu, xu);
  if (vxmin && d->x_min > 0.0 && d->x_min < xmin_all)
    add_note(L, "warning", vxmin, "%s.x_min: %g %s is below the data (smallest x %g %s): it leaves nothing out; "
             "x_min is in %s, whatever the file's unit", what, d->x_min, xu, xmin_all, xu, xu);
  if (2 * k < d->rows_read)
    add_note(L, "warning", vf, "%s: %d of the %d rows of '%s' are used, fewer than half (x_min, x_max, toe and "
             "negative x leave the others out); check x_min and x_max, which are in %s", key, k, d->rows_read, t, xu);
  if (d->x_max <= 0.0)
    d->x_max = xmax;
  if (nreg > 0) {
    d->row_weight = malloc((size_t)k * sizeof *d->row_weight);
    if (!d->row_weight) {
      snprintf(L->err, L->errlen, "out of memory");
      return FL_ENOMEM;
    }
    for (int i = 0; i < k; i++) {
      d->row_weight[i] = 1.0;
      for (int r = 0; r < nreg; r++)
        if (m->x[i] >= lo[r] && m->x[i] <= hi[r])
          d->row_weight[i] = wt[r];
    }
  }
  return FL_OK;
}

static int load_item(loader *L, yaml_node_t *item, int index)
{
  fl_fit *fit = L->fit;
  fl_fit_data *d = &fit->data[index];
  char what[32], key[96], wbuf[FL_FIT_PATH + 64], wx[FL_FIT_PATH + 64], wy[FL_FIT_PATH + 64];
  snprintf(what, sizeof what, "data[%d]", index + 1);
  memset(d, 0, sizeof *d);
  if (item->type != YAML_MAPPING_NODE)
    return fail_at(L, item, "%s: is %s; allowed: a block with test, file (or peaks), columns and units", what,
                   node_kind(item));
  yaml_node_t *kfile = NULL, *kpeaks = NULL;
  yaml_node_t *vfile = get(L, item, "file", &kfile), *vpeaks = get(L, item, "peaks", &kpeaks);
  if (vfile && vpeaks)
    return fail_at(L, kpeaks, "%s.peaks: given with file; allowed: one of file (a curve) and peaks (peak loads)", what);
  d->kind = vpeaks ? FL_FIT_PEAKS : FL_FIT_CURVE;
  if (check_block(L, item, what, d->kind == FL_FIT_PEAKS ? peaks_keys : curve_keys,
                  d->kind == FL_FIT_PEAKS ? "a peaks item" : "a curve item"))
    return FL_EINPUT;
  if (!vfile && !vpeaks)
    return fail_at(L, item, "%s: missing key 'file'; allowed: file (a curve) or peaks (peak loads of several specimens)",
                   what);
  yaml_node_t *v = get(L, item, "test", NULL), *vtest = v;
  int kind;
  if (!v)
    return fail_at(L, item, "%s: missing key 'test'; allowed: bend3pt | tension | torsion | cantilever | bend4pt | compression", what);
  snprintf(key, sizeof key, "%s.test", what);
  if (get_enum(L, v, key, test_names, &kind))
    return FL_EINPUT;
  d->test = (enum fl_test_kind)kind;
  /* the experiment */
  if ((v = get(L, item, "experiment", NULL))) {
    snprintf(key, sizeof key, "%s.experiment", what);
    if (load_experiment(L, v, key, d->exp_path, sizeof d->exp_path, &d->exp))
      return FL_EINPUT;
  } else {
    snprintf(d->exp_path, sizeof d->exp_path, "%s", fit->exp_path);
    d->exp = fit->exp;
  }
  if ((v = get(L, item, "set", NULL)) && apply_sets(L, v, what, &d->exp))
    return FL_EINPUT;
  if (fl_experiment_finish(&d->exp, d->exp_path, L->err, L->errlen))
    return FL_EINPUT;
  if (d->exp.test.kind != d->test) {
    snprintf(key, sizeof key, "%s.test", what);
    return fail_at(L, vtest, "%s: '%s' is not the test of its experiment %s (%s); allowed: %s", key,
                   test_names[d->test], d->exp_path, test_names[d->exp.test.kind], test_names[d->exp.test.kind]);
  }
  /* a cantilever's free vibration: the file is its ring-down */
  if (d->kind == FL_FIT_CURVE && d->test == FL_TEST_CANTILEVER && d->exp.test.mode == FL_MODE_VIBRATION)
    d->kind = FL_FIT_RINGDOWN;
  if (d->kind == FL_FIT_CURVE && d->exp.test.ncycles > 0)
    return fail_at(L, vtest, "%s.test: the experiment %s loads in cycles (test.cycles); allowed: a monotonic loading "
                   "for a fitted curve", what, d->exp_path);
  /* weight, x_max, specimens */
  d->weight = 1.0;
  snprintf(key, sizeof key, "%s.weight", what);
  if ((v = get(L, item, "weight", NULL)) && get_number(L, v, key, 0, 1e6, 1, "", &d->weight))
    return FL_EINPUT;
  d->x_max = -1.0;
  snprintf(key, sizeof key, "%s.x_max", what);
  if ((v = get(L, item, "x_max", NULL)) &&
      get_number(L, v, key, 0, d->test == FL_TEST_TORSION ? 1e3 : 10, 1, d->test == FL_TEST_TORSION ? "rad" : "m",
                 &d->x_max))
    return FL_EINPUT;
  if (L->x_max > 0.0 && d->kind == FL_FIT_CURVE)
    d->x_max = L->x_max;
  const char *xunit = d->test == FL_TEST_TORSION ? "rad" : "m";
  double xhi = d->test == FL_TEST_TORSION ? 1e3 : 10;
  yaml_node_t *vxmax = get(L, item, "x_max", NULL), *vxmin = get(L, item, "x_min", NULL);
  d->x_min = 0.0;
  snprintf(key, sizeof key, "%s.x_min", what);
  if (vxmin && get_number(L, vxmin, key, 0, xhi, 0, xunit, &d->x_min))
    return FL_EINPUT;
  if (L->x_min >= 0.0 && d->kind == FL_FIT_CURVE)
    d->x_min = L->x_min;
  if (d->x_max > 0.0 && !(d->x_min < d->x_max)) {
    const char *from = L->x_min >= 0.0 || L->x_max > 0.0 ? " (data.x_min and data.x_max of the campaign's table included)" : "";
    return fail_at(L, vxmin ? vxmin : item, "%s: %g %s is not below x_max %g %s; allowed: x_min < x_max%s", key, d->x_min,
                   xunit, d->x_max, xunit, from);
  }
  snprintf(key, sizeof key, "%s.toe", what);
  if ((v = get(L, item, "toe", NULL)) && get_enum(L, v, key, toe_names, &d->toe_auto))
    return FL_EINPUT;
  snprintf(key, sizeof key, "%s.kink_weight", what);
  yaml_node_t *vkink = get(L, item, "kink_weight", NULL);
  if (vkink && get_number(L, vkink, key, 0, 1e6, 0, "", &d->kink_weight))
    return FL_EINPUT;
  if (d->kink_weight > 0.0 && (d->test != FL_TEST_BEND3PT || d->exp.bond.buckling.type == FL_BUCKLING_NONE))
    return fail_at(L, vkink, "%s: %g, but the experiment %s %s: there is no kink to fit; allowed: 0, or a 3-point "
                   "test whose bonds buckle (bond.buckling.type reversible, damage or plastic)", key, d->kink_weight,
                   d->exp_path, d->test != FL_TEST_BEND3PT ? "is not a 3-point test" : "has no buckling envelope "
                   "(bond.buckling.type none)");
  /* weights: regions of the abscissa, each with its own weight */
  int nreg = 0;
  double reg_lo[MAX_REGIONS], reg_hi[MAX_REGIONS], reg_w[MAX_REGIONS];
  yaml_node_t *vw = get(L, item, "weights", NULL);
  if (vw) {
    snprintf(key, sizeof key, "%s.weights", what);
    long nw = vw->type == YAML_SEQUENCE_NODE ? vw->data.sequence.items.top - vw->data.sequence.items.start : 0;
    if (nw < 1 || nw > MAX_REGIONS)
      return fail_at(L, vw, "%s: is %s; allowed: a list of 1 to %d regions { x_min, x_max, weight }", key,
                     vw->type != YAML_SEQUENCE_NODE ? node_kind(vw) : nw ? "too long a list" : "an empty list",
                     MAX_REGIONS);
    for (long r = 0; r < nw; r++) {
      yaml_node_t *rn = yaml_document_get_node(L->doc, vw->data.sequence.items.start[r]), *rv;
      char rkey[128];
      snprintf(rkey, sizeof rkey, "%s.weights[%ld]", what, r + 1);
      if (check_block(L, rn, rkey, region_keys, NULL))
        return FL_EINPUT;
      reg_lo[nreg] = -HUGE_VAL;
      reg_hi[nreg] = HUGE_VAL;
      char sub[160];
      snprintf(sub, sizeof sub, "%s.x_min", rkey);
      if ((rv = get(L, rn, "x_min", NULL)) && get_number(L, rv, sub, 0, xhi, 0, xunit, &reg_lo[nreg]))
        return FL_EINPUT;
      snprintf(sub, sizeof sub, "%s.x_max", rkey);
      if ((rv = get(L, rn, "x_max", NULL)) && get_number(L, rv, sub, 0, xhi, 1, xunit, &reg_hi[nreg]))
        return FL_EINPUT;
      if (!(reg_lo[nreg] < reg_hi[nreg]))
        return fail_at(L, rv, "%s: %g %s is not above x_min %g %s; allowed: x_min < x_max", sub, reg_hi[nreg], xunit,
                       reg_lo[nreg], xunit);
      snprintf(sub, sizeof sub, "%s.weight", rkey);
      if (!(rv = get(L, rn, "weight", NULL)))
        return fail_at(L, rn, "%s: missing key 'weight'; allowed: a block with weight and x_min, x_max or both", rkey);
      if (get_number(L, rv, sub, 0, 1e6, 1, "", &reg_w[nreg]))
        return FL_EINPUT;
      nreg++;
    }
  }
  d->specimens = 200;
  snprintf(key, sizeof key, "%s.specimens", what);
  if ((v = get(L, item, "specimens", NULL)) && get_int(L, v, key, 3, 100000, &d->specimens))
    return FL_EINPUT;
  /* columns and units */
  char ckey[2][96], cname[2][256], ukey[2][96];
  int cnum[2] = {0, 0};
  double to_si[2] = {1.0, 1.0};
  enum fl_quantity q[2];
  q[0] = d->kind == FL_FIT_RINGDOWN ? FL_Q_TIME : d->test == FL_TEST_TORSION ? FL_Q_ANGLE : FL_Q_LENGTH;
  q[1] = d->kind == FL_FIT_RINGDOWN ? FL_Q_LENGTH : d->test == FL_TEST_TORSION ? FL_Q_TORQUE : FL_Q_FORCE;
  yaml_node_t *cnode[2] = {NULL, NULL};
  const char *const *ck = d->kind == FL_FIT_PEAKS ? y_keys : xy_keys;
  int first = d->kind == FL_FIT_PEAKS ? 1 : 0;
  snprintf(key, sizeof key, "%s.columns", what);
  yaml_node_t *vc = get(L, item, "columns", NULL);
  if (!vc)
    return fail_at(L, item, "%s: missing key 'columns'; allowed: %s", what,
                   d->kind == FL_FIT_PEAKS ? "{ y: N } with a column number from 1 or a header name"
                                           : "{ x: N, y: N } with column numbers from 1 or header names");
  if (check_block(L, vc, key, ck, d->kind == FL_FIT_PEAKS ? "peaks" : NULL))
    return FL_EINPUT;
  for (int c = first; c < 2; c++) {
    const char *axis = c ? "y" : "x";
    snprintf(ckey[c], sizeof ckey[c], "%s.columns.%s", what, axis);
    snprintf(ukey[c], sizeof ukey[c], "%s.units.%s", what, axis);
    if (!(cnode[c] = get(L, vc, axis, NULL)))
      return fail_at(L, vc, "%s: missing key '%s'; allowed: a column number from 1, or a header name", key, axis);
    if (get_column(L, cnode[c], ckey[c], &cnum[c], cname[c], sizeof cname[c]))
      return FL_EINPUT;
  }
  snprintf(key, sizeof key, "%s.units", what);
  if ((vc = get(L, item, "units", NULL))) {
    if (check_block(L, vc, key, ck, d->kind == FL_FIT_PEAKS ? "peaks" : NULL))
      return FL_EINPUT;
    for (int c = first; c < 2; c++)
      if ((v = get(L, vc, c ? "y" : "x", NULL)) && get_unit(L, v, ukey[c], q[c], test_names[d->test], &to_si[c]))
        return FL_EINPUT;
  }
  d->x_unit_si = to_si[0];
  snprintf(d->x_unit, sizeof d->x_unit, "%s", d->kind == FL_FIT_RINGDOWN ? "s" : d->test == FL_TEST_TORSION ? "rad" : "m");
  if (vc && (v = get(L, vc, "x", NULL)) && scalar(v))
    snprintf(d->x_unit, sizeof d->x_unit, "%s", scalar(v));
  /* the table */
  yaml_node_t *vf = vfile ? vfile : vpeaks;
  const char *t;
  snprintf(key, sizeof key, "%s.%s", what, vfile ? "file" : "peaks");
  if (need_scalar(L, vf, key, &t) || !t)
    return FL_EINPUT;
  if (L->data_file && d->kind == FL_FIT_CURVE) {
    /* a campaign's specimen: its own table in place of the template's */
    t = L->data_file;
    if (fl_path_join(NULL, t, d->path, sizeof d->path))
      return fail_at(L, vf, "%s: the campaign row's curve path is longer than %zu bytes; allowed: a path of at most "
                     "%zu bytes", key, sizeof d->path - 1, sizeof d->path - 1);
  } else if (fl_path_relative(L->file, t, d->path, sizeof d->path)) {
    return fail_at(L, vf, "%s: the path is longer than %zu bytes when taken relative to the fit file; allowed: a path "
                   "of at most %zu bytes", key, sizeof d->path - 1, sizeof d->path - 1);
  }
  if (strlen(t) >= sizeof d->file)
    return fail_at(L, vf, "%s: the name is longer than %zu bytes; allowed: a path of at most %zu bytes", key,
                   sizeof d->file - 1, sizeof d->file - 1);
  snprintf(d->file, sizeof d->file, "%s", t);
  where(L, vf, wbuf, sizeof wbuf);
  fl_measured_source src = {d->path, d->file, key, wbuf};
  fl_measured_column col[2];
  for (int c = first; c < 2; c++) {
    where(L, cnode[c], c ? wy : wx, sizeof wx);
    col[c].number = cnum[c];
    col[c].name = cname[c];
    col[c].to_si = to_si[c];
    col[c].key = ckey[c];
    col[c].where = c ? wy : wx;
  }
  int rc = fl_measured_read(&src, first ? NULL : &col[0], &col[1], &d->data, L->err, L->errlen);
  if (rc)
    return rc;
  fl_measured *m = &d->data;
  if (d->kind == FL_FIT_PEAKS) {
    if (m->n < 3)
      return fail_at(L, vf, "%s: '%s' has %d peak%s; allowed: at least 3 peaks", key, t, m->n, m->n == 1 ? "" : "s");
    double mean = 0, var = 0;
    for (int i = 0; i < m->n; i++)
      mean += m->y[i] / m->n;
    for (int i = 0; i < m->n; i++)
      var += (m->y[i] - mean) * (m->y[i] - mean);
    if (!(mean > 0) || !(var > 0))
      return fail_at(L, vf, "%s: '%s' has peaks with mean %g and no spread; allowed: positive peaks that differ", key,
                     t, mean);
    return FL_OK;
  }
  if (d->kind == FL_FIT_RINGDOWN) {
    for (int i = 1; i < m->n; i++)
      if (!(m->x[i] > m->x[i - 1]))
        return fail_at(L, vf, "%s: '%s': the time at line %d (%g %s) is not after the one at line %d (%g %s); "
                       "allowed: rows in time order, each later than the one before", key, t, m->line[i],
                       m->x[i] / d->x_unit_si, d->x_unit, m->line[i - 1], m->x[i - 1] / d->x_unit_si, d->x_unit);
    /* what the fit compares: the first frequency and the decrement of the ring-down's
     * extremes (fl_ringdown_fit), as the simulation's summary measures them */
    double *te = malloc((size_t)(m->n + 1) * sizeof *te), *xe = malloc((size_t)(m->n + 1) * sizeof *xe);
    if (!te || !xe) {
      free(te);
      free(xe);
      return fail_at(L, vf, "%s: out of memory", key);
    }
    fl_ringdown rd;
    int ne = fl_ringdown_extremes(m->x, m->y, m->n, te, xe);
    int ok = ne >= 6 && fl_ringdown_fit(te, xe, ne, &rd) == FL_OK && rd.frequency > 0.0 && rd.log_decrement > 0.0;
    free(te);
    free(xe);
    if (!ok)
      return fail_at(L, vf, "%s: '%s' has %d extremes%s; allowed: a ring-down in time of at least 3 periods, "
                     "decaying", key, t, ne, ne >= 6 ? " and does not decay" : "");
    d->ring_frequency = rd.frequency;
    d->ring_decrement = rd.log_decrement;
    d->ring_extremes = ne;
    return FL_OK;
  }
  if (keep_rows(L, d, what, vf, key, t, vxmin, vxmax, nreg, reg_lo, reg_hi, reg_w))
    return FL_EINPUT;
  /* a campaign's row: campaign.drop may leave it out; the campaign judges the rows it keeps */
  if (d->kink_weight > 0.0 && !L->data_file && !fl_fit_curve_drops(&d->data, 0))
    return fail_at(L, vkink, "%s.kink_weight: %g, but the measured curve '%s' has no drop followed by a plateau in "
                   "the fitted range (fiber-calibrate(1), STARTING VALUES): there is no kink to fit; allowed: 0 for "
                   "this curve", what, d->kink_weight, t);
  return FL_OK;
}

int fl_fit_apply(const fl_fit *fit, const double *value, fl_experiment *exp, const char *exp_path, char *err,
                 size_t errlen)
{
  for (int j = 0; j < fit->nfree; j++) {
    char assignment[FL_FIT_KEY + 40];
    snprintf(assignment, sizeof assignment, "%s=%.17g", fit->free[j].path, value[j]);
    int rc = fl_experiment_set(exp, assignment, err, errlen);
    if (rc)
      return rc;
  }
  int rc = fl_experiment_finish(exp, exp_path, err, errlen);
  if (rc == FL_EINPUT && strncmp(err, "--set '", 7) == 0) {
    /* the finish blames a key as if an option had set it: a free key's value comes from
     * the fit (its start or a trial point), so point at the key in the fit file */
    for (int j = 0; j < fit->nfree; j++) {
      size_t n = strlen(fit->free[j].path);
      if (strncmp(err + 7, fit->free[j].path, n) != 0 || strncmp(err + 7 + n, "': ", 3) != 0)
        continue;
      char rest[1536];
      snprintf(rest, sizeof rest, "%s", err + 7 + n + 3);
      snprintf(err, errlen, "%s:%u:%u: at the fit's value %s = %.6g (its start or a trial point): %s", fit->file,
               fit->free[j].line, fit->free[j].col, fit->free[j].path, value[j], rest);
      break;
    }
  }
  return rc;
}

/* Each free key exists in every item's experiment and admits the whole open range. */
static int check_free_against(loader *L, const yaml_node_t *freemap)
{
  fl_fit *fit = L->fit;
  for (int j = 0; j < fit->nfree; j++) {
    yaml_node_pair_t *p = freemap->data.mapping.pairs.start + j;
    yaml_node_t *k = yaml_document_get_node(L->doc, p->key), *v = yaml_document_get_node(L->doc, p->value);
    fl_fit_param *fp = &fit->free[j];
    for (int i = -1; i < fit->ndata; i++) {
      const fl_experiment *base = i < 0 ? &fit->exp : &fit->data[i].exp;
      for (int b = 0; b < 2; b++) {
        fl_experiment e = *base;
        char assignment[FL_FIT_KEY + 40], msg[1536];
        double span = fp->max - fp->min, val = b ? fp->max - 1e-9 * span : fp->min + 1e-9 * span;
        snprintf(assignment, sizeof assignment, "%s=%.17g", fp->path, val);
        if (fl_experiment_set(&e, assignment, msg, sizeof msg) == FL_OK)
          continue;
        const char *m = set_message(msg, assignment);
        if (strstr(m, "unknown key")) {
          char tn[64];
          snprintf(tn, sizeof tn, "%s", test_names[base->test.kind]);
          return fail_at(L, k, "free: '%s' is not a key of the %s experiment %s; allowed: keys every experiment of "
                         "the fit has", fp->path, tn, i < 0 ? fit->exp_path : fit->data[i].exp_path);
        }
        const char *allowed = strstr(m, "allowed: ");
        return fail_at(L, get(L, v, b ? "max" : "min", NULL), "free.%s.%s: '%g' is outside the range of %s; %s",
                       fp->path, b ? "max" : "min", b ? fp->max : fp->min, fp->path, allowed ? allowed : m);
      }
    }
    /* a key no experiment of the fit uses cannot be fitted: say so before any run */
    const char *switch_key = NULL;
    int used = 0;
    if (strncmp(fp->path, "bond.failure.", 13) == 0) {
      switch_key = "bond.failure.criterion";
      for (int i = 0; i < fit->ndata; i++)
        used |= fit->data[i].exp.bond.failure.criterion != FL_CRIT_NONE;
    } else if (strncmp(fp->path, "bond.buckling.", 14) == 0) {
      switch_key = "bond.buckling.type";
      for (int i = 0; i < fit->ndata; i++)
        used |= fit->data[i].exp.bond.buckling.type != FL_BUCKLING_NONE;
    }
    if (switch_key && !used)
      return fail_at(L, k, "free.%s: %s is free but %s is none in %s%s; allowed: free keys the experiments use (set "
                     "%s, or leave %s out of free)", fp->path, fp->path, switch_key, fit->data[0].exp_path,
                     fit->ndata > 1 ? " and every other experiment of the fit" : "", switch_key, fp->path);
  }
  return FL_OK;
}

int fl_fit_has_kink(const fl_fit_data *d)
{
  return d->kind == FL_FIT_CURVE && d->kink_weight > 0.0 && fl_fit_curve_drops(&d->data, 0);
}

int fl_fit_load(const char *path, const char *const *sets, int nsets, fl_fit *fit, char *err, size_t errlen)
{
  return fl_fit_load_specimen(path, sets, nsets, NULL, NULL, fit, err, errlen);
}

int fl_fit_load_specimen(const char *path, const char *const *sets, int nsets, const char *data_file,
                         const double range[2], fl_fit *fit, char *err, size_t errlen)
{
  yaml_document_t doc;
  int rc = FL_EINPUT, have_doc = 0;
  memset(fit, 0, sizeof *fit);
  fit->solver = fl_fit_solver_default();
  snprintf(fit->file, sizeof fit->file, "%s", path);
  loader L = {path, &doc, fit, sets, nsets, data_file, range ? range[0] : -1.0, range ? range[1] : 0.0, err, errlen};
  if ((rc = fl_yaml_load(path, "a fit file", "fiberlab-fit(5)", &doc, err, errlen)) != FL_OK) {
    fl_fit_free(fit);
    return rc;
  }
  rc = FL_EINPUT;
  have_doc = 1;
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (!root) {
    snprintf(err, errlen, "%s:1:1: the file is empty; allowed: a block with experiment, data, free and solver", path);
    goto done;
  }
  if (check_block(&L, root, "", top_keys, NULL))
    goto done;
  yaml_node_t *v, *vfree, *vdata, *kfree = NULL, *kdata = NULL;
  if (!(v = get(&L, root, "experiment", NULL))) {
    fail_at(&L, root, "experiment: missing; allowed: the experiment file to calibrate, relative to the fit file");
    goto done;
  }
  if (load_experiment(&L, v, "experiment", fit->exp_path, sizeof fit->exp_path, &fit->exp))
    goto done;
  if (fl_experiment_finish(&fit->exp, fit->exp_path, err, errlen))
    goto done;
  if (!(vfree = get(&L, root, "free", &kfree))) {
    fail_at(&L, root, "free: missing; allowed: a block of dotted paths, each with start, min and max");
    goto done;
  }
  if (load_free(&L, vfree))
    goto done;
  if ((v = get(&L, root, "solver", NULL)) && load_solver(&L, v))
    goto done;
  if (!(vdata = get(&L, root, "data", &kdata))) {
    fail_at(&L, root, "data: missing; allowed: a list of measured curves (test, file, columns, units)");
    goto done;
  }
  if (vdata->type != YAML_SEQUENCE_NODE || vdata->data.sequence.items.top == vdata->data.sequence.items.start) {
    fail_at(&L, vdata, "data: is %s; allowed: a list of one or more measured curves",
            vdata->type == YAML_SEQUENCE_NODE ? "an empty list" : node_kind(vdata));
    goto done;
  }
  long nitems = vdata->data.sequence.items.top - vdata->data.sequence.items.start;
  if (nitems > FL_FIT_MAX_DATA) {
    fail_at(&L, vdata, "data: has %ld items; allowed: at most %d", nitems, FL_FIT_MAX_DATA);
    goto done;
  }
  fit->data = calloc((size_t)nitems, sizeof *fit->data);
  if (!fit->data) {
    rc = FL_ENOMEM;
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  for (long i = 0; i < nitems; i++) {
    yaml_node_t *item = yaml_document_get_node(&doc, vdata->data.sequence.items.start[i]);
    fit->ndata = (int)i + 1;
    int r = load_item(&L, item, (int)i);
    if (r) {
      rc = r;
      goto done;
    }
    fit->npoints += fit->data[i].kind != FL_FIT_CURVE ? 2 : fit->data[i].data.n + fl_fit_has_kink(&fit->data[i]);
  }
  if (check_free_against(&L, vfree))
    goto done;
  if (fit->npoints < fit->nfree) {
    fail_at(&L, kfree, "free: %d parameters for %d measured point%s; allowed: at most %d free parameter%s (no more than "
            "the points)", fit->nfree, fit->npoints, fit->npoints == 1 ? "" : "s", fit->npoints,
            fit->npoints == 1 ? "" : "s");
    goto done;
  }
  rc = FL_OK;
done:
  if (have_doc)
    yaml_document_delete(&doc);
  if (rc)
    fl_fit_free(fit);
  return rc;
}

void fl_fit_free(fl_fit *fit)
{
  if (fit->data)
    for (int i = 0; i < fit->ndata; i++)
    {
      fl_measured_free(&fit->data[i].data);
      free(fit->data[i].row_weight);
    }
  free(fit->data);
  fit->data = NULL;
  fit->ndata = 0;
}
