/* build.h: building a batch of specimens (build.c); fl_build and fl_build_many are
 * declared in run.h.  Each test kind lays its specimen out and places its tools, grips
 * and loads on it (src/kind/); the builder does the rest. */
#ifndef FL_BUILD_H
#define FL_BUILD_H

#include "run.h"

/* A pinned bond (a compression test's end bonds) keeps this fraction of its bending
 * stiffness (none would leave its two sides' shares undefined), its axial, shear and
 * twist stiffness whole. */
#define FL_HINGE_BEND 1e-9

/* A rigid clamp face (a cantilever's): the bond at the face takes on its clamped side
 * this many times its free side's stiffnesses, so that the bond is the free half
 * segment's alone (to 1 part in FL_CLAMP_RIGID) and the clamped half neither bends,
 * shears, twists nor stretches: the chain bends as a beam of the free length from the
 * clamp's face (fiber-cantilever(1)). */
#define FL_CLAMP_RIGID 1e6

/* How a test kind lays its specimen out along the fiber: the bodies, and which of them
 * the grips or the clamp hold (fl_motion): the first ngrip held still, the next nfree
 * free, the rest moved by the test. */
typedef struct {
  int nbody;  /* bodies (segments) per specimen */
  int ngrip;  /* bodies the fixed grip or the clamp holds, at the fiber's start */
  int nfree;  /* free bodies after them; the bodies after those are the moving grip's */
  int ntool;  /* tools: supports and noses */
  int chord;  /* 1: a curved fiber is turned so that its end segments lie on the x axis
               * (fl_shape_align_ends: the grips pull along, and turn about, that chord) */
  int pinned; /* 1: the end bonds are pins (FL_HINGE_BEND of their bending stiffness) */
  int rigid_face; /* 1: the bond after the ngrip held bodies is clamped rigidly on their
                   * side (FL_CLAMP_RIGID) */
} fl_test_layout;

/* fl_build_many for specimens [first, first + nspec) of a batch whose geometry, test
 * and simulation come from lead (its exps[0]): strengths are drawn by the batch's
 * specimen numbers, so a block of an MPI-spread batch builds what the whole batch
 * would. */
int fl_build_block(const fl_experiment *lead, const fl_experiment *const *exps, int nspec, int first,
                   fl_system *sys, fl_build_info *info);

#endif
