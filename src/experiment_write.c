/* experiment_write.c: an experiment written back as YAML that loads to the same
 * definition, key by key in the table's order, each value with its unit as a comment. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "experiment_keys.h"
#include "test_kind.h"
#include "yaml_emit.h"

/* The shortest %g text that reads back as v. */
static void put_double(fl_yaml_out *y, double v)
{
  char buf[40];
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v)
      break;
  }
  fl_yaml_plain(y, buf);
}

/* One key's value. */
static void write_value(fl_yaml_out *y, const fl_experiment *exp, const key_def *k)
{
  const char *base = (const char *)exp + k->offset;
  char buf[32];
  switch (k->type) {
  case KT_REAL:
    put_double(y, *(const double *)base);
    break;
  case KT_REAL_AUTO:
    if (*(const double *)base <= 0.0)
      fl_yaml_plain(y, "auto");
    else
      put_double(y, *(const double *)base);
    break;
  case KT_DEG: /* degrees to 15 digits: the radian round trip is not exact */
    fl_yaml_num(y, "%.15g", *(const double *)base / DEG);
    break;
  case KT_INT:
    fl_yaml_int(y, *(const int *)base);
    break;
  case KT_SEED:
    snprintf(buf, sizeof buf, "%lu", *(const unsigned long *)base);
    fl_yaml_plain(y, buf);
    break;
  case KT_BOOL:
    fl_yaml_plain(y, *(const int *)base ? "true" : "false");
    break;
  case KT_ENUM:
    fl_yaml_plain(y, k->names[*(const int *)base]);
    break;
  case KT_CYCLES: {
    const fl_test_def *t = &exp->test;
    double unit = fl_test_type_of(t->kind)->angular ? DEG : 1.0;
    fl_yaml_seq_begin(y, 1);
    for (int i = 0; i < t->ncycles; i++) {
      if (unit != 1.0)
        fl_yaml_num(y, "%.15g", t->cycles[i] / unit);
      else
        put_double(y, t->cycles[i]);
    }
    fl_yaml_seq_end(y);
    break;
  }
  case KT_FILE:
    fl_yaml_str(y, base);
    break;
  case KT_SECTION:
    break;
  }
}

/* Whether a key belongs in the written file. */
static int write_key(const fl_experiment *exp, const key_def *k)
{
  const char *p = k->path;
  if (k->kinds && !(k->kinds & (1 << exp->test.kind)))
    return 0;
  /* the elastic pair as the file gave it: the shear modulus, or Poisson's ratio (then
   * G follows E, also when E is edited after a calibration) */
  if (strcmp(p, "fiber.poisson_ratio") == 0)
    return !exp->fiber.shear_given;
  if (strcmp(p, "fiber.shear_modulus") == 0)
    return exp->fiber.shear_given;
  /* an ellipse is written by its semi-axes, never by the derived round equivalent */
  int ell = exp->fiber.section == FL_SECTION_ELLIPSE;
  if (strcmp(p, "fiber.outer_radius") == 0 || strcmp(p, "fiber.inner_radius_ratio") == 0)
    return !ell;
  if (strcmp(p, "fiber.section") == 0 || strcmp(p, "fiber.semi_axis_y") == 0 || strcmp(p, "fiber.semi_axis_z") == 0)
    return ell;
  if (strncmp(p, "fiber.inner_semi_axis_", 22) == 0)
    return ell && exp->fiber.inner_semi_axis_y_m > 0.0;
  if (strcmp(p, "test.cycles") == 0)
    return exp->test.ncycles > 0;
  /* the rig's keys where they differ from Hertz's tools on a stiff machine */
  if (strcmp(p, "test.contact") == 0)
    return exp->test.contact != FL_CONTACT_HERTZ;
  if (strcmp(p, "test.contact_modulus") == 0)
    return exp->test.contact == FL_CONTACT_HERTZ && exp->test.contact_modulus > 0.0;
  if (strcmp(p, "test.contact_stiffness") == 0)
    return exp->test.contact == FL_CONTACT_LINEAR;
  if (strcmp(p, "test.compliance") == 0)
    return exp->test.compliance > 0.0;
  /* a viscoelastic static run says so; an elastic one is written as it always was */
  if (strcmp(p, "simulation.viscoelastic") == 0)
    return exp->sim.viscoelastic;
  /* the shape keys only where the fiber has them (a straight uniform fiber's file is
   * written as it always was) */
  const fl_fiber_def *fb = &exp->fiber;
  if (strcmp(p, "fiber.shape") == 0)
    return fb->shape != FL_SHAPE_STRAIGHT;
  if (strcmp(p, "fiber.arc_radius") == 0)
    return fb->shape == FL_SHAPE_ARC && fb->arc_radius_m > 0.0;
  if (strcmp(p, "fiber.arc_angle") == 0)
    return fb->shape == FL_SHAPE_ARC && !(fb->arc_radius_m > 0.0);
  if (strcmp(p, "fiber.polyline") == 0)
    return fb->shape == FL_SHAPE_POLYLINE;
  if (strcmp(p, "fiber.length") == 0)
    return fb->shape != FL_SHAPE_POLYLINE; /* the polyline's */
  if (strcmp(p, "fiber.outer_radius_end") == 0)
    return fb->outer_radius_end_m > 0.0;
  if (strcmp(p, "fiber.section_table") == 0)
    return fb->section_table[0] != '\0';
  if (strcmp(p, "fiber.nodes") == 0)
    return fb->nodes[0] != '\0';
  if (strcmp(p, "fiber.table_unit") == 0)
    return fb->table_unit != FL_TABLE_M && (fb->shape == FL_SHAPE_POLYLINE || fb->section_table[0] || fb->nodes[0]);
  if (strncmp(p, "bond.failure.", 13) == 0 && strcmp(p, "bond.failure.criterion") != 0)
    return exp->bond.failure.criterion != FL_CRIT_NONE;
  if (strncmp(p, "bond.buckling.", 14) == 0 && strcmp(p, "bond.buckling.type") != 0)
    return exp->bond.buckling.type != FL_BUCKLING_NONE;
  return 1;
}

void fl_experiment_emit(fl_yaml_out *y, const fl_experiment *exp)
{
  int open = 0; /* sections open */
  fl_yaml_map_begin(y, 0);
  for (size_t i = 0; i < fl_exp_nkeys; i++) {
    const key_def *k = &fl_exp_keys[i];
    int depth = 0;
    for (const char *c = k->path; *c; c++)
      depth += *c == '.';
    const char *leaf = strrchr(k->path, '.');
    leaf = leaf ? leaf + 1 : k->path;
    for (; open > depth; open--)
      fl_yaml_map_end(y);
    if (k->type == KT_SECTION) {
      fl_yaml_str(y, leaf);
      fl_yaml_map_begin(y, 0);
      open++;
      continue;
    }
    if (!write_key(exp, k))
      continue;
    fl_yaml_str(y, leaf);
    write_value(y, exp, k);
    if (*k->unit)
      fl_yaml_note(y, k->unit);
  }
  for (; open > 0; open--)
    fl_yaml_map_end(y);
  fl_yaml_map_end(y);
}

int fl_experiment_write(FILE *f, const fl_experiment *exp)
{
  fl_yaml_out *y = fl_yaml_out_open(f);
  fl_experiment_emit(y, exp);
  return fl_yaml_out_close(&y);
}
