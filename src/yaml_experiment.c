/* yaml_experiment.c: the walk of an experiment YAML document onto an fl_experiment, and
 * the -s KEY=VALUE overrides, both through the key table (experiment_keys.c). */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "experiment.h"
#include "experiment_keys.h"
#include "fl_defs.h"
#include "table_text.h"
#include "yaml_input.h"

static void allowed_names(const char *const *names, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; names[i]; i++) {
    int n = snprintf(buf + used, len - used, "%s%s", i ? " | " : "", names[i]);
    if (n < 0 || (size_t)n >= len - used)
      break;
    used += (size_t)n;
  }
}

static int parse_double(const char *s, double *out)
{
  char *end;
  if (!*s)
    return 0;
  errno = 0;
  double v = strtod(s, &end);
  if (*end || errno == ERANGE || !isfinite(v))
    return 0;
  *out = v;
  return 1;
}

static void range_text(const key_def *k, char *buf, size_t len)
{
  char lo[32], hi[32];
  snprintf(lo, sizeof lo, k->type == KT_INT ? "%.0f" : "%g", k->min);
  snprintf(hi, sizeof hi, k->type == KT_INT ? "%.0f" : "%g", k->max);
  snprintf(buf, len, "%s%s, %s%s", k->min_open ? "(" : "[", lo, hi, k->max_open ? ")" : "]");
}

static int in_range(const key_def *k, double v)
{
  if (k->min_open ? !(v > k->min) : !(v >= k->min))
    return 0;
  if (k->max_open ? !(v < k->max) : !(v <= k->max))
    return 0;
  return 1;
}

/* Check a number against the key's range and store it. */
static int store_real(const key_def *k, fl_experiment *exp, const char *text, double v, const fl_exp_origin *o,
                      char *err, size_t errlen)
{
  char range[96];
  range_text(k, range, sizeof range);
  if (!in_range(k, v))
    return fl_exp_fail(err, errlen, o, "%s: '%s' is out of range; allowed: a number in %s%s%s%s", k->path, text,
                range, *k->unit ? " " : "", k->unit, k->type == KT_REAL_AUTO ? ", or auto" : "");
  *(double *)((char *)exp + k->offset) = (k->type == KT_DEG) ? v * DEG : v;
  return FL_OK;
}

/* Parse and store one scalar value for key k. */
static int set_scalar(const key_def *k, fl_experiment *exp, const char *text, const fl_exp_origin *o, char *err,
                      size_t errlen)
{
  char buf[256], range[96];
  double v;
  switch (k->type) {
  case KT_REAL:
  case KT_DEG:
    if (!parse_double(text, &v)) {
      range_text(k, range, sizeof range);
      return fl_exp_fail(err, errlen, o, "%s: '%s' is not a number%s; allowed: a number in %s%s%s", k->path, text, fl_number_hint(text),
                  range, *k->unit ? " " : "", k->unit);
    }
    return store_real(k, exp, text, v, o, err, errlen);
  case KT_REAL_AUTO:
    if (strcmp(text, "auto") == 0) {
      *(double *)((char *)exp + k->offset) = -1.0;
      return FL_OK;
    }
    if (!parse_double(text, &v)) {
      range_text(k, range, sizeof range);
      return fl_exp_fail(err, errlen, o, "%s: '%s' is not a number or auto%s; allowed: auto, or a number in %s %s",
                  k->path, text, fl_number_hint(text), range, k->unit);
    }
    return store_real(k, exp, text, v, o, err, errlen);
  case KT_INT: {
    char *end;
    errno = 0;
    long n = strtol(text, &end, 10);
    range_text(k, range, sizeof range);
    if (!*text || *end || errno == ERANGE)
      return fl_exp_fail(err, errlen, o, "%s: '%s' is not an integer; allowed: an integer in %s", k->path, text, range);
    if (!in_range(k, (double)n))
      return fl_exp_fail(err, errlen, o, "%s: '%s' is out of range; allowed: an integer in %s", k->path, text, range);
    *(int *)((char *)exp + k->offset) = (int)n;
    return FL_OK;
  }
  case KT_SEED: {
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
  case KT_BOOL:
    if (strcmp(text, "true") == 0 || strcmp(text, "yes") == 0)
      *(int *)((char *)exp + k->offset) = 1;
    else if (strcmp(text, "false") == 0 || strcmp(text, "no") == 0)
      *(int *)((char *)exp + k->offset) = 0;
    else
      return fl_exp_fail(err, errlen, o, "%s: '%s' is not a boolean; allowed: true | false", k->path, text);
    return FL_OK;
  case KT_ENUM:
    for (int i = 0; k->names[i]; i++)
      if (strcmp(text, k->names[i]) == 0) {
        *(int *)((char *)exp + k->offset) = i;
        return FL_OK;
      }
    allowed_names(k->names, buf, sizeof buf);
    return fl_exp_fail(err, errlen, o, "%s: '%s' is not allowed; allowed: %s", k->path, text, buf);
  case KT_FILE: {
    /* relative to the experiment file's directory; absolute where the file exists, so
     * that a written experiment finds it from anywhere */
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
  case KT_CYCLES:
    return fl_exp_fail(err, errlen, o, "%s: '%s' is not a list; allowed: a list of turning points, e.g. [1e-3, 0, 2e-3]",
                k->path, text);
  case KT_SECTION:
    return fl_exp_fail(err, errlen, o, "%s: '%s' is a value where a block of keys belongs; allowed keys: see fiberlab-experiment(5)",
                k->path, text);
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
  fl_exp_origin o;
  char *err;
  size_t errlen;
} walker;

static void at(walker *w, yaml_node_t *n)
{
  w->o.line = n->start_mark.line + 1;
  w->o.col = n->start_mark.column + 1;
}

static const char *node_kind(yaml_node_t *n)
{
  return n->type == YAML_MAPPING_NODE ? "a block of keys" : n->type == YAML_SEQUENCE_NODE ? "a list" : "a value";
}

static int load_cycles(walker *w, const key_def *k, yaml_node_t *val)
{
  if (val->type != YAML_SEQUENCE_NODE) {
    at(w, val);
    return set_scalar(k, w->exp, val->type == YAML_SCALAR_NODE ? (const char *)val->data.scalar.value : "",
                      &w->o, w->err, w->errlen);
  }
  int n = 0;
  int torsion = w->exp->test.kind == FL_TEST_TORSION;
  for (yaml_node_item_t *it = val->data.sequence.items.start; it < val->data.sequence.items.top; it++) {
    yaml_node_t *item = yaml_document_get_node(w->doc, *it);
    at(w, item);
    double v;
    if (item->type != YAML_SCALAR_NODE || !parse_double((const char *)item->data.scalar.value, &v))
      return fl_exp_fail(w->err, w->errlen, &w->o, "%s: item %d is not a number; allowed: turning points in %s", k->path,
                  n + 1, torsion ? "deg" : "m");
    if (v < 0.0)
      return fl_exp_fail(w->err, w->errlen, &w->o, "%s: item %d '%s' is negative; allowed: turning points >= 0", k->path,
                  n + 1, (const char *)item->data.scalar.value);
    if (n >= FL_MAX_CYCLES)
      return fl_exp_fail(w->err, w->errlen, &w->o, "%s: more than %d turning points; allowed: at most %d", k->path,
                  FL_MAX_CYCLES, FL_MAX_CYCLES);
    w->exp->test.cycles[n++] = torsion ? v * DEG : v;
  }
  if (n == 0) {
    at(w, val);
    return fl_exp_fail(w->err, w->errlen, &w->o, "%s: the list is empty; allowed: turning points ending at the maximum",
                k->path);
  }
  w->exp->test.ncycles = n;
  return FL_OK;
}

static int walk_mapping(walker *w, yaml_node_t *map, const char *prefix);

static int walk_pair(walker *w, yaml_node_t *keyn, yaml_node_t *val, const char *prefix)
{
  char path[160], allowed[512];
  at(w, keyn);
  if (keyn->type != YAML_SCALAR_NODE)
    return fl_exp_fail(w->err, w->errlen, &w->o, "%s%skey is %s; allowed: a plain key name", prefix, *prefix ? ": " : "",
                node_kind(keyn));
  const char *name = (const char *)keyn->data.scalar.value;
  snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", name);
  const key_def *k = fl_exp_key_find(path);
  int in_test = strncmp(path, "test.", 5) == 0;
  if (!k || (in_test && k->kinds && !(k->kinds & (1 << w->exp->test.kind)))) {
    fl_exp_keys_allowed(prefix, in_test ? (int)w->exp->test.kind : -1, allowed, sizeof allowed);
    if (in_test && k)
      return fl_exp_fail(w->err, w->errlen, &w->o, "%s: unknown key for a %s test; allowed: %s", path,
                  fl_exp_kind_names[w->exp->test.kind], allowed);
    return fl_exp_fail(w->err, w->errlen, &w->o, "%s: unknown key; allowed%s%s: %s", path, *prefix ? " in " : "",
                prefix, allowed);
  }
  mark_given(k, w->exp);
  w->exp->key_from_fit[fl_exp_key_index(k)] = 0;
  w->exp->key_line[fl_exp_key_index(k)] = (unsigned)val->start_mark.line + 1; /* where the value is */
  w->exp->key_col[fl_exp_key_index(k)] = (unsigned)val->start_mark.column + 1;
  if (k->type == KT_SECTION) {
    if (val->type != YAML_MAPPING_NODE) {
      at(w, val);
      fl_exp_keys_allowed(path, -1, allowed, sizeof allowed);
      return fl_exp_fail(w->err, w->errlen, &w->o, "%s: is %s; allowed: a block of keys (%s)", path, node_kind(val),
                  allowed);
    }
    return walk_mapping(w, val, path);
  }
  if (k->type == KT_CYCLES)
    return load_cycles(w, k, val);
  at(w, val);
  if (val->type != YAML_SCALAR_NODE)
    return fl_exp_fail(w->err, w->errlen, &w->o, "%s: is %s; allowed: a single value", path, node_kind(val));
  return set_scalar(k, w->exp, (const char *)val->data.scalar.value, &w->o, w->err, w->errlen);
}

static int walk_mapping(walker *w, yaml_node_t *map, const char *prefix)
{
  yaml_node_pair_t *start = map->data.mapping.pairs.start, *top = map->data.mapping.pairs.top;
  /* Duplicate keys: libyaml keeps them silently. */
  for (yaml_node_pair_t *p = start; p < top; p++) {
    yaml_node_t *kp = yaml_document_get_node(w->doc, p->key);
    if (kp->type != YAML_SCALAR_NODE)
      continue;
    for (yaml_node_pair_t *q = start; q < p; q++) {
      yaml_node_t *kq = yaml_document_get_node(w->doc, q->key);
      if (kq->type == YAML_SCALAR_NODE && strcmp((char *)kq->data.scalar.value, (char *)kp->data.scalar.value) == 0) {
        at(w, kp);
        return fl_exp_fail(w->err, w->errlen, &w->o, "%s%s%s: duplicate key (first at line %zu); allowed: each key once",
                    prefix, *prefix ? "." : "", (char *)kp->data.scalar.value, kq->start_mark.line + 1);
      }
    }
  }
  /* In the test block, the kind decides which keys are allowed: read it first. */
  if (strcmp(prefix, "test") == 0) {
    yaml_node_pair_t *kindp = NULL;
    for (yaml_node_pair_t *p = start; p < top; p++) {
      yaml_node_t *kp = yaml_document_get_node(w->doc, p->key);
      if (kp->type == YAML_SCALAR_NODE && strcmp((char *)kp->data.scalar.value, "kind") == 0)
        kindp = p;
    }
    if (!kindp) {
      at(w, map);
      return fl_exp_fail(w->err, w->errlen, &w->o, "test: missing key 'kind'; allowed: bend3pt | tension | torsion | cantilever | bend4pt | compression");
    }
    int rc = walk_pair(w, yaml_document_get_node(w->doc, kindp->key), yaml_document_get_node(w->doc, kindp->value),
                       prefix);
    if (rc)
      return rc;
  }
  for (yaml_node_pair_t *p = start; p < top; p++) {
    yaml_node_t *kp = yaml_document_get_node(w->doc, p->key);
    if (strcmp(prefix, "test") == 0 && kp->type == YAML_SCALAR_NODE && strcmp((char *)kp->data.scalar.value, "kind") == 0)
      continue;
    int rc = walk_pair(w, kp, yaml_document_get_node(w->doc, p->value), prefix);
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
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (!root) {
    fl_exp_fail(err, errlen, &o, "the file is empty; allowed: a block with fiber, bond, test and simulation");
    goto done;
  }
  if (root->type != YAML_MAPPING_NODE) {
    o.line = root->start_mark.line + 1;
    o.col = root->start_mark.column + 1;
    fl_exp_fail(err, errlen, &o, "the top level is %s; allowed: a block with fiber, bond, test and simulation",
         node_kind(root));
    goto done;
  }
  walker w = {&doc, exp, o, err, errlen};
  rc = walk_mapping(&w, root, "");
  if (rc == FL_OK && !exp->test_given) {
    fl_exp_fail(err, errlen, &o, "test: missing block; allowed: a test block with kind bend3pt | tension | torsion | cantilever | bend4pt | compression");
    rc = FL_EINPUT;
  }
done:
  yaml_document_delete(&doc);
  return rc;
}

int fl_experiment_set(fl_experiment *exp, const char *assignment, char *err, size_t errlen)
{
  fl_exp_origin o = {NULL, assignment, 0, 0};
  char path[160], allowed[512];
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
    fl_exp_keys_allowed(fl_exp_key_find(prefix) ? prefix : "", -1, allowed, sizeof allowed);
    return fl_exp_fail(err, errlen, &o, "%s: unknown key; allowed%s%s: %s", path, fl_exp_key_find(prefix) ? " in " : "",
                fl_exp_key_find(prefix) ? prefix : "", allowed);
  }
  if (k->kinds && k != fl_exp_key_find("test.kind") && !(k->kinds & (1 << exp->test.kind))) {
    fl_exp_keys_allowed("test", (int)exp->test.kind, allowed, sizeof allowed);
    return fl_exp_fail(err, errlen, &o, "%s: unknown key for a %s test; allowed: %s", path, fl_exp_kind_names[exp->test.kind],
                allowed);
  }
  if (k->type == KT_CYCLES) {
    /* A comma-separated list: test.cycles=1e-3,0,2e-3 */
    int cnt = 0;
    const char *s = text;
    int torsion = exp->test.kind == FL_TEST_TORSION;
    while (*s) {
      char item[64];
      size_t len = strcspn(s, ",");
      if (len == 0 || len >= sizeof item || cnt >= FL_MAX_CYCLES)
        return fl_exp_fail(err, errlen, &o, "%s: '%s' is not a list; allowed: up to %d comma-separated turning points",
                    path, text, FL_MAX_CYCLES);
      memcpy(item, s, len);
      item[len] = '\0';
      double v;
      if (!parse_double(item, &v) || v < 0.0)
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
