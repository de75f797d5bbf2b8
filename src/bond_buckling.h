/* bond_buckling.h: buckling in bending: the moment-angle envelope made from a 3-point
 * test and the law that caps a bond's bending moment by it (fiberlab-model(7),
 * Buckling).  Host/device inline, no I/O. */
#ifndef FL_BOND_BUCKLING_H
#define FL_BOND_BUCKLING_H

#include "bond_law.h"

/* Kinds of buckling, in YAML order. */
enum fl_buckling { FL_BUCKLING_NONE = 0, FL_BUCKLING_REVERSIBLE, FL_BUCKLING_DAMAGE, FL_BUCKLING_PLASTIC };

/* The piecewise-linear moment-angle envelope of a buckling bond. */
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

/* The bending part of an elastic moment (kb times the elastic bending angle), and its
 * twist part along the axis in *mt. */
FL_HD static inline fl_vec3 fl_bond_bending_moment(const fl_bond_loads *out, double *mt)
{
  *mt = fl_dot(out->moment, out->axis);
  return fl_across(out->moment, out->axis);
}

/* Buckling: replace the bending part of the elastic moment by the
 * envelope's law.  reversible: M = Menv(phi) on the elastic bending angle phi;
 * damage: beyond the largest angle reached the envelope, below it the secant
 * Menv(phi_max) / phi_max through the origin; plastic: the elastic law on theta -
 * theta_p capped by the envelope (first loading) or the post-buckling level (after
 * buckling), the excess moving theta_p, so unloading has the original slope.  The
 * moment keeps the direction of the bending angle. */
FL_HD static inline void fl_bond_buckle_envelope(const fl_buckling_envelope *e, fl_bond_work *wk, fl_bond_state *st,
                                                 fl_bond_loads *out)
{
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
    wk->cap = st->buckled ? cap : -1.0;
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
  wk->cap = st->buckled && m < m_el ? m : -1.0;
  if (m_el > 0.0)
    out->moment = fl_axpy(fl_scale(mb, m / m_el), mt, axis);
  out->energy -= 0.5 * (m_el * m_el / wk->kb_eff - m * phi);
}

#endif
