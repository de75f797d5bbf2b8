/* bond.h: the elastic and damped fiber bond of MODEL.md sections 2-5.
 *
 * One source for the CPU and the CUDA engine: plain structs and FL_HD static inline
 * functions, no allocation, no I/O.  Elastic law, damping and the per-side load
 * resolution are separate functions, and fl_bond_eval() evaluates one bond in
 * isolation, which is the seam the unit tests use. */
#ifndef FL_BOND_H
#define FL_BOND_H

#include "contact.h"
#include "vec.h"

/* Failure start criteria (MODEL.md section 6), in YAML order. */
enum fl_criterion {
  FL_CRIT_NONE = 0, FL_CRIT_BENDING_STRESS, FL_CRIT_BENDING_ANGLE, FL_CRIT_AXIAL_STRESS,
  FL_CRIT_FORCE_STRESS, FL_CRIT_VON_MISES
};
/* Behaviours beyond the limit (section 7), in YAML order. */
enum fl_post_failure {
  FL_POST_TOTAL_BREAKAGE = 0, FL_POST_CONSTANT_TORQUE, FL_POST_CONSTANT_FORCE,
  FL_POST_COMBINED_PLASTICITY
};

/* Kinds of buckling (section 8), in YAML order. */
enum fl_buckling { FL_BUCKLING_NONE = 0, FL_BUCKLING_REVERSIBLE, FL_BUCKLING_DAMAGE, FL_BUCKLING_PLASTIC };

/* The piecewise-linear moment-angle envelope of a buckling bond (section 8). */
typedef struct {
  int type;       /* enum fl_buckling */
  double kb;      /* the bond's bending stiffness, N m/rad */
  double m_max;   /* moment at the buckling point, N m */
  double m_min;   /* post-buckling plateau, N m */
  double phi_b;   /* angle at m_max (end of the elastic branch), rad */
  double phi_d;   /* end of the drop to m_min, rad */
  double phi_m;   /* end of the plateau, rad */
  double k_drop;  /* slope of the drop (positive number), N m/rad */
  double k_post;  /* slope beyond phi_m, N m/rad (may be negative; the moment stays >= 0) */
} fl_buckling_envelope;

/* The envelope from a 3-point bending test: span L (m), peak force fmax, minimum force
 * fmin (N), loading-edge displacement at the minimum umin (m), slope after it s (N/m);
 * kb the bond's bending stiffness and ei the beam's bending stiffness a_rot E I
 * (N m^2).  Midspan moment F L / 4, hinge angle 2 atan(2 u / L), drop slope 10 kb. */
FL_HD static inline fl_buckling_envelope fl_buckling_make(int type, double L, double fmax, double fmin, double umin,
                                                          double s, double kb, double ei)
{
  fl_buckling_envelope e;
  e.type = type;
  e.kb = kb;
  e.m_max = fmax * L / 4.0;
  e.m_min = fmin * L / 4.0;
  e.k_drop = 10.0 * kb;
  e.k_post = s * L * L / 16.0;
  e.phi_b = kb > 0.0 ? e.m_max / kb : 0.0;
  e.phi_d = e.phi_b + (e.m_max - e.m_min) / e.k_drop;
  double u_el = fmin * L * L * L / (48.0 * ei); /* what the elastic beam takes of umin */
  double hinge = 2.0 * atan(2.0 * (umin - u_el) / L) + (kb > 0.0 ? e.m_min / kb : 0.0);
  e.phi_m = hinge > e.phi_d ? hinge : e.phi_d;
  return e;
}

/* The envelope's moment at bending angle phi >= 0. */
FL_HD static inline double fl_buckling_moment(const fl_buckling_envelope *e, double phi)
{
  if (phi <= e->phi_b)
    return e->kb * phi;
  if (phi <= e->phi_d)
    return e->m_max - e->k_drop * (phi - e->phi_b);
  if (phi <= e->phi_m)
    return e->m_min;
  double m = e->m_min + e->k_post * (phi - e->phi_m);
  return m > 0.0 ? m : 0.0;
}

/* The post-buckling level: the plateau, then the envelope beyond phi_m. */
FL_HD static inline double fl_buckling_post(const fl_buckling_envelope *e, double phi)
{
  if (phi <= e->phi_m)
    return e->m_min;
  return fl_buckling_moment(e, phi);
}

/* Cross-section of one side, for the stress criteria. */
typedef struct {
  double radius;  /* outer radius R, m */
  double area;    /* A, m^2 */
  double inertia; /* I, m^4 */
  double polar;   /* J, m^4 */
  double kshape;  /* (R'^2 + R' R + R^2) / (R^2 + R'^2), shear peak factor */
} fl_side_section;

/* Elastic limit and what happens beyond it, shared by the bonds of a run. */
typedef struct {
  int criterion;          /* enum fl_criterion */
  int post;               /* enum fl_post_failure */
  int ignore_compression; /* compressive axial force counts as 0 */
  double max_stress;      /* Pa, before the per-bond strength factor */
  double max_angle;       /* rad, bending_angle, before the strength factor */
  fl_side_section sec1;   /* side 1 */
  fl_side_section sec2;   /* side 2 */
  fl_buckling_envelope buckling; /* type FL_BUCKLING_NONE: none */
  /* contact of a broken bond's two segments once they have separated */
  fl_contact_law pair_law; /* e_star 0: none */
  double hl1, hl2;         /* half cylinder lengths of the two sides' segments, m */
  double r1, r2;           /* their outer radii, m */
} fl_bond_limits;

/* Stiffness one side brings to the bond (already scaled by a_disp, a_rot). */
typedef struct {
  double k_axial; /* a_disp E A / d, N/m */
  double k_shear; /* a_disp G A / d, N/m */
  double k_twist; /* a_rot G J / d, N m/rad */
  double k_bend;  /* a_rot E I / d, N m/rad */
} fl_side_stiffness;

/* What is fixed at bond creation. */
typedef struct {
  fl_vec3 r1;             /* body-1 frame vector from centre 1 to the contact point, m */
  fl_vec3 r2;             /* body-2 frame vector from centre 2 to the contact point, m */
  fl_quat q0;             /* q2_0^-1 q1_0, relative orientation at creation */
  fl_side_stiffness s1;   /* side 1 */
  fl_side_stiffness s2;   /* side 2 */
  int oblique;            /* 1: the sides' axes were not in line at creation (tensor series) */
} fl_bond;

/* Side 2's unit axis at creation in body 1's frame, q0^-1 r2 / |r2|, and the bisector
 * of side 1's axis and side 2's reversed (both unit, body-1 frame).  Returns |a1 +
 * a2c|, 0 when the sides are in line. */
FL_HD static inline double fl_bond_axes0(const fl_bond *bd, fl_vec3 *a2c, fl_vec3 *e)
{
  fl_vec3 u1 = fl_scale(bd->r1, 1.0 / fl_norm(bd->r1));
  fl_vec3 u2 = fl_qrot(fl_qconj(bd->q0), bd->r2);
  u2 = fl_scale(u2, 1.0 / fl_norm(u2));
  fl_vec3 bis = fl_sub(u1, u2);
  double nb = fl_norm(bis);
  *a2c = u2;
  *e = nb > 0.0 ? fl_scale(bis, 1.0 / nb) : u1;
  return fl_norm(fl_add(u1, u2));
}

/* Damping shared by all bonds of a run. */
typedef struct {
  double a_damp; /* stiffness-proportional damping coefficient, s */
  double decay;  /* exp(-dt / (a_damp s)) of the Maxwell element; 0 for a plain dashpot */
  double dt;     /* the time step, s (for the contact history of broken bonds) */
} fl_bond_damping;

/* State a bond carries from step to step.  What every step of the common bond reads
 * (the damping state and the flags) comes first, in the first 64 bytes; the CPU engine
 * keeps fd and td in rows of its own (fl_system's state_row). */
typedef struct {
  fl_vec3 fd;      /* damping force on body 1, body-1 frame, N */
  fl_vec3 td;      /* damping torque on body 1, body-1 frame, N m */
  int broken;      /* 1 once broken (total_breakage) */
  int yielded;     /* 1 once the limit has been reached */
  int buckled;     /* 1 once past the buckling point */
  int separated;   /* broken, and its segments no longer overlap: they may touch again */
  fl_vec3 dp;      /* plastic displacement offset D_p, body-1 frame, m */
  fl_vec3 thp;     /* plastic rotation offset theta_p, body-1 frame, rad */
  fl_vec3 thy;     /* the part of theta_p a constant_torque yield left, body-1 frame, rad */
  double strength; /* this bond's strength factor 1 + cv N(0,1) (1: nominal) */
  double phi_max;  /* largest bending angle reached (buckling), rad */
  fl_vec3 xi;      /* tangential contact history of a separated pair, m */
} fl_bond_state;

/* Kinematic state of one rigid body. */
typedef struct {
  fl_vec3 x; /* centre, m */
  fl_quat q; /* orientation, body -> world */
  fl_vec3 v; /* velocity, m/s */
  fl_vec3 w; /* angular velocity, world, rad/s */
} fl_body;

/* Loads of one bond; body 2 receives -force and -moment, and moments of the forces
 * about each centre are included in torque1 and torque2. */
typedef struct {
  fl_vec3 force;   /* total force on body 1 (elastic + damping), N */
  fl_vec3 moment;  /* total pure moment on body 1 (elastic + damping), N m */
  fl_vec3 torque1; /* torque on body 1 about its centre, N m */
  fl_vec3 torque2; /* torque on body 2 about its centre, N m */
  fl_vec3 point;   /* bond point p* where both springs carry the same force, m */
  fl_vec3 axis;    /* bond axis (unit), side 1 turned by its share of the swing */
  fl_vec3 bend;    /* bending rotation vector theta_b b, rad */
  double twist;    /* twist angle psi about the axis, rad */
  double energy;   /* elastic energy, J */
} fl_bond_loads;

/* Intermediate geometry of the elastic evaluation, kept for damping. */
typedef struct {
  fl_mat3 rot1;     /* body 1's rotation matrix (body -> world) */
  fl_vec3 a1, a2;   /* side axes (unit, world), each from its centre to the contact point */
  fl_vec3 gap;      /* D = p1 - p2, m */
  fl_vec3 theta;    /* total relative rotation vector (bend + twist axis), rad */
  fl_sym3 k1, k2;   /* side stiffnesses in world, N/m */
  fl_sym3 s_inv;    /* (K1 + K2)^-1, m/N */
  int has_force;    /* 0 when K1 + K2 is singular (a_disp = 0) */
  double kt_eff;    /* series twist stiffness, N m/rad */
  double kb_eff;    /* series bending stiffness, N m/rad */
  int oblique;      /* 1: the moment law is the tensor series below */
  fl_sym3 q_eff;    /* oblique: Qeff = (Q1^-1 + Q2^-1)^-1 in world, N m/rad */
  fl_sym3 c_eff;    /* oblique: Qeff^-1 = Q1^-1 + Q2^-1, rad/(N m) */
  fl_vec3 twist_extra; /* in line: g - axis, with g = a1 + tan(theta_b / 2) b x a1 the
                        * direction the twist moment acts along (fl_bond_twist_carry) */
} fl_bond_work;

/* A bond created between two bodies at contact point c (world), MODEL.md section 2. */
FL_HD static inline fl_bond fl_bond_make(fl_vec3 x1, fl_quat q1, fl_vec3 x2, fl_quat q2, fl_vec3 c,
                                         fl_side_stiffness s1, fl_side_stiffness s2)
{
  fl_bond b;
  b.r1 = fl_qrot_inv(q1, fl_sub(c, x1));
  b.r2 = fl_qrot_inv(q2, fl_sub(c, x2));
  b.q0 = fl_qmul(fl_qconj(q2), q1);
  b.s1 = s1;
  b.s2 = s2;
  /* oblique unless side 2's axis continues side 1's (a fold back onto itself, a2 =
   * a1, has no bisector and is taken as in line too) */
  fl_vec3 a2c, e;
  double gap = fl_bond_axes0(&b, &a2c, &e);
  b.oblique = gap > 1e-9 && fl_norm(fl_sub(fl_scale(b.r1, 1.0 / fl_norm(b.r1)), a2c)) > 1e-9;
  return b;
}

/* Effective series stiffness of two springs given as stiffnesses (0 if either is 0). */
FL_HD static inline double fl_series(double k1, double k2)
{
  return (k1 > 0.0 && k2 > 0.0) ? k1 * k2 / (k1 + k2) : 0.0;
}

/* Keff v = K1 (K1 + K2)^-1 K2 v. */
FL_HD static inline fl_vec3 fl_bond_keff_mul(const fl_bond_work *wk, fl_vec3 v)
{
  if (!wk->has_force)
    return fl_v3(0.0, 0.0, 0.0);
  return fl_sym_mul(wk->k1, fl_sym_mul(wk->s_inv, fl_sym_mul(wk->k2, v)));
}

/* Qeff v: for a bond whose sides are in line, twist stiffness along the axis and
 * bending stiffness across it; for an oblique one the tensor series. */
FL_HD static inline fl_vec3 fl_bond_qeff_mul(const fl_bond_work *wk, fl_vec3 axis, fl_vec3 v)
{
  if (wk->oblique)
    return fl_sym_mul(wk->q_eff, v);
  double along = fl_dot(axis, v);
  fl_vec3 across = fl_axpy(v, -along, axis);
  return fl_axpy(fl_scale(across, wk->kb_eff), wk->kt_eff * along, axis);
}

/* Qeff^-1 m, the elastic rotation that carries the moment m; a term whose stiffness
 * is 0 is left out (in line), and an oblique bond without moment stiffness gives 0. */
FL_HD static inline fl_vec3 fl_bond_qeff_solve(const fl_bond_work *wk, fl_vec3 axis, fl_vec3 m)
{
  if (wk->oblique)
    return wk->kb_eff > 0.0 ? fl_sym_mul(wk->c_eff, m) : fl_v3(0.0, 0.0, 0.0);
  double mt = fl_dot(m, axis);
  fl_vec3 mb = fl_axpy(m, -mt, axis);
  fl_vec3 el = fl_v3(0.0, 0.0, 0.0);
  if (wk->kb_eff > 0.0)
    el = fl_scale(mb, 1.0 / wk->kb_eff);
  if (wk->kt_eff > 0.0)
    el = fl_axpy(el, mt / wk->kt_eff, axis);
  return el;
}

/* Swing-twist split of the relative rotation dq (w >= 0) about the unit axis a:
 * dq = swing * twist(a, psi).  With v = dq's vector part, p = v.a and n = |(w, p)|,
 * the swing is (n, vs), vs = (w (v - p a) - p v x a) / n, perpendicular to a.  Returns
 * psi; *bend is the swing's rotation vector theta_b b, *vs and *n its quaternion. */
FL_HD static inline double fl_swing_twist(fl_quat dq, fl_vec3 a, fl_vec3 *bend, fl_vec3 *vs, double *n)
{
  fl_vec3 v = fl_qvec(dq);
  double p = fl_dot(v, a);
  *n = sqrt(dq.w * dq.w + p * p);
  if (!(*n > 1e-300)) {
    /* A half turn about an axis across a: all swing, no twist. */
    *vs = v;
    *bend = fl_scale(v, 3.141592653589793);
    return 0.0;
  }
  *vs = fl_scale(fl_sub(fl_scale(fl_axpy(v, -p, a), dq.w), fl_scale(fl_cross(v, a), p)), 1.0 / *n);
  double sv = fl_norm(*vs);
  double f = (sv < 1e-12 * *n) ? 2.0 / *n : 2.0 * fl_atan2_pos(sv, *n) / sv;
  *bend = fl_scale(*vs, f);
  return 2.0 * fl_atan2_pos(p, dq.w);
}

/* Compliance of a side (twist stiffness kt along its unit axis a, bending stiffness
 * kb across it) for a rotation about the unit direction u: u . Q^-1 u. */
FL_HD static inline double fl_side_compliance(fl_vec3 a, double kt, double kb, fl_vec3 u)
{
  double c = fl_dot(a, u);
  return 1.0 / kb + (1.0 / kt - 1.0 / kb) * c * c;
}

/* The moment of a bond whose sides were not in line at creation (MODEL.md section 4,
 * the tensor form of the springs in series).  The relative rotation is split about e,
 * the bisector of the two sides' axes carried by body 1, into a swing theta_b b and a
 * twist psi.  Each side takes its share of each by its compliance (of the swing about
 * b, of the twist about m, the axis where the two meet), which places the two sides at
 * the meeting point: both axes, carried by body 1, turned by side 1's share of the
 * twist about e and then of the swing about b.  Side i's rotational stiffness there is
 * Q_i = kb_i I + (kt_i - kb_i) n_i n_i^T, and
 *   Theta = theta_b b + psi m,   M = (Q1^-1 + Q2^-1)^-1 (Theta - theta_p).
 * Swapping the bodies turns Theta into -Theta and leaves the tensors where they were,
 * so the loads are mirrored exactly; with the sides in line it is the law of
 * fl_bond_elastic's fast path. */
FL_HD static inline void fl_bond_moment_oblique(const fl_bond *bd, fl_quat dq, fl_vec3 thp_w, fl_bond_loads *out,
                                                fl_bond_work *wk)
{
  const fl_side_stiffness *s1 = &bd->s1, *s2 = &bd->s2;
  fl_vec3 e, a2c;
  fl_bond_axes0(bd, &a2c, &e);
  e = fl_mat_mul(&wk->rot1, e);
  a2c = fl_mat_mul(&wk->rot1, a2c);
  fl_vec3 bend, vs;
  double n;
  double psi = fl_swing_twist(dq, e, &bend, &vs, &n);
  wk->oblique = 1;
  /* g - m for fl_bond_twist_carry, g = e + (vs x e) / n */
  fl_vec3 g_twist = fl_axpy(e, 1.0 / n, fl_cross(vs, e));
  wk->twist_extra = fl_v3(0.0, 0.0, 0.0);
  out->bend = bend;
  out->twist = psi;
  if (!(s1->k_twist > 0.0 && s1->k_bend > 0.0 && s2->k_twist > 0.0 && s2->k_bend > 0.0)) {
    /* a side without rotational stiffness: no moment */
    wk->kt_eff = wk->kb_eff = 0.0;
    wk->q_eff = wk->c_eff = fl_sym(0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    out->axis = e;
    wk->theta = fl_axpy(bend, psi, e);
    out->moment = fl_v3(0.0, 0.0, 0.0);
    return;
  }
  /* side 1's share of the swing, by the compliances about b of the sides as they are */
  double th = fl_norm(bend), c_sw = 1.0, s_sw = 0.0;
  fl_vec3 b = fl_v3(0.0, 0.0, 0.0);
  double c1 = 1.0 / s1->k_bend, c2 = 1.0 / s2->k_bend;
  if (th > 0.0) {
    b = fl_scale(bend, 1.0 / th);
    c1 = fl_side_compliance(wk->a1, s1->k_twist, s1->k_bend, b);
    c2 = fl_side_compliance(wk->a2, s2->k_twist, s2->k_bend, b);
    double phi = c1 / (c1 + c2) * th;
    c_sw = cos(phi);
    s_sw = sin(phi);
  }
  fl_vec3 m = fl_vrot(e, b, c_sw, s_sw); /* where the two sides meet */
  /* side 1's share of the twist, by the compliances about m */
  double t1 = fl_side_compliance(wk->a1, s1->k_twist, s1->k_bend, m);
  double t2 = fl_side_compliance(wk->a2, s2->k_twist, s2->k_bend, m);
  double alpha = t1 / (t1 + t2) * psi;
  double ca = cos(alpha), sa = sin(alpha);
  fl_vec3 n1 = fl_vrot(fl_vrot(wk->a1, e, ca, sa), b, c_sw, s_sw);
  fl_vec3 n2 = fl_vrot(fl_vrot(a2c, e, ca, sa), b, c_sw, s_sw);
  /* Qeff^-1 = Q1^-1 + Q2^-1; the scalar series across the swing and about m serve
   * the buckling envelope */
  wk->c_eff = fl_sym_add(fl_sym_axial(n1, 1.0 / s1->k_twist, 1.0 / s1->k_bend),
                         fl_sym_axial(n2, 1.0 / s2->k_twist, 1.0 / s2->k_bend));
  if (!fl_sym_inv(wk->c_eff, &wk->q_eff))
    wk->q_eff = fl_sym(0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  wk->kb_eff = 1.0 / (c1 + c2);
  wk->kt_eff = 1.0 / (t1 + t2);
  out->axis = m;
  wk->twist_extra = fl_sub(g_twist, m);
  wk->theta = fl_axpy(bend, psi, m);
  out->moment = fl_sym_mul(wk->q_eff, fl_sub(wk->theta, thp_w));
}

/* Elastic force and moment (sections 3 and 4) with plastic offsets dp_w, thp_w (world;
 * zero for an elastic bond).  Fills out->force, moment, point, axis, bend, twist,
 * energy, and wk for the limits and the damping step. */
FL_HD static inline void fl_bond_elastic(const fl_bond *bd, const fl_body *b1, const fl_body *b2, fl_vec3 dp_w,
                                         fl_vec3 thp_w, fl_bond_loads *out, fl_bond_work *wk)
{
  /* World bond points and side axes. */
  wk->rot1 = fl_qmat(b1->q);
  fl_mat3 rot2 = fl_qmat(b2->q);
  fl_vec3 r1w = fl_mat_mul(&wk->rot1, bd->r1), r2w = fl_mat_mul(&rot2, bd->r2);
  fl_vec3 p1 = fl_add(b1->x, r1w), p2 = fl_add(b2->x, r2w);
  double d1 = fl_norm(r1w), d2 = fl_norm(r2w);
  fl_vec3 a1 = fl_scale(r1w, 1.0 / d1), a2 = fl_scale(r2w, 1.0 / d2);
  wk->a1 = a1;
  wk->a2 = a2;
  /* the gap from the difference of the centres plus that of the arms, not of the two
   * bond points: far from the origin p1 - p2 would lose the digits a stiff bond turns
   * into force (k |x| eps), which an equilibrium solve needs */
  wk->gap = fl_add(fl_sub(b1->x, b2->x), fl_sub(r1w, r2w));
  fl_vec3 gap_e = fl_sub(wk->gap, dp_w); /* elastic part of the gap */

  /* Springs in series: F1 = -K1 S^-1 K2 D, p* = p1 - S^-1 K2 D. */
  wk->k1 = fl_sym_axial(a1, bd->s1.k_axial, bd->s1.k_shear);
  wk->k2 = fl_sym_axial(a2, bd->s2.k_axial, bd->s2.k_shear);
  wk->has_force = fl_sym_inv(fl_sym_add(wk->k1, wk->k2), &wk->s_inv);
  if (wk->has_force) {
    fl_vec3 w = fl_sym_mul(wk->s_inv, fl_sym_mul(wk->k2, gap_e));
    out->force = fl_neg(fl_sym_mul(wk->k1, w));
    out->point = fl_sub(p1, w);
  } else {
    out->force = fl_v3(0.0, 0.0, 0.0);
    out->point = fl_scale(fl_add(fl_scale(p1, d2), fl_scale(p2, d1)), 1.0 / (d1 + d2));
  }

  /* Relative rotation since creation, dq = q2 q2_0^-1 q1_0 q1^-1, w >= 0. */
  fl_quat dq = fl_qmul(fl_qmul(b2->q, bd->q0), fl_qconj(b1->q));
  if (dq.w < 0.0)
    dq = fl_q(-dq.w, -dq.x, -dq.y, -dq.z);
  if (bd->oblique) {
    fl_bond_moment_oblique(bd, dq, thp_w, out, wk);
    out->energy = 0.5 * (-fl_dot(gap_e, out->force) + fl_dot(fl_sub(wk->theta, thp_w), out->moment));
    return;
  }
  wk->oblique = 0;

  /* The sides in line: swing-twist about side 1's axis a1, dq = swing * twist(a1, psi). */
  fl_vec3 bend, vs;
  double n;
  double psi = fl_swing_twist(dq, a1, &bend, &vs, &n);

  /* Compliances in series: side i takes c_i / (c_1 + c_2) of each angle. */
  wk->kt_eff = fl_series(bd->s1.k_twist, bd->s2.k_twist);
  wk->kb_eff = fl_series(bd->s1.k_bend, bd->s2.k_bend);
  double share1 = (bd->s1.k_bend > 0.0 && bd->s2.k_bend > 0.0)
                      ? bd->s2.k_bend / (bd->s1.k_bend + bd->s2.k_bend)
                      : 0.5;
  /* Bond axis: a1 turned by side 1's share of the swing.  The swing quaternion is
   * (n, vs) = (cos(th/2), sin(th/2) b), so equal shares need no trigonometry:
   * axis = cos(th/2) a1 + sin(th/2) b x a1 = n a1 + vs x a1. */
  double th = fl_norm(bend);
  fl_vec3 axis = a1;
  if (share1 == 0.5) {
    axis = fl_add(fl_scale(a1, n), fl_cross(vs, a1));
  } else if (th > 0.0) {
    double phi = share1 * th;
    axis = fl_axpy(fl_scale(a1, cos(phi)), sin(phi) / th, fl_cross(bend, a1));
  }
  out->axis = axis;
  out->bend = bend;
  out->twist = psi;
  /* g - axis for fl_bond_twist_carry: g = a1 + (vs x a1) / n, which is axis / n when
   * the sides share the swing equally */
  wk->twist_extra = share1 == 0.5 ? fl_scale(axis, (1.0 - n) / n)
                                  : fl_sub(fl_axpy(a1, 1.0 / n, fl_cross(vs, a1)), axis);
  /* bend is perpendicular to the axis, so theta = bend + psi axis splits cleanly */
  wk->theta = fl_axpy(bend, psi, axis);
  fl_vec3 theta_e = fl_sub(wk->theta, thp_w);
  out->moment = fl_bond_qeff_mul(wk, axis, theta_e);
  out->energy = 0.5 * (-fl_dot(gap_e, out->force) + fl_dot(theta_e, out->moment));
}

/* ---- elastic limits and beyond (MODEL.md sections 6 and 7) -------------------- */

/* The stress (Pa) or angle (rad) a criterion compares with the limit, for loads force
 * (on body 1) and moment (on body 1): the larger of the two sides.  Positively
 * homogeneous of degree one in (force, moment). */
FL_HD static inline double fl_bond_criterion_value(const fl_bond_limits *lim, const fl_bond_work *wk,
                                                   fl_vec3 axis, fl_vec3 force, fl_vec3 moment)
{
  if (lim->criterion == FL_CRIT_BENDING_ANGLE) {
    /* the elastic bending angle |M_b| / kb; fl_bond_yield compares the geometric
     * angle of fl_bond_bending_angle() instead, which differs once a bond buckles */
    fl_vec3 mb = fl_across(moment, axis);
    return wk->kb_eff > 0.0 ? fl_norm(mb) / wk->kb_eff : 0.0;
  }
  double worst = 0.0;
  for (int side = 0; side < 2; side++) {
    const fl_side_section *sc = side == 0 ? &lim->sec1 : &lim->sec2;
    fl_vec3 a = side == 0 ? wk->a1 : wk->a2;
    fl_vec3 f = side == 0 ? force : fl_neg(force); /* the force on this side's body */
    double P = fl_dot(f, a);                     /* tension positive */
    double V = fl_norm(fl_axpy(f, -P, a));
    double T = fabs(fl_dot(moment, a));
    double M = fl_norm(fl_across(moment, a));
    if (lim->ignore_compression && P < 0.0)
      P = 0.0;
    double sb = M * sc->radius / sc->inertia;   /* bending stress */
    double sa = fabs(P) / sc->area;             /* axial stress */
    double st = T * sc->radius / sc->polar;     /* torsional shear stress */
    double sv = 4.0 * V * sc->kshape / (3.0 * sc->area); /* peak shear stress of V */
    double val = 0.0;
    switch (lim->criterion) {
    case FL_CRIT_BENDING_STRESS: val = sb; break;
    case FL_CRIT_AXIAL_STRESS: val = sa + sb; break;
    case FL_CRIT_FORCE_STRESS: val = sqrt(P * P + V * V) / sc->area; break;
    case FL_CRIT_VON_MISES: {
      double vm1 = sqrt((sa + sb) * (sa + sb) + 3.0 * st * st);
      double vm2 = sqrt(sa * sa + 3.0 * (st * st + sv * sv));
      val = vm1 > vm2 ? vm1 : vm2;
      break;
    }
    default: val = 0.0; break;
    }
    if (val > worst)
      worst = val;
  }
  return worst;
}

/* The bending angle the bending_angle criterion compares (rad): the total bending
 * angle between the two bodies, across the bond axis, less the permanent angle thy_w
 * (world) that a constant_torque yield left.  Buckling does not enter: a buckled bond
 * whose moment the envelope caps still reaches its limit angle. */
FL_HD static inline double fl_bond_bending_angle(const fl_bond_work *wk, fl_vec3 axis, fl_vec3 thy_w)
{
  fl_vec3 th = fl_sub(wk->theta, thy_w);
  return fl_norm(fl_across(th, axis));
}

/* The limit of one bond: max_stress (or max_angle) times its strength factor. */
FL_HD static inline double fl_bond_limit(const fl_bond_limits *lim, const fl_bond_state *st)
{
  double base = lim->criterion == FL_CRIT_BENDING_ANGLE ? lim->max_angle : lim->max_stress;
  return base * st->strength;
}

/* The value fl_bond_yield compares with the limit for the loads out: the geometric
 * bending angle less the permanent one (bending_angle), else the criterion's stress. */
FL_HD static inline double fl_bond_yield_value(const fl_bond_limits *lim, const fl_bond_work *wk,
                                               const fl_bond_state *st, const fl_bond_loads *out)
{
  if (lim->criterion == FL_CRIT_BENDING_ANGLE)
    return fl_bond_bending_angle(wk, out->axis, fl_mat_mul(&wk->rot1, st->thy));
  return fl_bond_criterion_value(lim, wk, out->axis, out->force, out->moment);
}

/* Keff^-1 v = (K1^-1 + K2^-1) v for transversely isotropic sides. */
FL_HD static inline fl_vec3 fl_bond_keff_solve(const fl_bond *bd, const fl_bond_work *wk, fl_vec3 v)
{
  double p1 = fl_dot(v, wk->a1), p2 = fl_dot(v, wk->a2);
  fl_vec3 r = fl_axpy(fl_scale(v, 1.0 / bd->s1.k_shear), (1.0 / bd->s1.k_axial - 1.0 / bd->s1.k_shear) * p1, wk->a1);
  r = fl_add(r, fl_axpy(fl_scale(v, 1.0 / bd->s2.k_shear), (1.0 / bd->s2.k_axial - 1.0 / bd->s2.k_shear) * p2, wk->a2));
  return r;
}

/* Check the limit and apply the behaviour beyond it.  Returns 1 when the bond broke
 * this step (loads zeroed).  The radial return scales the loads the behaviour caps
 * (bending moment for constant_torque, force for constant_force, all loads for
 * combined_plasticity) so that the criterion sits exactly on the limit, and moves the
 * plastic offsets so that the elastic law gives the scaled loads. */
FL_HD static inline int fl_bond_yield(const fl_bond *bd, const fl_bond_limits *lim, fl_bond_work *wk,
                                      fl_bond_state *st, fl_bond_loads *out)
{
  if (lim->criterion == FL_CRIT_NONE)
    return 0;
  double limit = fl_bond_limit(lim, st);
  int by_angle = lim->criterion == FL_CRIT_BENDING_ANGLE;
  fl_vec3 thy_w = by_angle ? fl_mat_mul(&wk->rot1, st->thy) : fl_v3(0.0, 0.0, 0.0);
  double value = fl_bond_yield_value(lim, wk, st, out);
  if (!(value > limit))
    return 0;
  st->yielded = 1;
  if (lim->post == FL_POST_TOTAL_BREAKAGE) {
    st->broken = 1;
    out->force = out->moment = fl_v3(0.0, 0.0, 0.0);
    out->energy = 0.0;
    return 1;
  }
  fl_vec3 axis = out->axis;
  fl_vec3 F = out->force, M = out->moment;
  fl_vec3 Mt = fl_scale(axis, fl_dot(M, axis)), Mb = fl_sub(M, Mt); /* twist, bending parts */
  /* Scale factor c with value(c) = limit; exact in one pass for loads the criterion is
   * homogeneous in, a few passes where a side axis leans from the bond axis. */
  double c = 1.0;
  if (by_angle) {
    /* constant_torque on the bending angle: the moment scales with the angle the
     * limit leaves, and the excess angle becomes permanent (thy) */
    c = limit / value;
    out->moment = fl_axpy(Mt, c, Mb);
    fl_vec3 th = fl_sub(wk->theta, thy_w);
    fl_vec3 thb = fl_across(th, axis);
    st->thy = fl_mat_tmul(&wk->rot1, fl_axpy(thy_w, 1.0 - c, thb));
  }
  for (int it = 0; it < 8 && value > 0.0 && !by_angle; it++) {
    c *= limit / value;
    fl_vec3 Fc = F, Mc = M;
    if (lim->post == FL_POST_CONSTANT_TORQUE)
      Mc = fl_axpy(Mt, c, Mb);
    else if (lim->post == FL_POST_CONSTANT_FORCE)
      Fc = fl_scale(F, c);
    else {
      Fc = fl_scale(F, c);
      Mc = fl_scale(M, c);
    }
    value = fl_bond_criterion_value(lim, wk, axis, Fc, Mc);
    out->force = Fc;
    out->moment = Mc;
    if (fabs(value - limit) <= 1e-14 * limit)
      break;
  }
  /* Plastic offsets that make the elastic law give the capped loads:
   * D_p = D + Keff^-1 F, theta_p = theta - Qeff^-1 M. */
  if (lim->post != FL_POST_CONSTANT_TORQUE && wk->has_force) {
    fl_vec3 dp = fl_add(wk->gap, fl_bond_keff_solve(bd, wk, out->force));
    st->dp = fl_mat_tmul(&wk->rot1, dp);
  }
  if (lim->post != FL_POST_CONSTANT_FORCE)
    st->thp = fl_mat_tmul(&wk->rot1, fl_sub(wk->theta, fl_bond_qeff_solve(wk, axis, out->moment)));
  /* The bond point moves with the force: p* = p1 + K1^-1 F. */
  if (wk->has_force) {
    fl_vec3 dF = fl_sub(out->force, F);
    double pa = fl_dot(dF, wk->a1);
    out->point = fl_add(out->point, fl_axpy(fl_scale(dF, 1.0 / bd->s1.k_shear),
                                            (1.0 / bd->s1.k_axial - 1.0 / bd->s1.k_shear) * pa, wk->a1));
  }
  /* Elastic energy of the capped loads: (F Keff^-1 F + M Qeff^-1 M) / 2. */
  if (wk->oblique) {
    double e = wk->has_force ? fl_dot(fl_bond_keff_solve(bd, wk, out->force), out->force) : 0.0;
    out->energy = 0.5 * (e + fl_dot(fl_bond_qeff_solve(wk, axis, out->moment), out->moment));
  } else {
    double mt = fl_dot(out->moment, axis);
    fl_vec3 mb = fl_axpy(out->moment, -mt, axis);
    double e = wk->has_force ? fl_dot(fl_bond_keff_solve(bd, wk, out->force), out->force) : 0.0;
    if (wk->kb_eff > 0.0)
      e += fl_dot(mb, mb) / wk->kb_eff;
    if (wk->kt_eff > 0.0)
      e += mt * mt / wk->kt_eff;
    out->energy = 0.5 * e;
  }
  return 0;
}

/* The bending part of an elastic moment (kb times the elastic bending angle), and its
 * twist part along the axis in *mt. */
FL_HD static inline fl_vec3 fl_bond_bending_moment(const fl_bond_loads *out, double *mt)
{
  *mt = fl_dot(out->moment, out->axis);
  return fl_across(out->moment, out->axis);
}

/* Buckling (section 8): replace the bending part of the elastic moment by the
 * envelope's law.  reversible: M = Menv(phi) on the elastic bending angle phi;
 * damage: beyond the largest angle reached the envelope, below it the secant
 * Menv(phi_max) / phi_max through the origin; plastic: the elastic law on theta -
 * theta_p capped by the envelope (first loading) or the post-buckling level (after
 * buckling), the excess moving theta_p, so unloading has the original slope.  The
 * moment keeps the direction of the bending angle. */
FL_HD static inline void fl_bond_buckle(const fl_bond_limits *lim, fl_bond_work *wk, fl_bond_state *st,
                                        fl_bond_loads *out)
{
  const fl_buckling_envelope *e = &lim->buckling;
  if (!(wk->kb_eff > 0.0))
    return;
  fl_vec3 axis = out->axis;
  double mt;
  fl_vec3 mb = fl_bond_bending_moment(out, &mt);
  double m_el = fl_norm(mb), m;
  if (e->type == FL_BUCKLING_PLASTIC) {
    double phi = fl_norm(out->bend); /* the total bending angle */
    double cap;
    if (phi >= st->phi_max) {
      st->phi_max = phi;
      cap = fl_buckling_moment(e, phi);
    } else {
      cap = st->buckled ? fl_buckling_post(e, phi) : fl_buckling_moment(e, phi);
    }
    if (phi > e->phi_b)
      st->buckled = 1;
    if (!(m_el > cap))
      return;
    m = cap;
    fl_vec3 mb_new = fl_scale(mb, m / m_el);
    /* theta_p takes the excess bending angle: (M_trial - M_new) / kb */
    fl_vec3 shift = fl_scale(fl_sub(mb, mb_new), 1.0 / wk->kb_eff);
    st->thp = fl_add(st->thp, fl_mat_tmul(&wk->rot1, shift));
    out->moment = fl_axpy(mb_new, mt, axis);
    out->energy -= 0.5 * (m_el * m_el - m * m) / wk->kb_eff;
    return;
  }
  double phi = m_el / wk->kb_eff; /* the elastic bending angle */
  if (e->type == FL_BUCKLING_DAMAGE) {
    if (phi >= st->phi_max) {
      st->phi_max = phi;
      m = fl_buckling_moment(e, phi);
    } else if (st->phi_max > e->phi_b) {
      m = fl_buckling_moment(e, st->phi_max) / st->phi_max * phi;
    } else {
      m = wk->kb_eff * phi;
    }
  } else {
    if (phi > st->phi_max)
      st->phi_max = phi;
    m = fl_buckling_moment(e, phi);
  }
  if (phi > e->phi_b)
    st->buckled = 1;
  if (m_el > 0.0)
    out->moment = fl_axpy(fl_scale(mb, m / m_el), mt, axis);
  out->energy -= 0.5 * (m_el * m_el / wk->kb_eff - m * phi);
}

/* The twist moment's line of action.  Section 4 puts the twist moment Mt = kt psi along
 * the bond axis.  The bond energy (kt psi^2 + kb theta_b^2) / 2 of the swing-twist
 * split about side 1's axis a1 has for its gradient in body 2's rotation
 *   d theta_b = b . d phi,   d psi = (a1 + tan(theta_b / 2) b x a1) . d phi
 * (differentiate psi = 2 atan2(v . a1, w) and cos(theta_b / 2) = |(w, v . a1)| for
 * dq = (w, v) = swing(b, theta_b) twist(a1, psi)), so the moment that is that
 * gradient carries Mt along g = a1 + tan(theta_b / 2) b x a1: its part about a1 is Mt,
 * as the description says, and it has Mt tan(theta_b / 2) across, a second-order term
 * (psi theta_b) without which an undamped chain bent and twisted by tens of degrees
 * gains or loses energy.  For equal shares g = axis / cos(theta_b / 2).  An oblique
 * bond (tensor series) carries the moment's part along its twist axis m the same way,
 * about the axis e its swing-twist split uses, so that it reduces to the in-line law
 * when its sides are in line.  Applied after the limits, which judge the description's
 * moment. */
FL_HD static inline void fl_bond_twist_carry(const fl_bond_work *wk, fl_bond_loads *out)
{
  out->moment = fl_axpy(out->moment, fl_dot(out->moment, out->axis), wk->twist_extra);
}

/* Damping (section 5): advance the Maxwell damping force and torque over one step with
 * the relative velocities at the bond point, and add them to out->force, out->moment. */
FL_HD static inline void fl_bond_damp(const fl_bond_damping *dm, const fl_body *b1, const fl_body *b2,
                                      const fl_bond_work *wk, fl_bond_state *st, fl_bond_loads *out)
{
  if (!(dm->a_damp > 0.0))
    return;
  fl_vec3 v1 = fl_add(b1->v, fl_cross(b1->w, fl_sub(out->point, b1->x)));
  fl_vec3 v2 = fl_add(b2->v, fl_cross(b2->w, fl_sub(out->point, b2->x)));
  fl_vec3 dv = fl_sub(v1, v2), dw = fl_sub(b1->w, b2->w);
  double e = dm->decay, g = (1.0 - e) * dm->a_damp;
  fl_vec3 fd = fl_axpy(fl_scale(fl_mat_mul(&wk->rot1, st->fd), e), -g, fl_bond_keff_mul(wk, dv));
  fl_vec3 td = fl_axpy(fl_scale(fl_mat_mul(&wk->rot1, st->td), e), -g, fl_bond_qeff_mul(wk, out->axis, dw));
  st->fd = fl_mat_tmul(&wk->rot1, fd);
  st->td = fl_mat_tmul(&wk->rot1, td);
  out->force = fl_add(out->force, fd);
  out->moment = fl_add(out->moment, td);
}

/* Torques about the two centres from the force at p* and the pure moment. */
FL_HD static inline void fl_bond_torques(const fl_body *b1, const fl_body *b2, fl_bond_loads *out)
{
  out->torque1 = fl_add(fl_cross(fl_sub(out->point, b1->x), out->force), out->moment);
  out->torque2 = fl_sub(fl_cross(fl_sub(out->point, b2->x), fl_neg(out->force)), out->moment);
}

/* A bond that carries nothing (broken). */
FL_HD static inline void fl_bond_loads_zero(const fl_body *b1, fl_bond_loads *out)
{
  out->force = out->moment = out->torque1 = out->torque2 = fl_v3(0.0, 0.0, 0.0);
  out->point = b1->x;
  out->axis = out->bend = fl_v3(0.0, 0.0, 0.0);
  out->twist = out->energy = 0.0;
}

/* A broken bond's two segments: no force while they still overlap as they did when
 * bonded; once they have separated, an ordinary Hertz-Mindlin contact (MODEL.md
 * sections 7 and 10). */
FL_HD static inline void fl_bond_broken_contact(const fl_bond_limits *lim, double dt, const fl_body *b1,
                                                const fl_body *b2, fl_bond_state *st, fl_bond_loads *out)
{
  fl_vec3 a1 = fl_qrot(b1->q, fl_v3(1.0, 0.0, 0.0)), a2 = fl_qrot(b2->q, fl_v3(1.0, 0.0, 0.0));
  fl_vec3 f, t1, t2;
  fl_vec3 xi = st->xi;
  double delta = fl_contact_segments(&lim->pair_law, b1->x, a1, lim->hl1, lim->r1, b1->v, b1->w, b2->x, a2, lim->hl2,
                                     lim->r2, b2->v, b2->w, dt, &xi, &f, &t1, &t2);
  if (!st->separated) {
    if (delta <= 0.0)
      st->separated = 1;
    return;
  }
  st->xi = xi;
  out->force = f;
  out->torque1 = t1;
  out->torque2 = t2;
}

/* ---- the common bond, vectorised ------------------------------------------------ */

/* Whether fl_bond_eval_inline serves bond bd in state st: sides in line with equal
 * bending stiffness (each takes half the swing), every stiffness positive, neither
 * broken nor yielded nor buckled. */
FL_HD static inline int fl_bond_is_inline(const fl_bond *bd, const fl_bond_state *st)
{
  /* & rather than &&: no branch in a vectorised loop */
  return (bd->oblique == 0) & (bd->s1.k_bend == bd->s2.k_bend) & (bd->s1.k_axial > 0.0) & (bd->s1.k_shear > 0.0) &
         (bd->s2.k_axial > 0.0) & (bd->s2.k_shear > 0.0) & (bd->s1.k_twist > 0.0) & (bd->s2.k_twist > 0.0) &
         (bd->s1.k_bend > 0.0) & ((st->broken | st->yielded | st->buckled) == 0);
}

/* What fl_bond_eval_inline reads of a definition that fl_bond_is_inline accepts, made
 * once by fl_bond_inline_make: the differences and series of its stiffnesses, which
 * the law would otherwise form every step (to the same bits). */
typedef struct {
  fl_vec3 r1, r2;   /* fl_bond's r1, r2, m */
  fl_quat q0;       /* fl_bond's q0 */
  double ks1, kd1;  /* side 1: k_shear and k_axial - k_shear, N/m */
  double ks2, kd2;  /* side 2 */
  double kt_eff;    /* series twist stiffness, N m/rad */
  double kb_eff;    /* series bending stiffness, N m/rad */
} fl_bond_inline_def;

FL_HD static inline fl_bond_inline_def fl_bond_inline_make(const fl_bond *bd)
{
  fl_bond_inline_def d;
  d.r1 = bd->r1;
  d.r2 = bd->r2;
  d.q0 = bd->q0;
  d.ks1 = bd->s1.k_shear;
  d.kd1 = bd->s1.k_axial - bd->s1.k_shear;
  d.ks2 = bd->s2.k_shear;
  d.kd2 = bd->s2.k_axial - bd->s2.k_shear;
  d.kt_eff = fl_series(bd->s1.k_twist, bd->s2.k_twist);
  d.kb_eff = fl_series(bd->s1.k_bend, bd->s2.k_bend);
  return d;
}

/* What fl_bond_eval_inline returns. */
typedef struct {
  fl_vec3 fd;      /* damping force, body-1 frame, moved on, N */
  fl_vec3 td;      /* damping torque, body-1 frame, moved on, N m */
  fl_vec3 force;   /* on body 1, N */
  fl_vec3 torque1; /* on body 1 about its centre, N m */
  fl_vec3 torque2; /* on body 2 about its centre, N m */
  double energy;   /* elastic, J */
  double phi;      /* the bending angle |bend| that plastic buckling compares with its envelope, rad */
  double m_el;     /* the bending moment's size, as fl_bond_buckle takes it (before the twist carry), N m */
  int ok;          /* 0: fl_bond_eval takes a path this law leaves out; evaluate again */
} fl_bond_inline_loads;

/* fl_bond_eval for a bond fl_bond_is_inline() accepts, with damping (a_damp > 0) and
 * without limits: the same operations in the same order, so the same loads and state
 * to the bit, with the branches replaced by selections, and every argument and result
 * by value (a vectorising loop keeps no addressable structure of its own), so that a
 * loop over bonds vectorises.  fd, td: the damping state (body-1 frame).  ok is 0
 * where fl_bond_eval would take a path this one leaves out (an angle beyond the
 * arctangent series, a half turn): the caller evaluates that bond again with
 * fl_bond_eval, from the damping state it had. */
FL_HD FL_ALWAYS_INLINE static inline fl_bond_inline_loads fl_bond_eval_inline(fl_bond_inline_def bd, fl_bond_damping dm,
                                                                             fl_body b1, fl_body b2, fl_vec3 fd, fl_vec3 td)
{
  fl_bond_inline_loads out;
  /* elastic force: springs in series */
  fl_mat3 rot1 = fl_qmat(b1.q), rot2 = fl_qmat(b2.q);
  fl_vec3 r1w = fl_mat_mul(&rot1, bd.r1), r2w = fl_mat_mul(&rot2, bd.r2);
  fl_vec3 p1 = fl_add(b1.x, r1w);
  fl_vec3 a1 = fl_scale(r1w, 1.0 / fl_norm(r1w)), a2 = fl_scale(r2w, 1.0 / fl_norm(r2w));
  fl_vec3 gap = fl_sub(fl_add(fl_sub(b1.x, b2.x), fl_sub(r1w, r2w)), fl_v3(0.0, 0.0, 0.0)); /* as fl_bond_elastic */
  fl_sym3 k1 = fl_sym_axial_diff(a1, bd.ks1, bd.kd1);
  fl_sym3 k2 = fl_sym_axial_diff(a2, bd.ks2, bd.kd2);
  fl_sym3 s_inv = fl_sym_inv_regular(fl_sym_add(k1, k2));
  fl_vec3 w = fl_sym_mul(s_inv, fl_sym_mul(k2, gap));
  fl_vec3 f = fl_neg(fl_sym_mul(k1, w));
  fl_vec3 point = fl_sub(p1, w);

  /* relative rotation, swing-twist about a1 */
  fl_quat dq = fl_qmul(fl_qmul(b2.q, bd.q0), fl_qconj(b1.q));
  double sg = dq.w < 0.0 ? -1.0 : 1.0; /* the selections take values computed either way */
  dq = fl_q(sg * dq.w, sg * dq.x, sg * dq.y, sg * dq.z);
  fl_vec3 v = fl_qvec(dq);
  double p = fl_dot(v, a1);
  double n = sqrt(dq.w * dq.w + p * p);
  double rn = 1.0 / n; /* 2 rn is 2 / n to the bit: a power of two only shifts the exponent */
  fl_vec3 vs = fl_scale(fl_sub(fl_scale(fl_axpy(v, -p, a1), dq.w), fl_scale(fl_cross(v, a1), p)), rn);
  double sv = fl_norm(vs);
  double f_small = 2.0 * rn, f_series = 2.0 * fl_atan_series(sv / n) / sv;
  double fb = (sv < 1e-12 * n) ? f_small : f_series;
  fl_vec3 bend = fl_scale(vs, fb);
  out.phi = fl_norm(bend);
  double psi = 2.0 * fl_atan_series(p / dq.w);
  out.ok = (n > 1e-300) & (sv < 0.125 * n) & (dq.w > 0.0) & (fabs(p) < 0.125 * dq.w);

  /* moment: twist along the axis, bending across it */
  double kt_eff = bd.kt_eff, kb_eff = bd.kb_eff;
  fl_vec3 axis = fl_add(fl_scale(a1, n), fl_cross(vs, a1));
  fl_vec3 theta = fl_sub(fl_axpy(bend, psi, axis), fl_v3(0.0, 0.0, 0.0));
  double along = fl_dot(axis, theta);
  fl_vec3 m = fl_axpy(fl_scale(fl_axpy(theta, -along, axis), kb_eff), kt_eff * along, axis);
  out.energy = 0.5 * (-fl_dot(gap, f) + fl_dot(theta, m));
  out.m_el = fl_norm(fl_across(m, axis)); /* as fl_bond_bending_moment */
  m = fl_axpy(m, fl_dot(m, axis), fl_scale(axis, (1.0 - n) / n)); /* fl_bond_twist_carry */

  /* damping */
  fl_vec3 u1 = fl_add(b1.v, fl_cross(b1.w, fl_sub(point, b1.x)));
  fl_vec3 u2 = fl_add(b2.v, fl_cross(b2.w, fl_sub(point, b2.x)));
  fl_vec3 dv = fl_sub(u1, u2), dw = fl_sub(b1.w, b2.w);
  double e = dm.decay, g = (1.0 - e) * dm.a_damp;
  fl_vec3 fdw = fl_axpy(fl_scale(fl_mat_mul(&rot1, fd), e), -g, fl_sym_mul(k1, fl_sym_mul(s_inv, fl_sym_mul(k2, dv))));
  double dw_along = fl_dot(axis, dw);
  fl_vec3 qdw = fl_axpy(fl_scale(fl_axpy(dw, -dw_along, axis), kb_eff), kt_eff * dw_along, axis);
  fl_vec3 tdw = fl_axpy(fl_scale(fl_mat_mul(&rot1, td), e), -g, qdw);
  out.fd = fl_mat_tmul(&rot1, fdw);
  out.td = fl_mat_tmul(&rot1, tdw);
  f = fl_add(f, fdw);
  m = fl_add(m, tdw);
  out.force = f;
  out.torque1 = fl_add(fl_cross(fl_sub(point, b1.x), f), m);
  out.torque2 = fl_sub(fl_cross(fl_sub(point, b2.x), fl_neg(f)), m);
  return out;
}

/* The loads of an unbroken bond before its limit is checked: the elastic law on the
 * gap and angle less the plastic offsets, then the buckling envelope (st and lim may be
 * NULL). */
/* The elastic law on the gap and angle less the plastic offsets (st may be NULL). */
FL_HD static inline void fl_bond_trial_elastic(const fl_bond *bd, const fl_body *b1, const fl_body *b2,
                                               const fl_bond_state *st, fl_bond_loads *out, fl_bond_work *wk)
{
  fl_vec3 dp_w = fl_v3(0.0, 0.0, 0.0), thp_w = fl_v3(0.0, 0.0, 0.0);
  if (st && (st->yielded || st->buckled)) {
    fl_mat3 r1 = fl_qmat(b1->q);
    dp_w = fl_mat_mul(&r1, st->dp);
    thp_w = fl_mat_mul(&r1, st->thp);
  }
  fl_bond_elastic(bd, b1, b2, dp_w, thp_w, out, wk);
}

FL_HD static inline void fl_bond_trial(const fl_bond *bd, const fl_bond_limits *lim, const fl_body *b1,
                                       const fl_body *b2, fl_bond_state *st, fl_bond_loads *out, fl_bond_work *wk)
{
  fl_bond_trial_elastic(bd, b1, b2, st, out, wk);
  if (st && lim && lim->buckling.type != FL_BUCKLING_NONE)
    fl_bond_buckle(lim, wk, st, out);
}

/* How close an unbroken bond is to its limit: the value fl_bond_yield would compare
 * over the limit, for the loads of its present configuration, the state left as it
 * is.  1 on the limit; 0 for a broken bond or no criterion. */
FL_HD static inline double fl_bond_utilisation(const fl_bond *bd, const fl_bond_limits *lim, const fl_body *b1,
                                               const fl_body *b2, const fl_bond_state *st)
{
  if (st->broken || lim->criterion == FL_CRIT_NONE)
    return 0.0;
  fl_bond_state scratch = *st;
  fl_bond_loads out;
  fl_bond_work wk;
  fl_bond_trial(bd, lim, b1, b2, &scratch, &out, &wk);
  return fl_bond_yield_value(lim, &wk, &scratch, &out) / fl_bond_limit(lim, &scratch);
}

/* Plastic buckling's point for a bond of bending moment m (N m): the total angle
 * phi_b + (m_max - m) / k_drop at which the envelope falls to m.  For an elastic bond
 * (m = kb phi) the bending angle over it reaches 1 exactly at phi_b (not linearly:
 * 1.05 phi_b is the denominator at phi_b / 2), for one that yielded below m_max first
 * later, on the drop. */
FL_HD static inline double fl_buckling_plastic_point(const fl_buckling_envelope *e, double m)
{
  return e->phi_b + (e->m_max - fmin(m, e->m_max)) / e->k_drop;
}

/* Plastic buckling's utilisation of an unbuckled bond of total bending angle phi (rad)
 * and bending moment m (N m): the angle over its buckling point, as
 * fl_bond_buckling_utilisation works it out. */
FL_HD static inline double fl_buckling_plastic_use(const fl_buckling_envelope *e, double phi, double m)
{
  return phi / fl_buckling_plastic_point(e, m);
}

/* How close an unbroken bond is to its buckling point: the bending angle fl_bond_buckle
 * compares with the envelope (the total angle for plastic buckling, the elastic one for
 * the other kinds), over the angle at which the envelope caps the bond's moment (phi_b;
 * for plastic buckling of a bond that yielded below m_max, the point of the drop that
 * falls to its moment), for its present configuration.  1 at the buckling point; 0 for
 * a bond whose moment the envelope caps (reversible buckling: while it is past the
 * point; it buckles again when it comes back to it and is loaded past it), a broken
 * bond, or without buckling. */
FL_HD static inline double fl_bond_buckling_utilisation(const fl_bond *bd, const fl_bond_limits *lim,
                                                        const fl_body *b1, const fl_body *b2, const fl_bond_state *st)
{
  const fl_buckling_envelope *e = &lim->buckling;
  if (st->broken || (st->buckled && e->type == FL_BUCKLING_DAMAGE) || e->type == FL_BUCKLING_NONE ||
      !(e->phi_b > 0.0))
    return 0.0;
  fl_bond_loads out;
  fl_bond_work wk;
  fl_bond_trial_elastic(bd, b1, b2, st, &out, &wk);
  if (!(wk.kb_eff > 0.0))
    return 0.0;
  double mt, m = fl_norm(fl_bond_bending_moment(&out, &mt));
  if (e->type == FL_BUCKLING_PLASTIC) {
    /* 0 once the envelope has capped the moment (phi_max past the point) */
    double phis = fl_buckling_plastic_point(e, m);
    return st->buckled && st->phi_max >= phis ? 0.0 : fl_norm(out.bend) / phis;
  }
  double u = m / wk.kb_eff / e->phi_b;
  return u <= 1.0 ? u : 0.0; /* reversible: past it, until it comes back */
}

/* One bond, one step: elastic law with plastic offsets, limit and post-failure
 * behaviour (lim may be NULL: elastic), damping, torques about both centres.  st may
 * be NULL for an elastic bond without damping history. */
FL_HD static inline void fl_bond_eval(const fl_bond *bd, const fl_bond_damping *dm, const fl_bond_limits *lim,
                                      const fl_body *b1, const fl_body *b2, fl_bond_state *st, fl_bond_loads *out)
{
  fl_bond_work wk;
  if (st && st->broken) {
    fl_bond_loads_zero(b1, out);
    if (lim && lim->pair_law.e_star > 0.0 && dm)
      fl_bond_broken_contact(lim, dm->dt, b1, b2, st, out);
    return;
  }
  fl_bond_trial(bd, lim, b1, b2, st, out, &wk);
  if (st && lim && fl_bond_yield(bd, lim, &wk, st, out)) {
    st->fd = st->td = fl_v3(0.0, 0.0, 0.0);
    fl_bond_loads_zero(b1, out);
    return;
  }
  fl_bond_twist_carry(&wk, out);
  if (st && dm)
    fl_bond_damp(dm, b1, b2, &wk, st, out);
  fl_bond_torques(b1, b2, out);
}

#endif
