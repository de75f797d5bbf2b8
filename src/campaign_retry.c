/* campaign_retry.c: a campaign's second chance for the rows whose fit did not converge:
 * each fitted again from the solutions of the converged rows nearest it (campaign.h,
 * fiberlab-campaign(5), Retries). */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "campaign.h"
#include "fl_defs.h"

#define FL_RETRY_WARNINGS 16384 /* room for one attempt's warnings */

/* The largest |measured load| of a row's fitted range (0 when none). */
static double peak_of(const fl_campaign_result *r)
{
  double p = 0.0;
  for (int k = 0; k < r->points; k++)
    p = fmax(p, fabs(r->measured[k]));
  return p;
}

/* Up to FL_CAMPAIGN_RETRIES converged rows (indices into res) other than i, nearest
 * row i by the ratio of their measured peak loads, ties by table order; returns how
 * many. */
static int donors(const fl_campaign *c, const fl_campaign_result *res, int i, int *out)
{
  int n = 0;
  double pi = peak_of(&res[i]), best[FL_CAMPAIGN_RETRIES];
  for (int j = 0; j < c->nspec; j++) {
    if (j == i || !res[j].done || res[j].status != FL_CAL_CONVERGED)
      continue;
    double pj = peak_of(&res[j]), d = pi > 0.0 && pj > 0.0 ? fabs(log(pj / pi)) : HUGE_VAL;
    int at = n; /* the nearest kept in order: d goes after every one no farther */
    while (at > 0 && best[at - 1] > d)
      at--;
    if (at >= FL_CAMPAIGN_RETRIES)
      continue;
    int last = n < FL_CAMPAIGN_RETRIES ? n++ : FL_CAMPAIGN_RETRIES - 1;
    for (int k = last; k > at; k--) {
      best[k] = best[k - 1];
      out[k] = out[k - 1];
    }
    best[at] = d;
    out[at] = j;
  }
  return n;
}

/* Row i's first failure and its retries in its message: "MSG; retried from the
 * solutions of rows A, B: none converged", for a converged retry "converged on a retry
 * from row A's solution; the first fit: MSG", and for the attempt with a parameter held
 * (won == i) "HELD; retried from the solutions of rows A, B: none converged; the first
 * fit: MSG", HELD the attempt's own message (which parameter, at what value). */
static void retry_message(const fl_campaign *c, fl_campaign_result *r, const char *first, const int *from, int n,
                          int won, int i)
{
  char rows[128] = "", held[sizeof r->message];
  size_t m = 0;
  if (n > 0)
    m += (size_t)snprintf(rows, sizeof rows, "; retried from the solution%s of row%s ", n > 1 ? "s" : "",
                          n > 1 ? "s" : "");
  for (int k = 0; k < n && m < sizeof rows; k++)
    m += (size_t)snprintf(rows + m, sizeof rows - m, "%s%d", k ? ", " : "", c->spec[from[k]].row);
  if (n > 0 && m < sizeof rows)
    snprintf(rows + m, sizeof rows - m, ": none converged");
  if (won == i) {
    snprintf(held, sizeof held, "%s", r->message);
    snprintf(r->message, sizeof r->message, "%.200s%s; the first fit: %.150s", held, rows, first);
  } else if (won >= 0) {
    snprintf(r->message, sizeof r->message, "converged on a retry from row %d's solution; the first fit: %.400s",
             c->spec[won].row, first);
  } else {
    snprintf(r->message, sizeof r->message, "%.380s%s", first, rows);
  }
}

int fl_campaign_retry(const fl_campaign *c, const fl_campaign_opts *o, fl_campaign_result *res, int *interrupted,
                      char *err, size_t errlen)
{
  char ckpath[FL_FIT_PATH + 64], first[sizeof res->message];
  long used = 0;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  double t0 = ts.tv_sec + 1e-9 * ts.tv_nsec;
  fl_campaign_opts op = *o, quiet = *o;
  op.stop_after = quiet.stop_after = 0; /* the retries come after the rows the limit counted */
  quiet.cal.log = NULL;                 /* an attempt's notes; the warnings of the one kept are printed */
  char *warn = malloc(FL_RETRY_WARNINGS);
  if (!warn) {
    snprintf(err, errlen, "out of memory");
    return FL_ENOMEM;
  }
  *interrupted = 0;
  int failed = 0, done = 0;
  for (int i = 0; i < c->nspec; i++)
    failed += res[i].done && res[i].status != FL_CAL_CONVERGED;
  for (int i = 0; i < c->nspec; i++) {
    fl_campaign_result *r = &res[i];
    int from[FL_CAMPAIGN_RETRIES], n, hold;
    if (!r->done || r->status == FL_CAL_CONVERGED)
      continue;
    n = donors(c, res, i, from);
    hold = r->undetermined >= 0; /* the last attempt: from its own start, that parameter held */
    if (!n && !hold)
      continue;
    snprintf(first, sizeof first, "%s", r->message);
    int won = -1;
    long spent = r->simulations; /* every attempt's runs count in the row's */
    for (int k = 0; k < n + hold && won < 0; k++) {
      if (o->cal.stop && *o->cal.stop) {
        *interrupted = 1;
        free(warn);
        return FL_OK;
      }
      fl_campaign_result t;
      memset(&t, 0, sizeof t);
      fl_campaign_retry_path(o->prefix, i, k < n ? k + 1 : FL_CAMPAIGN_RETRIES + 1, ckpath, sizeof ckpath);
      warn[0] = '\0';
      quiet.cal.no_hold = k < n;
      int rc = fl_campaign_fit_row(c, &quiet, i, k < n ? res[from[k]].value : NULL, ckpath, &t, &used, interrupted,
                                   warn, FL_RETRY_WARNINGS, err, errlen);
      if (rc || *interrupted) {
        fl_campaign_results_free(&t, 1);
        free(warn);
        return rc;
      }
      r->retries = k < n ? k + 1 : n;
      spent += t.simulations;
      r->simulations = spent;
      if (t.status == FL_CAL_CONVERGED) {
        won = k < n ? from[k] : i;
        t.retries = r->retries;
        t.simulations = spent;
        t.retried_from = c->spec[won].row;
        fl_campaign_results_free(r, 1);
        *r = t;
        if (o->cal.log)
          fputs(warn, o->cal.log);
      } else {
        fl_campaign_results_free(&t, 1);
      }
    }
    retry_message(c, r, first, from, n, won, i);
    op.res = res;
    fl_campaign_progress(c, &op, i, ++done, failed, t0, "retry");
  }
  free(warn);
  return FL_OK;
}
