/* yaml_fit.c: the Fit YAML loader (libyaml document API), the walk of its blocks: the
 * experiment to calibrate, the measured data items, the free parameters with their
 * bounds, the solver.  It loads every experiment and measured table the file names
 * (fit_rows.c reads and checks the tables), so that each input error comes out, with
 * its file, line and column, before any simulation. */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "experiment.h"
#include "files.h"
#include "fit.h"
#include "fit_item.h"
#include "fl_defs.h"
#include "measured.h"
#include "series.h"
#include "table_text.h"
#include "test_kind.h"
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
                                         "x_max_drop", "x_max_past", "x_min", "toe", "weights", "kink_weight", "start_weight", "signal",
                                         "residuals", NULL};
static const char *const signal_names[] = {"first_mode", "tip", NULL};       /* enum fl_ring_signal */
static const char *const residual_names[] = {"series", "figures", NULL};     /* enum fl_ring_residuals */
static const char *const toe_names[] = {"none", "auto", NULL};
static const char *const region_keys[] = {"x_min", "x_max", "weight", NULL};
static const char *const peaks_keys[] = {"test", "peaks", "columns", "units", "weight", "experiment", "set",
                                         "specimens", NULL};
static const char *const xy_keys[] = {"x", "y", NULL};
static const char *const y_keys[] = {"y", NULL};
static const char *const free_keys[] = {"start", "min", "max", NULL};
static const char *const solver_keys[] = {"method", "scale", "max_iterations", "xtol", "gtol", "ftol", "difference_step",
                                          "differences", "jacobian", "global", "global_points", "global_refine", NULL};

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
  s.broyden = 0;
  s.global = FL_GLOBAL_AUTO;
  s.global_points = 16;
  s.global_refine = 3;
  return s;
}

static yaml_node_t *get(fl_fit_loader *L, const yaml_node_t *map, const char *key, yaml_node_t **keynode)
{
  return fl_yaml_value(L->r.doc, map, key, keynode);
}

/* A block of keys: each a plain name, once, and one of allowed (what names the block in
 * messages, e.g. "data[1]", "" at the top; kind_note, when not NULL, whose keys they
 * are, e.g. "a peaks item"). */
static int check_block(fl_fit_loader *L, const yaml_node_t *map, const char *what, const char *const *allowed,
                       const char *kind_note)
{
  char list[512], msg[1536], path[1536];
  fl_yaml_join(allowed, ", ", list, sizeof list);
  if (map->type != YAML_MAPPING_NODE) {
    fl_yaml_msg_not_block(what, map, list, msg, sizeof msg);
    return fl_yaml_fail(&L->r, map, "%s", msg);
  }
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(L->r.doc, p->key);
    const char *name = fl_yaml_scalar(k);
    if (!name)
      fl_yaml_msg_not_plain(what, k, msg, sizeof msg);
    if (!name || fl_yaml_duplicate(L->r.doc, map, p, what, msg, sizeof msg))
      return fl_yaml_fail(&L->r, k, "%s", msg);
    int ok = 0;
    for (int i = 0; allowed[i] && !ok; i++)
      ok = strcmp(allowed[i], name) == 0;
    if (!ok) {
      snprintf(path, sizeof path, "%s%s%s", what, *what ? "." : "", name);
      fl_yaml_msg_unknown(path, what, kind_note, list, msg, sizeof msg);
      return fl_yaml_fail(&L->r, k, "%s", msg);
    }
  }
  return FL_OK;
}

/* A number in (lo, hi] or [lo, hi] (lo_open). */
static int get_number(fl_fit_loader *L, const yaml_node_t *n, const char *key, double lo, double hi, int lo_open,
                      const char *unit, double *out)
{
  fl_yaml_range r = {lo, hi, lo_open, 0, unit};
  return fl_yaml_read_number(&L->r, n, key, &r, out);
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
static int load_experiment(fl_fit_loader *L, const yaml_node_t *val, const char *key, char *path, size_t plen,
                           fl_experiment *exp)
{
  const char *t;
  if (fl_yaml_need_scalar(&L->r, val, key, &t))
    return FL_EINPUT;
  if (fl_path_relative(L->r.file, t, path, plen))
    return fl_yaml_fail(&L->r, val, "%s: the path is longer than %zu bytes when taken relative to the fit file; "
                        "allowed: a path of at most %zu bytes", key, plen - 1, plen - 1);
  FILE *f = fopen(path, "rb");
  if (!f)
    return fl_yaml_fail(&L->r, val, "%s: '%s' cannot be read: %s; allowed: an experiment file, relative to the fit "
                        "file", key, t, strerror(errno));
  fclose(f);
  *exp = fl_experiment_default();
  int rc = fl_experiment_load(path, exp, L->r.err, L->r.errlen);
  for (int i = 0; rc == FL_OK && i < L->nsets; i++)
    rc = fl_experiment_set(exp, L->sets[i], L->r.err, L->r.errlen);
  return rc;
}

/* A column: a number from 1, or a header name. */
static int get_column(fl_fit_loader *L, const yaml_node_t *n, const char *key, int *number, char *name, size_t nlen)
{
  const char *t;
  if (fl_yaml_need_scalar(&L->r, n, key, &t))
    return FL_EINPUT;
  if (!*t)
    return fl_yaml_fail(&L->r, n, "%s: '' is not a column; allowed: a column number from 1, or a header name", key);
  char *end;
  long v = strtol(t, &end, 10);
  if (!*end) {
    if (v < 1 || v > 100000)
      return fl_yaml_fail(&L->r, n, "%s: '%s' is not a column; allowed: a column number from 1, or a header name", key,
                          t);
    *number = (int)v;
    name[0] = '\0';
    return FL_OK;
  }
  *number = 0;
  snprintf(name, nlen, "%s", t);
  return FL_OK;
}

/* A unit for quantity q. */
static int get_unit(fl_fit_loader *L, const yaml_node_t *n, const char *key, enum fl_quantity q, const char *test,
                    double *to_si)
{
  const char *t;
  char list[128];
  if (fl_yaml_need_scalar(&L->r, n, key, &t))
    return FL_EINPUT;
  fl_unit_names(q, list, sizeof list);
  const fl_unit *u = fl_unit_find(t);
  if (!u)
    return fl_yaml_fail(&L->r, n, "%s: '%s' is not a unit; allowed: %s", key, t, list);
  if (u->quantity != q)
    return fl_yaml_fail(&L->r, n, "%s: '%s' does not go with a %s test; allowed: %s", key, t, test, list);
  *to_si = u->to_si;
  return FL_OK;
}

/* A free parameter's bound min or max (which), a number (where: "below max"). */
static int free_bound(fl_fit_loader *L, const yaml_node_t *n, const char *key, const char *which, const char *where,
                      double *out)
{
  char sub[FL_FIT_KEY + 32];
  const char *t;
  snprintf(sub, sizeof sub, "%s.%s", key, which);
  if (fl_yaml_need_scalar(&L->r, n, sub, &t))
    return FL_EINPUT;
  if (!fl_yaml_parse_double(t, out))
    return fl_yaml_fail(&L->r, n, "%s: '%s' is not a number%s; allowed: a number %s", sub, t, fl_number_hint(t), where);
  return FL_OK;
}

static int load_free(fl_fit_loader *L, const yaml_node_t *map)
{
  fl_fit *fit = L->fit;
  if (map->type != YAML_MAPPING_NODE)
    return fl_yaml_fail(&L->r, map, "free: is %s; allowed: a block of dotted paths, each with start, min and max",
                        fl_yaml_node_kind(map));
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(L->r.doc, p->key), *v = yaml_document_get_node(L->r.doc, p->value);
    const char *path = fl_yaml_scalar(k);
    char key[FL_FIT_KEY + 16];
    if (!path)
      return fl_yaml_fail(&L->r, k, "free: key is %s; allowed: a dotted path", fl_yaml_node_kind(k));
    char msg[1536];
    if (fl_yaml_duplicate(L->r.doc, map, p, "free", msg, sizeof msg))
      return fl_yaml_fail(&L->r, k, "%s", msg);
    if (strlen(path) >= FL_FIT_KEY || !fl_experiment_key_is_number(path))
      return fl_yaml_fail(&L->r, k, "free: '%s' is not a numeric key of an experiment; allowed: the dotted path of a "
                          "number, such as bond.torque_stiffness_scale or bond.failure.max_stress", path);
    if (fit->nfree == FL_FIT_MAX_FREE)
      return fl_yaml_fail(&L->r, k, "free: '%s' is parameter %d; allowed: at most %d free parameters", path,
                          fit->nfree + 1, FL_FIT_MAX_FREE);
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
      return fl_yaml_fail(&L->r, v, "%s: missing key '%s'; allowed: a block with start, min and max", key, missing);
    char sub[FL_FIT_KEY + 32];
    const char *t;
    if (free_bound(L, vmin, key, "min", "below max", &fp->min) || free_bound(L, vmax, key, "max", "above min", &fp->max))
      return FL_EINPUT;
    if (!(fp->max > fp->min))
      return fl_yaml_fail(&L->r, vmax, "%s.max: '%s' is not above min %g; allowed: a number above min", key,
                          fl_yaml_scalar(vmax), fp->min);
    snprintf(sub, sizeof sub, "%s.start", key);
    if (fl_yaml_need_scalar(&L->r, vs, sub, &t))
      return FL_EINPUT;
    if (strcmp(t, "auto") == 0) {
      fp->start_auto = 1;
      fp->start = NAN;
    } else if (!fl_yaml_parse_double(t, &fp->start)) {
      return fl_yaml_fail(&L->r, vs, "%s: '%s' is not a number or auto%s; allowed: auto, or a number in (%g, %g)", sub,
                          t, fl_number_hint(t), fp->min, fp->max);
    } else if (!(fp->start > fp->min && fp->start < fp->max)) {
      return fl_yaml_fail(&L->r, vs, "%s: '%s' is not strictly between min and max; allowed: auto, or a number in "
                          "(%g, %g)", sub, t, fp->min, fp->max);
    }
    fit->nfree++;
  }
  if (fit->nfree == 0)
    return fl_yaml_fail(&L->r, map, "free: is empty; allowed: at least one dotted path with start, min and max");
  return FL_OK;
}

static int load_solver(fl_fit_loader *L, const yaml_node_t *map)
{
  fl_fit_solver *s = &L->fit->solver;
  if (check_block(L, map, "solver", solver_keys, NULL))
    return FL_EINPUT;
  yaml_node_t *v;
  const char *method_names[8] = {NULL};
  for (int i = 0; fl_fit_methods[i].name && i < 7; i++)
    method_names[i] = fl_fit_methods[i].name;
  if ((v = get(L, map, "method", NULL)) && fl_yaml_read_choice(&L->r, v, "solver.method", method_names, &s->method))
    return FL_EINPUT;
  static const char *const scales[] = {"more", "levenberg", "marquardt", NULL}; /* enum fl_fit_scale */
  if ((v = get(L, map, "scale", NULL)) && fl_yaml_read_choice(&L->r, v, "solver.scale", scales, &s->scale))
    return FL_EINPUT;
  if ((v = get(L, map, "max_iterations", NULL)) &&
      fl_yaml_read_integer(&L->r, v, "solver.max_iterations", 1, 100000, &s->max_iterations))
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
  if ((v = get(L, map, "differences", NULL)) &&
      fl_yaml_read_choice(&L->r, v, "solver.differences", differences, &s->central))
    return FL_EINPUT;
  static const char *const jacobians[] = {"differences", "broyden", NULL};
  if ((v = get(L, map, "jacobian", NULL)) && fl_yaml_read_choice(&L->r, v, "solver.jacobian", jacobians, &s->broyden))
    return FL_EINPUT;
  static const char *const global_modes[] = {"auto", "on", "off", NULL}; /* enum fl_global_mode */
  if ((v = get(L, map, "global", NULL)) && fl_yaml_read_choice(&L->r, v, "solver.global", global_modes, &s->global))
    return FL_EINPUT;
  if ((v = get(L, map, "global_points", NULL)) &&
      fl_yaml_read_integer(&L->r, v, "solver.global_points", FL_GLOBAL_MIN_POINTS, FL_GLOBAL_MAX_POINTS,
                           &s->global_points))
    return FL_EINPUT;
  if ((v = get(L, map, "global_refine", NULL)) &&
      fl_yaml_read_integer(&L->r, v, "solver.global_refine", 1, FL_GLOBAL_MAX_REFINE, &s->global_refine))
    return FL_EINPUT;
  if (s->global_refine > s->global_points + 1)
    return fl_yaml_fail(&L->r, v, "solver.global_refine: '%d' is more than the %d points of the design and the start; "
                        "allowed: an integer in [1, solver.global_points + 1]", s->global_refine, s->global_points + 1);
  return FL_OK;
}

/* Apply an item's set: block to its experiment. */
static int apply_sets(fl_fit_loader *L, const yaml_node_t *map, const char *what, fl_experiment *exp)
{
  if (map->type != YAML_MAPPING_NODE)
    return fl_yaml_fail(&L->r, map, "%s.set: is %s; allowed: a block of dotted paths and values", what,
                        fl_yaml_node_kind(map));
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(L->r.doc, p->key), *v = yaml_document_get_node(L->r.doc, p->value);
    const char *path = fl_yaml_scalar(k), *val;
    if (!path)
      return fl_yaml_fail(&L->r, k, "%s.set: key is %s; allowed: a dotted path", what, fl_yaml_node_kind(k));
    char key[FL_FIT_KEY + 32], assignment[1024], msg[1536];
    snprintf(key, sizeof key, "%s.set", what);
    if (fl_yaml_duplicate(L->r.doc, map, p, key, msg, sizeof msg))
      return fl_yaml_fail(&L->r, k, "%s", msg);
    snprintf(key, sizeof key, "%s.set.%s", what, path);
    if (fl_yaml_need_scalar(&L->r, v, key, &val))
      return FL_EINPUT;
    snprintf(assignment, sizeof assignment, "%s=%s", path, val);
    if (fl_experiment_set(exp, assignment, msg, sizeof msg)) {
      const char *m = set_message(msg, assignment);
      return fl_yaml_fail(&L->r, strstr(m, "unknown key") ? k : v, "%s", m);
    }
    /* later messages about this key point at its value here, not at an option */
    fl_experiment_mark_fit(exp, path, L->fit->file, (unsigned)v->start_mark.line + 1, (unsigned)v->start_mark.column + 1);
  }
  return FL_OK;
}

/* An item's head: a block, a curve (file) or peaks, with the keys of its kind, and the
 * test it comes from. */
static int item_head(fl_fit_loader *L, fl_fit_item *it)
{
  fl_fit_data *d = it->d;
  const char *what = it->what;
  char key[96];
  if (it->node->type != YAML_MAPPING_NODE)
    return fl_yaml_fail(&L->r, it->node, "%s: is %s; allowed: a block with test, file (or peaks), columns and units",
                        what, fl_yaml_node_kind(it->node));
  yaml_node_t *kfile = NULL, *kpeaks = NULL;
  yaml_node_t *vfile = get(L, it->node, "file", &kfile), *vpeaks = get(L, it->node, "peaks", &kpeaks);
  if (vfile && vpeaks)
    return fl_yaml_fail(&L->r, kpeaks, "%s.peaks: given with file; allowed: one of file (a curve) and peaks (peak "
                        "loads)", what);
  d->kind = vpeaks ? FL_FIT_PEAKS : FL_FIT_CURVE;
  it->vtable = vfile ? vfile : vpeaks;
  if (check_block(L, it->node, what, d->kind == FL_FIT_PEAKS ? peaks_keys : curve_keys,
                  d->kind == FL_FIT_PEAKS ? "a peaks item" : "a curve item"))
    return FL_EINPUT;
  if (!vfile && !vpeaks)
    return fl_yaml_fail(&L->r, it->node, "%s: missing key 'file'; allowed: file (a curve) or peaks (peak loads of "
                        "several specimens)", what);
  int kind;
  if (!(it->vtest = get(L, it->node, "test", NULL)))
    return fl_yaml_fail(&L->r, it->node, "%s: missing key 'test'; allowed: bend3pt | tension | torsion | cantilever | "
                        "bend4pt | compression", what);
  snprintf(key, sizeof key, "%s.test", what);
  if (fl_yaml_read_choice(&L->r, it->vtest, key, test_names, &kind))
    return FL_EINPUT;
  d->test = (enum fl_test_kind)kind;
  return FL_OK;
}

/* The item's experiment (its own, or the fit's), its set: block, finished; a test of
 * the item's kind, and a curve's monotonic loading. */
static int item_experiment(fl_fit_loader *L, fl_fit_item *it)
{
  fl_fit *fit = L->fit;
  fl_fit_data *d = it->d;
  const char *what = it->what;
  char key[96];
  yaml_node_t *v;
  if ((v = get(L, it->node, "experiment", NULL))) {
    snprintf(key, sizeof key, "%s.experiment", what);
    if (load_experiment(L, v, key, d->exp_path, sizeof d->exp_path, &d->exp))
      return FL_EINPUT;
  } else {
    snprintf(d->exp_path, sizeof d->exp_path, "%s", fit->exp_path);
    d->exp = fit->exp;
  }
  if ((v = get(L, it->node, "set", NULL)) && apply_sets(L, v, what, &d->exp))
    return FL_EINPUT;
  if (fl_experiment_finish(&d->exp, d->exp_path, L->r.err, L->r.errlen))
    return FL_EINPUT;
  if (d->exp.test.kind != d->test) {
    snprintf(key, sizeof key, "%s.test", what);
    return fl_yaml_fail(&L->r, it->vtest, "%s: '%s' is not the test of its experiment %s (%s); allowed: %s", key,
                        test_names[d->test], d->exp_path, test_names[d->exp.test.kind], test_names[d->exp.test.kind]);
  }
  /* a cantilever's free vibration: the file is its ring-down */
  if (d->kind == FL_FIT_CURVE && fl_test_rings(&d->exp.test))
    d->kind = FL_FIT_RINGDOWN;
  if (d->kind == FL_FIT_CURVE && d->exp.test.ncycles > 0)
    return fl_yaml_fail(&L->r, it->vtest, "%s.test: the experiment %s loads in cycles (test.cycles); allowed: a "
                        "monotonic loading for a fitted curve", what, d->exp_path);
  return FL_OK;
}

/* x_max (node it->vxmax, named key): a number in (0, xhi], or auto with its shares
 * x_max_drop and x_max_past, which no other x_max takes. */
static int x_max_value(fl_fit_loader *L, fl_fit_item *it, const char *key, double xhi, const char *xunit)
{
  fl_fit_data *d = it->d;
  const char *t;
  char sub[112], msg[512];
  if (fl_yaml_need_scalar(&L->r, it->vxmax, key, &t))
    return FL_EINPUT;
  d->x_max_auto = strcmp(t, "auto") == 0;
  fl_yaml_range r = {0, xhi, 1, 0, xunit};
  if (!d->x_max_auto && fl_yaml_number(key, t, &r, 1, &d->x_max, msg, sizeof msg))
    return fl_yaml_fail(&L->r, it->vxmax, "%s", msg);
  if (d->x_max_auto && d->kind != FL_FIT_CURVE)
    return fl_yaml_fail(&L->r, it->vxmax, "%s: auto sets the range of a curve; allowed: a number in (0, %g] %s",
                        key, xhi, xunit);
  d->x_max_drop = 0.05;
  d->x_max_past = 0.25;
  static const char *const share[] = {"x_max_drop", "x_max_past"};
  double *to[] = {&d->x_max_drop, &d->x_max_past}, hi[] = {1.0, 10.0};
  for (int k = 0; k < 2; k++) {
    yaml_node_t *v = get(L, it->node, share[k], NULL);
    snprintf(sub, sizeof sub, "%s.%s", it->what, share[k]);
    if (v && !d->x_max_auto)
      return fl_yaml_fail(&L->r, v, "%s: a share of x_max: auto, and x_max is %s; allowed: %s with x_max: auto "
                          "only", sub, t, share[k]);
    if (v && get_number(L, v, sub, 0, hi[k], k == 0, "", to[k]))
      return FL_EINPUT;
  }
  if (!(d->x_max_drop < 1.0))
    return fl_yaml_fail(&L->r, get(L, it->node, "x_max_drop", NULL), "%s.x_max_drop: %g leaves no load; allowed: a "
                        "share in (0, 1)", it->what, d->x_max_drop);
  return FL_OK;
}

/* The item's weight, fitted range (a campaign's row may replace it), toe, kink and start. */
static int item_range(fl_fit_loader *L, fl_fit_item *it)
{
  fl_fit_data *d = it->d;
  const char *what = it->what;
  char key[96];
  yaml_node_t *v;
  d->weight = 1.0;
  snprintf(key, sizeof key, "%s.weight", what);
  if ((v = get(L, it->node, "weight", NULL)) && get_number(L, v, key, 0, 1e6, 1, "", &d->weight))
    return FL_EINPUT;
  const fl_test_type *type = fl_test_type_of(d->test);
  const char *xunit = type->x_unit;
  double xhi = type->angular ? 1e3 : 10;
  d->x_max = -1.0;
  snprintf(key, sizeof key, "%s.x_max", what);
  if ((it->vxmax = get(L, it->node, "x_max", NULL)) && x_max_value(L, it, key, xhi, xunit))
    return FL_EINPUT;
  if (L->x_max > 0.0 && d->kind == FL_FIT_CURVE) {
    d->x_max = L->x_max; /* the campaign's table: a number, which replaces auto too */
    d->x_max_auto = 0;
  }
  it->vxmin = get(L, it->node, "x_min", NULL);
  d->x_min = 0.0;
  snprintf(key, sizeof key, "%s.x_min", what);
  if (it->vxmin && get_number(L, it->vxmin, key, 0, xhi, 0, xunit, &d->x_min))
    return FL_EINPUT;
  if (L->x_min >= 0.0 && d->kind == FL_FIT_CURVE)
    d->x_min = L->x_min;
  if (d->x_max > 0.0 && !(d->x_min < d->x_max)) {
    const char *from = L->x_min >= 0.0 || L->x_max > 0.0 ? " (data.x_min and data.x_max of the campaign's table "
                                                           "included)" : "";
    return fl_yaml_fail(&L->r, it->vxmin ? it->vxmin : it->node, "%s: %g %s is not below x_max %g %s; allowed: x_min < "
                        "x_max%s", key, d->x_min, xunit, d->x_max, xunit, from);
  }
  snprintf(key, sizeof key, "%s.toe", what);
  if ((v = get(L, it->node, "toe", NULL)) && fl_yaml_read_choice(&L->r, v, key, toe_names, &d->toe_auto))
    return FL_EINPUT;
  snprintf(key, sizeof key, "%s.kink_weight", what);
  it->vkink = get(L, it->node, "kink_weight", NULL);
  if (it->vkink && get_number(L, it->vkink, key, 0, 1e6, 0, "", &d->kink_weight))
    return FL_EINPUT;
  int kinks = fl_test_type_of(d->test)->kink; /* a test whose curve may have a kink */
  if (d->kink_weight > 0.0 && (!kinks || d->exp.bond.buckling.type == FL_BUCKLING_NONE))
    return fl_yaml_fail(&L->r, it->vkink, "%s: %g, but the experiment %s %s: there is no kink to fit; allowed: 0, or a "
                        "3-point test whose bonds buckle (bond.buckling.type reversible, damage or plastic)", key,
                        d->kink_weight, d->exp_path, !kinks ? "is not a 3-point test" : "has no "
                        "buckling envelope (bond.buckling.type none)");
  snprintf(key, sizeof key, "%s.start_weight", what);
  it->vstart = get(L, it->node, "start_weight", NULL);
  if (it->vstart && get_number(L, it->vstart, key, 0, 1e6, 0, "", &d->start_weight))
    return FL_EINPUT;
  return FL_OK;
}

/* A ring-down's signal and residuals (fiberlab-fit(5)); on any other item, refused. */
static int item_ring(fl_fit_loader *L, fl_fit_item *it)
{
  static const char *const keys[2] = {"signal", "residuals"};
  const char *const *names[2] = {signal_names, residual_names};
  fl_fit_data *d = it->d;
  int *out[2] = {&d->ring_signal, &d->ring_residuals};
  for (int k = 0; k < 2; k++) {
    char key[96];
    yaml_node_t *kn = NULL, *v = get(L, it->node, keys[k], &kn);
    if (!v)
      continue;
    snprintf(key, sizeof key, "%s.%s", it->what, keys[k]);
    if (d->kind != FL_FIT_RINGDOWN)
      return fl_yaml_fail(&L->r, kn, "%s: given for a %s curve; allowed: only for a ring-down (a cantilever whose "
                          "experiment has test.mode: vibration)", key, test_names[d->test]);
    if (fl_yaml_read_choice(&L->r, v, key, names[k], out[k]))
      return FL_EINPUT;
  }
  return FL_OK;
}

/* weights: regions of the abscissa, each with its own weight. */
static int item_regions(fl_fit_loader *L, fl_fit_item *it)
{
  const fl_test_type *type = fl_test_type_of(it->d->test);
  const char *what = it->what, *xunit = type->x_unit;
  double xhi = type->angular ? 1e3 : 10;
  char key[96];
  yaml_node_t *vw = get(L, it->node, "weights", NULL);
  if (!vw)
    return FL_OK;
  snprintf(key, sizeof key, "%s.weights", what);
  long nw = vw->type == YAML_SEQUENCE_NODE ? vw->data.sequence.items.top - vw->data.sequence.items.start : 0;
  if (nw < 1 || nw > FL_FIT_MAX_REGIONS)
    return fl_yaml_fail(&L->r, vw, "%s: is %s; allowed: a list of 1 to %d regions { x_min, x_max, weight }", key,
                        vw->type != YAML_SEQUENCE_NODE ? fl_yaml_node_kind(vw)
                        : nw                           ? "too long a list"
                                                       : "an empty list",
                        FL_FIT_MAX_REGIONS);
  for (long r = 0; r < nw; r++) {
    yaml_node_t *rn = yaml_document_get_node(L->r.doc, vw->data.sequence.items.start[r]), *rv;
    char rkey[128], sub[160];
    int n = it->nreg;
    snprintf(rkey, sizeof rkey, "%s.weights[%ld]", what, r + 1);
    if (check_block(L, rn, rkey, region_keys, NULL))
      return FL_EINPUT;
    it->reg_lo[n] = -HUGE_VAL;
    it->reg_hi[n] = HUGE_VAL;
    snprintf(sub, sizeof sub, "%s.x_min", rkey);
    if ((rv = get(L, rn, "x_min", NULL)) && get_number(L, rv, sub, 0, xhi, 0, xunit, &it->reg_lo[n]))
      return FL_EINPUT;
    snprintf(sub, sizeof sub, "%s.x_max", rkey);
    if ((rv = get(L, rn, "x_max", NULL)) && get_number(L, rv, sub, 0, xhi, 1, xunit, &it->reg_hi[n]))
      return FL_EINPUT;
    if (!(it->reg_lo[n] < it->reg_hi[n]))
      return fl_yaml_fail(&L->r, rv, "%s: %g %s is not above x_min %g %s; allowed: x_min < x_max", sub, it->reg_hi[n],
                          xunit, it->reg_lo[n], xunit);
    snprintf(sub, sizeof sub, "%s.weight", rkey);
    if (!(rv = get(L, rn, "weight", NULL)))
      return fl_yaml_fail(&L->r, rn, "%s: missing key 'weight'; allowed: a block with weight and x_min, x_max or both",
                          rkey);
    if (get_number(L, rv, sub, 0, 1e6, 1, "", &it->reg_w[n]))
      return FL_EINPUT;
    it->nreg++;
  }
  return FL_OK;
}

/* The columns read (x and y; y alone for peaks) and their units. */
static int item_columns(fl_fit_loader *L, fl_fit_item *it)
{
  fl_fit_data *d = it->d;
  const char *what = it->what;
  char key[96], ukey[2][96];
  enum fl_quantity q[2];
  const fl_test_type *type = fl_test_type_of(d->test);
  q[0] = d->kind == FL_FIT_RINGDOWN ? FL_Q_TIME : type->angular ? FL_Q_ANGLE : FL_Q_LENGTH;
  q[1] = d->kind == FL_FIT_RINGDOWN ? FL_Q_LENGTH : type->angular ? FL_Q_TORQUE : FL_Q_FORCE;
  const char *const *ck = d->kind == FL_FIT_PEAKS ? y_keys : xy_keys;
  it->first = d->kind == FL_FIT_PEAKS ? 1 : 0;
  it->to_si[0] = it->to_si[1] = 1.0;
  snprintf(key, sizeof key, "%s.columns", what);
  yaml_node_t *vc = get(L, it->node, "columns", NULL), *v;
  if (!vc)
    return fl_yaml_fail(&L->r, it->node, "%s: missing key 'columns'; allowed: %s", what,
                        d->kind == FL_FIT_PEAKS ? "{ y: N } with a column number from 1 or a header name"
                                                : "{ x: N, y: N } with column numbers from 1 or header names");
  if (check_block(L, vc, key, ck, d->kind == FL_FIT_PEAKS ? "peaks" : NULL))
    return FL_EINPUT;
  for (int c = it->first; c < 2; c++) {
    const char *axis = c ? "y" : "x";
    snprintf(it->ckey[c], sizeof it->ckey[c], "%s.columns.%s", what, axis);
    snprintf(ukey[c], sizeof ukey[c], "%s.units.%s", what, axis);
    if (!(it->cnode[c] = get(L, vc, axis, NULL)))
      return fl_yaml_fail(&L->r, vc, "%s: missing key '%s'; allowed: a column number from 1, or a header name", key,
                          axis);
    if (get_column(L, it->cnode[c], it->ckey[c], &it->cnum[c], it->cname[c], sizeof it->cname[c]))
      return FL_EINPUT;
  }
  snprintf(key, sizeof key, "%s.units", what);
  if ((vc = get(L, it->node, "units", NULL))) {
    if (check_block(L, vc, key, ck, d->kind == FL_FIT_PEAKS ? "peaks" : NULL))
      return FL_EINPUT;
    for (int c = it->first; c < 2; c++)
      if ((v = get(L, vc, c ? "y" : "x", NULL)) && get_unit(L, v, ukey[c], q[c], test_names[d->test], &it->to_si[c]))
        return FL_EINPUT;
  }
  d->x_unit_si = it->to_si[0];
  snprintf(d->x_unit, sizeof d->x_unit, "%s", d->kind == FL_FIT_RINGDOWN ? "s" : type->x_unit);
  if (vc && (v = get(L, vc, "x", NULL)) && fl_yaml_scalar(v))
    snprintf(d->x_unit, sizeof d->x_unit, "%s", fl_yaml_scalar(v));
  return FL_OK;
}

/* Data item index: its keys, its experiment, then its table (fit_rows.c). */
static int load_item(fl_fit_loader *L, yaml_node_t *node, int index)
{
  fl_fit_item it;
  fl_fit_data *d = &L->fit->data[index];
  char key[96];
  yaml_node_t *v;
  memset(&it, 0, sizeof it);
  memset(d, 0, sizeof *d);
  it.d = d;
  it.node = node;
  snprintf(it.what, sizeof it.what, "data[%d]", index + 1);
  if (item_head(L, &it) || item_experiment(L, &it) || item_ring(L, &it) || item_range(L, &it) ||
      item_regions(L, &it))
    return FL_EINPUT;
  d->specimens = 200;
  snprintf(key, sizeof key, "%s.specimens", it.what);
  if ((v = get(L, node, "specimens", NULL)) && fl_yaml_read_integer(&L->r, v, key, 3, 100000, &d->specimens))
    return FL_EINPUT;
  if (item_columns(L, &it))
    return FL_EINPUT;
  return fl_fit_item_rows(L, &it);
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
static int check_free_against(fl_fit_loader *L, const yaml_node_t *freemap)
{
  fl_fit *fit = L->fit;
  for (int j = 0; j < fit->nfree; j++) {
    yaml_node_pair_t *p = freemap->data.mapping.pairs.start + j;
    yaml_node_t *k = yaml_document_get_node(L->r.doc, p->key), *v = yaml_document_get_node(L->r.doc, p->value);
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
          return fl_yaml_fail(&L->r, k, "free: '%s' is not a key of the %s experiment %s; allowed: keys every "
                              "experiment of the fit has", fp->path, tn, i < 0 ? fit->exp_path : fit->data[i].exp_path);
        }
        const char *allowed = strstr(m, "allowed: ");
        return fl_yaml_fail(&L->r, get(L, v, b ? "max" : "min", NULL), "free.%s.%s: '%g' is outside the range of %s; "
                            "%s", fp->path, b ? "max" : "min", b ? fp->max : fp->min, fp->path, allowed ? allowed : m);
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
      return fl_yaml_fail(&L->r, k, "free.%s: %s is free but %s is none in %s%s; allowed: free keys the experiments "
                          "use (set %s, or leave %s out of free)", fp->path, fp->path, switch_key,
                          fit->data[0].exp_path, fit->ndata > 1 ? " and every other experiment of the fit" : "",
                          switch_key, fp->path);
    /* the tools' spring exists with test.contact linear only, Hertz's contact modulus
     * with hertz only (fiberlab-experiment(5)) */
    static const struct {
      const char *path, *not_so, *law;
      int contact;
    } rig[] = {{"test.contact_stiffness", "are not linear", "linear", FL_CONTACT_LINEAR},
               {"test.contact_modulus", "do not indent by Hertz's law", "hertz", FL_CONTACT_HERTZ}};
    for (size_t g = 0; g < sizeof rig / sizeof rig[0]; g++)
      for (int i = 0; strcmp(fp->path, rig[g].path) == 0 && i < fit->ndata; i++)
        if (fit->data[i].exp.test.contact != rig[g].contact)
          return fl_yaml_fail(&L->r, k, "free.%s: the tools of %s %s (test.contact); allowed: %s free where every "
                              "experiment of the fit has test.contact: %s", fp->path, fit->data[i].exp_path,
                              rig[g].not_so, fp->path, rig[g].law);
  }
  return FL_OK;
}

int fl_fit_has_start(const fl_fit_data *d)
{
  if (d->kind != FL_FIT_CURVE || !(d->start_weight > 0.0))
    return 0;
  double top = 0.0;
  for (int i = 0; i < d->data.n; i++)
    top = fmax(top, fabs(d->data.y[i]));
  return isfinite(fl_series_start_bend(d->data.x, d->data.y, d->data.y, d->data.n, top));
}

int fl_fit_has_kink(const fl_fit_data *d)
{
  return d->kind == FL_FIT_CURVE && d->kink_weight > 0.0 && fl_fit_curve_drops(&d->data, 0);
}

int fl_fit_residual_rows(const fl_fit_data *d)
{
  if (d->kind == FL_FIT_CURVE)
    return d->data.n + fl_fit_has_kink(d) + fl_fit_has_start(d);
  return d->kind == FL_FIT_RINGDOWN && d->ring_residuals == FL_RING_SERIES ? d->data.n : 2;
}

int fl_fit_profiled(const fl_fit_data *d)
{
  return d->kind == FL_FIT_RINGDOWN && d->ring_residuals == FL_RING_SERIES ? 3 : 0;
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
  fl_fit_loader L = {{path, &doc, err, errlen}, fit, sets, nsets, data_file, range ? range[0] : -1.0,
                     range ? range[1] : 0.0};
  if ((rc = fl_yaml_load(path, "a fit file", "fiberlab-fit(5)", &doc, err, errlen)) != FL_OK) {
    fl_fit_free(fit);
    return rc;
  }
  rc = FL_EINPUT;
  have_doc = 1;
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (!root) {
    fl_yaml_fail(&L.r, NULL, "the file is empty; allowed: a block with experiment, data, free and solver");
    goto done;
  }
  if (check_block(&L, root, "", top_keys, NULL))
    goto done;
  yaml_node_t *v, *vfree, *vdata, *kfree = NULL, *kdata = NULL;
  if (!(v = get(&L, root, "experiment", NULL))) {
    fl_yaml_fail(&L.r, root, "experiment: missing; allowed: the experiment file to calibrate, relative to the fit "
                 "file");
    goto done;
  }
  if (load_experiment(&L, v, "experiment", fit->exp_path, sizeof fit->exp_path, &fit->exp))
    goto done;
  if (fl_experiment_finish(&fit->exp, fit->exp_path, err, errlen))
    goto done;
  if (!(vfree = get(&L, root, "free", &kfree))) {
    fl_yaml_fail(&L.r, root, "free: missing; allowed: a block of dotted paths, each with start, min and max");
    goto done;
  }
  if (load_free(&L, vfree))
    goto done;
  if ((v = get(&L, root, "solver", NULL)) && load_solver(&L, v))
    goto done;
  if (!(vdata = get(&L, root, "data", &kdata))) {
    fl_yaml_fail(&L.r, root, "data: missing; allowed: a list of measured curves (test, file, columns, units)");
    goto done;
  }
  if (vdata->type != YAML_SEQUENCE_NODE || vdata->data.sequence.items.top == vdata->data.sequence.items.start) {
    fl_yaml_fail(&L.r, vdata, "data: is %s; allowed: a list of one or more measured curves",
                 vdata->type == YAML_SEQUENCE_NODE ? "an empty list" : fl_yaml_node_kind(vdata));
    goto done;
  }
  long nitems = vdata->data.sequence.items.top - vdata->data.sequence.items.start;
  if (nitems > FL_FIT_MAX_DATA) {
    fl_yaml_fail(&L.r, vdata, "data: has %ld items; allowed: at most %d", nitems, FL_FIT_MAX_DATA);
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
    fit->npoints += fl_fit_residual_rows(&fit->data[i]);
  }
  if (check_free_against(&L, vfree))
    goto done;
  if (fit->npoints < fit->nfree) {
    fl_yaml_fail(&L.r, kfree, "free: %d parameters for %d measured point%s; allowed: at most %d free parameter%s (no "
                 "more than the points)", fit->nfree, fit->npoints, fit->npoints == 1 ? "" : "s", fit->npoints,
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
