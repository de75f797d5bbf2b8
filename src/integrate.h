/* integrate.h: the explicit step of one rigid body (MODEL.md section 9), shared by the
 * CPU and CUDA engines: leapfrog for translation, angular momentum in the world frame,
 * orientation by the exponential map, renormalised.  Bodies are symmetric about their
 * x axis (sphero-cylinder segments). */
#ifndef FL_INTEGRATE_H
#define FL_INTEGRATE_H

#include "vec.h"

/* w = R diag(1/Ia, 1/It, 1/It) R^T L. */
FL_HD static inline fl_vec3 fl_omega_of(fl_quat q, fl_vec3 L, double ia, double it)
{
  /* body x axis in world: the first column of R(q) */
  fl_vec3 a = fl_v3(1.0 - 2.0 * (q.y * q.y + q.z * q.z), 2.0 * (q.x * q.y + q.w * q.z), 2.0 * (q.x * q.z - q.w * q.y));
  return fl_axpy(fl_scale(L, 1.0 / it), (1.0 / ia - 1.0 / it) * fl_dot(a, L), a);
}

/* One step of a free body with force f and torque t (about its centre) under gravity
 * g (m/s^2); x, v (half step), q, L, w updated in place.  Returns 0 when the body left
 * the finite numbers. */
FL_HD static inline int fl_integrate_free(fl_vec3 *x, fl_vec3 *v, fl_quat *q, fl_vec3 *L, fl_vec3 *w, fl_vec3 f,
                                          fl_vec3 t, fl_vec3 g, double m, double ia, double it, double dt)
{
  *v = fl_axpy(fl_axpy(*v, dt / m, f), dt, g);
  *x = fl_axpy(*x, dt, *v);
  *L = fl_axpy(*L, dt, t);
  fl_vec3 w_half = fl_omega_of(*q, *L, ia, it);
  *q = fl_qnormalize(fl_qmul(fl_qexp(fl_scale(w_half, dt)), *q));
  *w = fl_omega_of(*q, *L, ia, it);
  return isfinite(x->x) && isfinite(x->y) && isfinite(x->z) && isfinite(w->x) && isfinite(w->y) && isfinite(w->z);
}

/* A body held by the moving grip: its reference position x_ref and orientation q_ref
 * moved by disp along x and turned by qg (angular velocity wg about x), grip speed vg. */
FL_HD static inline void fl_integrate_grip(fl_vec3 *x, fl_vec3 *v, fl_quat *q, fl_vec3 *L, fl_vec3 *w, fl_vec3 x_ref,
                                           fl_quat q_ref, double disp, fl_quat qg, fl_vec3 wg, double vg)
{
  *x = fl_qrot(qg, fl_add(x_ref, fl_v3(disp, 0.0, 0.0)));
  *q = fl_qmul(qg, q_ref);
  *w = wg;
  *v = fl_add(fl_v3(vg, 0.0, 0.0), fl_cross(wg, *x));
  *L = fl_v3(0.0, 0.0, 0.0);
}

#endif
