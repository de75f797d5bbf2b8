/* dem_sheet.h: an experiment's bond values as the DEM package's parameter dialog asks
 * for them (the description in shared/seed: each field's name, unit and range), with
 * the particle size and the density to enter so that a segment weighs what fiberlab
 * weighs (fiberlab-campaign(5), THE PARAMETER SHEET).
 *
 * fiberlab weighs a segment as its (hollow) section over its bonded length h:
 *   m = rho pi (R^2 - R'^2) h.
 * The DEM package weighs each particle as the solid sphero-cylinder it is, a cylinder
 * of radius R and length h with two hemispherical caps:
 *   m_DEM = rho_DEM pi R^2 (h + 4 R / 3),
 * so the density to enter is
 *   rho_DEM = rho (1 - (R'/R)^2) h / (h + 4 R / 3). */
#ifndef FL_DEM_SHEET_H
#define FL_DEM_SHEET_H

#include <stdio.h>

#include "experiment.h"

#define FL_DEM_ROWS 24

/* One field of the dialog. */
typedef struct {
  const char *name;  /* as the dialog names it */
  const char *unit;  /* as the dialog gives it ("None" for a number without unit) */
  const char *range; /* as the dialog gives it */
  const char *key;   /* the fiberlab key it comes from ("" for the particle rows) */
  char value[64];    /* the number (shortest decimal that reads back), or the option's name */
} fl_dem_row;

typedef struct {
  int n;
  fl_dem_row row[FL_DEM_ROWS];
  double particle_radius;    /* R, m */
  double cylinder_length;    /* h, m */
  double density_fiberlab;   /* rho, kg/m^3 */
  double density_dem;        /* rho_DEM, kg/m^3 */
  double segment_mass;       /* rho pi (R^2 - R'^2) h, kg */
} fl_dem_sheet;

/* The sheet of a finished experiment (fl_experiment_finish). */
int fl_dem_sheet_make(const fl_experiment *exp, fl_dem_sheet *sh);
/* As aligned text (source: the experiment file it describes, for the heading) and as
 * CSV (name,unit,range,value,fiberlab_key). */
int fl_dem_sheet_write_text(FILE *f, const fl_dem_sheet *sh, const char *source);
int fl_dem_sheet_write_csv(FILE *f, const fl_dem_sheet *sh);
#endif
