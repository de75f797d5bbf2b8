/* system.h: a batch of identical-geometry fiber specimens as rigid bodies, bonds and
 * test tools, laid out for the hot loop.  Geometry (masses, bond definitions) is stored
 * once; state (positions, velocities, bond damping state, contact history) once per
 * specimen, at index specimen * count + i. */
#ifndef FL_SYSTEM_H
#define FL_SYSTEM_H

#include <stddef.h>

#include "bond.h"
#include "contact.h"

#define FL_MAX_TOOLS 4

/* A point load on one body (the cantilever's tip): a dead force along dir, plus a
 * spring along dir whose far end (the anchor) a test moves, acting at the body-fixed
 * point arm.  The spring drives a displacement through the load a free end takes: its
 * point of application moves freely across dir and turns freely. */
typedef struct {
  int body;      /* body it acts on, -1: none */
  fl_vec3 arm;   /* point of application from the body's centre, body frame, m */
  fl_vec3 dir;   /* unit direction of the load, world */
  double force;  /* dead load along dir, N */
  double spring; /* stiffness of the driving spring along dir, N/m (0: none) */
  double anchor; /* the spring's far end along dir, from the point's position at rest, m */
} fl_point_load;

/* Rows of the bond pass's loads: the force on body 1 (N), the torques on body 1 and
 * body 2 about their centres (N m), the elastic energy (J). */
enum fl_load_row {
  FL_LOAD_FX = 0, FL_LOAD_T1X = 3, FL_LOAD_T2X = 6, FL_LOAD_E = 9, FL_LOAD_ROWS = 10
};

/* Rows of the bond definitions as the vectorised law reads them (fl_bond_inline_def):
 * r1, r2, q0, side 1's k_shear and k_axial - k_shear, side 2's, the series twist and
 * bending stiffnesses, and 1 where fl_bond_is_inline accepts the definition (0: the
 * bond takes fl_bond_eval). */
enum fl_def_row {
  FL_DEF_R1 = 0, FL_DEF_R2 = 3, FL_DEF_Q0 = 6, FL_DEF_KS1 = 10, FL_DEF_KD1 = 11, FL_DEF_KS2 = 12, FL_DEF_KD2 = 13,
  FL_DEF_KT = 14, FL_DEF_KB = 15, FL_DEF_OK = 16, FL_DEF_ROWS = 17
};

/* Rows of the bond state that every step of the common bond reads and writes, kept
 * apart from fl_bond_state: the damping force and torque (fl_bond_state's fd and td,
 * body-1 frame), and 1 where the bond is neither broken, yielded nor buckled (0: the
 * step takes it through fl_bond_eval).  The engine moves the damping state on in these
 * rows alone; fl_system_states_get and fl_system_states_put give and take whole
 * states. */
enum fl_state_row { FL_STATE_FD = 0, FL_STATE_TD = 3, FL_STATE_LIVE = 6, FL_STATE_ROWS = 7 };

/* Rows of the free bodies' step (fl_body_quotients), per body i, shared by specimens. */
enum fl_body_row { FL_BODY_DTM = 0, FL_BODY_DTI, FL_BODY_RIT, FL_BODY_DI, FL_BODY_DTDI, FL_BODY_ROWS };

/* Instruction sets of the engine's vectorised loops (each gives the same bits). */
enum fl_isa {
  FL_ISA_AUTO = 0,  /* the widest the processor runs */
  FL_ISA_BASE = 1,  /* the compiler's baseline (x86-64: SSE2, 2 doubles a vector) */
  FL_ISA_AVX2 = 2,  /* 4 doubles a vector */
  FL_ISA_AVX512 = 3 /* 8 doubles a vector */
};

enum fl_motion {
  FL_FREE = 0,        /* integrated */
  FL_GRIP_FIXED = 1,  /* held still */
  FL_GRIP_MOVING = 2  /* moved by the test (translation along x, rotation about x) */
};

typedef struct {
  /* sizes */
  int nspec;  /* specimens */
  int nbody;  /* bodies per specimen */
  int nbond;  /* bonds per specimen */
  int ntool;  /* tools (shared by all specimens) */

  /* per body i, shared by specimens */
  double *mass;          /* kg */
  double *inertia_axial; /* about the body x axis, kg m^2 */
  double *inertia_trans; /* about any axis across it, kg m^2 */
  double *half_length;   /* half the cylinder part (bonded length / 2), m */
  double *radius;        /* outer radius, m */
  unsigned char *motion; /* enum fl_motion */
  /* the body step's quotients for time step body_dt (enum fl_body_row): row r at
   * body_row + r * nbody.  Made with the bond lists and again when dt changes; after
   * writing mass or inertias directly (not through fl_system_set_segment) set
   * adj_ready to 0 */
  double *body_row;
  double body_dt;        /* s */
  fl_vec3 *x_ref;        /* position at t = 0, m */
  fl_quat *q_ref;        /* orientation at t = 0 */

  /* per specimen and body, index s * nbody + i */
  fl_vec3 *x;     /* m */
  fl_quat *q;     /* body -> world */
  fl_vec3 *v;     /* m/s, at the half step */
  fl_vec3 *w;     /* rad/s, world */
  fl_vec3 *L;     /* angular momentum, world, kg m^2/s */
  fl_vec3 *f;     /* force of the current step, N */
  fl_vec3 *t;     /* torque about the centre, N m */

  /* per bond b, shared: the body indices */
  int *b1, *b2;
  /* per specimen and bond, index s * nbond + b: definitions (specimens of a batch may
   * differ in stiffness; set them through fl_system_bond_chain, or after writing them
   * directly set adj_ready to 0) and state */
  fl_bond *bond;
  fl_bond_state *bstate; /* fd and td are 0 here: the damping state lives in state_row */
  /* the bonds' damping state and live flags (enum fl_state_row): row r of specimen s at
   * state_row + (s * FL_STATE_ROWS + r) * nbond.  The live row follows bstate's flags
   * (the step keeps it, and so does fl_system_adjacency, for flags written directly) */
  double *state_row;

  /* each body's bonds, built once from b1, b2 (fl_system_reset, or the first step after
   * fl_system_bond_chain): body i's are adj_bond[adj_start[i] .. adj_start[i + 1]), in
   * ascending bond order, the order the loads are summed in */
  int *adj_start;          /* nbody + 1 */
  int *adj_bond;           /* 2 nbond */
  unsigned char *adj_side; /* 1: the body is the bond's body 1; 2: its body 2 */
  int adj_ready;           /* 0: b1, b2 or the definitions changed since the list was built */
  int adj_ordered;         /* 1: each body's last bond never decreases with the body's
                            * index (a chain): a body is done once the bond pass has
                            * passed its last bond */
  int adj_chain;           /* 1: bond b joins bodies b and b + 1, for every b */

  /* the bond definitions as the vectorised law reads them, built with the bond lists:
   * structure of arrays, row r (enum fl_def_row) of specimen s at bond_def + (s' *
   * FL_DEF_ROWS + r) * nbond, where s' is s, or 0 for every specimen when all have the
   * same definitions (def_shared 1) */
  double *bond_def;
  int def_shared;
  int def_uniform; /* 1: in each set every bond has the first one's q0 and stiffnesses
                    * (a straight fiber of one section), so the law reads those rows'
                    * first column alone, and r1, r2 bond by bond (their digits vary
                    * with the bond's place) */

  /* the bond pass's results, for the body pass to gather: structure of arrays, row r
   * of specimen s at bond_load + (s * FL_LOAD_ROWS + r) * nbond (enum fl_load_row) */
  double *bond_load;
  fl_vec3 *tool_share;   /* force of body i on tool k, index (s * nbody + i) * ntool + k, N */

  /* tools and their contacts */
  fl_tool tool[FL_MAX_TOOLS];
  fl_contact_law *law;  /* per specimen and tool, index s * ntool + k */
  fl_vec3 *xi;          /* tangential history, index (s * nbody + i) * ntool + k */
  fl_vec3 *tool_force;  /* force the specimen exerts on tool k, index s * ntool + k, N */

  /* grips: the moving grip's displacement along x and rotation about x */
  double grip_disp;     /* m */
  double grip_angle;    /* rad */
  double grip_speed;    /* m/s */
  double grip_omega;    /* rad/s */
  fl_vec3 *grip_force;  /* load the specimen puts on the moving grip, index s, N */
  fl_vec3 *grip_torque; /* about the fiber axis through the origin, index s, N m */

  /* time stepping */
  double dt;              /* s */
  fl_bond_damping *damping; /* per specimen */
  fl_bond_limits *limits;   /* per specimen: elastic limit and post-failure behaviour */
  int inline_law;         /* 1 (default): the common bond through the vectorised law;
                           * 0: every bond through fl_bond_eval (the same results) */
  double *buckle_phi;     /* NULL (default), or nbond values each for specimen 0 (the static */
  double *buckle_m;       /* solver's own system): with plastic buckling, an advancing pass of
                           * the vectorised law writes each bond's total bending angle (rad) and
                           * its moment's size (N m), whose fl_buckling_plastic_use is its
                           * buckling utilisation; an angle NaN for a bond it did not serve */
  double phi_seen;        /* the static solver's own system: the largest bending angle the
                           * vectorised law served with plastic buckling, any pass, rad */
  int inline_static;      /* 1: the static solver's own system, whose undamped evaluations and
                           * bonds below plastic buckling also take the vectorised law
                           * (engine.c, inline_pass); 0 (default) for every other */
  int isa;               /* enum fl_isa of the vectorised loops (FL_ISA_AUTO by default; a
                           * set the processor lacks falls back to the widest it has) */
  int threads;            /* OpenMP threads (1: serial): over the specimens of a batch
                           * when there are at least as many, else over the bonds and
                           * bodies of each specimen; results do not depend on it */
  fl_vec3 gravity;        /* acceleration of the free bodies, m/s^2 */
  double *strain_energy;  /* bond elastic energy of the last step, per specimen, J */
  long step;              /* steps taken */
  double *overlap;        /* largest tool contact overlap seen, per specimen, m */
  int *nbroken;           /* bonds broken or buckled so far, per specimen: the events that
                           * release stored energy and set the specimen ringing */
  long envelope_reads;    /* the static solver's own system (inline_static): bonds with a
                           * buckling envelope evaluated through fl_bond_eval, which may read
                           * the envelope past its buckling point; the vectorised law reads
                           * only its phi_b and kb (static/beginnings.c) */

  /* the point load (fl_point_load; body -1 when the test has none), the same for every
   * specimen, and what it did in each */
  fl_point_load pload;
  double *pload_force;    /* load applied along pload.dir in the last evaluation, per specimen, N */
} fl_system;

/* The displacement along dir of the point P of body (x, q) a point load acts at, from
 * its rest position p_ref (m), and P's arm from the centre, world. */
FL_HD static inline double fl_point_load_travel(const fl_point_load *pl, fl_vec3 x, fl_quat q, fl_vec3 p_ref,
                                                fl_vec3 *arm_world)
{
  *arm_world = fl_qrot(q, pl->arm);
  return fl_dot(fl_sub(fl_add(x, *arm_world), p_ref), pl->dir);
}

/* The load along dir at that displacement: force + spring (anchor - displacement). */
FL_HD static inline double fl_point_load_value(const fl_point_load *pl, fl_vec3 x, fl_quat q, fl_vec3 p_ref,
                                               fl_vec3 *arm_world)
{
  double u = fl_point_load_travel(pl, x, q, p_ref, arm_world);
  return pl->force + pl->spring * (pl->anchor - u);
}

/* Displacement along pload.dir of the load's point in specimen s from its rest
 * position, m (0 without a point load). */
double fl_system_pload_displacement(const fl_system *sys, int s);

int fl_system_alloc(fl_system *sys, int nspec, int nbody, int nbond, int ntool);
/* The instruction set the vectorised loops take for sys->isa on this processor. */
int fl_system_isa(const fl_system *sys);
void fl_system_free(fl_system *sys);

/* Section and mass of a straight hollow segment (fiberlab-model(7), Segments). */
typedef struct {
  double area;     /* m^2 */
  double inertia;  /* second moment I, m^4 */
  double polar;    /* J = 2 I, m^4 */
} fl_section;
fl_section fl_section_hollow(double r_out, double r_in);

/* Body i: mass and inertia of a hollow segment of bonded length h. */
void fl_system_set_segment(fl_system *sys, int i, double r_out, double r_in, double h, double density);
/* Bond b between bodies i and j, created at t = 0 at the point midway between their
 * centres, in every specimen (s < 0) or in specimen s alone. */
void fl_system_bond_chain(fl_system *sys, int s, int b, int i, int j, const fl_side_stiffness *s1,
                          const fl_side_stiffness *s2);
/* Copy the reference state (x_ref, q_ref, zero velocities) to every specimen. */
void fl_system_reset(fl_system *sys);

/* One explicit step: loads, contacts, integration, kinematic bodies.  Returns FL_OK, or
 * FL_EUNSTABLE with *bad_spec and *bad_bond set (bond -1: a body left the finite). */
int fl_system_step(fl_system *sys, int *bad_spec, int *bad_bond);

/* The host's bookkeeping of a step, written once for the CPU engine (fl_system_step)
 * and the CUDA engine (fl_gpu_step).  Before the step: the moving grip over it, from
 * grip_speed and grip_omega. */
typedef struct {
  double disp;  /* where the grip ends the step along x, m */
  double angle; /* and its angle about x, rad */
  fl_quat qg;   /* that turn about x */
  fl_vec3 wg;   /* its angular velocity, rad/s */
} fl_grip_motion;
fl_grip_motion fl_system_grip_motion(const fl_system *sys);
/* After the step: the grip where gm put it, the tools moved on at their velocities,
 * the step counted. */
void fl_system_step_end(fl_system *sys, const fl_grip_motion *gm);
/* The first bond with body i at an end (the bond an instability at body i is reported
 * at), or -1. */
int fl_system_body_bond(const fl_system *sys, int i);

/* Evaluate loads of the current state without advancing (f, t, strain_energy). */
void fl_system_loads(fl_system *sys, int advance_damping);
/* The body step's quotients (body_row) for the present dt. */
void fl_system_body_rows(fl_system *sys);
/* Build each body's list of bonds from b1, b2 (done by fl_system_reset and, when
 * needed, by the first step; the arrays are sized at allocation).  Returns FL_OK. */
int fl_system_adjacency(fl_system *sys);

/* The same for specimen s alone, on the calling thread; advance 1 also moves its
 * history on (damping state, plastic offsets, buckling and breakage, contact history,
 * nbroken, overlap). */
void fl_system_loads_specimen(fl_system *sys, int s, int advance);

/* A one-specimen system holding specimen s of src: geometry, tools, settings, and the
 * specimen's bonds, limits, contact laws and state.  FL_ENOMEM on failure. */
int fl_system_extract(const fl_system *src, int s, fl_system *dst);

/* Bodies for the X-macros of an array list (system.c's FL_SYSTEM_ARRAYS, static/workspace.c's
 * WORKSPACE_ARRAYS): FL_ARRAY_ALLOC points p at n zeroed elements and clears ok where
 * that fails; FL_ARRAY_COPY points dst at own, n elements of its own, and copies src's
 * n elements there. */
#define FL_ARRAY_ALLOC(p, n, ok) ((p) = calloc((n), sizeof *(p)), (ok) = (ok) && (p) != NULL)
#define FL_ARRAY_COPY(dst, own, src, n) ((dst) = (own), memcpy((dst), (src), (n) * sizeof *(dst)))

/* Copy everything src holds, definitions and state, into dst of the same sizes (both
 * from fl_system_alloc); dst keeps its own arrays and its buckle_phi and buckle_m
 * pointers.  FL_OK, or FL_EINPUT when the sizes differ. */
int fl_system_copy(fl_system *dst, const fl_system *src);

/* Row r (enum fl_state_row) of specimen s's bond state. */
static inline double *fl_system_state_row(const fl_system *sys, int s, int r)
{
  return sys->state_row + ((size_t)s * FL_STATE_ROWS + r) * sys->nbond;
}

/* Bond b of specimen s: its damping state from the rows into st->fd, st->td. */
static inline void fl_system_damp_get(const fl_system *sys, int s, int b, fl_bond_state *st)
{
  const double *d = fl_system_state_row(sys, s, 0);
  size_t n = (size_t)sys->nbond;
  const double *e = d + FL_STATE_TD * n;
  st->fd = fl_v3(d[b], d[n + b], d[2 * n + b]);
  st->td = fl_v3(e[b], e[n + b], e[2 * n + b]);
}

/* Bond b of specimen s: st's damping state and flags into the rows, st->fd and st->td
 * set to 0 (where a system's bstate keeps them). */
static inline void fl_system_damp_put(fl_system *sys, int s, int b, fl_bond_state *st)
{
  double *d = fl_system_state_row(sys, s, 0);
  size_t n = (size_t)sys->nbond;
  double *e = d + FL_STATE_TD * n;
  d[b] = st->fd.x, d[n + b] = st->fd.y, d[2 * n + b] = st->fd.z;
  e[b] = st->td.x, e[n + b] = st->td.y, e[2 * n + b] = st->td.z;
  d[FL_STATE_LIVE * n + b] = (st->broken | st->yielded | st->buckled) == 0 ? 1.0 : 0.0;
  st->fd = st->td = fl_v3(0.0, 0.0, 0.0);
}

/* Specimen s's bond states, whole (the damping state from the rows), into
 * st[0 .. nbond). */
void fl_system_states_get(const fl_system *sys, int s, fl_bond_state *st);
/* Specimen s's bond states from st[0 .. nbond): the damping state and flags into the
 * rows, the rest into bstate. */
void fl_system_states_put(fl_system *sys, int s, const fl_bond_state *st);
/* The damping state of specimen s's bonds set to 0. */
void fl_system_damping_clear(fl_system *sys, int s);

/* Broken and yielded bonds of specimen s. */
void fl_system_count(const fl_system *sys, int s, int *broken, int *yielded);

/* FL_EUNSTABLE with *bad_spec and *bad_bond (the bond before the body) set when a body
 * of some specimen lies farther than box from the origin, else FL_OK. */
int fl_system_outside(const fl_system *sys, double box, int *bad_spec, int *bad_bond);

/* Kinetic energy of specimen s (free bodies), J. */
double fl_system_kinetic(const fl_system *sys, int s);

/* Stability bound of the explicit step for specimen s, 2 / omega_max with the damping
 * reduction, s.  contact_stiffness: the largest tool contact stiffness expected, N/m
 * (0: none). */
double fl_system_critical_step(const fl_system *sys, int s, double a_damp, double stabilization,
                               double contact_stiffness);

/* Set dt, and the damping of every specimen (s < 0) or of specimen s alone. */
void fl_system_set_step(fl_system *sys, double dt);
void fl_system_set_damping(fl_system *sys, int s, double a_damp, double stabilization);

#endif
