/* campaign.c: a campaign file and its specimen table read and checked row by row, and
 * the specimens fitted one after another with a checkpoint each (campaign.h,
 * fiberlab-campaign(5)). */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>
#ifdef HAVE_MPI
#include <mpi.h>
#endif

#include "campaign.h"
#include "files.h"
#include "fl_defs.h"
#include "table_text.h"
#include "measured.h"
#include "mpi_batch.h"
#include "series.h"
#include "yaml_input.h"

#define DEG (FL_PI / 180.0)
#define XMAX_KEY "data.x_max" /* mapped columns that set the curve's fitted range, not experiment keys */
#define XMIN_KEY "data.x_min"

static int range_key(const char *key) { return strcmp(key, XMAX_KEY) == 0 || strcmp(key, XMIN_KEY) == 0; }

static const char *const top_keys[] = {"campaign", NULL};
static const char *const campaign_keys[] = {"fit", "specimens", "file", "id", "data_folder", "columns", "drop", NULL};
static const char *const drop_names[] = {"any", "yes", "no", NULL}; /* enum fl_campaign_drop */
static const char *const map_keys[] = {"column", "unit", "scale", NULL};

typedef fl_yaml_reader reader;

/* A block with the allowed keys (NULL: any), each once; list says which, for messages. */
static int block(reader *R, const yaml_node_t *map, const char *what, const char *const *allowed, const char *list)
{
  char msg[1536], path[1536];
  if (!map || map->type != YAML_MAPPING_NODE)
    return fl_yaml_fail(R, map, "%s: is not a block of keys; allowed: a block with %s", what, list);
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(R->doc, p->key);
    const char *name = fl_yaml_scalar(k);
    int ok = 0;
    for (int i = 0; name && allowed && allowed[i] && !ok; i++)
      ok = strcmp(allowed[i], name) == 0;
    if (!name || (allowed && !ok)) {
      snprintf(path, sizeof path, "%s.%s", what, name ? name : "?");
      fl_yaml_msg_unknown(path, what, NULL, list, msg, sizeof msg);
      return fl_yaml_fail(R, k, "%s", msg);
    }
    if (fl_yaml_duplicate(R->doc, map, p, what, msg, sizeof msg))
      return fl_yaml_fail(R, k, "%s", msg);
  }
  return FL_OK;
}

static yaml_node_t *value_of(reader *R, const yaml_node_t *map, const char *key)
{
  return fl_yaml_value(R->doc, map, key, NULL);
}

/* A scalar value of key; required: missing is an error. */
static int text_of(reader *R, const yaml_node_t *map, const char *key, int required, const char **out)
{
  yaml_node_t *v = value_of(R, map, key);
  *out = NULL;
  if (!v) {
    if (required)
      return fl_yaml_fail(R, map, "campaign.%s: missing; allowed: see fiberlab-campaign(5)", key);
    return FL_OK;
  }
  if (!(*out = fl_yaml_scalar(v)) || !**out)
    return fl_yaml_fail(R, v, "campaign.%s: is %s; allowed: a single value", key,
                        fl_yaml_scalar(v) ? "empty" : "not a value");
  return FL_OK;
}


int fl_campaign_detect(const char *path)
{
  char err[512];
  yaml_document_t doc;
  if (fl_yaml_load(path, "the fit or campaign file", "fiberlab-fit(5)", &doc, err, sizeof err) != FL_OK)
    return 0; /* the fit loader reports it */
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  reader R = {path, &doc, err, sizeof err};
  int found = root && root->type == YAML_MAPPING_NODE && value_of(&R, root, "campaign") != NULL;
  yaml_document_delete(&doc);
  return found;
}

/* The column called name in the table, or -1. */
static int table_column(const fl_table *t, const char *name)
{
  for (int i = 0; i < t->ncols; i++)
    if (strcmp(t->names[i], name) == 0)
      return i;
  return -1;
}

static void column_list(const fl_table *t, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < t->ncols && used < len; i++)
    used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", t->names[i]);
}

/* One mapping key: { column: NAME, unit: U, scale: S }. */
static int load_map(reader *R, const fl_table *t, const char *table_shown, yaml_node_t *k, yaml_node_t *v,
                    fl_campaign_map *m)
{
  const char *key = fl_yaml_scalar(k), *col, *unit, *sc;
  char what[FL_FIT_KEY + 16], list[2048];
  snprintf(what, sizeof what, "campaign.columns.%s", key ? key : "?");
  /* data.x_min or data.x_max, the fit's own keys, or an experiment key */
  const char *yunit = key && range_key(key) ? "m" : key ? fl_experiment_key_unit(key) : NULL;
  if (!yunit)
    return fl_yaml_fail(R, k, "%s: '%s' is not a numeric experiment key; allowed: a dotted path of "
                        "fiberlab-experiment(5) with a number, such as fiber.outer_radius or test.span", what,
                        key ? key : "");
  if (strlen(key) >= sizeof m->key)
    return fl_yaml_fail(R, k, "%s: key too long", what);
  if (block(R, v, what, map_keys, "column, unit, scale"))
    return FL_EINPUT;
  reader Rm = *R;
  yaml_node_t *vc = value_of(R, v, "column"), *vu = value_of(R, v, "unit"), *vs = value_of(R, v, "scale");
  if (!vc || !(col = fl_yaml_scalar(vc)) || !*col)
    return fl_yaml_fail(&Rm, vc ? vc : v, "%s.column: %s; allowed: a column name of %s", what,
                        vc ? "is not a name" : "missing", table_shown);
  snprintf(m->key, sizeof m->key, "%s", key);
  snprintf(m->column, sizeof m->column, "%s", col);
  m->line = (unsigned)k->start_mark.line + 1;
  m->col = (unsigned)k->start_mark.column + 1;
  if ((m->index = table_column(t, col)) < 0) {
    column_list(t, list, sizeof list);
    return fl_yaml_fail(R, vc, "%s.column: '%s' is not a column of %s; allowed: %s", what, col, table_shown, list);
  }
  m->factor = 1.0;
  m->unit[0] = '\0';
  if (vu) {
    enum fl_quantity q;
    int has_q = 1;
    if (strcmp(yunit, "m") == 0)
      q = FL_Q_LENGTH;
    else if (strcmp(yunit, "deg") == 0)
      q = FL_Q_ANGLE;
    else if (strcmp(yunit, "N") == 0)
      q = FL_Q_FORCE;
    else if (strcmp(yunit, "N m") == 0)
      q = FL_Q_TORQUE;
    else if (strcmp(yunit, "Pa") == 0)
      q = FL_Q_STRESS;
    else
      has_q = 0;
    unit = fl_yaml_scalar(vu);
    const fl_unit *u = unit ? fl_unit_find(unit) : NULL;
    if (!has_q)
      return fl_yaml_fail(R, vu, "%s.unit: %s takes its values in %s; allowed: no unit (scale converts, if needed)",
                          what, key, *yunit ? yunit : "no unit");
    fl_unit_names(q, list, sizeof list);
    if (!u || u->quantity != q)
      return fl_yaml_fail(R, vu, "%s.unit: '%s' is not a unit of %s (its YAML unit is %s); allowed: %s", what,
                          unit ? unit : "", key, yunit, list);
    snprintf(m->unit, sizeof m->unit, "%s", unit);
    m->factor = q == FL_Q_ANGLE ? u->to_si / DEG : u->to_si;
  }
  m->scale = 1.0;
  if (vs) {
    double s = 0.0;
    sc = fl_yaml_scalar(vs);
    if (!fl_yaml_parse_double(sc, &s) || !(s > 0.0))
      return fl_yaml_fail(R, vs, "%s.scale: '%s' is not allowed; allowed: a number > 0 (0.5 turns a diameter into a "
                          "radius)", what, sc ? sc : "");
    m->scale = s;
  }
  m->factor *= m->scale;
  return FL_OK;
}

/* The sets of specimen i: its mapped values, then the campaign's own. */
static const char **specimen_sets(const fl_campaign *c, int i, char (*buf)[FL_FIT_KEY + 40], int *n)
{
  const char **sets = malloc((size_t)(c->nmap + c->nsets + 1) * sizeof *sets);
  if (!sets)
    return NULL;
  int k = 0;
  for (int j = 0; j < c->nmap; j++) {
    if (range_key(c->map[j].key))
      continue;
    snprintf(buf[j], sizeof buf[j], "%s=%.17g", c->map[j].key, c->spec[i].value[j]);
    sets[k++] = buf[j];
  }
  for (int j = 0; j < c->nsets; j++)
    sets[k++] = c->sets[j];
  *n = k;
  return sets;
}

/* A message from loading specimen i's fit, named by its table row and, when the
 * message blames a mapped key as if an option had set it, by that column. */
static void row_message(const fl_campaign *c, int i, const char *msg, char *err, size_t errlen)
{
  const fl_campaign_specimen *s = &c->spec[i];
  for (int j = 0; j < c->nmap; j++) {
    size_t n = strlen(c->map[j].key);
    /* "--set 'KEY=VALUE': ..." (a value out of range), "--set 'KEY': ..." (a check
     * across keys, such as an inner semi-axis above the outer one) */
    if (strncmp(msg, "--set '", 7) == 0 && strncmp(msg + 7, c->map[j].key, n) == 0 &&
        (msg[7 + n] == '=' || msg[7 + n] == '\'')) {
      const char *rest = strstr(msg, "': ");
      snprintf(err, errlen, "%s:%d: row %d (%s), column '%s' (%s = %.6g): %s", c->table_path, s->line, s->row, s->id,
               c->map[j].column, c->map[j].key, s->value[j], rest ? rest + 3 : msg);
      return;
    }
  }
  snprintf(err, errlen, "%s:%d: row %d (%s): %s", c->table_path, s->line, s->row, s->id, msg);
}

int fl_campaign_fit(const fl_campaign *c, int i, fl_fit *fit, char *err, size_t errlen)
{
  char(*buf)[FL_FIT_KEY + 40] = malloc(FL_CAMPAIGN_MAX_MAP * sizeof *buf);
  char msg[4096];
  int n = 0;
  const char **sets = buf ? specimen_sets(c, i, buf, &n) : NULL;
  if (!sets) {
    free(buf);
    snprintf(err, errlen, "out of memory");
    return FL_ENOMEM;
  }
  double range[2] = {-1.0, 0.0}; /* x_min (< 0: the fit file's), x_max (<= 0: idem) */
  for (int j = 0; j < c->nmap; j++)
    if (strcmp(c->map[j].key, XMIN_KEY) == 0)
      range[0] = c->spec[i].value[j];
    else if (strcmp(c->map[j].key, XMAX_KEY) == 0)
      range[1] = c->spec[i].value[j];
  int rc = fl_fit_load_specimen(c->fit_path, sets, n, c->spec[i].data_path, range, fit, msg, sizeof msg);
  if (rc)
    row_message(c, i, msg, err, errlen);
  free(sets);
  free(buf);
  return rc;
}

/* Row r of the table into specimen s: its id, its curve and its mapped values, each
 * checked against its key's range on its own. */
static int load_row(const fl_campaign *c, const fl_table *t, int r, int idcol, int filecol, fl_campaign_specimen *s,
                    char *err, size_t errlen)
{
  const char *const *cells = (const char *const *)t->cell + (size_t)r * t->ncols;
  s->line = t->line[r];
  s->row = r + 1;
  snprintf(s->id, sizeof s->id, "%s", cells[idcol]);
  if (!*cells[idcol]) {
    snprintf(err, errlen, "%s:%d: row %d, column '%s': empty; allowed: a name for every specimen", c->table_path,
             s->line, r + 1, t->names[idcol]);
    return FL_EINPUT;
  }
  const char *f = cells[filecol];
  if (!*f) {
    snprintf(err, errlen, "%s:%d: row %d (%s), column '%s': empty; allowed: the specimen's curve file", c->table_path,
             s->line, r + 1, s->id, t->names[filecol]);
    return FL_EINPUT;
  }
  if (fl_path_join(c->data_dir, f, s->data_path, sizeof s->data_path)) {
    snprintf(err, errlen, "%s:%d: row %d (%s), column '%s': the curve's path is longer than %d bytes in the folder "
             "%.200s...; allowed: a path of at most %d bytes", c->table_path, s->line, r + 1, s->id, t->names[filecol],
             (int)sizeof s->data_path - 1, c->data_dir, (int)sizeof s->data_path - 1);
    return FL_EINPUT;
  }
  FILE *fp = fopen(s->data_path, "rb");
  if (!fp) {
    snprintf(err, errlen, "%s:%d: row %d (%s), column '%s': '%s' cannot be read (%s): %s; allowed: a readable curve "
             "file, relative to data_folder", c->table_path, s->line, r + 1, s->id, t->names[filecol], f,
             s->data_path, strerror(errno));
    return FL_EINPUT;
  }
  {
    char what[FL_CAMPAIGN_ID + 600];
    snprintf(what, sizeof what, "the curve of row %d (%s) of %.300s", r + 1, s->id, c->table_path);
    fl_input_note(s->data_path, fp, what);
  }
  fclose(fp);
  for (int j = 0; j < c->nmap; j++) {
    const fl_campaign_map *m = &c->map[j];
    const char *cell = cells[m->index];
    char assignment[FL_FIT_KEY + 40], msg[1536];
    double v;
    if (!fl_yaml_parse_double(cell, &v)) {
      snprintf(err, errlen, "%s:%d: row %d (%s), column '%s' (%s): '%s' is not a number%s; allowed: a number in "
               "every row", c->table_path, s->line, r + 1, s->id, m->column, m->key, cell, fl_number_hint(cell));
      return FL_EINPUT;
    }
    s->value[j] = v * m->factor;
    snprintf(assignment, sizeof assignment, "%s=%.17g", m->key, s->value[j]);
    fl_experiment e = fl_experiment_default();
    if (range_key(m->key)) {
      int xmin = strcmp(m->key, XMIN_KEY) == 0;
      if (!((xmin ? s->value[j] >= 0.0 : s->value[j] > 0.0) && s->value[j] <= 10.0)) {
        snprintf(err, errlen, "%s:%d: row %d (%s), column '%s': %s%s%s gives %s = %.6g m: out of range; allowed: a "
                 "number in %s0, 10] m", c->table_path, s->line, r + 1, s->id, m->column, cell, *m->unit ? " " : "",
                 m->unit, m->key, s->value[j], xmin ? "[" : "(");
        return FL_EINPUT;
      }
    } else if (fl_experiment_set(&e, assignment, msg, sizeof msg)) {
      const char *rest = strstr(msg, "': ");
      snprintf(err, errlen, "%s:%d: row %d (%s), column '%s': %s%s%s gives %s = %.6g: %s", c->table_path, s->line,
               r + 1, s->id, m->column, cell, *m->unit ? " " : "", m->unit, m->key, s->value[j], rest ? rest + 3 : msg);
      return FL_EINPUT;
    }
  }
  for (int q = 0; q < r; q++)
    if (strcmp(c->spec[q].id, s->id) == 0) {
      snprintf(err, errlen, "%s:%d: row %d, column '%s': '%s' is the name of row %d too; allowed: a name for each "
               "specimen once", c->table_path, s->line, r + 1, t->names[idcol], s->id, q + 1);
      return FL_EINPUT;
    }
  return FL_OK;
}

/* The texts of the campaign block's keys. */
typedef struct {
  const char *fit, *table, *filecol, *idcol, *folder, *drop;
} campaign_texts;

/* The campaign block: its keys, drop, and the fit, the table and the curves' folder
 * taken relative to the campaign file; the fit readable. */
static int load_block(reader *R, const yaml_node_t *cb, fl_campaign *c, campaign_texts *x)
{
  if (text_of(R, cb, "fit", 1, &x->fit) || text_of(R, cb, "specimens", 1, &x->table) ||
      text_of(R, cb, "file", 1, &x->filecol) || text_of(R, cb, "id", 0, &x->idcol) ||
      text_of(R, cb, "data_folder", 0, &x->folder) || text_of(R, cb, "drop", 0, &x->drop))
    return FL_EINPUT;
  if (x->drop) {
    while (drop_names[c->drop] && strcmp(drop_names[c->drop], x->drop) != 0)
      c->drop++;
    if (!drop_names[c->drop])
      return fl_yaml_fail(R, value_of(R, cb, "drop"), "campaign.drop: '%s' is not a choice; allowed: any, yes, no",
                          x->drop);
  }
  const char *name[] = {"fit", "specimens", "data_folder"};
  const char *rel[] = {x->fit, x->table, x->folder};
  char *out[] = {c->fit_path, c->table_path, c->data_dir};
  for (int k = 0; k < 3; k++)
    if (rel[k] && fl_path_relative(R->file, rel[k], out[k], FL_FIT_PATH))
      return fl_yaml_fail(R, value_of(R, cb, name[k]), "campaign.%s: the path is longer than %d bytes when taken "
                          "relative to the campaign file; allowed: a path of at most %d bytes", name[k],
                          FL_FIT_PATH - 1, FL_FIT_PATH - 1);
  if (!x->folder) {
    const char *slash = strrchr(c->table_path, '/');
    if (slash)
      snprintf(c->data_dir, sizeof c->data_dir, "%.*s", (int)(slash - c->table_path), c->table_path);
  }
  FILE *fp = fopen(c->fit_path, "rb");
  if (!fp)
    return fl_yaml_fail(R, value_of(R, cb, "fit"), "campaign.fit: '%s' cannot be read: %s; allowed: a fit file "
                        "(fiberlab-fit(5)), relative to the campaign file", x->fit, strerror(errno));
  fclose(fp);
  return FL_OK;
}

/* The table's file and id columns (*fc, *ic) and the columns mapped to keys. */
static int load_columns(reader *R, const yaml_node_t *cb, fl_campaign *c, const fl_table *t, const campaign_texts *x,
                        int *fc, int *ic)
{
  char list[2048];
  column_list(t, list, sizeof list);
  *fc = table_column(t, x->filecol);
  *ic = x->idcol ? table_column(t, x->idcol) : *fc;
  if (*fc < 0)
    return fl_yaml_fail(R, value_of(R, cb, "file"), "campaign.file: '%s' is not a column of %s; allowed: %s",
                        x->filecol, c->table_path, list);
  if (*ic < 0)
    return fl_yaml_fail(R, value_of(R, cb, "id"), "campaign.id: '%s' is not a column of %s; allowed: %s", x->idcol,
                        c->table_path, list);
  yaml_node_t *cols = value_of(R, cb, "columns");
  if (!cols)
    return FL_OK;
  if (block(R, cols, "campaign.columns", NULL, "experiment keys, each { column, unit, scale }"))
    return FL_EINPUT;
  for (yaml_node_pair_t *p = cols->data.mapping.pairs.start; p < cols->data.mapping.pairs.top; p++) {
    if (c->nmap == FL_CAMPAIGN_MAX_MAP)
      return fl_yaml_fail(R, cols, "campaign.columns: more than %d keys; allowed: at most %d", FL_CAMPAIGN_MAX_MAP,
                          FL_CAMPAIGN_MAX_MAP);
    if (load_map(R, t, c->table_path, yaml_document_get_node(R->doc, p->key),
                 yaml_document_get_node(R->doc, p->value), &c->map[c->nmap]))
      return FL_EINPUT;
    c->nmap++;
  }
  return FL_OK;
}

/* Specimen i's fit f against the campaign: no mapped key the fit frees (checked on the
 * first row), a kink where a kept row's curve item asks for one. */
static int check_row_fit(reader *R, const yaml_node_t *cb, const fl_campaign *c, int i, const fl_fit *f, int keep)
{
  for (int j = 0; i == 0 && j < c->nmap; j++)
    for (int k = 0; k < f->nfree; k++)
      if (strcmp(c->map[j].key, f->free[k].path) == 0) {
        snprintf(R->err, R->errlen, "%s:%u:%u: campaign.columns.%s: the fit %s frees %s, which the table would set "
                 "for each row; allowed: a key the fit does not free (or leave it out of the fit's free list)", R->file,
                 c->map[j].line, c->map[j].col, c->map[j].key, c->fit_path, c->map[j].key);
        return FL_EINPUT;
      }
  for (int k = 0; keep && k < f->ndata; k++)
    if (f->data[k].kind == FL_FIT_CURVE && f->data[k].kink_weight > 0.0 && !fl_fit_has_kink(&f->data[k]))
      return fl_yaml_fail(R, value_of(R, cb, "fit"), "row %d (%s): data[%d].kink_weight of %s: %g, but the row's curve "
                          "has no drop followed by a plateau in the fitted range: there is no kink to fit; allowed: "
                          "kink_weight 0, or campaign.drop: yes (the rows without a drop left out)", c->spec[i].row,
                          c->spec[i].id, k + 1, c->fit_path, f->data[k].kink_weight);
  return FL_OK;
}

/* Every specimen's fit, built and dropped: all input errors before any run; the rows
 * campaign.drop keeps, by their curve's first curve item as fitted. */
static int select_rows(reader *R, const yaml_node_t *cb, fl_campaign *c, const char *drop)
{
  int rc, kept = 0;
  size_t ln = 0;
  c->rows = c->nspec;
  for (int i = 0; i < c->nspec; i++) {
    fl_fit f;
    if ((rc = fl_campaign_fit(c, i, &f, R->err, R->errlen)))
      return rc;
    int d = 0;
    while (d < f.ndata - 1 && f.data[d].kind != FL_FIT_CURVE)
      d++;
    int keep = c->drop == FL_CAMPAIGN_DROP_ANY;
    if (!keep && f.data[d].kind == FL_FIT_CURVE)
      keep = fl_fit_curve_drops(&f.data[d].data, 0) == (c->drop == FL_CAMPAIGN_DROP_YES);
    if (check_row_fit(R, cb, c, i, &f, keep)) {
      fl_fit_free(&f);
      return FL_EINPUT;
    }
    if (keep && kept == 0) {
      c->nfree = f.nfree;
      memcpy(c->free, f.free, sizeof c->free);
      c->exp = f.exp;
      snprintf(c->exp_path, sizeof c->exp_path, "%s", f.exp_path);
    }
    fl_fit_free(&f);
    if (keep)
      c->spec[kept++] = c->spec[i];
    else if (ln < sizeof c->left_out)
      ln += (size_t)snprintf(c->left_out + ln, sizeof c->left_out - ln, "%s%d (%s)", ln ? ", " : "", c->spec[i].row,
                             c->spec[i].id);
  }
  c->nspec = kept;
  if (kept == 0)
    return fl_yaml_fail(R, value_of(R, cb, "drop"), "campaign.drop: %s: none of the %d rows of %s has a curve %s a "
                        "drop; allowed: a table with at least one such row, or drop: any", drop, c->rows,
                        c->table_path, c->drop == FL_CAMPAIGN_DROP_YES ? "with" : "without");
  return FL_OK;
}

int fl_campaign_load(const char *path, const char *const *sets, int nsets, fl_campaign *c, char *err, size_t errlen)
{
  yaml_document_t doc;
  int rc, fc, ic;
  fl_table t;
  campaign_texts x;
  memset(&t, 0, sizeof t);
  memset(c, 0, sizeof *c);
  snprintf(c->file, sizeof c->file, "%s", path);
  c->sets = sets;
  c->nsets = nsets;
  if ((rc = fl_yaml_load(path, "a campaign file", "fiberlab-campaign(5)", &doc, err, errlen)) != FL_OK)
    return rc;
  rc = FL_EINPUT;
  reader R = {path, &doc, err, errlen};
  yaml_node_t *root = yaml_document_get_root_node(&doc), *cb;
  if (!root || block(&R, root, "the top level", top_keys, "campaign"))
    goto done;
  cb = value_of(&R, root, "campaign");
  if (block(&R, cb, "campaign", campaign_keys, "fit, specimens, file, id, data_folder, columns, drop") ||
      load_block(&R, cb, c, &x))
    goto done;
  char msg[2048];
  if (fl_table_read(c->table_path, c->table_path, &t, msg, sizeof msg) != FL_OK) {
    fl_yaml_fail(&R, value_of(&R, cb, "specimens"), "campaign.specimens: %s", msg);
    goto done;
  }
  if (load_columns(&R, cb, c, &t, &x, &fc, &ic))
    goto done;
  if (t.nrows < 1 || t.nrows > FL_CAMPAIGN_MAX_SPECIMENS) {
    snprintf(err, errlen, "%s:%d: the table has %d rows; allowed: 1 to %d specimens", c->table_path,
             t.nrows ? t.line[t.nrows - 1] : 1, t.nrows, FL_CAMPAIGN_MAX_SPECIMENS);
    goto done;
  }
  if (!(c->spec = calloc((size_t)t.nrows, sizeof *c->spec))) {
    rc = FL_ENOMEM;
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  for (int r = 0; r < t.nrows; r++) {
    if (load_row(c, &t, r, ic, fc, &c->spec[r], err, errlen))
      goto done;
    c->nspec = r + 1;
  }
  rc = select_rows(&R, cb, c, x.drop);
done:
  yaml_document_delete(&doc);
  fl_table_free(&t);
  if (rc)
    fl_campaign_free(c);
  return rc;
}

void fl_campaign_free(fl_campaign *c)
{
  free(c->spec);
  c->spec = NULL;
  c->nspec = 0;
}

void fl_campaign_results_free(fl_campaign_result *res, int n)
{
  for (int i = 0; res && i < n; i++) {
    free(res[i].x);
    free(res[i].measured);
    free(res[i].fitted);
    res[i].x = res[i].measured = res[i].fitted = NULL;
  }
}

/* ---- the run --------------------------------------------------------------------- */

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void fl_campaign_checkpoint_path(const char *prefix, int i, char *buf, size_t len)
{
  snprintf(buf, len, "%s.checkpoint.d/%05d.checkpoint", prefix, i + 1);
}

void fl_campaign_retry_path(const char *prefix, int i, int k, char *buf, size_t len)
{
  snprintf(buf, len, "%s.checkpoint.d/%05d.retry%d.checkpoint", prefix, i + 1, k);
}

void fl_campaign_checkpoints_remove(const char *prefix, int nspec)
{
  char path[FL_FIT_PATH + 64];
  for (int i = 0; i < nspec; i++) {
    fl_campaign_checkpoint_path(prefix, i, path, sizeof path);
    unlink(path);
    for (int k = 1; k <= FL_CAMPAIGN_RETRIES + 1; k++) { /* the retries, then the held attempt */
      fl_campaign_retry_path(prefix, i, k, path, sizeof path);
      unlink(path);
    }
  }
  snprintf(path, sizeof path, "%s.checkpoint.d", prefix);
  rmdir(path);
}

/* Keep what the report needs of a finished calibration. */
static int keep_result(const fl_fit *fit, const fl_calibration *cal, fl_campaign_result *r)
{
  r->done = 1;
  r->status = cal->status;
  snprintf(r->message, sizeof r->message, "%.500s", cal->message);
  r->iterations = cal->iterations;
  r->simulations = cal->simulations;
  r->fallbacks = cal->fallbacks;
  r->wall_time = cal->wall_time;
  memcpy(r->value, cal->value, sizeof r->value);
  memcpy(r->std_error, cal->std_error, sizeof r->std_error);
  memcpy(r->held, cal->held, sizeof r->held);
  r->undetermined = cal->status == FL_CAL_FAILED ? cal->undetermined : -1;
  if (cal->nheld > 0 && cal->status == FL_CAL_CONVERGED) {
    size_t m = 0;
    for (int j = 0; j < fit->nfree && m < sizeof r->message; j++)
      if (cal->held[j])
        m += (size_t)snprintf(r->message + m, sizeof r->message - m, "%s%.120s held at %.6g (no influence: undetermined)",
                              m ? "; " : "", fit->free[j].path, cal->value[j]);
  }
  r->r_squared = cal->r_squared;
  r->calibrated = cal->calibrated;
  r->test = fit->data[0].test;
  r->equally_loaded_bonds = fl_equally_loaded_bonds(&fit->data[0].exp);
  r->features = cal->features;
  const fl_calibration_curve *cv = &cal->curve[0];
  r->points = cv->points;
  r->x_max = fit->data[0].x_max;
  r->x_max_from = fit->data[0].x_max_auto ? 2 - fit->data[0].auto_dropped : 0;
  size_t b = (size_t)cv->points * sizeof(double);
  if (!(r->x = malloc(b)) || !(r->measured = malloc(b)) || !(r->fitted = malloc(b)))
    return FL_ENOMEM;
  memcpy(r->x, cv->x, b);
  memcpy(r->measured, cv->measured, b);
  memcpy(r->fitted, cv->fitted, b);
  return FL_OK;
}

int fl_campaign_fit_row(const fl_campaign *c, const fl_campaign_opts *o, int i, const double *start,
                        const char *ckpath, fl_campaign_result *r, long *used, int *interrupted, char *warnings,
                        size_t wlen, char *err, size_t errlen)
{
  const char *prog = o->cal.prog ? o->cal.prog : "fiber-calibrate";
  fl_fit fit;
  int rc = fl_campaign_fit(c, i, &fit, err, errlen);
  if (rc)
    return rc;
  /* the checkpoint: what the row sets, where a retry starts, and the campaign's settings */
  char settings[8192];
  size_t sn = 0;
  for (int j = 0; j < c->nmap && sn < sizeof settings; j++)
    sn += (size_t)snprintf(settings + sn, sizeof settings - sn, "row %s=%.17g\n", c->map[j].key, c->spec[i].value[j]);
  for (int j = 0; start && j < fit.nfree && sn < sizeof settings; j++) {
    fit.free[j].start = start[j];
    fit.free[j].start_auto = 0;
    sn += (size_t)snprintf(settings + sn, sizeof settings - sn, "start %s=%.17g\n", fit.free[j].path, start[j]);
  }
  if (sn < sizeof settings)
    snprintf(settings + sn, sizeof settings - sn, "%s", o->settings ? o->settings : "");
  fl_checkpoint *ck = NULL;
  char msg[4096];
  if ((rc = fl_checkpoint_open(ckpath, &fit, settings, o->resume, &ck, msg, sizeof msg))) {
    snprintf(err, errlen, "%s (specimen %s, row %d of %s)", msg, c->spec[i].id, c->spec[i].row, c->table_path);
    fl_fit_free(&fit);
    return rc;
  }
  fl_calibrate_opts co = o->cal;
  co.checkpoint = ck;
  /* the fit's notes name the row they come from */
  char row_prog[FL_FIT_PATH + 512];
  snprintf(row_prog, sizeof row_prog, "%s: %s:%d: row %d (%s)", prog, c->table_path, c->spec[i].line,
           c->spec[i].row, c->spec[i].id);
  co.prog = row_prog;
  co.stop_after = o->stop_after > 0 ? (int)(o->stop_after - *used) : 0;
  fl_calibration cal;
  rc = fl_calibrate(&fit, &co, &cal, msg, sizeof msg);
  r->replayed = fl_checkpoint_replayed(ck);
  if (rc) {
    fl_checkpoint_close(ck, 0);
    if (o->cal.stop && *o->cal.stop) {
      fl_fit_free(&fit);
      *interrupted = 1;
      return FL_OK;
    }
    if (rc == FL_EUNSTABLE || rc == FL_ENUMERIC) {
      /* the row's start found no equilibrium or went unstable: a failed row, listed and
       * retried from the other rows' solutions like any other, not the campaign's end */
      memset(r, 0, sizeof *r);
      r->done = 1;
      r->status = FL_CAL_FAILED;
      r->simulations = cal.simulations; /* the runs it took to find that out */
      snprintf(r->message, sizeof r->message, "its start could not be run: %.480s", msg);
      for (int j = 0; j < FL_FIT_MAX_FREE; j++)
        r->value[j] = r->std_error[j] = NAN;
      r->r_squared = NAN;
      r->undetermined = -1;
      r->test = fit.data[0].test;
      r->x_max = fit.data[0].x_max;
      r->features.item = -1;
      fl_fit_free(&fit);
      return FL_OK;
    }
    fl_fit_free(&fit);
    snprintf(err, errlen, "%s:%d: row %d (%s): %s; no point could be evaluated", c->table_path, c->spec[i].line,
             c->spec[i].row, c->spec[i].id, msg);
    return rc;
  }
  *used += cal.iterations;
  if (cal.interrupted || (o->cal.stop && *o->cal.stop)) {
    fl_calibration_free(&cal);
    fl_checkpoint_close(ck, 0);
    fl_fit_free(&fit);
    *interrupted = 1;
    return FL_OK;
  }
  rc = keep_result(&fit, &cal, r);
  char warn[4096];
  if (fl_calibration_warnings(&fit, &cal, warn, sizeof warn) > 0 && (o->cal.log || warnings))
    for (char *w = strtok(warn, "\n"); w; w = strtok(NULL, "\n")) {
      char line[4608];
      snprintf(line, sizeof line, "%s: warning: %s:%d: row %d (%s): %s\n", prog, c->table_path, c->spec[i].line,
               c->spec[i].row, c->spec[i].id, w);
      if (warnings) /* kept for the caller, who decides whether they stand */
        snprintf(warnings + strlen(warnings), wlen - strlen(warnings), "%s", line);
      else
        fputs(line, o->cal.log);
    }
  fl_checkpoint_close(ck, 0); /* removed with the others when the campaign is written */
  fl_calibration_free(&cal);
  fl_fit_free(&fit);
  if (rc)
    snprintf(err, errlen, "out of memory");
  return rc;
}

void fl_campaign_progress(const fl_campaign *c, const fl_campaign_opts *o, int i, int done, int total, double t0,
                          const char *what)
{
  static const char *const names[] = {"converged", "max_iterations", "failed"};
  if (!o->progress || !o->cal.log)
    return;
  const fl_campaign_result *r = o->res + i;
  double el = now() - t0, left = el / done * (total - done);
  char who[48] = "";
  if (o->ranks > 1)
    snprintf(who, sizeof who, " (rank %d of %d)", o->rank, o->ranks);
  fprintf(o->cal.log, "%s: %s %d/%d %s%s: %s, R^2 %.4f, %d iterations, %ld simulations%s, %.1f s (%.1f s elapsed, "
          "about %.0f s left)\n", o->cal.prog ? o->cal.prog : "fiber-calibrate", what, i + 1, c->nspec, c->spec[i].id,
          who, names[r->status], r->r_squared, r->iterations, r->simulations, r->replayed ? " (replayed)" : "",
          r->wall_time, el, left);
  fflush(o->cal.log);
}

int fl_campaign_run(const fl_campaign *c, const fl_campaign_opts *o, fl_campaign_result *res, int *interrupted,
                    char *err, size_t errlen)
{
  char dir[FL_FIT_PATH + 32], ckpath[FL_FIT_PATH + 64];
  double t0 = now();
  long used = 0; /* accepted iterations so far, for stop_after */
  *interrupted = 0;
  /* the campaign spreads its specimens over the ranks; each rank runs the batches of
   * its fits whole (mpi_batch.h: one level of spreading) */
  fl_mpi_batch_spread(0);
  snprintf(dir, sizeof dir, "%s.checkpoint.d", o->prefix);
  if (mkdir(dir, 0777) && errno != EEXIST) {
    snprintf(err, errlen, "cannot make the checkpoint folder %s: %s", dir, strerror(errno));
    return FL_EIO;
  }
  fl_campaign_opts op = *o;
  op.res = res;
  for (int i = 0; i < c->nspec; i++) {
    if (o->ranks > 1 && i % o->ranks != o->rank)
      continue; /* another rank's */
    if ((o->cal.stop && *o->cal.stop) || (o->stop_after > 0 && used >= o->stop_after)) {
      *interrupted = 1;
      return FL_OK;
    }
    fl_campaign_checkpoint_path(o->prefix, i, ckpath, sizeof ckpath);
    int rc = fl_campaign_fit_row(c, o, i, NULL, ckpath, &res[i], &used, interrupted, NULL, 0, err, errlen);
    if (rc || *interrupted)
      return rc;
    int mine = o->ranks > 1 ? (i - o->rank) / o->ranks + 1 : i + 1; /* rows this rank has done */
    int total = o->ranks > 1 ? (c->nspec - 1 - o->rank) / o->ranks + 1 : c->nspec;
    fl_campaign_progress(c, &op, i, mine, total, t0, "specimen");
  }
  return FL_OK;
}

int fl_campaign_gather(const fl_campaign *c, const fl_campaign_opts *o, fl_campaign_result *res, int rc,
                       int interrupted, int *rc_any, int *interrupted_any)
{
  *rc_any = rc;
  *interrupted_any = interrupted;
#ifdef HAVE_MPI
  if (o->ranks <= 1)
    return FL_OK;
  int mine[2] = {rc ? 1 : 0, interrupted}, all[2];
  if (MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
    return FL_EIO;
  if (all[0] && !rc)
    *rc_any = FL_EIO; /* another rank's error, reported there */
  *interrupted_any = all[1];
  if (all[0] || all[1])
    return FL_OK;
  for (int i = 0; i < c->nspec; i++) {
    int owner = i % o->ranks;
    if (owner == 0)
      continue;
    fl_campaign_result *r = &res[i];
    if (o->rank == owner) {
      /* the fixed part as bytes (its pointers mean nothing on rank 0), then the curve */
      MPI_Send(r, (int)sizeof *r, MPI_BYTE, 0, 2 * i, MPI_COMM_WORLD);
      if (r->points > 0) {
        MPI_Send(r->x, r->points, MPI_DOUBLE, 0, 2 * i + 1, MPI_COMM_WORLD);
        MPI_Send(r->measured, r->points, MPI_DOUBLE, 0, 2 * i + 1, MPI_COMM_WORLD);
        MPI_Send(r->fitted, r->points, MPI_DOUBLE, 0, 2 * i + 1, MPI_COMM_WORLD);
      }
    } else if (o->rank == 0) {
      MPI_Recv(r, (int)sizeof *r, MPI_BYTE, owner, 2 * i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      r->x = r->measured = r->fitted = NULL;
      r->calibrated.fit_file = NULL;
      if (r->points > 0) {
        size_t b = (size_t)r->points * sizeof(double);
        if (!(r->x = malloc(b)) || !(r->measured = malloc(b)) || !(r->fitted = malloc(b)))
          MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Recv(r->x, r->points, MPI_DOUBLE, owner, 2 * i + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(r->measured, r->points, MPI_DOUBLE, owner, 2 * i + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(r->fitted, r->points, MPI_DOUBLE, owner, 2 * i + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    }
  }
#else
  (void)c;
  (void)o;
  (void)res;
#endif
  return FL_OK;
}
