/* dem_sheet.h: an experiment's values as a DEM package asks for them, the parameter sheet
 * (fiberlab-campaign(5), THE PARAMETER SHEET): the material (moduli, Poisson's ratio,
 * the density to enter, the effective moduli a_rot E and a_disp E), the particle (a
 * sphero-cylinder: radius, cylinder length, caps), the fields of the package's fiber bond
 * dialog under the dialog's names, and the strength in the package's convention.  A
 * calibration (fit/sheet.h) or a campaign (campaign.h) adds its status, which becomes the
 * sheet's first line, each value's standard error or population spread, and what the
 * values produce in the calibrating test.
 *
 * fiberlab weighs a segment as its (hollow) section over its bonded length h:
 *   m = rho pi (R^2 - R'^2) h.
 * The DEM package weighs each particle as the solid sphero-cylinder it is, a cylinder
 * of radius R and length h with two hemispherical caps:
 *   m_DEM = rho_DEM pi R^2 (h + 4 R / 3),
 * so the density to enter is
 *   rho_DEM = rho (1 - (R'/R)^2) h / (h + 4 R / 3).
 * fiberlab takes a bond's bending stress at the outer fibre a (an ellipse's semi-axis in
 * the loading plane, man 7 Elastic limits); the package's round particle takes it at its
 * radius R, so the same yield moment needs max_stress R / a there. */
#ifndef FL_DEM_SHEET_H
#define FL_DEM_SHEET_H

#include <stdio.h>

#include "experiment.h"

#define FL_DEM_ROWS 192
#define FL_DEM_TEXT 112

/* What a row's number comes with. */
enum fl_dem_spread {
  FL_DEM_SPREAD_NONE = 0, /* a value as given */
  FL_DEM_SPREAD_SE = 1,   /* a fitted value and its standard error */
  FL_DEM_SPREAD_POP = 2   /* a population's centre and its spread over the specimens */
};

/* One row: a field of the dialog, of the material or the particle, or a figure. */
typedef struct {
  const char *section;    /* "material", "particle", "bond dialog", "strength", ... */
  char name[FL_DEM_TEXT]; /* the dialog's name of the field, or what the row holds */
  const char *unit;       /* the dialog's unit ("None": a number without unit; "": text) */
  const char *range;      /* the dialog's range ("": none) */
  char key[128];          /* the experiment key that takes value as -s KEY=VALUE ("": derived) */
  int numeric;            /* 1: value is the row's number; 0: text is its value */
  double value;           /* SI, degrees for angles */
  char text[FL_DEM_TEXT]; /* a text value: an option's fiberlab name, a status */
  char shown[FL_DEM_TEXT]; /* how the text sheet shows it when not the number: the dialog's
                           * name of an option, "(not used)" ("": the number) */
  int spread;             /* enum fl_dem_spread */
  double se;              /* FL_DEM_SPREAD_SE: standard error (NAN: not determined) */
  double sd, p05, p95;    /* FL_DEM_SPREAD_POP: sd and 5th and 95th percentiles */
  int has_measured;       /* 1: measured is the measured figure this row's value simulates */
  double measured;
  char note[256];         /* how the value is derived or converted */
  const char *src[2];     /* keys value is a product of powers of (standard errors carried) */
  double src_pow[2];
} fl_dem_row;

typedef struct {
  char status[768];          /* the first line: what the values are and how far to trust them */
  int n;
  fl_dem_row row[FL_DEM_ROWS];
  double particle_radius;    /* R, m */
  double cylinder_length;    /* h, m */
  double density_fiberlab;   /* rho, kg/m^3 */
  double density_dem;        /* rho_DEM, kg/m^3 */
  double segment_mass;       /* rho pi (R^2 - R'^2) h, kg */
  double outer_fibre;        /* a, m: where fiberlab takes the bending stress */
  double stress_factor;      /* the package's max_stress over fiberlab's (R / a, or 1) */
} fl_dem_sheet;

/* The package's max_stress over fiberlab's for exp: R / a where the criterion takes the
 * stress at the outer fibre (bending_stress, and the bending part of axial_stress and
 * von_mises), 1 otherwise. */
double fl_dem_stress_factor(const fl_experiment *exp);
/* The sheet of a finished experiment (fl_experiment_finish), its status "an experiment
 * as given". */
int fl_dem_sheet_make(const fl_experiment *exp, fl_dem_sheet *sh);
/* The first line (a printf format). */
void fl_dem_sheet_status(fl_dem_sheet *sh, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A row added at the end: a number (text NULL) or a text; NULL when the sheet is full. */
fl_dem_row *fl_dem_sheet_add(fl_dem_sheet *sh, const char *section, const char *name, const char *unit, double value,
                             const char *text);
/* The row of section and name, or NULL. */
fl_dem_row *fl_dem_sheet_find(fl_dem_sheet *sh, const char *section, const char *name);
/* The standard error se of the value of key: on its rows, and carried to the rows derived
 * from it (a product of powers: relative errors add in quadrature, as for independent
 * factors).  Returns the rows set. */
int fl_dem_sheet_std_error(fl_dem_sheet *sh, const char *key, double se);
/* A row's number as the text sheet shows it: the value to the digits its standard error
 * or spread supports (two significant digits of it), or six significant digits. */
void fl_dem_sheet_shown(const fl_dem_row *r, char *buf, size_t len);
/* As aligned text (source: the experiment file it describes, for the heading) and as CSV
 * (its first line the status as a # comment; then section, name, unit, range, value at
 * full precision, std_error, sd, p05, p95, measured, shown, fiberlab_key, note). */
int fl_dem_sheet_write_text(FILE *f, const fl_dem_sheet *sh, const char *source);
int fl_dem_sheet_write_csv(FILE *f, const fl_dem_sheet *sh);
#endif
