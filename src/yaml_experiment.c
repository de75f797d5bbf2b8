/* yaml_experiment.c: the walk of an experiment YAML document onto an fl_experiment, and
 * the -s KEY=VALUE overrides, both through the key table (experiment_keys.c). */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "experiment.h"
#include "experiment_keys.h"
#include "fl_defs.h"
#include "test_kind.h"
#include "yaml_input.h"

/* A number for key k in its range, stored (degrees as radians). */
static int set_real(const key_def *k, fl_experiment *exp, const char *text, const fl_exp_origin *o, char *err,
                    size_t errlen)
{
  char msg[768];
  double v;
  fl_yaml_range r = {k->min, k->max, k->min_open, k->max_open, k->unit};
  if (k->type == KT_REAL_AUTO && strcmp(text, "auto") == 0) {
    *(double *)((char *)exp + k->offset) = -1.0;
    return FL_OK;
  }
  if (fl_yaml_number(k->path, text, &r, k->type == KT_REAL_AUTO, &v, msg, sizeof msg))
    return fl_exp_fail(err, errlen, o, "%s", msg);
  *(double *)((char *)exp + k->offset) = (k->type == KT_DEG) ? v * DEG : v;
  return FL_OK;
}

/* A seed: any unsigned long. */
static int set_seed(const key_def *k, fl_experiment *exp, const char *text, const fl_exp_origin *o, char *err,
                    size_t errlen)
{
  char *end;
  errno = 0;
  if (!*text || text[0] == '-' || !(text[0] >= '0' && text[0] <= '9'))
    return fl_exp_fail(err, errlen, o, "%s: '%s' is not a seed; allowed: an integer in [0, %lu]", k->path, text,
                       (unsigned long)-1);
  unsigned long n = strtoul(text, &end, 10);
  if (*end || errno == ERANGE)
    return fl_exp_fail(err, errlen, o, "%s: '%s' is not a seed; allowed: an integer in [0, %lu]", k->path, text,
                       (unsigned long)-1);
  *(unsigned long *)((char *)exp + k->offset) = n;
  return FL_OK;
}

/* A file name, relative to the experiment file's directory; absolute where the file
 * exists, so that a written experiment finds it from anywhere. */
static int set_file(const key_def *k, fl_experiment *exp, const char *text, const fl_exp_origin *o, char *err,
                    size_t errlen)
{
  char joined[FL_PATH_LEN + 64];
  const char *slash = o->file ? strrchr(o->file, '/') : NULL;
  if (!*text)
    return fl_exp_fail(err, errlen, o, "%s: empty; allowed: a CSV file name, relative to the experiment file", k->path);
  if (text[0] == '/' || !slash)
    snprintf(joined, sizeof joined, "%s", text);
  else
    snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - o->file), o->file, text);
  char cwd[FL_PATH_LEN], use[2 * FL_PATH_LEN + 80];
  if (joined[0] != '/' && getcwd(cwd, sizeof cwd))
    snprintf(use, sizeof use, "%s/%s", cwd, joined);
  else
    snprintf(use, sizeof use, "%s", joined);
  if (strlen(use) >= FL_PATH_LEN)
    return fl_exp_fail(err, errlen, o, "%s: '%s' is too long; allowed: a file name under %d characters", k->path, text,
                       FL_PATH_LEN);
  memcpy((char *)exp + k->offset, use, strlen(use) + 1); /* shorter than FL_PATH_LEN: checked above */
  return FL_OK;
}

/* Parse and store one scalar value for key k. */
static int set_scalar(const key_def *k, fl_experiment *exp, const char *text, const fl_exp_origin *o, char *err,
                      size_t errlen)
{
  char msg[768];
  int *slot = (int *)((char *)exp + k->offset);
  switch (k->type) {
  case KT_REAL:
  case KT_DEG:
  case KT_REAL_AUTO:
    return set_real(k, exp, text, o, err, errlen);
  case KT_INT:
    if (fl_yaml_integer(k->path, text, (long)k->min, (long)k->max, slot, msg, sizeof msg))
      return fl_exp_fail(err, errlen, o, "%s", msg);
    return FL_OK;
  case KT_SEED:
    return set_seed(k, exp, text, o, err, errlen);
  case KT_BOOL:
    if (strcmp(text, "true") == 0 || strcmp(text, "yes") == 0)
      *slot = 1;
    else if (strcmp(text, "false") == 0 || strcmp(text, "no") == 0)
      *slot = 0;
    else
      return fl_exp_fail(err, errlen, o, "%s: '%s' is not a boolean; allowed: true | false", k->path, text);
    return FL_OK;
  case KT_ENUM:
    if (fl_yaml_choice(k->path, text, k->names, slot, msg, sizeof msg))
      return fl_exp_fail(err, errlen, o, "%s", msg);
    return FL_OK;
  case KT_FILE:
    return set_file(k, exp, text, o, err, errlen);
  case KT_CYCLES:
    return fl_exp_fail(err, errlen, o, "%s: '%s' is not a list; allowed: a list of turning points, e.g. [1e-3, 0, 2e-3]",
                       k->path, text);
  case KT_SECTION:
    return fl_exp_fail(err, errlen, o, "%s: '%s' is a value where a block of keys belongs; allowed keys: see "
                       "fiberlab-experiment(5)", k->path, text);
  }
  return FL_EINPUT;
}

static void mark_given(const key_def *k, fl_experiment *exp)
{
  static const char *const bnums[] = {"bond.buckling.sample_length", "bond.buckling.max_force",
                                      "bond.buckling.min_force", "bond.buckling.displacement_at_min_force"};
  if (k->given >= 0)
    *(int *)((char *)exp + k->given) = 1;
  for (unsigned i = 0; i < 4; i++)
    if (strcmp(k->path, bnums[i]) == 0)
      exp->bond.buckling.given |= 1u << i;
}

/* ---- the file ------------------------------------------------------------ */

typedef struct {
  yaml_document_t *doc;
  fl_experiment *exp;
  fl_exp_origin o; /* the file; line and column of the node a message is about */
  char *err;
  size_t errlen;
} walker;

static void at(walker *w, const yaml_node_t *n)
{
  w->o.line = n->start_mark.line + 1;
  w->o.col = n->start_mark.column + 1;
}

/* A message at node n. */
static int fail_at(walker *w, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(walker *w, const yaml_node_t *n, const char *fmt, ...)
{
  va_list ap;
  at(w, n);
  va_start(ap, fmt);
  int rc = fl_exp_vfail(w->err, w->errlen, &w->o, fmt, ap);
  va_end(ap);
  return rc;
}

static int load_cycles(walker *w, const key_def *k, yaml_node_t *val)
{
  if (val->type != YAML_SEQUENCE_NODE) {
    at(w, val);
    return set_scalar(k, w->exp, val->type == YAML_SCALAR_NODE ? (const char *)val->data.scalar.value : "",
                      &w->o, w->err, w->errlen);
  }
  int n = 0;
  int torsion = fl_test_type_of(w->exp->test.kind)->angular; /* turning points in degrees */
  for (yaml_node_item_t *it = val->data.sequence.items.start; it < val->data.sequence.items.top; it++) {
    yaml_node_t *item = yaml_document_get_node(w->doc, *it);
    double v;
    if (!fl_yaml_parse_double(fl_yaml_scalar(item), &v))
      return fail_at(w, item, "%s: item %d is not a number; allowed: turning points in %s", k->path, n + 1,
                     torsion ? "deg" : "m");
    if (v < 0.0)
      return fail_at(w, item, "%s: item %d '%s' is negative; allowed: turning points >= 0", k->path, n + 1,
                     fl_yaml_scalar(item));
    if (n >= FL_MAX_CYCLES)
      return fail_at(w, item, "%s: more than %d turning points; allowed: at most %d", k->path, FL_MAX_CYCLES,
                     FL_MAX_CYCLES);
    w->exp->test.cycles[n++] = torsion ? v * DEG : v;
  }
  if (n == 0)
    return fail_at(w, val, "%s: the list is empty; allowed: turning points ending at the maximum", k->path);
  w->exp->test.ncycles = n;
  return FL_OK;
}

static int walk_mapping(walker *w, yaml_node_t *map, const char *prefix);

/* The key of pair p in the block prefix: a key of the table, and of the test's kind. */
static int walk_pair(walker *w, const yaml_node_pair_t *p, const char *prefix)
{
  yaml_node_t *keyn = yaml_document_get_node(w->doc, p->key), *val = yaml_document_get_node(w->doc, p->value);
  char path[160], allowed[512], note[64], msg[768];
  if (keyn->type != YAML_SCALAR_NODE) {
    fl_yaml_msg_not_plain(prefix, keyn, msg, sizeof msg);
    return fail_at(w, keyn, "%s", msg);
  }
  snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", fl_yaml_scalar(keyn));
  const key_def *k = fl_exp_key_find(path);
  int in_test = strncmp(path, "test.", 5) == 0;
  if (!k || (in_test && k->kinds && !(k->kinds & (1 << w->exp->test.kind)))) {
    fl_exp_keys_allowed(prefix, in_test ? (int)w->exp->test.kind : -1, allowed, sizeof allowed);
    snprintf(note, sizeof note, "a %s test", fl_exp_kind_names[w->exp->test.kind]);
    fl_yaml_msg_unknown(path, prefix, in_test && k ? note : NULL, allowed, msg, sizeof msg);
    return fail_at(w, keyn, "%s", msg);
  }
  size_t i = fl_exp_key_index(k);
  mark_given(k, w->exp);
  w->exp->key_from_fit[i] = 0;
  w->exp->key_line[i] = (unsigned)val->start_mark.line + 1; /* where the value is */
  w->exp->key_col[i] = (unsigned)val->start_mark.column + 1;
  if (k->type == KT_SECTION) {
    if (val->type != YAML_MAPPING_NODE) {
      fl_exp_keys_allowed(path, -1, allowed, sizeof allowed);
      fl_yaml_msg_not_block(path, val, allowed, msg, sizeof msg);
      return fail_at(w, val, "%s", msg);
    }
    return walk_mapping(w, val, path);
  }
  if (k->type == KT_CYCLES)
    return load_cycles(w, k, val);
  at(w, val);
  if (val->type != YAML_SCALAR_NODE) {
    fl_yaml_msg_not_scalar(path, val, msg, sizeof msg);
    return fail_at(w, val, "%s", msg);
  }
  return set_scalar(k, w->exp, fl_yaml_scalar(val), &w->o, w->err, w->errlen);
}

static int walk_mapping(walker *w, yaml_node_t *map, const char *prefix)
{
  yaml_node_pair_t *start = map->data.mapping.pairs.start, *top = map->data.mapping.pairs.top;
  char msg[768];
  for (yaml_node_pair_t *p = start; p < top; p++)
    if (fl_yaml_duplicate(w->doc, map, p, prefix, msg, sizeof msg))
      return fail_at(w, yaml_document_get_node(w->doc, p->key), "%s", msg);
  /* In the test block, the kind decides which keys are allowed: walk it first. */
  const yaml_node_pair_t *kind = NULL;
  if (strcmp(prefix, "test") == 0) {
    yaml_node_t *kindkey = NULL;
    if (!fl_yaml_value(w->doc, map, "kind", &kindkey))
      return fail_at(w, map, "test: missing key 'kind'; allowed: bend3pt | tension | torsion | cantilever | bend4pt | "
                     "compression");
    for (kind = start; yaml_document_get_node(w->doc, kind->key) != kindkey; kind++)
      ;
    int rc = walk_pair(w, kind, prefix);
    if (rc)
      return rc;
  }
  for (yaml_node_pair_t *p = start; p < top; p++) {
    int rc = p == kind ? FL_OK : walk_pair(w, p, prefix);
    if (rc)
      return rc;
  }
  return FL_OK;
}

int fl_experiment_load(const char *path, fl_experiment *exp, char *err, size_t errlen)
{
  yaml_document_t doc;
  fl_exp_origin o = {path, NULL, 1, 1};
  int rc = fl_yaml_load(path, "an experiment file", "fiberlab-experiment(5)", &doc, err, errlen);
  if (rc != FL_OK)
    return rc;
  rc = FL_EINPUT;
  walker w = {&doc, exp, o, err, errlen};
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  char msg[768];
  if (!root) {
    fl_exp_fail(err, errlen, &o, "the file is empty; allowed: a block with fiber, bond, test and simulation");
    goto done;
  }
  if (root->type != YAML_MAPPING_NODE) {
    fl_yaml_msg_not_block("", root, "fiber, bond, test and simulation", msg, sizeof msg);
    fail_at(&w, root, "%s", msg);
    goto done;
  }
  rc = walk_mapping(&w, root, "");
  if (rc == FL_OK && !exp->test_given) {
    fl_exp_fail(err, errlen, &o, "test: missing block; allowed: a test block with kind bend3pt | tension | torsion | "
                "cantilever | bend4pt | compression");
    rc = FL_EINPUT;
  }
done:
  yaml_document_delete(&doc);
  return rc;
}

int fl_experiment_set(fl_experiment *exp, const char *assignment, char *err, size_t errlen)
{
  fl_exp_origin o = {NULL, assignment, 0, 0};
  char path[160], allowed[512], note[64], msg[768];
  const char *eq = strchr(assignment, '=');
  if (!eq || eq == assignment)
    return fl_exp_fail(err, errlen, &o, "not KEY=VALUE; allowed: a dotted key such as fiber.segments=40");
  size_t n = (size_t)(eq - assignment);
  if (n >= sizeof path)
    return fl_exp_fail(err, errlen, &o, "key too long; allowed: a dotted key such as fiber.segments");
  memcpy(path, assignment, n);
  path[n] = '\0';
  const char *text = eq + 1;
  const key_def *k = fl_exp_key_find(path);
  if (!k || k->type == KT_SECTION) {
    char prefix[160];
    snprintf(prefix, sizeof prefix, "%s", path);
    char *dot = strrchr(prefix, '.');
    if (dot)
      *dot = '\0';
    else
      prefix[0] = '\0';
    const char *in = fl_exp_key_find(prefix) ? prefix : "";
    fl_exp_keys_allowed(in, -1, allowed, sizeof allowed);
    fl_yaml_msg_unknown(path, in, NULL, allowed, msg, sizeof msg);
    return fl_exp_fail(err, errlen, &o, "%s", msg);
  }
  if (k->kinds && k != fl_exp_key_find("test.kind") && !(k->kinds & (1 << exp->test.kind))) {
    fl_exp_keys_allowed("test", (int)exp->test.kind, allowed, sizeof allowed);
    snprintf(note, sizeof note, "a %s test", fl_exp_kind_names[exp->test.kind]);
    fl_yaml_msg_unknown(path, "test", note, allowed, msg, sizeof msg);
    return fl_exp_fail(err, errlen, &o, "%s", msg);
  }
  if (k->type == KT_CYCLES) {
    /* A comma-separated list: test.cycles=1e-3,0,2e-3 */
    int cnt = 0;
    const char *s = text;
    int torsion = fl_test_type_of(exp->test.kind)->angular;
    while (*s) {
      char item[64];
      size_t len = strcspn(s, ",");
      if (len == 0 || len >= sizeof item || cnt >= FL_MAX_CYCLES)
        return fl_exp_fail(err, errlen, &o, "%s: '%s' is not a list; allowed: up to %d comma-separated turning points",
                           path, text, FL_MAX_CYCLES);
      memcpy(item, s, len);
      item[len] = '\0';
      double v;
      if (!fl_yaml_parse_double(item, &v) || v < 0.0)
        return fl_exp_fail(err, errlen, &o, "%s: item '%s' is not a number >= 0; allowed: turning points in %s", path,
                           item, torsion ? "deg" : "m");
      exp->test.cycles[cnt++] = torsion ? v * DEG : v;
      s += len;
      if (*s == ',')
        s++;
    }
    if (cnt == 0)
      return fl_exp_fail(err, errlen, &o, "%s: the list is empty; allowed: turning points ending at the maximum", path);
    exp->test.ncycles = cnt;
    exp->key_set_by_option[fl_exp_key_index(k)] = 1;
    exp->key_from_fit[fl_exp_key_index(k)] = 0;
    exp->key_line[fl_exp_key_index(k)] = 0;
    return FL_OK;
  }
  mark_given(k, exp);
  exp->key_set_by_option[fl_exp_key_index(k)] = 1;
  exp->key_from_fit[fl_exp_key_index(k)] = 0;
  exp->key_line[fl_exp_key_index(k)] = 0;
  return set_scalar(k, exp, text, &o, err, errlen);
}
