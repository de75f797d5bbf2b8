/* bond.h: one bond, one step: the law, its limits and buckling put together in
 * fl_bond_eval(), which evaluates one bond in isolation (the seam the unit tests use),
 * and how close a bond is to its limit or its buckling point.
 *
 * The parts, each host/device inline for the CPU and the CUDA engine:
 *   bond_law.h       definition, state, elastic force and moment, damping, torques
 *   bond_buckling.h  the buckling envelope and its cap on the bending moment
 *   bond_limits.h    the elastic limits, the behaviours beyond them, broken bonds
 *   bond_vector.h    the common bond's law, vectorisable */
#ifndef FL_BOND_H
#define FL_BOND_H

#include "bond_buckling.h"
#include "bond_law.h"
#include "bond_limits.h"
#include "bond_vector.h"

/* Buckling of a bond of a run whose limits are lim (fl_bond_buckle_envelope). */
FL_HD static inline void fl_bond_buckle(const fl_bond_limits *lim, fl_bond_work *wk, fl_bond_state *st,
                                        fl_bond_loads *out)
{
  fl_bond_buckle_envelope(&lim->buckling, wk, st, out);
}

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

/* The loads of an unbroken bond before its limit is checked: the elastic law on the
 * gap and angle less the plastic offsets, then the buckling envelope (st and lim may be
 * NULL). */
FL_HD static inline void fl_bond_trial(const fl_bond *bd, const fl_bond_limits *lim, const fl_body *b1,
                                       const fl_body *b2, fl_bond_state *st, fl_bond_loads *out, fl_bond_work *wk)
{
  fl_bond_trial_elastic(bd, b1, b2, st, out, wk);
  wk->cap = -1.0;
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

/* How close an unbroken bond is to its buckling point: the bending angle fl_bond_buckle
 * compares with the envelope (the total angle for plastic buckling, the elastic one for
 * the other kinds), over the angle at which the envelope caps the bond's moment (phi_b;
 * for plastic buckling of a bond that yielded below m_max, the point of the drop that
 * falls to its moment), for its present configuration.  1 at the buckling point; 0 for
 * a bond whose moment the envelope caps (reversible buckling: while it is past the
 * point; it buckles again when it comes back to it and is loaded past it), a broken
 * bond, or without buckling.  damped: the moment is the elastic one and the bending
 * part of the Maxwell element's torque st->td together, as the envelope caps them in a
 * viscoelastic run (fl_bond_damp_cap).  *phi and *m_at: for plastic buckling of a bond
 * not yet buckled, the total bending angle and the moment its point is judged by (as
 * the vectorised law gives them undamped, loads.c); else not a number. */
FL_HD static inline double fl_bond_buckling_use_at(const fl_bond *bd, const fl_bond_limits *lim, const fl_body *b1,
                                                   const fl_body *b2, const fl_bond_state *st, int damped,
                                                   double *phi, double *m_at)
{
  const fl_buckling_envelope *e = &lim->buckling;
  *phi = *m_at = NAN;
  if (st->broken || (st->buckled && e->type == FL_BUCKLING_DAMAGE) || e->type == FL_BUCKLING_NONE ||
      !(e->phi_b > 0.0))
    return 0.0;
  fl_bond_loads out;
  fl_bond_work wk;
  fl_bond_trial_elastic(bd, b1, b2, st, &out, &wk);
  if (!(wk.kb_eff > 0.0))
    return 0.0;
  double mt;
  fl_vec3 mb = fl_bond_bending_moment(&out, &mt);
  if (damped)
    mb = fl_add(mb, fl_across(fl_mat_mul(&wk.rot1, st->td), out.axis));
  double m = fl_norm(mb);
  if (e->type == FL_BUCKLING_PLASTIC) {
    /* 0 once the envelope has capped the moment (phi_max past the point) */
    double phis = fl_buckling_plastic_point(e, m);
    if (st->buckled && st->phi_max >= phis)
      return 0.0;
    if (!st->buckled) { /* fl_buckling_plastic_use(e, *phi, *m_at) is this use, to the bit */
      *phi = fl_norm(out.bend);
      *m_at = m;
    }
    return fl_norm(out.bend) / phis;
  }
  double u = m / wk.kb_eff / e->phi_b;
  return u <= 1.0 ? u : 0.0; /* reversible: past it, until it comes back */
}

/* fl_bond_buckling_use_at without the angle and moment. */
FL_HD static inline double fl_bond_buckling_use(const fl_bond *bd, const fl_bond_limits *lim, const fl_body *b1,
                                                const fl_body *b2, const fl_bond_state *st, int damped)
{
  double phi, m;
  return fl_bond_buckling_use_at(bd, lim, b1, b2, st, damped, &phi, &m);
}

/* fl_bond_buckling_use of the bond's elastic moment (damping apart, MODEL.md). */
FL_HD static inline double fl_bond_buckling_utilisation(const fl_bond *bd, const fl_bond_limits *lim,
                                                        const fl_body *b1, const fl_body *b2, const fl_bond_state *st)
{
  return fl_bond_buckling_use(bd, lim, b1, b2, st, 0);
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
