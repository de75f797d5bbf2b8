/* sheet.c: a calibration's parameter sheet (sheet.h). */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sheet.h"
#include "fl_defs.h"

/* The first line of a message, at most len - 1 bytes. */
static void first_line(const char *msg, char *buf, size_t len)
{
  size_t n = strcspn(msg, "\n");
  if (n >= len)
    n = len - 1;
  memcpy(buf, msg, n);
  buf[n] = '\0';
}

/* The features of the calibrating test's drop beside the envelope's numbers. */
static void features(const fl_fit *fit, const fl_calibration *cal, fl_dem_sheet *sh)
{
  const fl_calibration_features *ft = &cal->features;
  if (ft->item < 0)
    return;
  static const char *const name[3] = {"Kink displacement (the peak before the drop)", "Peak force", "Plateau level"};
  static const char *const unit[3] = {"m", "N", "N"};
  for (int k = 0; k < 3; k++) {
    fl_dem_row *r = fl_dem_sheet_add(sh, "calibrating test", name[k], unit[k], ft->fitted_found ? ft->fitted[k] : NAN,
                                     NULL);
    if (!r)
      return;
    r->has_measured = 1;
    r->measured = ft->measured[k];
    snprintf(r->note, sizeof r->note, "of %.120s: the fitted curve's%s beside the measured one (fiber-calibrate(1), "
             "features)", fit->data[ft->item].file, ft->fitted_found ? "" : " (it has no drop)");
  }
}

int fl_calibration_sheet(const fl_fit *fit, const fl_calibration *cal, fl_dem_sheet *sh)
{
  int rc = fl_dem_sheet_make(&cal->calibrated, sh);
  long used = 0, given = 0;
  for (int d = 0; d < fit->ndata; d++) {
    used += fit->data[d].data.n;
    given += fit->data[d].kind == FL_FIT_CURVE ? fit->data[d].rows_read : fit->data[d].data.n;
  }
  char msg[400], fig[160];
  first_line(cal->message, msg, sizeof msg);
  snprintf(fig, sizeof fig, "R^2 %.4f over %ld of %ld rows; %d iterations, %ld simulations", cal->r_squared, used,
           given, cal->iterations, cal->simulations);
  char held[512] = "";
  for (int j = 0, m = 0; j < cal->nfree; j++)
    if (cal->held[j] && m < (int)sizeof held)
      m += snprintf(held + m, sizeof held - (size_t)m, "%s%.120s", m ? ", " : "", fit->free[j].path);
  if (cal->status == FL_CAL_CONVERGED && held[0])
    fl_dem_sheet_status(sh, "Status: converged in part: %s held, without influence on these data (undetermined: "
                        "its value here is not a calibration); %s", held, fig);
  else if (cal->status == FL_CAL_CONVERGED)
    fl_dem_sheet_status(sh, "Status: converged; %s", fig);
  else if (cal->status == FL_CAL_MAX_ITERATIONS)
    fl_dem_sheet_status(sh, "Status: did not converge (%s); the values are the last point's; %s",
                        msg[0] ? msg : "the iteration limit was reached", fig);
  else
    fl_dem_sheet_status(sh, "Status: FAILED (%s); the values are the best point's, not a calibration; %s",
                        msg[0] ? msg : "no reason given", fig);
  for (int j = 0; j < cal->nfree; j++) {
    const char *key = fit->free[j].path;
    if (fl_dem_sheet_std_error(sh, key, cal->std_error[j]))
      continue;
    /* a fitted key the DEM package has no field for: its own row */
    const char *unit = fl_experiment_key_unit(key);
    fl_dem_row *r = fl_dem_sheet_add(sh, "other fitted", key, unit && *unit ? unit : "None", cal->value[j], NULL);
    if (r) {
      snprintf(r->key, sizeof r->key, "%s", key);
      r->spread = FL_DEM_SPREAD_SE;
      r->se = cal->std_error[j];
    }
  }
  features(fit, cal, sh);
  static const char *const names[] = {"converged", "max_iterations", "failed"};
  fl_dem_row *r = fl_dem_sheet_add(sh, "fit", "Status", "", 0.0, names[cal->status]);
  if (r)
    snprintf(r->note, sizeof r->note, "%.250s", msg);
  fl_dem_sheet_add(sh, "fit", "R^2 (all curve rows)", "None", cal->r_squared, NULL);
  fl_dem_sheet_add(sh, "fit", "Rows used", "None", (double)used, NULL);
  fl_dem_sheet_add(sh, "fit", "Rows given", "None", (double)given, NULL);
  fl_dem_sheet_add(sh, "fit", "Iterations", "None", cal->iterations, NULL);
  r = fl_dem_sheet_add(sh, "fit", "Simulations", "None", (double)cal->simulations, NULL);
  return rc ? rc : r ? FL_OK : FL_ELIMIT;
}
