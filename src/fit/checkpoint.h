/* fit/checkpoint.h: the records of a calibration's checkpoint, as the evaluations read
 * and append them (the log itself: fl_checkpoint_open in fit.h). */
#ifndef FL_FIT_CHECKPOINT_H
#define FL_FIT_CHECKPOINT_H

#include <gsl/gsl_vector.h>
#include <stdint.h>
#include <stdio.h>

#include "fit.h"

#define FL_CK_TAG_F 0x66u       /* 'f': residuals */
#define FL_CK_TAG_DF 0x4au      /* 'J': Jacobian */
#define FL_CK_FAILED_TRIAL 1u   /* flags: a trial point that did not run */

/* One evaluation: its kind, the simulations and batches it counted, the transformed
 * parameter vector u and the values v (residuals, or the Jacobian row-major). */
typedef struct {
  uint32_t tag, flags;
  int64_t dsim, dbatch;
  uint32_t nu, nv;
  double *u, *v;
} fl_ck_record;

/* The stored record of (tag, u), or NULL (also when ck is NULL): the next in order
 * first, then any. */
const fl_ck_record *fl_checkpoint_lookup(fl_checkpoint *ck, uint32_t tag, const gsl_vector *u);
/* Append one evaluation, synced; a write error is said once on log (PROG: ...) and ends
 * the logging.  Nothing when ck is NULL. */
void fl_checkpoint_append(fl_checkpoint *ck, FILE *log, const char *prog, uint32_t tag, uint32_t flags, long dsim,
                          long dbatch, const gsl_vector *u, const double *v, size_t nv);

#endif
