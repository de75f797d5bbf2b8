/* output.h: curve CSV, gnuplot script and plot, written atomically; the summary. */
#ifndef FL_OUTPUT_H
#define FL_OUTPUT_H

#include <stdio.h>

#include "files.h"
#include "run.h"

enum fl_plot { FL_PLOT_PNG = 0, FL_PLOT_SVG = 1, FL_PLOT_NONE = 2 };

typedef struct {
  const char *prefix;     /* output prefix */
  const char *command;    /* the command line, for the CSV comment */
  const char *title;      /* plot title */
  enum fl_plot plot;
  int plot_required;      /* 1: a missing gnuplot is an error */
} fl_output_opts;

/* Paths written, for the summary (plot empty when none). */
typedef struct {
  char csv[FL_OUTPUT_PATH];
  char gp[FL_OUTPUT_PATH];
  char plot[FL_OUTPUT_PATH];
} fl_output_paths;

/* 1 when gnuplot is found on PATH. */
int fl_gnuplot_available(void);
/* Whether a writer makes its plot: *make 1 for a plot asked for with gnuplot on PATH;
 * 0 for none, or (with a warning on stderr) when gnuplot is missing and the plot was
 * not required; FL_EGNUPLOT with msg when it was. */
int fl_gnuplot_wanted(enum fl_plot plot, int required, int *make, char *msg, size_t msglen);
/* Run gnuplot on script gp without a shell, with its variables fl_csv and fl_out set
 * to csv and out; FL_EGNUPLOT with msg on failure. */
int fl_gnuplot_run(const char *gp, const char *csv, const char *out, char *msg, size_t msglen);
/* Print s as a gnuplot single-quoted string. */
void fl_gnuplot_quote(FILE *f, const char *s);
/* The peaks of the ring-down (t, x), n rows, about its rest position as the gnuplot data
 * block $name (time in s, peak in mm), their decay line into rd (fl_ringdown_fit: the
 * rest position, |x - x0| = exp(log_amplitude0 - b t), b = delta f), range widened to
 * hold the peaks (mm); 0 where the rows ring too little (an empty block). */
int fl_gnuplot_peaks(FILE *f, const char *name, const double *t, const double *x, int n, fl_ringdown *rd,
                     double range[2]);
/* A log scale of y for peaks within range (mm), labelled, fitted to the data with a
 * tenth of margin, with five ticks evenly on it (a range within a decade has none). */
void fl_gnuplot_log_axis(FILE *f, const char *label, const double range[2]);
/* Print s as one CSV field: as is, or in double quotes (a quote doubled) when it
 * holds a comma, a quote or a line break. */
void fl_csv_field(FILE *f, const char *s);
/* Before a run: FL_OK when every file fl_output_write and fl_output_partial may write
 * for prefix is free to write, or FL_EINPUT with msg when the prefix is too long or one
 * of those files is an input (files.h).  Temporaries a killed run left are removed. */
int fl_output_prepare(const char *prefix, enum fl_plot plot, char *msg, size_t msglen);

/* Write PREFIX.csv, PREFIX.gp and the plot, each first under a temporary name and
 * renamed once all succeeded.  Returns FL_OK, FL_EIO or FL_EGNUPLOT (msg set). */
int fl_output_write(const fl_output_opts *o, const fl_curve *c, const fl_result *r, fl_output_paths *paths,
                    char *msg, size_t msglen);

/* The rows an unstable or interrupted run recorded, in PREFIX.partial.csv (atomically);
 * path gets the name. */
int fl_output_partial(const fl_output_opts *o, const fl_curve *c, const fl_result *r, char *path, size_t len,
                      char *msg, size_t msglen);

/* The run's summary, one YAML document (written through the libyaml emitter, so any
 * path reads back as it is).  FL_OK, or FL_EIO / FL_ENOMEM. */
int fl_summary_print(FILE *out, const fl_result *r, const fl_output_paths *paths);

#endif
