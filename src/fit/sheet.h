/* sheet.h: a calibration's parameter sheet for the DEM package (dem_sheet.h): the
 * calibrated experiment's values, each fitted one with its standard error, the status
 * of the fit as the sheet's first line (converged, did not converge, failed, with the
 * reason), R^2 and the rows used of the rows given, and what the buckling envelope's
 * numbers produce in the calibrating test (the features of fl_calibration_features,
 * measured and fitted). */
#ifndef FL_FIT_SHEET_H
#define FL_FIT_SHEET_H

#include "dem_sheet.h"
#include "fit.h"

/* The sheet of cal, a calibration of fit that has a report (fl_calibrate returned FL_OK,
 * whatever its status). */
int fl_calibration_sheet(const fl_fit *fit, const fl_calibration *cal, fl_dem_sheet *sh);

#endif
