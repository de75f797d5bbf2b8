/* bond_vector.h: the common bond's law (sides in line, equal bending stiffness,
 * elastic, damped) as a function of values, so that a loop over bonds vectorises, to
 * the bit of fl_bond_eval.  Host/device inline, no I/O. */
#ifndef FL_BOND_VECTOR_H
#define FL_BOND_VECTOR_H

#include "bond_law.h"

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
  double f_size;   /* |elastic force| and |elastic moment| as the limits judge them (before the damping */
  double m_size;   /* and the twist carry): bounds of every criterion's stresses, N and N m */
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
  out.f_size = fl_norm(f);
  out.m_size = fl_norm(m);
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

#endif
