/* contact.h: the contact between a sphero-cylinder segment and a cylindrical test tool
 * (roller, loading nose), and between two segments (fiberlab-model(7), Tool contacts).
 * Host/device inline, no I/O.
 *
 * Normal: Hertz, F_n = 4/3 E* sqrt(R*) delta^1.5, or a linear spring F_n = k_n delta
 * (test.contact linear, and rigid's penalty), with the viscous term of Tsuji et al.
 * (1992) written with a restitution coefficient as in common DEM codes:
 * F_nd = -2 sqrt(5/6) beta sqrt(S_n m*) v_n, S_n the normal tangent stiffness
 * (2 E* sqrt(R* delta) for Hertz, k_n for the spring), beta = ln e / sqrt(ln^2 e + pi^2).
 * Tangential: Mindlin spring S_t = 8 G* sqrt(R* delta) (with the spring: a constant k_t,
 * which the caller sets) on the accumulated tangential displacement, capped by Coulomb
 * friction mu F_n (the history is rescaled on slip). */
#ifndef FL_CONTACT_H
#define FL_CONTACT_H

#include "vec.h"

/* Material law of one segment-tool pair. */
typedef struct {
  double e_star; /* effective Young's modulus, Pa */
  double g_star; /* effective shear modulus, Pa */
  double r_star; /* effective radius, m */
  double m_star; /* effective mass (the segment's; tools are kinematic), kg */
  double beta;   /* ln e / sqrt(ln^2 e + pi^2), negative */
  double mu;     /* Coulomb friction coefficient */
  double k_n;    /* linear normal stiffness, N/m; 0: Hertz */
  double k_t;    /* with k_n: the tangential stiffness, N/m */
} fl_contact_law;

/* The normal tangent stiffness S_n at overlap delta, N/m. */
FL_HD static inline double fl_contact_stiffness(const fl_contact_law *law, double delta)
{
  return law->k_n > 0.0 ? law->k_n : 2.0 * law->e_star * sqrt(law->r_star * delta);
}

/* The elastic overlap that carries a normal load fn >= 0 (N), m. */
FL_HD static inline double fl_contact_overlap_at(const fl_contact_law *law, double fn)
{
  return law->k_n > 0.0 ? fn / law->k_n : pow(0.75 * fn / (law->e_star * sqrt(law->r_star)), 2.0 / 3.0);
}

/* A cylindrical tool of infinite length, moving without rotation. */
typedef struct {
  fl_vec3 point;  /* a point on its axis, m */
  fl_vec3 axis;   /* unit axis */
  fl_vec3 vel;    /* velocity, m/s */
  double radius;  /* m */
} fl_tool;

/* The force of a contact with overlap delta > 0, unit normal nrm (towards the body the
 * force acts on), relative normal speed vn and tangential velocity vt at the contact
 * point: the elastic normal law (Hertz or the spring) plus the viscous term (never
 * pulling), and the tangential spring on the history xi, kept in the tangent plane and
 * capped by Coulomb friction (the history is rescaled on slip). */
FL_HD static inline fl_vec3 fl_contact_force(const fl_contact_law *law, double delta, fl_vec3 nrm, double vn,
                                             fl_vec3 vt, double dt, fl_vec3 *xi)
{
  double sn, fe, kt;
  if (law->k_n > 0.0) {
    sn = law->k_n;
    fe = sn * delta;
    kt = law->k_t;
  } else {
    double sq = sqrt(law->r_star * delta);
    sn = 2.0 * law->e_star * sq;
    fe = (4.0 / 3.0) * law->e_star * sq * delta;
    kt = 8.0 * law->g_star * sq;
  }
  double fn = fe - 2.0 * 0.9128709291752769 * law->beta * sqrt(sn * law->m_star) * (-vn);
  if (fn < 0.0)
    fn = 0.0; /* a contact never pulls */
  /* Tangential history: keep it in the current tangent plane, add this step's slip. */
  double len = fl_norm(*xi);
  fl_vec3 h = fl_axpy(*xi, -fl_dot(*xi, nrm), nrm);
  double hn = fl_norm(h);
  if (hn > 0.0)
    h = fl_scale(h, len / hn);
  h = fl_axpy(h, dt, vt);
  fl_vec3 ft = fl_scale(h, -kt);
  double ftn = fl_norm(ft), cap = law->mu * fn;
  if (ftn > cap) {
    ft = ftn > 0.0 ? fl_scale(ft, cap / ftn) : ft;
    h = kt > 0.0 ? fl_scale(ft, -1.0 / kt) : fl_v3(0.0, 0.0, 0.0);
  }
  *xi = h;
  return fl_axpy(ft, fn, nrm);
}

/* Contact of a segment (centre x, unit axis a, half cylinder length hl, radius r,
 * velocity v, angular velocity w) with a tool.  xi is the tangential history (world,
 * m).  Returns the overlap (<= 0: no contact, history cleared) and adds the force
 * and the torque about the segment centre to *f and *t. */
FL_HD static inline double fl_contact_tool(const fl_contact_law *law, const fl_tool *tool, fl_vec3 x,
                                           fl_vec3 a, double hl, double r, fl_vec3 v, fl_vec3 w,
                                           double dt, fl_vec3 *xi, fl_vec3 *f, fl_vec3 *t)
{
  /* Closest point of the segment axis to the tool axis: minimise the distance across u. */
  fl_vec3 u = tool->axis;
  fl_vec3 rel = fl_sub(x, tool->point);
  fl_vec3 rel_p = fl_across(rel, u);
  fl_vec3 a_p = fl_across(a, u);
  double aa = fl_dot(a_p, a_p), s = 0.0;
  if (aa > 1e-24) {
    s = -fl_dot(rel_p, a_p) / aa;
    s = s < -hl ? -hl : (s > hl ? hl : s);
  }
  fl_vec3 sep = fl_axpy(rel_p, s, a_p);
  double dist = fl_norm(sep);
  double delta = r + tool->radius - dist;
  if (delta <= 0.0 || dist <= 0.0) {
    *xi = fl_v3(0.0, 0.0, 0.0);
    return delta;
  }
  fl_vec3 nrm = fl_scale(sep, 1.0 / dist); /* from the tool towards the segment */
  fl_vec3 arm = fl_axpy(fl_scale(a, s), -r + 0.5 * delta, nrm); /* centre -> contact point */
  fl_vec3 vc = fl_sub(fl_add(v, fl_cross(w, arm)), tool->vel);
  double vn = fl_dot(vc, nrm);
  fl_vec3 vt = fl_axpy(vc, -vn, nrm);

  fl_vec3 force = fl_contact_force(law, delta, nrm, vn, vt, dt, xi);
  *f = fl_add(*f, force);
  *t = fl_add(*t, fl_cross(arm, force));
  return delta;
}

/* Closest points of two segments p1 + s d1, p2 + t d2 with s, t in [-1, 1] (d1, d2 half
 * the segments); after Ericson, Real-Time Collision Detection (2005), section 5.1.9. */
FL_HD static inline void fl_closest_segments(fl_vec3 p1, fl_vec3 d1, fl_vec3 p2, fl_vec3 d2, double *s, double *t)
{
  /* in the parameter u = (s + 1) / 2 on [0, 1] with full vectors D = 2 d */
  fl_vec3 a = fl_sub(p1, d1), b = fl_sub(p2, d2), D1 = fl_scale(d1, 2.0), D2 = fl_scale(d2, 2.0);
  fl_vec3 r = fl_sub(a, b);
  double aa = fl_dot(D1, D1), ee = fl_dot(D2, D2), f = fl_dot(D2, r), u, v;
  double c = fl_dot(D1, r), bb = fl_dot(D1, D2), den = aa * ee - bb * bb;
  u = den > 1e-14 * aa * ee ? (bb * f - c * ee) / den : 0.0;
  u = u < 0.0 ? 0.0 : (u > 1.0 ? 1.0 : u);
  v = (bb * u + f) / ee;
  if (v < 0.0) {
    v = 0.0;
    u = -c / aa;
  } else if (v > 1.0) {
    v = 1.0;
    u = (bb - c) / aa;
  }
  u = u < 0.0 ? 0.0 : (u > 1.0 ? 1.0 : u);
  *s = 2.0 * u - 1.0;
  *t = 2.0 * v - 1.0;
}

/* The contact of two sphero-cylinder segments (centre x, unit axis a, half
 * cylinder length hl, radius r, velocities v, w each).  Returns the overlap (<= 0: none,
 * history cleared); when touching, *f is the force on segment 1 (segment 2 takes -f)
 * and *t1, *t2 the torques about the centres. */
FL_HD static inline double fl_contact_segments(const fl_contact_law *law, fl_vec3 x1, fl_vec3 a1, double hl1, double r1,
                                               fl_vec3 v1, fl_vec3 w1, fl_vec3 x2, fl_vec3 a2, double hl2, double r2,
                                               fl_vec3 v2, fl_vec3 w2, double dt, fl_vec3 *xi, fl_vec3 *f,
                                               fl_vec3 *t1, fl_vec3 *t2)
{
  double s, t;
  fl_closest_segments(x1, fl_scale(a1, hl1), x2, fl_scale(a2, hl2), &s, &t);
  fl_vec3 c1 = fl_axpy(x1, s * hl1, a1), c2 = fl_axpy(x2, t * hl2, a2);
  fl_vec3 sep = fl_sub(c1, c2);
  double dist = fl_norm(sep), delta = r1 + r2 - dist;
  *f = *t1 = *t2 = fl_v3(0.0, 0.0, 0.0);
  if (delta <= 0.0 || dist <= 0.0) {
    *xi = fl_v3(0.0, 0.0, 0.0);
    return delta;
  }
  fl_vec3 nrm = fl_scale(sep, 1.0 / dist); /* from segment 2 towards segment 1 */
  fl_vec3 cp = fl_axpy(c2, r2 - 0.5 * delta, nrm);
  fl_vec3 arm1 = fl_sub(cp, x1), arm2 = fl_sub(cp, x2);
  fl_vec3 vc = fl_sub(fl_add(v1, fl_cross(w1, arm1)), fl_add(v2, fl_cross(w2, arm2)));
  double vn = fl_dot(vc, nrm);
  fl_vec3 vt = fl_axpy(vc, -vn, nrm);
  *f = fl_contact_force(law, delta, nrm, vn, vt, dt, xi);
  *t1 = fl_cross(arm1, *f);
  *t2 = fl_cross(arm2, fl_neg(*f));
  return delta;
}

/* Whether the segment at x (half length hl, radius r) cannot touch the tool: its centre
 * lies further than hl + r + the tool's radius from the tool's axis (not for a position
 * that is not a number, which the contact then carries into the loads).  Beyond reach,
 * the pair's loads read nothing of the segment's velocity. */
FL_HD static inline int fl_tool_beyond_reach(const fl_tool *tool, fl_vec3 x, double hl, double r)
{
  fl_vec3 rp = fl_across(fl_sub(x, tool->point), tool->axis);
  double reach = hl + r + tool->radius;
  return fl_dot(rp, rp) > reach * reach;
}

/* All tool contacts of one free segment: adds their force and torque to *f, *t, writes
 * each tool's share (the force the segment puts on the tool) to tool_force[k], keeps
 * the overlap's maximum in *overlap.  xi[k] is the history of the pair with tool k;
 * advance 0 evaluates without moving it on. */
FL_HD static inline void fl_contact_tools(const fl_contact_law *law, const fl_tool *tools, int ntool, fl_vec3 x,
                                          fl_quat q, fl_vec3 v, fl_vec3 w, double hl, double r, double dt,
                                          fl_vec3 *xi, int advance, fl_vec3 *f, fl_vec3 *t, fl_vec3 *tool_force,
                                          double *overlap)
{
  fl_vec3 a = fl_qrot(q, fl_v3(1.0, 0.0, 0.0));
  for (int k = 0; k < ntool; k++) {
    const fl_tool *tool = &tools[k];
    tool_force[k] = fl_v3(0.0, 0.0, 0.0);
    if (fl_tool_beyond_reach(tool, x, hl, r)) {
      if (advance)
        xi[k] = fl_v3(0.0, 0.0, 0.0);
      continue;
    }
    fl_vec3 fc = fl_v3(0.0, 0.0, 0.0), tc = fl_v3(0.0, 0.0, 0.0);
    fl_vec3 hist = xi[k];
    double delta = fl_contact_tool(&law[k], tool, x, a, hl, r, v, w, dt, &hist, &fc, &tc);
    if (advance) {
      xi[k] = hist;
      if (delta > *overlap)
        *overlap = delta;
    }
    *f = fl_add(*f, fc);
    *t = fl_add(*t, tc);
    tool_force[k] = fl_neg(fc);
  }
}

#endif
