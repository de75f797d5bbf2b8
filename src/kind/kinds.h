/* kinds.h: the functions of each test kind (src/kind/), as the builder, the
 * measurements and the checks call them. */
#ifndef FL_KINDS_H
#define FL_KINDS_H

#include <stddef.h>

#include "build.h"
#include "experiment_keys.h"
#include "shape.h"

/* ---- bending: 3- and 4-point (bend.c) ---- */
int fl_bend_layout(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info);
double fl_bend_place(const fl_experiment *exp, const fl_experiment *const *exps, int nspec, const fl_shape *sh,
                     fl_system *sys, fl_build_info *info);
int fl_bend3pt_check_shape(const fl_exp_checker *c, const fl_shape *sh);
int fl_bend3pt_check(const fl_exp_checker *c);
int fl_bend4pt_check(const fl_exp_checker *c);
void fl_bend3pt_warn(fl_exp_warner *w);
void fl_bend3pt_warn_fiber(fl_exp_warner *w);

/* ---- tension and torsion (grips.c) ---- */
int fl_grips_layout(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info);
double fl_grips_place(const fl_experiment *exp, const fl_experiment *const *exps, int nspec, const fl_shape *sh,
                      fl_system *sys, fl_build_info *info);
int fl_grips_check(const fl_exp_checker *c);
void fl_grips_warn(fl_exp_warner *w);

/* ---- cantilever (cantilever.c) ---- */
int fl_cantilever_layout(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info);
int fl_cantilever_settle(fl_exp_checker *c);

/* ---- compression (compression.c) ---- */
int fl_compression_layout(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info);
double fl_compression_place(const fl_experiment *exp, const fl_experiment *const *exps, int nspec, const fl_shape *sh,
                            fl_system *sys, fl_build_info *info);
int fl_compression_check(const fl_exp_checker *c);
/* The rest shape (x_ref, q_ref), before the bonds are made in it: the grip segments
 * along x at the ends, and between the hinges (the bond points next to them, a pinned
 * length (n - 2) h apart) the free segments as chords of the half sine
 * y = test.imperfection (n - 2) h sin(pi s / ((n - 2) h)), s from the first hinge. */
void fl_compression_shape(const fl_experiment *exp, fl_system *sys, double h);
/* The lateral deflection (along y) of specimen s's axis at midspan from its place at
 * rest, m. */
double fl_compression_lateral(const fl_system *sys, int s);

#endif
