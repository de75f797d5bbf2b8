/* shape.h: a specimen's rest shape and its sections along the fiber: straight, an arc
 * or a scanned polyline in the bending plane (x, y), with a taper, a table of sections
 * against arc length, and nodes of their own section and material
 * (fiberlab-experiment(5), SHAPE AND SECTIONS).  The builder places its bodies from an
 * fl_shape; the loader checks the files with the same code. */
#ifndef FL_SHAPE_H
#define FL_SHAPE_H

#include <stddef.h>

#include "experiment.h"
#include "vec.h"

/* The largest rest angle between two bonded segments, rad: a sharper kink folds the
 * segments' surfaces into each other. */
#define FL_SHAPE_MAX_TURN (45.0 * FL_PI / 180.0)

/* The rest state of n bodies along the fiber, body i at arc length s[i]. */
typedef struct {
  int n;            /* bodies */
  double h;         /* arc length of one segment, m */
  double *s;        /* arc length of each centre from the fiber's start, m */
  fl_vec3 *x;       /* centres, m: the chord between the fiber's ends along x, centred at 0 */
  fl_quat *q;       /* orientations: body x axis along the chord across the segment, z out of the plane */
  double *r_out;    /* outer radius, m */
  double *ratio;    /* inner radius ratio R'/R */
  double *modulus;  /* a node's Young's modulus, Pa (shear modulus in proportion); 0: the fiber's */
  double *strength; /* a node's max_stress, Pa; 0: the fiber's (bond.failure.max_stress) */
  int varies;       /* 1: a taper, a table or nodes (the sections are not all the fiber's) */
  int curved;       /* 1: arc or polyline */
} fl_shape;

/* The rest shape of n bodies of length h, centred on the fiber's middle (body i at
 * arc length L/2 + (i - (n - 1)/2) h), from fb (after fl_experiment_finish).  Reads the
 * polyline, section table and nodes files; messages name the file and line and what is
 * allowed.  max_stress: bond.failure.max_stress where a node may set its own (criterion
 * bending_stress), else 0.  FL_OK, FL_EINPUT, FL_EIO or FL_ENOMEM. */
int fl_shape_make(const fl_fiber_def *fb, int n, double h, double max_stress, fl_shape *sh, char *err,
                  size_t errlen);
void fl_shape_free(fl_shape *sh);

/* Turn and move a curved shape in its plane so that the centres of its end segments lie
 * on the x axis, the first at -x and the last at +x, their midpoint at the origin: the
 * line a tension test pulls along and a torsion test turns about, its grips holding
 * the end segments as they lie. */
void fl_shape_align_ends(fl_shape *sh);

/* Arc length of the polyline of fb (the fiber's length), m. */
int fl_shape_polyline_length(const fl_fiber_def *fb, double *length, char *err, size_t errlen);

/* Centre of a tool cylinder (axis along z, radius tool_radius) at abscissa x touching
 * the shape's segments (outer radii radius[i]) from below (side -1) or above (+1): the
 * first segment it meets coming from that side. */
fl_vec3 fl_shape_tool_place(const fl_shape *sh, const double *radius, double x, double tool_radius, int side);

/* 1 when fb has a shape or sections beyond the straight uniform fiber. */
int fl_shape_nontrivial(const fl_fiber_def *fb);

#endif
