/* bond_limits.h: a bond's elastic limit and what it does beyond it: the criteria, the
 * radial return of the plastic behaviours, total breakage and the contact of a broken
 * bond's segments (fiberlab-model(7), Elastic limits and Beyond the limit).
 * Host/device inline, no I/O. */
#ifndef FL_BOND_LIMITS_H
#define FL_BOND_LIMITS_H

#include "bond_buckling.h"
#include "bond_law.h"
#include "contact.h"

/* Failure start criteria (fiberlab-model(7), Elastic limits), in YAML order. */
enum fl_criterion {
  FL_CRIT_NONE = 0, FL_CRIT_BENDING_STRESS, FL_CRIT_BENDING_ANGLE, FL_CRIT_AXIAL_STRESS,
  FL_CRIT_FORCE_STRESS, FL_CRIT_VON_MISES
};
/* Behaviours beyond the limit (fiberlab-model(7), Beyond the limit), in YAML order. */
enum fl_post_failure {
  FL_POST_TOTAL_BREAKAGE = 0, FL_POST_CONSTANT_TORQUE, FL_POST_CONSTANT_FORCE,
  FL_POST_COMBINED_PLASTICITY
};

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

/* A broken bond's two segments: no force while they still overlap as they did when
 * bonded; once they have separated, an ordinary Hertz-Mindlin contact (fiberlab-model(7),
 * Beyond the limit; the contact law of Tool contacts). */
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

#endif
