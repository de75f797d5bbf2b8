/* test_kind.c: the table of the test kinds (test_kind.h), one entry a kind, each
 * defined in its file of src/kind/. */
#include <config.h>

#include "test_kind.h"

extern const fl_test_type fl_test_bend3pt, fl_test_bend4pt; /* kind/bend.c */
extern const fl_test_type fl_test_tension, fl_test_torsion; /* kind/grips.c */
extern const fl_test_type fl_test_cantilever;               /* kind/cantilever.c */
extern const fl_test_type fl_test_compression;              /* kind/compression.c */

static const fl_test_type *const types[] = {
    [FL_TEST_BEND3PT] = &fl_test_bend3pt,       [FL_TEST_TENSION] = &fl_test_tension,
    [FL_TEST_TORSION] = &fl_test_torsion,       [FL_TEST_CANTILEVER] = &fl_test_cantilever,
    [FL_TEST_BEND4PT] = &fl_test_bend4pt,       [FL_TEST_COMPRESSION] = &fl_test_compression,
};

const fl_test_type *fl_test_type_of(enum fl_test_kind kind) { return types[kind]; }

const char *fl_test_kind_name(enum fl_test_kind kind) { return types[kind]->name; }

double fl_test_target(const fl_test_def *t) { return types[t->kind]->target(t); }

int fl_test_rings(const fl_test_def *t) { return types[t->kind]->rings && types[t->kind]->rings(t); }

void fl_test_drive_rate(fl_system *sys, enum fl_test_drive drive, double rate)
{
  switch (drive) {
  case FL_DRIVE_NOSES:
    for (int k = 2; k < sys->ntool; k++)
      sys->tool[k].vel = fl_v3(0, -rate, 0);
    break;
  case FL_DRIVE_PULL:
    sys->grip_speed = rate;
    break;
  case FL_DRIVE_PUSH:
    sys->grip_speed = -rate;
    break;
  case FL_DRIVE_TURN:
    sys->grip_omega = rate;
    break;
  case FL_DRIVE_LOAD: /* the load follows the path through the kind's load_at */
    break;
  }
}
