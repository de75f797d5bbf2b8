/* vec.h: 3-vectors, unit quaternions and symmetric 3x3 matrices as plain structs with
 * inline host/device functions. No allocation, no I/O, no libc beyond <math.h>. */
#ifndef FL_VEC_H
#define FL_VEC_H

#include <math.h>
#include "fl_defs.h"

typedef struct { double x, y, z; } fl_vec3;
typedef struct { double w, x, y, z; } fl_quat;       /* w + xi + yj + zk */
typedef struct { double xx, yy, zz, xy, xz, yz; } fl_sym3; /* symmetric 3x3 */

FL_HD static inline fl_vec3 fl_v3(double x, double y, double z) { fl_vec3 r = {x, y, z}; return r; }
FL_HD static inline fl_vec3 fl_add(fl_vec3 a, fl_vec3 b) { return fl_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
FL_HD static inline fl_vec3 fl_sub(fl_vec3 a, fl_vec3 b) { return fl_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
FL_HD static inline fl_vec3 fl_scale(fl_vec3 a, double s) { return fl_v3(a.x * s, a.y * s, a.z * s); }
FL_HD static inline fl_vec3 fl_neg(fl_vec3 a) { return fl_v3(-a.x, -a.y, -a.z); }
FL_HD static inline double fl_dot(fl_vec3 a, fl_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
FL_HD static inline double fl_norm(fl_vec3 a) { return sqrt(fl_dot(a, a)); }
FL_HD static inline fl_vec3 fl_cross(fl_vec3 a, fl_vec3 b)
{
  return fl_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
/* a + s b */
FL_HD static inline fl_vec3 fl_axpy(fl_vec3 a, double s, fl_vec3 b)
{
  return fl_v3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}

FL_HD static inline fl_quat fl_q(double w, double x, double y, double z) { fl_quat r = {w, x, y, z}; return r; }
FL_HD static inline fl_quat fl_qid(void) { return fl_q(1.0, 0.0, 0.0, 0.0); }
FL_HD static inline fl_vec3 fl_qvec(fl_quat q) { return fl_v3(q.x, q.y, q.z); }
FL_HD static inline fl_quat fl_qconj(fl_quat q) { return fl_q(q.w, -q.x, -q.y, -q.z); }
FL_HD static inline fl_quat fl_qmul(fl_quat a, fl_quat b)
{
  return fl_q(a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
              a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
              a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
              a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w);
}
FL_HD static inline fl_quat fl_qnormalize(fl_quat q)
{
  double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  return fl_q(q.w / n, q.x / n, q.y / n, q.z / n);
}
/* Rotate v by unit quaternion q (body -> world when q is a body's orientation). */
FL_HD static inline fl_vec3 fl_qrot(fl_quat q, fl_vec3 v)
{
  fl_vec3 u = fl_qvec(q);
  fl_vec3 t = fl_scale(fl_cross(u, v), 2.0);
  return fl_add(fl_axpy(v, q.w, t), fl_cross(u, t));
}
/* Inverse rotation (world -> body). */
FL_HD static inline fl_vec3 fl_qrot_inv(fl_quat q, fl_vec3 v) { return fl_qrot(fl_qconj(q), v); }

/* Quaternion of the rotation vector phi (axis * angle, rad): the exponential map.
 * Below 0.05 rad (every step of a stable run) the Taylor series to h^8 is exact to
 * rounding and spares sin and cos; fl_qexp_series is that series alone (no branch). */
FL_HD static inline fl_quat fl_qexp_series(fl_vec3 phi)
{
  double a2 = fl_dot(phi, phi);
  double h2 = 0.25 * a2; /* (a/2)^2 */
  double c = 1.0 - h2 * (1.0 / 2 - h2 * (1.0 / 24 - h2 * (1.0 / 720 - h2 * (1.0 / 40320))));
  double s = 0.5 * (1.0 - h2 * (1.0 / 6 - h2 * (1.0 / 120 - h2 * (1.0 / 5040 - h2 * (1.0 / 362880)))));
  return fl_q(c, s * phi.x, s * phi.y, s * phi.z);
}
FL_HD static inline fl_quat fl_qexp(fl_vec3 phi)
{
  double a2 = fl_dot(phi, phi), c, s;
  if (a2 < 0.0025) {
    return fl_qexp_series(phi);
  } else {
    double a = sqrt(a2), h = 0.5 * a;
    c = cos(h);
    s = sin(h) / a;
  }
  return fl_q(c, s * phi.x, s * phi.y, s * phi.z);
}
/* atan(z) for |z| < 1/8: the series to z^19, exact to rounding (the next term is under
 * 1e-19) and much cheaper than the library's; no branch, so loops over it vectorise. */
FL_HD static inline double fl_atan_series(double z)
{
  double z2 = z * z;
  double p = 1.0 / 19;
  p = 1.0 / 17 - z2 * p;
  p = 1.0 / 15 - z2 * p;
  p = 1.0 / 13 - z2 * p;
  p = 1.0 / 11 - z2 * p;
  p = 1.0 / 9 - z2 * p;
  p = 1.0 / 7 - z2 * p;
  p = 1.0 / 5 - z2 * p;
  p = 1.0 / 3 - z2 * p;
  return z * (1.0 - z2 * p);
}
/* atan2(y, x) for x > 0: the series below |y| < x / 8, else the library's. */
FL_HD static inline double fl_atan2_pos(double y, double x)
{
  if (x > 0.0 && fabs(y) < 0.125 * x)
    return fl_atan_series(y / x);
  return atan2(y, x);
}

/* The part of v across the unit axis a (v less its component along a). */
FL_HD static inline fl_vec3 fl_across(fl_vec3 v, fl_vec3 a)
{
  return fl_axpy(v, -fl_dot(v, a), a);
}

/* v turned about the unit axis u by the angle whose cosine and sine are c and s
 * (Rodrigues). */
FL_HD static inline fl_vec3 fl_vrot(fl_vec3 v, fl_vec3 u, double c, double s)
{
  return fl_axpy(fl_axpy(fl_scale(v, c), s, fl_cross(u, v)), (1.0 - c) * fl_dot(u, v), u);
}

/* Rotation vector of a unit quaternion, angle in [0, pi]: the logarithm map. */
FL_HD static inline fl_vec3 fl_qlog(fl_quat q)
{
  if (q.w < 0.0)
    q = fl_q(-q.w, -q.x, -q.y, -q.z);
  fl_vec3 v = fl_qvec(q);
  double s = fl_norm(v);
  double f = (s < 1e-12) ? 2.0 / q.w : 2.0 * atan2(s, q.w) / s;
  return fl_scale(v, f);
}

/* 3x3 rotation matrix of a unit quaternion, rows r[0..2]. */
typedef struct { fl_vec3 r[3]; } fl_mat3;
FL_HD static inline fl_mat3 fl_qmat(fl_quat q)
{
  double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z, xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  fl_mat3 m;
  m.r[0] = fl_v3(1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy));
  m.r[1] = fl_v3(2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx));
  m.r[2] = fl_v3(2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy));
  return m;
}
/* m v */
FL_HD static inline fl_vec3 fl_mat_mul(const fl_mat3 *m, fl_vec3 v)
{
  return fl_v3(fl_dot(m->r[0], v), fl_dot(m->r[1], v), fl_dot(m->r[2], v));
}
/* m^T v */
FL_HD static inline fl_vec3 fl_mat_tmul(const fl_mat3 *m, fl_vec3 v)
{
  return fl_axpy(fl_axpy(fl_scale(m->r[0], v.x), v.y, m->r[1]), v.z, m->r[2]);
}

FL_HD static inline fl_sym3 fl_sym(double xx, double yy, double zz, double xy, double xz, double yz)
{
  fl_sym3 m = {xx, yy, zz, xy, xz, yz};
  return m;
}
/* k_t I + d a a^T: fl_sym_axial with d = k_a - k_t given (formed once where k_a and k_t
 * do not change). */
FL_HD static inline fl_sym3 fl_sym_axial_diff(fl_vec3 a, double k_t, double d)
{
  return fl_sym(k_t + d * a.x * a.x, k_t + d * a.y * a.y, k_t + d * a.z * a.z,
                d * a.x * a.y, d * a.x * a.z, d * a.y * a.z);
}
/* k_t I + (k_a - k_t) a a^T: a transversely isotropic stiffness with axis a (unit). */
FL_HD static inline fl_sym3 fl_sym_axial(fl_vec3 a, double k_a, double k_t)
{
  return fl_sym_axial_diff(a, k_t, k_a - k_t);
}
FL_HD static inline fl_sym3 fl_sym_add(fl_sym3 a, fl_sym3 b)
{
  return fl_sym(a.xx + b.xx, a.yy + b.yy, a.zz + b.zz, a.xy + b.xy, a.xz + b.xz, a.yz + b.yz);
}
FL_HD static inline fl_vec3 fl_sym_mul(fl_sym3 m, fl_vec3 v)
{
  return fl_v3(m.xx * v.x + m.xy * v.y + m.xz * v.z,
               m.xy * v.x + m.yy * v.y + m.yz * v.z,
               m.xz * v.x + m.yz * v.y + m.zz * v.z);
}
/* Inverse of a symmetric matrix known to be regular. */
FL_HD static inline fl_sym3 fl_sym_inv_regular(fl_sym3 m)
{
  double cxx = m.yy * m.zz - m.yz * m.yz;
  double cxy = m.xz * m.yz - m.xy * m.zz;
  double cxz = m.xy * m.yz - m.xz * m.yy;
  double det = m.xx * cxx + m.xy * cxy + m.xz * cxz;
  double r = 1.0 / det;
  return fl_sym(cxx * r, (m.xx * m.zz - m.xz * m.xz) * r, (m.xx * m.yy - m.xy * m.xy) * r, cxy * r, cxz * r,
                (m.xy * m.xz - m.xx * m.yz) * r);
}
/* Inverse of a symmetric matrix; returns 0 when singular. */
FL_HD static inline int fl_sym_inv(fl_sym3 m, fl_sym3 *inv)
{
  double cxx = m.yy * m.zz - m.yz * m.yz;
  double cxy = m.xz * m.yz - m.xy * m.zz;
  double cxz = m.xy * m.yz - m.xz * m.yy;
  double det = m.xx * cxx + m.xy * cxy + m.xz * cxz;
  if (!(fabs(det) > 0.0))
    return 0;
  *inv = fl_sym_inv_regular(m);
  return 1;
}

#endif
