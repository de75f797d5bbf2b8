/* compression.h: the compression test (fiber-compression(1)): a fiber pinned between
 * two grips, bowed at rest by a small imperfection, pushed past its buckling load. */
#ifndef FL_COMPRESSION_H
#define FL_COMPRESSION_H

#include "experiment.h"
#include "system.h"

/* The pins: the bonds between each grip's segment and the fiber keep this fraction of
 * their bending stiffness (none would leave their two sides' shares undefined), their
 * axial, shear and twist stiffness whole. */
#define FL_HINGE_BEND 1e-9

/* The rest shape (x_ref, q_ref), before the bonds are made in it: the grip segments
 * along x at the ends, and between the hinges (the bond points next to them, a pinned
 * length (n - 2) h apart) the free segments as chords of the half sine
 * y = test.imperfection (n - 2) h sin(pi s / ((n - 2) h)), s from the first hinge. */
void fl_compression_shape(const fl_experiment *exp, fl_system *sys, double h);

/* The lateral deflection (along y) of specimen s's axis at midspan from its place at
 * rest, m. */
double fl_compression_lateral(const fl_system *sys, int s);

#endif
