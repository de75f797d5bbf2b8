/* fit/starts.h: a calibration's starting values (fiber-calibrate(1), STARTING VALUES). */
#ifndef FL_FIT_STARTS_H
#define FL_FIT_STARTS_H

#include "state.h"

/* Resolve start: auto into start (fit->nfree values, YAML units): the given starts, the
 * auto ones from the measured data and a few runs; the buckling numbers aligned to the
 * measured drop (st->drop_*, for fl_cal_align_drop later).  FL_OK, or the status of a
 * run that failed, err set. */
int fl_cal_starts(fl_cal_state *st, double *start, char *err, size_t errlen);
/* Align the free buckling numbers jb (indices into fit->free, -1 when fixed) at start
 * to the measured drop features want of curve item db, by runs; a correction that does
 * not run leaves the last point that did. */
int fl_cal_align_drop(fl_cal_state *st, int db, const int jb[4], const double want[5], double *start);

#endif
