/* bond_law.h: the elastic and damped law of one bond: its definition and state, the
 * springs in series for force and moment, in line and oblique, the damping and the
 * torques about the two centres (fiberlab-model(7), Bond creation, Elastic force,
 * Elastic moment, Oblique bonds and Damping).
 *
 * Plain structs and FL_HD static inline functions, no allocation, no I/O: the CPU and
 * the CUDA engine compile the same source.  Elastic law, damping and the per-side load
 * resolution are separate functions. */
#ifndef FL_BOND_LAW_H
#define FL_BOND_LAW_H

#include "vec.h"

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
  int capped;    /* 1 (viscoelastic runs): the buckling envelope caps a buckled bond's whole
                  * bending moment, its Maxwell element's included (fl_bond_damp_cap);
                  * 0: the damping adds to the envelope's moment (MODEL.md section 5) */
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
  double cap;       /* the buckling envelope's cap on the bending moment of a bond past its
                     * buckling point (fl_bond_buckle_envelope), N m; -1: none */
  int oblique;      /* 1: the moment law is the tensor series below */
  fl_sym3 q_eff;    /* oblique: Qeff = (Q1^-1 + Q2^-1)^-1 in world, N m/rad */
  fl_sym3 c_eff;    /* oblique: Qeff^-1 = Q1^-1 + Q2^-1, rad/(N m) */
  fl_vec3 twist_extra; /* in line: g - axis, with g = a1 + tan(theta_b / 2) b x a1 the
                        * direction the twist moment acts along (fl_bond_twist_carry) */
} fl_bond_work;

/* A bond created between two bodies at contact point c, world frame (fiberlab-model(7),
 * Bond creation). */
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
    *bend = fl_scale(v, FL_PI);
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

/* The moment of a bond whose sides were not in line at creation (fiberlab-model(7),
 * Oblique bonds: the tensor form of the springs in series).  The relative rotation is split about e,
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

/* Elastic force and moment (fiberlab-model(7), Elastic force and Elastic moment) with
 * plastic offsets dp_w, thp_w (world; zero for an elastic bond).  Fills out->force,
 * moment, point, axis, bend, twist, energy, and wk for the limits and the damping
 * step. */
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

/* The twist moment's line of action.  The description's moment M (fiberlab-model(7),
 * Elastic moment) puts the twist moment Mt = kt psi along the bond axis.  The bond
 * energy (kt psi^2 + kb theta_b^2) / 2 of the swing-twist split about side 1's axis a1
 * has for its gradient in body 2's rotation
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

/* The Maxwell element's damping torque td (world) of a bond whose buckling envelope
 * caps its bending moment at wk->cap (a bond past its buckling point; none when
 * wk->cap < 0): where the bending parts of the moment so far (out->moment: the
 * elastic one, capped) and of td together exceed the cap, the bending part of td gives
 * way, scaled by the lam in [0, 1] that puts the sum on the cap (0 where the elastic
 * moment alone reaches it).  The kink's section carries the envelope's moment and no
 * more, at any rate; the twist part of td is kept. */
FL_HD static inline fl_vec3 fl_bond_damp_cap(const fl_bond_work *wk, const fl_bond_loads *out, fl_vec3 td)
{
  if (!(wk->cap >= 0.0))
    return td;
  fl_vec3 a = fl_across(out->moment, out->axis), b = fl_across(td, out->axis), sum = fl_add(a, b);
  double aa = fl_dot(a, a), ab = fl_dot(a, b), bb = fl_dot(b, b), c2 = wk->cap * wk->cap;
  if (!(fl_dot(sum, sum) > c2))
    return td;
  /* |a + lam b|^2 = c2, its root in [0, 1] (|a| < cap < |a + b|) */
  double lam = aa >= c2 || !(bb > 0.0) ? 0.0 : (-ab + sqrt(fmax(ab * ab - bb * (aa - c2), 0.0))) / bb;
  return fl_axpy(fl_scale(b, fmin(fmax(lam, 0.0), 1.0)), fl_dot(td, out->axis), out->axis);
}

/* Damping: advance the Maxwell damping force and torque over one step with
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
  if (dm->capped)
    td = fl_bond_damp_cap(wk, out, td);
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

#endif
