/* lammps.h: the export of an experiment to LAMMPS (lammps.c): the specimen as fiberlab
 * builds it, one sphere a segment and bond_style bpm/rotational between neighbours, in
 * a data file, and an input script that runs the same test (fiberlab-model(7), LAMMPS). */
#ifndef FL_LAMMPS_H
#define FL_LAMMPS_H

#include <stddef.h>

#include "bond.h"
#include "experiment.h"
#include "files.h"

/* A critical load that no fiber reaches: a limit LAMMPS's criterion leaves out. */
#define FL_LAMMPS_NO_LIMIT 1e30

/* The twelve coefficients of one bpm/rotational bond type, in bond_coeff's order. */
typedef struct {
  double kr, ks;     /* normal and shear stiffness, N/m */
  double kt, kb;     /* twist and bending stiffness, N m/rad */
  double fr_c, fs_c; /* critical normal and shear force, N */
  double tt_c, tb_c; /* critical twisting and bending moment, N m */
  double g_n, g_s;   /* normal and sliding damping, N s/m */
  double g_r, g_t;   /* rolling and twisting damping, N s and N m s */
} fl_lammps_coeffs;

/* The coefficients of the two-sided bond bd: each stiffness the series of its two
 * sides', the damping a_damp (s) times them (the rolling and twisting ones scaled to
 * LAMMPS's form of the torques), and the critical loads of lim's criterion at the
 * bond's strength factor (FL_LAMMPS_NO_LIMIT where the criterion has none). */
fl_lammps_coeffs fl_lammps_bond(const fl_bond *bd, const fl_bond_limits *lim, double strength, double a_damp);

/* What an export wrote. */
typedef struct {
  char data[FL_OUTPUT_PATH];  /* PREFIX.lmp.data */
  char input[FL_OUTPUT_PATH]; /* PREFIX.lmp.in */
  char table[FL_OUTPUT_PATH]; /* PREFIX.lmp.csv, the table the input makes LAMMPS write */
  int atoms, bonds;           /* spheres and bonds of the data file */
  int bond_types;             /* distinct coefficient sets */
  int levels;                 /* positions of the loading path held to equilibrium */
  double time_step;           /* the input's, s */
} fl_lammps_export_info;

/* Before anything is built: FL_OK when PREFIX.lmp.data and PREFIX.lmp.in are free to
 * write (no input among them, the prefix not too long, and a name a LAMMPS command
 * takes as it is), else FL_EINPUT with err. */
int fl_lammps_prepare(const char *prefix, char *err, size_t errlen);

/* Build specimen 0 of exp (its strengths drawn by its seed) and write PREFIX.lmp.data and
 * PREFIX.lmp.in, together or not at all (files.h); source names the experiment file and
 * program the program, for the files' comments.  FL_OK, FL_EINPUT (a test or a
 * specimen LAMMPS's input cannot hold, with err), FL_ENOMEM or FL_EIO. */
int fl_lammps_export(const fl_experiment *exp, const char *prefix, const char *source, const char *program,
                     fl_lammps_export_info *info, char *err, size_t errlen);

/* What of exp does not carry over to LAMMPS, one line each into buf (truncated to len);
 * returns how many. */
int fl_lammps_caveats(const fl_experiment *exp, char *buf, size_t len);

#endif
