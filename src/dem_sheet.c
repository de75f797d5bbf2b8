/* dem_sheet.c: the parameter sheet for the DEM package's dialog (dem_sheet.h). */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dem_sheet.h"
#include "fl_defs.h"
#include "output.h"

/* The dialog's names of fiberlab's options, in the order of the experiment's enums. */
static const char *const criterion_dialog[] = {"None", "Bending-caused stress", "Bending angle",
                                               "Axial stress from force and torque", "Stress from forces",
                                               "Von Mises stress"};
static const char *const post_dialog[] = {"Total breakage", "Constant torque (perfect plasticity)",
                                          "Constant force (perfect plasticity)",
                                          "Combined force and torque perfect plasticity"};
static const char *const buckling_dialog[] = {"None", "Buckling (reversible)", "Buckling with damage",
                                              "Buckling with plasticity"};

/* The shortest %g text that reads back as v. */
static void shortest(char *buf, size_t len, double v)
{
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(buf, len, "%.*g", prec, v);
    if (strtod(buf, NULL) == v)
      return;
  }
}

static void add(fl_dem_sheet *sh, const char *name, const char *unit, const char *range, const char *key, double v,
                const char *text)
{
  fl_dem_row *r = &sh->row[sh->n++];
  r->name = name;
  r->unit = unit;
  r->range = range;
  r->key = key;
  if (text)
    snprintf(r->value, sizeof r->value, "%s", text);
  else
    shortest(r->value, sizeof r->value, v);
}

int fl_dem_sheet_make(const fl_experiment *exp, fl_dem_sheet *sh)
{
  const fl_fiber_def *fb = &exp->fiber;
  const fl_bond_def *b = &exp->bond;
  memset(sh, 0, sizeof *sh);
  double R = fb->outer_radius_m, ratio = fb->inner_radius_ratio, h = fb->length_m / fb->segments;
  sh->particle_radius = R;
  sh->cylinder_length = h;
  sh->density_fiberlab = fb->density;
  sh->segment_mass = fb->density * FL_PI * R * R * (1.0 - ratio * ratio) * h;
  sh->density_dem = fb->density * (1.0 - ratio * ratio) * h / (h + 4.0 * R / 3.0);
  add(sh, "Force Stiffness Scaling Factor", "None", "[0.0 to inf)", "bond.force_stiffness_scale", b->force_stiffness_scale,
      NULL);
  add(sh, "Torque Stiffness Scaling Factor", "None", "[0.0 to inf)", "bond.torque_stiffness_scale",
      b->torque_stiffness_scale, NULL);
  add(sh, "Damping coefficient", "s", "[0.0 to inf)", "bond.damping", b->damping, NULL);
  add(sh, "Damping stabilization parameter", "None", "[0.0 to inf)", "bond.damping_stabilization",
      b->damping_stabilization, NULL);
  add(sh, "Inner radius - Outer radius ratio", "None", "[0.0 to 1.0)", "fiber.inner_radius_ratio", ratio, NULL);
  add(sh, "Failure start criterion", "", "option", "bond.failure.criterion", 0,
      criterion_dialog[b->failure.criterion]);
  int crit = b->failure.criterion != FL_CRIT_NONE;
  add(sh, "Maximum stress", "Pa", "[0.0 to inf)", "bond.failure.max_stress", crit ? b->failure.max_stress : 0.0, NULL);
  add(sh, "Strength variation", "None", "[0.0 to inf)", "bond.failure.strength_variation",
      b->failure.strength_variation, NULL);
  add(sh, "Post-failure behavior", "", "option", "bond.failure.post_failure", 0,
      crit ? post_dialog[b->failure.post_failure] : "(ignored: criterion None)");
  int buck = b->buckling.type != FL_BUCKLING_NONE;
  add(sh, "Buckling type", "", "option", "bond.buckling.type", 0, buckling_dialog[b->buckling.type]);
  add(sh, "Sample length", "m", "(0.0 to inf)", "bond.buckling.sample_length", b->buckling.sample_length,
      buck ? NULL : "(not used)");
  add(sh, "Maximum force", "N", "(0.0 to inf)", "bond.buckling.max_force", b->buckling.max_force,
      buck ? NULL : "(not used)");
  add(sh, "Minimum force", "N", "[0.0 to Maximum force]", "bond.buckling.min_force", b->buckling.min_force,
      buck ? NULL : "(not used)");
  /* the description gives this field's unit as N; it is a displacement, in m */
  add(sh, "Displacement at minimum force", "m (the dialog says N)", "(0.0 to inf)",
      "bond.buckling.displacement_at_min_force", b->buckling.displacement_at_min_force, buck ? NULL : "(not used)");
  add(sh, "Slope after minimum force", "N/m", "(-inf to inf)", "bond.buckling.slope_after_min_force",
      b->buckling.slope_after_min_force, buck ? NULL : "(not used)");
  add(sh, "Particle radius (sphero-cylinder)", "m", "", "fiber.outer_radius", R, NULL);
  add(sh, "Particle cylinder length (centre spacing)", "m", "", "fiber.length / fiber.segments", h, NULL);
  add(sh, "Particle total length (with both caps)", "m", "", "", h + 2.0 * R, NULL);
  add(sh, "Particle density to enter (solid sphero-cylinder)", "kg/m^3", "", "", sh->density_dem, NULL);
  add(sh, "Segment mass (fiberlab and DEM package alike)", "kg", "", "", sh->segment_mass, NULL);
  return FL_OK;
}

int fl_dem_sheet_write_text(FILE *f, const fl_dem_sheet *sh, const char *source)
{
  fprintf(f, "Parameter sheet for the DEM package's fiber bond dialog (fiberlab %s)\n", PACKAGE_VERSION);
  fprintf(f, "from %s\n\n", source);
  fprintf(f, "%-50s  %-22s  %-22s  %-24s  %s\n", "Field", "Unit", "Range", "Value", "fiberlab key");
  for (int i = 0; i < sh->n; i++) {
    const fl_dem_row *r = &sh->row[i];
    fprintf(f, "%-50s  %-22s  %-22s  %-24s  %s\n", r->name, *r->unit ? r->unit : "-", *r->range ? r->range : "-",
            r->value, *r->key ? r->key : "-");
  }
  fprintf(f, "\nThe density: fiberlab weighs a segment as its section over its centre spacing h,\n"
             "m = rho pi (R^2 - R'^2) h = %.6g kg; the DEM package weighs the solid sphero-cylinder,\n"
             "rho_DEM pi R^2 (h + 4 R / 3), so rho_DEM = rho (1 - (R'/R)^2) h / (h + 4 R / 3)\n"
             "= %.6g kg/m^3 (fiberlab's rho = %.6g kg/m^3).  See fiberlab-campaign(5).\n",
          sh->segment_mass, sh->density_dem, sh->density_fiberlab);
  return ferror(f) ? FL_EIO : FL_OK;
}

int fl_dem_sheet_write_csv(FILE *f, const fl_dem_sheet *sh)
{
  fprintf(f, "name,unit,range,value,fiberlab_key\n");
  for (int i = 0; i < sh->n; i++) {
    const fl_dem_row *r = &sh->row[i];
    const char *cells[5] = {r->name, r->unit, r->range, r->value, r->key};
    for (int k = 0; k < 5; k++) {
      if (k)
        fputc(',', f);
      fl_csv_field(f, cells[k]);
    }
    fputc('\n', f);
  }
  return ferror(f) ? FL_EIO : FL_OK;
}
