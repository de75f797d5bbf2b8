/* integrate.h: the explicit step of one rigid body (fiberlab-model(7), Time
 * integration), shared by the CPU and CUDA engines.  Bodies are symmetric about their x
 * axis (sphero-cylinder segments), and the step is a Strang splitting that is
 * symplectic and time-reversible for such a body: half a kick of the force and torque,
 * the exact free motion over the whole step (straight flight; the torque-free rotation
 * of a symmetric top), the other half kick with the loads of the new configuration.
 * Velocity and angular momentum are stored half a kick behind the positions, so the two
 * half kicks of consecutive steps merge into one, and one load evaluation serves each
 * step (velocity Verlet in leapfrog form). */
#ifndef FL_INTEGRATE_H
#define FL_INTEGRATE_H

#include "vec.h"

/* fl_omega_of with the body's inverse inertias given as rit = 1/It, di = 1/Ia - 1/It. */
FL_HD static inline fl_vec3 fl_omega_of_inv(fl_quat q, fl_vec3 L, double rit, double di)
{
  /* body x axis in world: the first column of R(q) */
  fl_vec3 a = fl_v3(1.0 - 2.0 * (q.y * q.y + q.z * q.z), 2.0 * (q.x * q.y + q.w * q.z), 2.0 * (q.x * q.z - q.w * q.y));
  return fl_axpy(fl_scale(L, rit), di * fl_dot(a, L), a);
}

/* w = R diag(1/Ia, 1/It, 1/It) R^T L. */
FL_HD static inline fl_vec3 fl_omega_of(fl_quat q, fl_vec3 L, double ia, double it)
{
  return fl_omega_of_inv(q, L, 1.0 / it, 1.0 / ia - 1.0 / it);
}

/* L = R diag(Ia, It, It) R^T w: the angular momentum of a body with angular velocity w
 * (world), the inverse of fl_omega_of. */
FL_HD static inline fl_vec3 fl_momentum_of(fl_quat q, fl_vec3 w, double ia, double it)
{
  fl_vec3 a = fl_v3(1.0 - 2.0 * (q.y * q.y + q.z * q.z), 2.0 * (q.x * q.y + q.w * q.z), 2.0 * (q.x * q.z - q.w * q.y));
  return fl_axpy(fl_scale(w, it), (ia - it) * fl_dot(a, w), a);
}

/* The torque-free motion of a symmetric top over dt with angular momentum L (world,
 * constant): the body axis precesses about L at the rate |L| / It while the body spins
 * about its own axis at (1/Ia - 1/It) (a . L), both uniform, so
 *   q(dt) = exp(dt L / It) q exp(dt (1/Ia - 1/It) (a . L) e_x)
 * exactly (its angular velocity is L / It + (1/Ia - 1/It) (a . L) a = I^-1 L at every
 * instant, and a . L does not change). */
FL_HD static inline fl_quat fl_free_rotation(fl_quat q, fl_vec3 L, double ia, double it, double dt)
{
  fl_vec3 a = fl_v3(1.0 - 2.0 * (q.y * q.y + q.z * q.z), 2.0 * (q.x * q.y + q.w * q.z), 2.0 * (q.x * q.z - q.w * q.y));
  double spin = dt * (1.0 / ia - 1.0 / it) * fl_dot(a, L);
  fl_quat r = fl_qmul(fl_qmul(fl_qexp(fl_scale(L, dt / it)), q), fl_qexp(fl_v3(spin, 0.0, 0.0)));
  return fl_qnormalize(r);
}

/* One step of a free body with force f and torque t (about its centre) of the current
 * positions, under gravity g (m/s^2).  v and L come in half a kick behind the
 * positions and leave half a kick ahead of the new ones: v += dt (f/m + g), L += dt t
 * (this step's second half kick and the next one's first), then x moves by dt v and q
 * by the free rotation with L; w is I^-1 L in the new orientation.  Returns 0 when the
 * body left the finite numbers. */
FL_HD static inline int fl_integrate_free(fl_vec3 *x, fl_vec3 *v, fl_quat *q, fl_vec3 *L, fl_vec3 *w, fl_vec3 f,
                                          fl_vec3 t, fl_vec3 g, double m, double ia, double it, double dt)
{
  *v = fl_axpy(fl_axpy(*v, dt / m, f), dt, g);
  *x = fl_axpy(*x, dt, *v);
  *L = fl_axpy(*L, dt, t);
  *q = fl_free_rotation(*q, *L, ia, it, dt);
  *w = fl_omega_of(*q, *L, ia, it);
  return isfinite(x->x) && isfinite(x->y) && isfinite(x->z) && isfinite(w->x) && isfinite(w->y) && isfinite(w->z);
}

/* The quotients of a body's step that depend only on its mass, inertias and dt, formed
 * once (fl_integrate_quotients) for fl_integrate_free_inline: to the same bits as
 * fl_integrate_free forms them. */
typedef struct {
  double dtm;  /* dt / m, s/kg */
  double dti;  /* dt / It */
  double rit;  /* 1 / It, 1/(kg m^2) */
  double di;   /* 1 / Ia - 1 / It */
  double dtdi; /* dt (1 / Ia - 1 / It) */
} fl_body_quotients;

FL_HD static inline fl_body_quotients fl_integrate_quotients(double m, double ia, double it, double dt)
{
  fl_body_quotients k;
  k.dtm = dt / m;
  k.dti = dt / it;
  k.rit = 1.0 / it;
  k.di = 1.0 / ia - 1.0 / it;
  k.dtdi = dt * k.di;
  return k;
}

/* What fl_integrate_free_inline returns. */
typedef struct {
  fl_vec3 x, v, L, w;
  fl_quat q;
  int ok; /* 0: a turn of the step past the series of fl_qexp, or the body left the
           * finite numbers: take the step again with fl_integrate_free */
} fl_free_step;

/* fl_integrate_free by value and without branches, for a loop over bodies that
 * vectorises: the same operations, so the same bits, where ok is 1. */
FL_HD FL_ALWAYS_INLINE static inline fl_free_step fl_integrate_free_inline(fl_vec3 x, fl_vec3 v, fl_quat q, fl_vec3 L,
                                                                         fl_vec3 f, fl_vec3 t, fl_vec3 g,
                                                                         fl_body_quotients k, double dt)
{
  fl_free_step r;
  r.v = fl_axpy(fl_axpy(v, k.dtm, f), dt, g);
  r.x = fl_axpy(x, dt, r.v);
  r.L = fl_axpy(L, dt, t);
  fl_vec3 a = fl_v3(1.0 - 2.0 * (q.y * q.y + q.z * q.z), 2.0 * (q.x * q.y + q.w * q.z), 2.0 * (q.x * q.z - q.w * q.y));
  double spin = k.dtdi * fl_dot(a, r.L); /* (dt (1/Ia - 1/It)) (a . L), as C groups it */
  fl_vec3 phi1 = fl_scale(r.L, k.dti), phi2 = fl_v3(spin, 0.0, 0.0);
  r.q = fl_qnormalize(fl_qmul(fl_qmul(fl_qexp_series(phi1), q), fl_qexp_series(phi2)));
  r.w = fl_omega_of_inv(r.q, r.L, k.rit, k.di);
  double turn1 = fl_dot(phi1, phi1), turn2 = fl_dot(phi2, phi2); /* (rad)^2 */
  r.ok = (turn1 < 0.0025) & (turn2 < 0.0025) & (fabs(r.x.x) <= 1.79e308) & (fabs(r.x.y) <= 1.79e308) &
         (fabs(r.x.z) <= 1.79e308) & (fabs(r.w.x) <= 1.79e308) & (fabs(r.w.y) <= 1.79e308) &
         (fabs(r.w.z) <= 1.79e308);
  return r;
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
