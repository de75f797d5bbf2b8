/* campaign.h: a calibration campaign (fiberlab-campaign(5)): one fit template run on
 * every row of a specimen table, each row with its own curve and its own values of
 * mapped experiment keys, and the population of the fitted values.
 *
 * fl_campaign_load reads the campaign file and the table and checks every row (its
 * curve, each mapped value against its key's range, the whole fit built for it) before
 * anything runs; fl_campaign_run fits the specimens in table order, each with a memo
 * checkpoint of its own so that a killed campaign resumes bit for bit;
 * fl_campaign_population and fl_population_check_run (population.c) make and check
 * the population, fl_campaign_write (campaign_report.c) reports them. */
#ifndef FL_CAMPAIGN_H
#define FL_CAMPAIGN_H

#include <signal.h>
#include <stdio.h>

#include "dem_sheet.h"
#include "fit.h"

#define FL_CAMPAIGN_MAX_MAP 32     /* mapped columns */
#define FL_CAMPAIGN_MAX_SPECIMENS 100000
#define FL_CAMPAIGN_ID 128         /* specimen names */

/* One table column mapped to an experiment key. */
typedef struct {
  char key[FL_FIT_KEY];    /* the experiment key it sets (a dotted path) */
  char column[256];        /* the table column's header name */
  int index;               /* its column in the table, from 0 */
  double factor;           /* the key's YAML unit per table unit, times scale */
  char unit[16];           /* the table's unit as written ("" when none) */
  double scale;            /* the scale as written (1 when none) */
  unsigned line, col;      /* where the mapping stands in the campaign file, 1-based */
} fl_campaign_map;

/* campaign.drop: which rows a campaign fits, by the shape of their curves. */
enum fl_campaign_drop {
  FL_CAMPAIGN_DROP_ANY = 0, /* every row */
  FL_CAMPAIGN_DROP_YES,     /* the rows whose curve has a drop (fl_fit_curve_drops) */
  FL_CAMPAIGN_DROP_NO       /* the rows whose curve has none */
};

/* One row of the table. */
typedef struct {
  char id[FL_CAMPAIGN_ID];           /* its name, from the id column */
  char data_path[FL_FIT_PATH];       /* its curve, as opened */
  int line;                          /* its line in the table */
  int row;                           /* its row in the table, from 1 below the header */
  double value[FL_CAMPAIGN_MAX_MAP]; /* each mapped key's value, in the key's YAML unit */
} fl_campaign_specimen;

typedef struct {
  char file[FL_FIT_PATH];        /* the campaign file */
  char fit_path[FL_FIT_PATH];    /* the fit template, relative to the working folder */
  char table_path[FL_FIT_PATH];  /* the specimen table, idem */
  char data_dir[FL_FIT_PATH];    /* folder of the curves ("" : the working folder) */
  int nmap;
  fl_campaign_map map[FL_CAMPAIGN_MAX_MAP];
  int drop;                      /* enum fl_campaign_drop */
  int rows;                      /* the table's rows */
  int nspec;
  fl_campaign_specimen *spec;    /* nspec rows: those campaign.drop selects, in table order */
  char left_out[2048];           /* the rows campaign.drop left out, "row (id), ..." ("" : none) */
  const char *const *sets;       /* --set (and --seed, --solver) for every specimen */
  int nsets;
  /* from the template built for the first row */
  int nfree;
  fl_fit_param free[FL_FIT_MAX_FREE]; /* the free parameters (names, bounds) */
  fl_experiment exp;             /* the template's experiment with the first row's values */
  char exp_path[FL_FIT_PATH];
} fl_campaign;

/* 1 when the YAML file at path is a campaign (a top-level key campaign:), 0 otherwise
 * (a fit file, or a file the fit loader will report on). */
int fl_campaign_detect(const char *path);

/* Read the campaign file, its table and template; check every row.  sets apply to
 * every specimen's experiments after the row's values.  Errors name the campaign file,
 * line and column, or the table, its line, row and column: FL_EINPUT, FL_EIO. */
int fl_campaign_load(const char *path, const char *const *sets, int nsets, fl_campaign *c, char *err, size_t errlen);
void fl_campaign_free(fl_campaign *c);

/* Build the fit of specimen i (fl_fit_load_specimen with the row's values). */
int fl_campaign_fit(const fl_campaign *c, int i, fl_fit *fit, char *err, size_t errlen);

/* One specimen's fit, kept for the report. */
typedef struct {
  int done;                          /* 1: fitted (or failed) to its end */
  enum fl_calibration_status status;
  char message[512];                 /* why it failed (empty when converged) */
  int iterations;
  long simulations;
  int fallbacks;                     /* batches the explicit engine ran after the static solver failed */
  double wall_time;                  /* s */
  double value[FL_FIT_MAX_FREE];     /* YAML units */
  double std_error[FL_FIT_MAX_FREE]; /* NAN when not determined */
  double r_squared;
  int points;                        /* the first curve's rows */
  double x_max;                      /* its fitted range's end, m or rad */
  int x_max_from;                    /* 0: the fit file or the table, 1: auto at a drop, 2: auto at the peak */
  double *x, *measured, *fitted;     /* its abscissae (SI), measured and fitted ordinates */
  enum fl_test_kind test;            /* its test */
  fl_experiment calibrated;          /* the specimen's experiment with its fitted values */
  int equally_loaded_bonds;          /* of its first curve: 1 in 3-point bending, the gauge's bonds otherwise */
  fl_calibration_features features;  /* where its drop lands (features.item -1: no buckling fit of a drop) */
  long replayed;                     /* evaluations its checkpoint replayed (--resume) */
  int retried_from;                  /* > 0: converged on a retry from this row's solution (table row number) */
  int retries;                       /* retries run after its first fit failed (fl_campaign_retry) */
  int undetermined;                  /* failed with a free parameter without influence (its index; -1: not so) */
  int held[FL_FIT_MAX_FREE];         /* 1: held at its value without influence (fl_calibration's held):
                                      * undetermined, left out of the population's figures of it */
} fl_campaign_result;

typedef struct {
  fl_calibrate_opts cal;   /* for each fit (progress, stop_after are the campaign's) */
  const char *prefix;      /* checkpoints in PREFIX.checkpoint.d/ */
  const char *settings;    /* what else the evaluations depend on (device, threads) */
  int resume;              /* 1: replay the checkpoints found */
  int progress;            /* 1: one line per specimen on cal.log */
  int stop_after;          /* stop as if interrupted after this many accepted iterations over the campaign (0: never) */
  int rank, ranks;         /* MPI: this process fits the rows i with i % ranks == rank (ranks 0, 1: all rows) */
  const fl_campaign_result *res; /* the results, for the progress lines (set by the campaign's functions) */
} fl_campaign_opts;

/* Fit every specimen into res (nspec entries, zeroed by the caller).  FL_OK with
 * *interrupted 0 when all ran (a specimen that failed to converge is a result, not an
 * error), or with *interrupted 1 when a signal or stop_after stopped it (the
 * checkpoints are kept); an error status with err set when a specimen could not be
 * evaluated at all. */
int fl_campaign_run(const fl_campaign *c, const fl_campaign_opts *o, fl_campaign_result *res, int *interrupted,
                    char *err, size_t errlen);
/* Fit row i into r (its arrays allocated here): from the fit file's starts, or, start
 * not NULL, from the values start (YAML units, inside the bounds), with the checkpoint
 * at ckpath.  *used counts the accepted iterations (stop_after).  The result's warnings
 * go to o->cal.log, or, warnings not NULL, are appended there (wlen bytes, a string).
 * FL_OK, with *interrupted 1 when a signal or stop_after stopped it; an error status
 * with err when no point could be evaluated. */
int fl_campaign_fit_row(const fl_campaign *c, const fl_campaign_opts *o, int i, const double *start,
                        const char *ckpath, fl_campaign_result *r, long *used, int *interrupted, char *warnings,
                        size_t wlen, char *err, size_t errlen);
/* The progress line of row i (o->res[i]), the done-th of total, on o->cal.log when
 * o->progress: what ("specimen", "retry"), status, R^2, times since t0. */
void fl_campaign_progress(const fl_campaign *c, const fl_campaign_opts *o, int i, int done, int total, double t0,
                          const char *what);
/* Rank 0, after fl_campaign_gather: each row whose fit did not converge is fitted again
 * from the solutions of up to FL_CAMPAIGN_RETRIES converged rows, those whose measured
 * peak load is nearest its own, until one converges (campaign_retry.c,
 * fiberlab-campaign(5)); a converged retry replaces the row's result and says so in
 * its message.  A row whose first fit failed on a parameter without influence, and
 * that no retry brought to converge, is then fitted from its own start with that
 * parameter held (fl_calibrate; the attempt after the last retry).  FL_OK (with *interrupted as fl_campaign_run), or an error status. */
#define FL_CAMPAIGN_RETRIES 3
int fl_campaign_retry(const fl_campaign *c, const fl_campaign_opts *o, fl_campaign_result *res, int *interrupted,
                      char *err, size_t errlen);
/* The checkpoint of row i's k-th retry (k from 1). */
void fl_campaign_retry_path(const char *prefix, int i, int k, char *buf, size_t len);

/* MPI (built with --with-mpi): after fl_campaign_run on every rank, bring every
 * specimen's result to rank 0 (res filled there in table order, bit for bit as each
 * rank computed it), and agree on the outcome: *rc_any and *interrupted_any are those
 * of the worst rank.  Without MPI, or with one rank, it only copies rc and interrupted. */
int fl_campaign_gather(const fl_campaign *c, const fl_campaign_opts *o, fl_campaign_result *res, int rc,
                       int interrupted, int *rc_any, int *interrupted_any);
/* Remove the checkpoints of a campaign that finished. */
void fl_campaign_checkpoints_remove(const char *prefix, int nspec);
void fl_campaign_results_free(fl_campaign_result *res, int n);

/* ---- the population (population.c) ---------------------------------------------- */

/* Statistics of one quantity over the specimens used. */
typedef struct {
  double mean, sd, cv;                /* sd with n - 1; cv = sd / |mean| */
  double min, q25, median, q75, max;  /* quantiles by linear interpolation between order statistics */
  double p05, p95;                    /* the 5th and 95th percentiles, the same way */
  double centre;                      /* the median of the logarithms taken back (the median where a
                                       * value is not positive): the population's robust centre */
} fl_population_stat;

/* What the check compares, read off every curve as the fit reads it. */
enum { FL_CHECK_STIFFNESS = 0, FL_CHECK_PEAK = 1, FL_CHECK_KINK = 2, FL_CHECK_QUANTITIES = 3 };
#define FL_CHECK_QUANTILES 5 /* 5, 25, 50, 75 and 95 % */
#define FL_POPULATION_CLASSES 3

/* One quantity of the check: the lab's distribution against the population's. */
typedef struct {
  int n_lab, n_pop;                   /* curves that have it */
  double lab[FL_CHECK_QUANTILES];     /* quantiles at 5, 25, 50, 75, 95 % */
  double pop[FL_CHECK_QUANTILES];
  double ks;                          /* two-sample Kolmogorov-Smirnov distance */
  double ks_5pct;                     /* the distance a test at the 5 % level rejects from */
} fl_check_quantity;

/* A class of the population by particle radius: what a DEM package that takes several
 * materials and particle sizes is given. */
typedef struct {
  int count;                          /* converged specimens in it */
  double share;                       /* of the population */
  double radius_lo, radius_hi;        /* its particle radii R, m */
  double mapped[FL_CAMPAIGN_MAX_MAP]; /* the centre of its mapped values */
  double centre[FL_FIT_MAX_FREE];     /* the centre of its fitted values */
  double strength_sigma, strength_cv; /* its bond strength and variation (its spread of strengths) */
  fl_experiment experiment;           /* the template with those values */
} fl_population_class;

/* The check that the population reproduces the lab (fiberlab-campaign(5)). */
typedef struct {
  int run;                            /* 1: it ran */
  char why_not[256];                  /* why it did not */
  unsigned long seed;                 /* of the draws (simulation.seed, --seed) */
  double bandwidth;                   /* h of the jitter */
  int ndraws;                         /* specimens drawn */
  int failed;                         /* of them, draws that did not run */
  double *value;                      /* ndraws x nfree: each draw's fitted values (YAML units) */
  int *parent;                        /* each draw's row (index into the results) */
  int nlab;
  double *lab;                        /* nlab x 3: the measured figures of every row fitted (NAN: none) */
  double *pop;                        /* ndraws x 3: the draws' (NAN: none, or a failed draw) */
  fl_check_quantity q[FL_CHECK_QUANTITIES];
  int passed;                         /* the peak force's median within 10 %, 5th and 95th percentiles within 20 % */
  double peak_err[3];                 /* the population's 5 %, 50 %, 95 % peak over the lab's, less 1 */
  double correlation[FL_FIT_MAX_FREE * FL_FIT_MAX_FREE]; /* of the drawn fitted values (Pearson) */
  int nclass;
  fl_population_class cls[FL_POPULATION_CLASSES];
} fl_population_check;

typedef struct {
  int nused;                          /* converged specimens */
  int *used;                          /* their indices */
  fl_population_stat param[FL_FIT_MAX_FREE];
  double correlation[FL_FIT_MAX_FREE * FL_FIT_MAX_FREE]; /* Pearson, row-major; NAN when undefined */
  fl_population_stat mapped[FL_CAMPAIGN_MAX_MAP];        /* the mapped keys over the same specimens */
  int strength;                       /* index of the free bond.failure.max_stress, or -1 */
  long strength_bonds;                /* equally loaded bonds of the test the strengths come from */
  double strength_sigma;              /* bond max_stress that gives the specimens' centre and spread, Pa */
  double strength_cv;                 /* its bond.failure.strength_variation */
  fl_experiment experiment;           /* the population experiment: the centres, one material */
  fl_population_check check;          /* fl_population_check_run's */
} fl_population;

/* Statistics of v[0..n-1] (n >= 2); v is sorted in place.  The centre is the median of
 * the logarithms taken back (the median itself for an odd n; for an even one the
 * geometric mean of the middle two), or the median where a value is not positive. */
fl_population_stat fl_population_stat_of(double *v, int n);
/* The population of the converged specimens.  FL_EINPUT when fewer than 2 converged or
 * the centres do not make a valid experiment (err says why). */
int fl_campaign_population(const fl_campaign *c, const fl_campaign_result *res, fl_population *p, char *err,
                           size_t errlen);
/* The check of p (after fl_campaign_population): the classes by particle radius, at
 * least 200 specimens drawn from the converged rows' fitted values and measured
 * dimensions and run in one batch per row (threads over each batch's specimens, as a
 * fit's batches), and their figures against the measured curves'.  FL_OK with p->check.run 0 and why_not set when the
 * campaign's curves do not allow it; FL_EINTERRUPT when stop was set; FL_ENOMEM. */
int fl_population_check_run(const fl_campaign *c, const fl_campaign_result *res, fl_population *p, int threads,
                            volatile sig_atomic_t *stop, char *err, size_t errlen);
void fl_population_free(fl_population *p);

/* ---- what is reported of it (population_report.c) ------------------------------------ */

struct fl_yaml_out;
/* The population's parameter sheet for the DEM package (dem_sheet.h): the population
 * experiment's values, each with the spread of the converged specimens' own, the
 * status ("9 of 12 specimens converged; population check passed: ...") as its first
 * line, the check's quantiles beside the lab's, and the classes. */
int fl_population_sheet(const fl_campaign *c, const fl_campaign_result *res, const fl_population *p,
                        fl_dem_sheet *sh);
/* The check as YAML (PREFIX-population-check.yaml) and every curve's figures as CSV
 * (PREFIX-population-check.csv: the lab's rows, then the draws with their values). */
int fl_population_check_yaml(FILE *f, const fl_campaign *c, const fl_campaign_result *res, const fl_population *p);
int fl_population_check_csv(FILE *f, const fl_campaign *c, const fl_campaign_result *res, const fl_population *p);
/* The summary's check: block. */
void fl_population_check_summary(struct fl_yaml_out *y, const fl_campaign_result *res, const fl_population *p);

/* What fl_campaign_write writes. */
typedef struct {
  const char *prefix;  /* PREFIX-specimens.csv, -population.yaml, -population-experiment.yaml, -curves.*, -parameters.* */
  const char *command; /* the command line, for the comments */
  enum fl_plot plot;
  int plot_required;
} fl_campaign_output;

#define FL_CAMPAIGN_FILES 13
typedef struct {
  char path[FL_CAMPAIGN_FILES][FL_FIT_PATH + 64]; /* the files written ("" : not written) */
  const char *what[FL_CAMPAIGN_FILES];            /* each one's key in the summary */
} fl_campaign_paths;

/* Before a campaign: FL_OK when every report file and every row's checkpoint
 * (PREFIX.checkpoint.d/) is free to write, or FL_EINPUT with err when the prefix is too
 * long or one of them is an input (files.h).  Temporaries a killed run left are removed. */
int fl_campaign_prepare(const char *prefix, enum fl_plot plot, int nspec, char *err, size_t errlen);
/* Row i's checkpoint: PREFIX.checkpoint.d/NNNNN.checkpoint. */
void fl_campaign_checkpoint_path(const char *prefix, int i, char *buf, size_t len);
/* The reports: each file under a temporary name first, all renamed once all were
 * written.  p may be NULL (fewer than 2 converged: only the specimens' table and the
 * curves).  FL_OK, FL_EIO or FL_EGNUPLOT with err set. */
int fl_campaign_write(const fl_campaign *c, const fl_campaign_result *res, const fl_population *p,
                      const fl_campaign_output *o, fl_campaign_paths *paths, char *err, size_t errlen);
/* The summary on stdout (fiber-calibrate(1), CAMPAIGNS). */
int fl_campaign_summary(FILE *out, const fl_campaign *c, const fl_campaign_result *res, const fl_population *p,
                        const fl_campaign_paths *paths, double wall_time);

#endif
