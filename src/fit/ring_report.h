/* fit/ring_report.h: what a calibration's report says of its ring-down items
 * (fiber-calibrate(1), RING-DOWNS): the summary's block, the plot's panels, the
 * warnings. */
#ifndef FL_FIT_RING_REPORT_H
#define FL_FIT_RING_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "fit.h"
#include "yaml_emit.h"

/* The summary's ringdowns: block, one entry a ring-down item (none without one): its
 * signal and residuals, the record's length and rows a period, its noise (and a series'
 * amplitude ratio, time shift and offset), the record's own figures, the fitted first
 * mode's f, delta, b and zeta with their standard errors, the tip's decrement. */
void fl_ring_summary(fl_yaml_out *y, const fl_fit *fit, const fl_calibration *cal);
/* Ring-down item d's two panels of the gnuplot script (file: its name in the titles):
 * the record and the fit in time (mm, s), then their peaks on a log scale with the
 * decay lines and the figures; the other panels' settings restored after. */
int fl_ring_panels(FILE *f, const fl_fit *fit, const fl_calibration *cal, int d, const char *file);
/* The ring-down items' warnings, appended to buf (len bytes) one a line after the *n
 * lines before them (counted in *n): a record with fewer than 2.5 rows a fitted period
 * (aliasing), and a record read with the other signal than it holds (the raw tip's
 * decrement against the first mode's).  Returns the bytes written. */
size_t fl_ring_warnings(const fl_fit *fit, const fl_calibration *cal, char *buf, size_t len, int *n);

#endif
