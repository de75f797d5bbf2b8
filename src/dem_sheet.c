/* dem_sheet.c: the parameter sheet for the DEM package (dem_sheet.h): its rows from an
 * experiment, the standard errors and spreads they carry, and the text and CSV. */
#include <config.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dem_sheet.h"
#include "fl_defs.h"
#include "output.h"

#define DEG (FL_PI / 180.0)

/* An option as fiberlab's YAML names it and as the dialog does, in the order of the
 * experiment's enums. */
typedef struct {
  const char *fiberlab, *dialog;
} option_name;

static const option_name criterion_opt[] = {{"none", "None"},
                                            {"bending_stress", "Bending-caused stress"},
                                            {"bending_angle", "Bending angle"},
                                            {"axial_stress", "Axial stress from force and torque"},
                                            {"force_stress", "Stress from forces"},
                                            {"von_mises", "Von Mises stress"}};
static const option_name post_opt[] = {{"total_breakage", "Total breakage"},
                                       {"constant_torque", "Constant torque (perfect plasticity)"},
                                       {"constant_force", "Constant force (perfect plasticity)"},
                                       {"combined_plasticity", "Combined force and torque perfect plasticity"}};
static const option_name buckling_opt[] = {{"none", "None"},
                                           {"reversible", "Buckling (reversible)"},
                                           {"damage", "Buckling with damage"},
                                           {"plastic", "Buckling with plasticity"}};

/* The shortest %g text that reads back as v. */
static void shortest(char *buf, size_t len, double v)
{
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(buf, len, "%.*g", prec, v);
    if (strtod(buf, NULL) == v)
      return;
  }
}

fl_dem_row *fl_dem_sheet_add(fl_dem_sheet *sh, const char *section, const char *name, const char *unit, double value,
                             const char *text)
{
  if (sh->n >= FL_DEM_ROWS)
    return NULL;
  fl_dem_row *r = &sh->row[sh->n++];
  memset(r, 0, sizeof *r);
  r->section = section;
  snprintf(r->name, sizeof r->name, "%s", name);
  r->unit = unit;
  r->range = "";
  r->se = r->sd = r->p05 = r->p95 = NAN;
  if (text) {
    snprintf(r->text, sizeof r->text, "%s", text);
    r->value = NAN;
  } else {
    r->numeric = 1;
    r->value = value;
  }
  return r;
}

fl_dem_row *fl_dem_sheet_find(fl_dem_sheet *sh, const char *section, const char *name)
{
  for (int i = 0; i < sh->n; i++)
    if (strcmp(sh->row[i].section, section) == 0 && strcmp(sh->row[i].name, name) == 0)
      return &sh->row[i];
  return NULL;
}

void fl_dem_sheet_status(fl_dem_sheet *sh, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sh->status, sizeof sh->status, fmt, ap);
  va_end(ap);
  for (char *p = sh->status; *p; p++) /* one line, whatever a message held */
    if (*p == '\n' || *p == '\r')
      *p = ' ';
}

/* A number of the dialog: name, unit, range, the key it comes from ("": derived). */
static fl_dem_row *field(fl_dem_sheet *sh, const char *section, const char *name, const char *unit, const char *range,
                         const char *key, double v)
{
  fl_dem_row *r = fl_dem_sheet_add(sh, section, name, unit, v, NULL);
  if (r) {
    r->range = range;
    snprintf(r->key, sizeof r->key, "%s", key);
  }
  return r;
}

/* An option of the dialog: the fiberlab name is the value, the dialog's name is shown. */
static void option(fl_dem_sheet *sh, const char *name, const char *key, const option_name *o, const char *shown)
{
  fl_dem_row *r = fl_dem_sheet_add(sh, "bond dialog", name, "", 0.0, o->fiberlab);
  if (!r)
    return;
  r->range = "option";
  snprintf(r->key, sizeof r->key, "%s", key);
  snprintf(r->shown, sizeof r->shown, "%s", shown ? shown : o->dialog);
}

static void note(fl_dem_row *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(fl_dem_row *r, const char *fmt, ...)
{
  if (!r)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->note, sizeof r->note, fmt, ap);
  va_end(ap);
}

/* Derived row r is the product of powers of the values of keys a and b (b NULL: a alone). */
static void derived(fl_dem_row *r, const char *a, double pa, const char *b, double pb)
{
  if (!r)
    return;
  r->src[0] = a;
  r->src_pow[0] = pa;
  r->src[1] = b;
  r->src_pow[1] = pb;
}

static void not_used(fl_dem_row *r, const char *why)
{
  if (!r)
    return;
  r->key[0] = '\0';
  snprintf(r->shown, sizeof r->shown, "%s", why);
}

static void material(fl_dem_sheet *sh, const fl_experiment *exp)
{
  const fl_fiber_def *fb = &exp->fiber;
  const fl_bond_def *b = &exp->bond;
  double E = fb->youngs_modulus, G = fb->shear_modulus;
  fl_dem_row *r = field(sh, "material", "Young's modulus", "Pa", "(0.0 to inf)", "fiber.youngs_modulus", E);
  note(r, "the E of the bond stiffnesses (man 7, Bond creation); the fit determines a_rot E, not E alone");
  r = field(sh, "material", "Shear modulus", "Pa", "(0.0 to inf)", fb->shear_given ? "fiber.shear_modulus" : "", G);
  if (!fb->shear_given)
    note(r, "E / (2 (1 + nu)) from Poisson's ratio");
  r = field(sh, "material", "Poisson's ratio", "None", "(-1.0 to 0.5]", fb->poisson_given ? "fiber.poisson_ratio" : "",
            fb->poisson_given ? fb->poisson_ratio : E / (2.0 * G) - 1.0);
  if (!fb->poisson_given)
    note(r, "E / (2 G) - 1 from the shear modulus");
  field(sh, "material", "Density (fiberlab: the hollow section over h)", "kg/m^3", "(0.0 to inf)", "fiber.density",
        fb->density);
  r = field(sh, "material", "Density to enter (solid sphero-cylinder)", "kg/m^3", "(0.0 to inf)", "", sh->density_dem);
  note(r, "rho (1 - (R'/R)^2) h / (h + 4 R / 3): the particle weighs fiberlab's segment");
  field(sh, "material", "Segment mass (fiberlab and DEM package alike)", "kg", "", "", sh->segment_mass);
  r = field(sh, "material", "Effective bending modulus a_rot E", "Pa", "", "", b->torque_stiffness_scale * E);
  note(r, "what a bending curve fixes, with E (E also sets the shear stiffness); a package that holds E' keeps it "
          "with Torque Stiffness Scaling Factor a_rot E / E'");
  derived(r, "bond.torque_stiffness_scale", 1.0, "fiber.youngs_modulus", 1.0);
  r = field(sh, "material", "Effective axial modulus a_disp E", "Pa", "", "", b->force_stiffness_scale * E);
  note(r, "what a tension curve fixes; a package that holds E' takes Force Stiffness Scaling Factor a_disp E / E'");
  derived(r, "bond.force_stiffness_scale", 1.0, "fiber.youngs_modulus", 1.0);
  r = field(sh, "material", "Effective torsion modulus a_rot G", "Pa", "", "", b->torque_stiffness_scale * G);
  note(r, "what a torsion curve fixes; with E' and the same Poisson's ratio, a_rot E / E' keeps it too");
  derived(r, "bond.torque_stiffness_scale", 1.0, fb->shear_given ? "fiber.shear_modulus" : "fiber.youngs_modulus", 1.0);
  if (exp->test.contact == FL_CONTACT_HERTZ && exp->test.contact_modulus > 0.0 && fl_test_bends(exp->test.kind)) {
    r = field(sh, "material", "Contact modulus (Hertz)", "Pa", "(0.0 to inf)", "test.contact_modulus",
              exp->test.contact_modulus);
    note(r, "the specimen's modulus across its section, where the rig's tools pressed it (man 7, Tool contacts): the "
            "particle's Young's modulus in its Hertz contacts, for a package that sets it apart from the bonds' E");
  }
}

static void particle(fl_dem_sheet *sh, const fl_experiment *exp)
{
  const fl_fiber_def *fb = &exp->fiber;
  double R = sh->particle_radius, h = sh->cylinder_length;
  int ell = fb->section == FL_SECTION_ELLIPSE;
  fl_dem_row *r = fl_dem_sheet_add(sh, "particle", "Particle shape", "", 0.0, "sphero-cylinder");
  if (r)
    snprintf(r->shown, sizeof r->shown, "sphero-cylinder: a cylinder of radius R, length h, two half spheres");
  if (ell) {
    r = field(sh, "particle", "Section semi-axis a (loading plane, outer fibre)", "m", "", "fiber.semi_axis_y",
              fb->semi_axis_y_m);
    r = field(sh, "particle", "Section semi-axis b (across the loading plane)", "m", "", "fiber.semi_axis_z",
              fb->semi_axis_z_m);
    if (fb->inner_semi_axis_y_m > 0.0) {
      field(sh, "particle", "Hollow semi-axis a'", "m", "", "fiber.inner_semi_axis_y", fb->inner_semi_axis_y_m);
      field(sh, "particle", "Hollow semi-axis b'", "m", "", "fiber.inner_semi_axis_z", fb->inner_semi_axis_z_m);
    }
  }
  r = field(sh, "particle", "Particle radius R (sphero-cylinder)", "m", "(0.0 to inf)", ell ? "" : "fiber.outer_radius",
            R);
  if (ell) {
    note(r, "the round section of the ellipse's I_z (man 7, Sections): (a^3 b)^(1/4) for a solid one");
    if (!(fb->inner_semi_axis_y_m > 0.0))
      derived(r, "fiber.semi_axis_y", 0.75, "fiber.semi_axis_z", 0.25);
  }
  if (fb->outer_radius_end_m > 0.0 || fb->section_table[0] || fb->nodes[0])
    note(r, "at the fiber's start: the section varies along it (see the experiment); one particle radius a segment");
  field(sh, "particle", "Fiber length", "m", "(0.0 to inf)", fb->shape == FL_SHAPE_POLYLINE ? "" : "fiber.length",
        fb->length_m);
  field(sh, "particle", "Segments (particles a fiber)", "None", "[2 to inf)", "fiber.segments", fb->segments);
  r = field(sh, "particle", "Particle cylinder length h (centre spacing)", "m", "(0.0 to inf)", "", h);
  note(r, "fiber.length / fiber.segments");
  r = field(sh, "particle", "Particle total length (with both caps)", "m", "", "", h + 2.0 * R);
  note(r, "h + 2 R");
}

/* The dialog's failure fields, and fiberlab's max_stress beside the one to enter. */
static void failure(fl_dem_sheet *sh, const fl_experiment *exp)
{
  const fl_failure_def *fd = &exp->bond.failure;
  int crit = fd->criterion != FL_CRIT_NONE;
  option(sh, "Failure start criterion", "bond.failure.criterion", &criterion_opt[fd->criterion], NULL);
  int stress = crit && fd->criterion != FL_CRIT_BENDING_ANGLE;
  fl_dem_row *r = field(sh, "bond dialog", "Maximum stress", "Pa", "[0.0 to inf)", "",
                        stress ? fd->max_stress * sh->stress_factor : 0.0);
  if (!stress)
    not_used(r, crit ? "(not used: criterion Bending angle)" : "(not used: criterion None)");
  else if (sh->stress_factor != 1.0)
    note(r, "bond.failure.max_stress x R / a = x %.6g: the package takes the stress at R, fiberlab at a%s",
         sh->stress_factor, fd->criterion == FL_CRIT_BENDING_STRESS ? "" : " (exact in the bending part)");
  else
    note(r, "bond.failure.max_stress: %s", fd->criterion == FL_CRIT_FORCE_STRESS ? "no radius in the criterion"
                                                                                 : "R = a, one convention");
  derived(r, "bond.failure.max_stress", 1.0, NULL, 0.0);
  if (fd->criterion == FL_CRIT_BENDING_ANGLE)
    field(sh, "bond dialog", "Maximum bending angle", "deg", "[0.0 to 180.0]", "bond.failure.max_bending_angle",
          fd->max_bending_angle / DEG);
  r = field(sh, "bond dialog", "Strength variation", "None", "[0.0 to inf)", "bond.failure.strength_variation",
            fd->strength_variation);
  if (!crit)
    not_used(r, "(not used: criterion None)");
  option(sh, "Post-failure behavior", "bond.failure.post_failure", &post_opt[fd->post_failure],
         crit ? NULL : "(ignored: criterion None)");
}

static void buckling(fl_dem_sheet *sh, const fl_experiment *exp)
{
  const fl_buckling_def *bk = &exp->bond.buckling;
  int used = bk->type != FL_BUCKLING_NONE;
  option(sh, "Buckling type", "bond.buckling.type", &buckling_opt[bk->type], NULL);
  fl_dem_row *r[5];
  r[0] = field(sh, "bond dialog", "Sample length", "m", "(0.0 to inf)", "bond.buckling.sample_length", bk->sample_length);
  r[1] = field(sh, "bond dialog", "Maximum force", "N", "(0.0 to inf)", "bond.buckling.max_force", bk->max_force);
  r[2] = field(sh, "bond dialog", "Minimum force", "N", "[0.0 to Maximum force]", "bond.buckling.min_force",
               bk->min_force);
  /* the description gives this field's unit as N; it is a displacement, in m */
  r[3] = field(sh, "bond dialog", "Displacement at minimum force", "m", "(0.0 to inf)",
               "bond.buckling.displacement_at_min_force", bk->displacement_at_min_force);
  note(r[3], "a displacement, in m, though the dialog's description gives its unit as N");
  r[4] = field(sh, "bond dialog", "Slope after minimum force", "N/m", "(-inf to inf)",
               "bond.buckling.slope_after_min_force", bk->slope_after_min_force);
  if (!used)
    for (int k = 0; k < 5; k++)
      not_used(r[k], "(not used)");
  else
    note(r[1], "the envelope's, of the lab test it describes (man 7, Buckling): the curve's peak is lower or "
               "higher, see the calibrating test");
  if (used && exp->sim.viscoelastic && exp->bond.damping > 0.0)
    note(r[2], "fitted with the envelope capping a buckled bond's Maxwell element with its spring (man 7, THE STATIC "
               "SOLVER, History); a package that adds the damping after the envelope (MODEL.md section 5) carries "
               "the element's moment on the plateau too, up to a_damp times the bond's bending stiffness times its "
               "rate of bending, relaxing in a_damp s = %.3g s",
         exp->bond.damping * exp->bond.damping_stabilization);
}

double fl_dem_stress_factor(const fl_experiment *exp)
{
  enum fl_criterion c = exp->bond.failure.criterion;
  double a = fl_fiber_outer_fibre(&exp->fiber);
  int at_radius = c == FL_CRIT_BENDING_STRESS || c == FL_CRIT_AXIAL_STRESS || c == FL_CRIT_VON_MISES;
  return at_radius && a > 0.0 ? exp->fiber.outer_radius_m / a : 1.0;
}

int fl_dem_sheet_make(const fl_experiment *exp, fl_dem_sheet *sh)
{
  const fl_fiber_def *fb = &exp->fiber;
  const fl_bond_def *b = &exp->bond;
  memset(sh, 0, sizeof *sh);
  fl_dem_sheet_status(sh, "Status: an experiment as given (not calibrated)");
  double R = fb->outer_radius_m, ratio = fb->inner_radius_ratio, h = fb->length_m / fb->segments;
  sh->particle_radius = R;
  sh->cylinder_length = h;
  sh->density_fiberlab = fb->density;
  sh->segment_mass = fb->density * FL_PI * R * R * (1.0 - ratio * ratio) * h;
  sh->density_dem = fb->density * (1.0 - ratio * ratio) * h / (h + 4.0 * R / 3.0);
  sh->outer_fibre = fl_fiber_outer_fibre(fb);
  sh->stress_factor = fl_dem_stress_factor(exp);
  enum fl_criterion c = b->failure.criterion;
  material(sh, exp);
  particle(sh, exp);
  fl_dem_row *r = field(sh, "bond dialog", "Force Stiffness Scaling Factor", "None", "[0.0 to inf)",
                        "bond.force_stiffness_scale", b->force_stiffness_scale);
  r = field(sh, "bond dialog", "Torque Stiffness Scaling Factor", "None", "[0.0 to inf)", "bond.torque_stiffness_scale",
            b->torque_stiffness_scale);
  note(r, "a_rot: means nothing without the Young's modulus it multiplies (see a_rot E)");
  r = field(sh, "bond dialog", "Damping coefficient", "s", "[0.0 to inf)", "bond.damping", b->damping);
  if (exp->sim.viscoelastic)
    note(r, "the material's viscoelasticity, from curves at the lab's speed (simulation.viscoelastic): the bond's rate "
            "response, not a numerical damping; keep it");
  r = field(sh, "bond dialog", "Damping stabilization parameter", "None", "[0.0 to inf)", "bond.damping_stabilization",
            b->damping_stabilization);
  if (exp->sim.viscoelastic && b->damping > 0.0)
    note(r, "the Maxwell spring 1/s times the bond's stiffness, relaxing in a_damp s = %.3g s",
         b->damping * b->damping_stabilization);
  r = field(sh, "bond dialog", "Inner radius - Outer radius ratio", "None", "[0.0 to 1.0)",
            fb->section == FL_SECTION_ELLIPSE ? "" : "fiber.inner_radius_ratio", ratio);
  if (fb->section == FL_SECTION_ELLIPSE)
    note(r, "R'/R of the round equivalent of the ellipse");
  failure(sh, exp);
  buckling(sh, exp);
  r = field(sh, "strength", "Maximum stress, fiberlab's convention (at the outer fibre a)", "Pa", "[0.0 to inf)",
            c != FL_CRIT_NONE && c != FL_CRIT_BENDING_ANGLE ? "bond.failure.max_stress" : "",
            b->failure.max_stress);
  if (c == FL_CRIT_NONE || c == FL_CRIT_BENDING_ANGLE)
    not_used(r, "(not used)");
  r = field(sh, "strength", "Outer-fibre distance a", "m", "", "", sh->outer_fibre);
  note(r, "fiber.semi_axis_y of an ellipse, R of a round section");
  r = field(sh, "strength", "Conversion to the package's stress, R / a", "None", "", "", sh->stress_factor);
  note(r, "1 where the criterion takes no radius or R = a");
  return sh->n < FL_DEM_ROWS ? FL_OK : FL_ELIMIT;
}

/* ---- errors and spreads --------------------------------------------------------------- */

int fl_dem_sheet_std_error(fl_dem_sheet *sh, const char *key, double se)
{
  int set = 0;
  double v = NAN;
  for (int i = 0; i < sh->n; i++) {
    fl_dem_row *r = &sh->row[i];
    if (r->numeric && strcmp(r->key, key) == 0) {
      r->spread = FL_DEM_SPREAD_SE;
      r->se = se;
      v = r->value;
      set++;
    }
  }
  if (!set)
    return 0;
  for (int i = 0; i < sh->n; i++) {
    fl_dem_row *r = &sh->row[i];
    for (int k = 0; k < 2; k++) {
      if (!r->numeric || !r->src[k] || strcmp(r->src[k], key) != 0 || r->key[0])
        continue;
      /* relative errors of independent factors in quadrature */
      double rel = r->src_pow[k] * se / v, prev = r->spread == FL_DEM_SPREAD_SE ? r->se / r->value : 0.0;
      r->spread = FL_DEM_SPREAD_SE;
      r->se = fabs(r->value) * sqrt(prev * prev + rel * rel);
      set++;
    }
  }
  return set;
}

/* ---- showing a number ------------------------------------------------------------------ */

/* v with its last digit at 10^place, as the mantissa of 10^k (k FIXED: fixed point). */
#define FIXED (-1000)
static void put_at(char *buf, size_t len, double v, int place, int k)
{
  if (k != FIXED) {
    int d = k - place;
    snprintf(buf, len, "%.*f", d > 0 ? d : 0, v / pow(10.0, k));
  } else if (place >= 0) {
    double u = pow(10.0, place);
    snprintf(buf, len, "%.0f", round(v / u) * u);
  } else {
    snprintf(buf, len, "%.*f", -place, v);
  }
}

/* The exponent to show v in: FIXED for magnitudes a fixed point reads well. */
static int exponent_of(double v, double spread)
{
  double a = fabs(v) > 0.0 ? fabs(v) : spread;
  if (!(a > 0.0) || (a >= 1e-2 && a < 1e5))
    return FIXED;
  return (int)floor(log10(a));
}

void fl_dem_sheet_shown(const fl_dem_row *r, char *buf, size_t len)
{
  if (!r->numeric || r->shown[0]) {
    snprintf(buf, len, "%s", r->shown[0] ? r->shown : r->text);
    return;
  }
  double v = r->value, e = r->spread == FL_DEM_SPREAD_SE ? r->se : r->spread == FL_DEM_SPREAD_POP ? r->sd : NAN;
  char a[48], b[48], c[48], d[48], m[64] = "";
  if (r->has_measured)
    snprintf(m, sizeof m, " (measured %.4g)", r->measured);
  if (!isfinite(v)) {
    snprintf(buf, len, "%s%s", isnan(v) ? "-" : v > 0 ? "inf" : "-inf", m);
    return;
  }
  if (!(e > 0.0) || !isfinite(e)) {
    snprintf(a, sizeof a, r->has_measured ? "%.4g" : "%.6g", v);
    const char *why = r->spread == FL_DEM_SPREAD_SE ? (e == 0.0 ? " (exact)" : " (standard error not determined)")
                      : r->spread == FL_DEM_SPREAD_POP ? " (no spread)" : "";
    snprintf(buf, len, "%s%s%s", a, why, m);
    return;
  }
  /* two significant digits of the error or spread, and at least two of the value */
  int place = (int)floor(log10(e)) - 1, k = exponent_of(v, e);
  const char *undetermined = "";
  if (v != 0.0 && e > fabs(v)) {
    place = (int)floor(log10(fabs(v))) - 1;
    undetermined = r->spread == FL_DEM_SPREAD_SE ? " (not determined: the error exceeds the value)" : "";
  }
  char ex[16] = "";
  if (k != FIXED)
    snprintf(ex, sizeof ex, "e%d", k);
  put_at(a, sizeof a, v, place, k);
  put_at(b, sizeof b, e, place, k);
  if (r->spread == FL_DEM_SPREAD_SE) {
    snprintf(buf, len, k != FIXED ? "(%s +- %s)%s%s%s" : "%s +- %s%s%s%s", a, b, ex, undetermined, m);
    return;
  }
  put_at(c, sizeof c, r->p05, place, k);
  put_at(d, sizeof d, r->p95, place, k);
  snprintf(buf, len, "%s%s (sd %s%s; 5%% %s%s, 95%% %s%s)%s", a, ex, b, ex, c, ex, d, ex, m);
}

/* ---- the files --------------------------------------------------------------------------- */

int fl_dem_sheet_write_text(FILE *f, const fl_dem_sheet *sh, const char *source)
{
  fprintf(f, "%s\n", sh->status);
  fprintf(f, "Parameter sheet for the DEM package (fiberlab %s), from %s\n", PACKAGE_VERSION, source);
  fprintf(f, "Values in SI; the CSV beside this file keeps every value at full precision.\n");
  const char *section = "";
  char shown[256];
  for (int i = 0; i < sh->n; i++) {
    const fl_dem_row *r = &sh->row[i];
    if (strcmp(r->section, section) != 0) {
      section = r->section;
      fprintf(f, "\n[%s]\n%-52s  %-14s  %-22s  %-40s  %s\n", section, "Field", "Unit", "Range", "Value",
              "fiberlab key or how it is derived");
    }
    fl_dem_sheet_shown(r, shown, sizeof shown);
    fprintf(f, "%-52s  %-14s  %-22s  %-40s  %s%s%s\n", r->name, *r->unit ? r->unit : "-", *r->range ? r->range : "-",
            shown, r->key[0] ? r->key : "", r->key[0] && r->note[0] ? "; " : "", r->note);
  }
  fprintf(f, "\nThe density: fiberlab weighs a segment as its section over its centre spacing h,\n"
             "m = rho pi (R^2 - R'^2) h = %.6g kg; the DEM package weighs the solid sphero-cylinder,\n"
             "rho_DEM pi R^2 (h + 4 R / 3), so rho_DEM = rho (1 - (R'/R)^2) h / (h + 4 R / 3)\n"
             "= %.6g kg/m^3 (fiberlab's rho = %.6g kg/m^3).\n",
          sh->segment_mass, sh->density_dem, sh->density_fiberlab);
  fprintf(f, "The strength: fiberlab takes the bending stress at the outer fibre a = %.6g m, the package's\n"
             "round particle at its radius R = %.6g m: enter max_stress x R / a (x %.6g).\n",
          sh->outer_fibre, sh->particle_radius, sh->stress_factor);
  fprintf(f, "The stiffness: a_rot and a_disp scale the E (and G) above: enter E with them.  A package\n"
             "that holds another E' keeps a_rot E and a_disp E with a_rot' = a_rot E / E', a_disp' = a_disp E / E'\n"
             "(its shear stiffness then changes by E' / E: on a short span, refit with E').\n"
             "See fiberlab-campaign(5), THE PARAMETER SHEET.\n");
  return ferror(f) ? FL_EIO : FL_OK;
}

/* A number at full precision ("" when nan, as a CSV reader takes a missing value). */
static void csv_number(FILE *f, double v)
{
  char buf[40];
  if (isnan(v))
    return;
  shortest(buf, sizeof buf, v);
  fputs(buf, f);
}

int fl_dem_sheet_write_csv(FILE *f, const fl_dem_sheet *sh)
{
  fputs("# ", f);
  fputs(sh->status, f);
  fprintf(f, "\nsection,name,unit,range,value,std_error,sd,p05,p95,measured,shown,fiberlab_key,note\n");
  char shown[256];
  for (int i = 0; i < sh->n; i++) {
    const fl_dem_row *r = &sh->row[i];
    const char *head[4] = {r->section, r->name, r->unit, r->range};
    for (int k = 0; k < 4; k++) {
      fl_csv_field(f, head[k]);
      fputc(',', f);
    }
    if (r->numeric && !r->shown[0])
      csv_number(f, r->value);
    else if (!r->numeric)
      fl_csv_field(f, r->text);
    fputc(',', f);
    if (r->spread == FL_DEM_SPREAD_SE)
      csv_number(f, r->se);
    fputc(',', f);
    double pop[3] = {r->sd, r->p05, r->p95};
    for (int k = 0; k < 3; k++) {
      if (r->spread == FL_DEM_SPREAD_POP)
        csv_number(f, pop[k]);
      fputc(',', f);
    }
    if (r->has_measured)
      csv_number(f, r->measured);
    fputc(',', f);
    fl_dem_sheet_shown(r, shown, sizeof shown);
    fl_csv_field(f, shown);
    fputc(',', f);
    fl_csv_field(f, r->key);
    fputc(',', f);
    fl_csv_field(f, r->note);
    fputc('\n', f);
  }
  return ferror(f) ? FL_EIO : FL_OK;
}
