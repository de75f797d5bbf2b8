/* increment.c: one increment of the path (fiberlab-model(7), THE STATIC SOLVER,
 * Increments): the first guess from the last converged states, Newton from there, and
 * the point within a converged increment where the first bond reaches its limit. */
#include <config.h>

#include <math.h>

#include "internal.h"

#define PREDICT_REACH 2.0     /* a quadratic first guess no further ahead than this many times its states' span, */
#define PREDICT_BEND 0.25     /* where the rates of motion changed by less than this of their size ... */
#define PREDICT_STRAIGHT 1e-5 /* ... and by more than this */
#define PREDICT_CUBIC 0.01    /* the cubic only where the rates changed by less than this over both
                               * increments before (a smooth path, not a contact settling in) */

/* The first guess of the free bodies' state at path position u: the polynomial in u
 * through the last converged state and up to NHIST before it on the same leg
 * (Lagrange's form), in the positions and in the rotation vectors relative to the last
 * state.  Along a smooth path a polynomial through k + 1 states leaves a residual of
 * order k + 1 in the increment.  Along a bent beam the free ends move in x with the
 * square of the deflection, and the stiff axial bonds (and a cantilever's tip spring,
 * a thousand times the beam's stiffness) turn a small error of position into a large
 * residual: from a line every increment of a bent beam starts a few Newton iterations
 * away, from a parabola or a cubic orders of magnitude nearer (the path's third or
 * fourth differences).  The state before the last enters only where the
 * bodies' rates of motion over the last two increments differ by less than
 * PREDICT_BEND of their size (a turn of the path, a contact lost or made, a body that
 * has come to rest: there a polynomial flings the bodies on where a line stops them)
 * and by more than PREDICT_STRAIGHT (a straight path, where extrapolating more states'
 * rounding only costs an iteration); the one before that only where the rates changed
 * by less than PREDICT_CUBIC over each of the last two pairs of increments (a cubic
 * after a contact settling in lost tests/validate.c's span case of 40 segments); each
 * only while u is within PREDICT_REACH times the span of the states taken, and none
 * after a failed increment (a weightless chain at its first contact, the same case,
 * then ends in cut-backs). */
static void predict(workspace *w, double u)
{
  double du = u - w->uc, t[NHIST + 1]; /* the states' positions on the path from uc */
  if (w->have_prev < 1 || w->uh[0] == w->uc || du * (w->uc - w->uh[0]) <= 0.0)
    return; /* the last state, where nothing came before on this leg */
  t[0] = 0.0;
  int order = 1; /* the states before the last that enter: 1 a line */
  for (int k = 0; k < w->have_prev; k++)
    t[k + 1] = w->uh[k] - w->uc;
  if (!w->cut)
    while (order < w->have_prev && (t[order + 1] - t[order]) * t[1] > 0.0 &&
           fabs(du) <= PREDICT_REACH * fabs(t[order + 1]))
      order++;
  fl_vec3 *rv = w->rot;       /* rotation vectors to the states before: rv[k nf + j] */
  double arm = w->hx / w->hr; /* m/rad: a turn as a length */
  double bend[NHIST] = {0.0}, size[NHIST] = {0.0};
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    fl_vec3 vprev = fl_v3(0.0, 0.0, 0.0), oprev = vprev;
    for (int k = 0; k < order; k++) {
      rv[k * w->nf + j] = fl_qlog(fl_qmul(w->qh[k][i], fl_qconj(w->qc[i])));
      /* the rates over the increment from state k to the one after it */
      fl_vec3 dx = fl_sub(k ? w->xh[k - 1][i] : w->xc[i], w->xh[k][i]);
      fl_vec3 dr = k ? fl_sub(rv[(k - 1) * w->nf + j], rv[k * w->nf + j]) : fl_scale(rv[j], -1.0);
      double span = t[k] - t[k + 1];
      fl_vec3 v = fl_scale(dx, 1.0 / span), o = fl_scale(dr, arm / span);
      if (k > 0) {
        fl_vec3 dv = fl_sub(vprev, v), dw = fl_sub(oprev, o);
        bend[k] += fl_dot(dv, dv) + fl_dot(dw, dw);
        size[k] += fl_dot(v, v) + fl_dot(o, o);
      }
      vprev = v;
      oprev = o;
    }
  }
  /* the first older state enters where the path bends, but not along a straight
   * line; the second only where the path bent smoothly over both increments before */
  int keep = 1;
  if (order >= 2 && bend[1] <= PREDICT_BEND * PREDICT_BEND * size[1] &&
      bend[1] > PREDICT_STRAIGHT * PREDICT_STRAIGHT * size[1]) {
    keep = 2;
    if (order >= 3 && bend[1] <= PREDICT_CUBIC * PREDICT_CUBIC * size[1] &&
        bend[2] <= PREDICT_CUBIC * PREDICT_CUBIC * size[2])
      keep = 3;
  }
  order = keep;
  double l[NHIST]; /* Lagrange's weights of the states before; xc's is the rest */
  for (int k = 1; k <= order; k++) {
    double wk = 1.0;
    for (int m = 0; m <= order; m++)
      if (m != k)
        wk *= (du - t[m]) / (t[k] - t[m]);
    l[k - 1] = wk;
  }
  for (int j = 0; j < w->nf; j++) {
    int i = w->first + j;
    fl_vec3 x = w->xc[i], rot = fl_v3(0.0, 0.0, 0.0);
    for (int k = 0; k < order; k++) {
      x = fl_axpy(x, l[k], fl_sub(w->xh[k][i], w->xc[i]));
      rot = fl_axpy(rot, l[k], rv[k * w->nf + j]);
    }
    w->sys->x[i] = x;
    w->sys->q[i] = fl_qnormalize(fl_qmul(fl_qexp(rot), w->qc[i]));
  }
}

/* One increment from the converged state to position u: a first guess extrapolated
 * from the last converged states on the same leg (predict), then Newton.  Returns 1
 * when converged (not yet committed); else the state is back at the last converged
 * one. */
int fl_static_increment(workspace *w, double u, int *iterations)
{
  fl_static_apply_position(w, u);
  predict(w, u);
  w->cut = 1; /* until it converges */
  if (fl_static_newton(w, iterations)) {
    w->cut = 0;
    return 1;
  }
  fl_static_restore(w);
  w->lu_valid = 0;
  return 0;
}

/* A converged increment from uc to u (breaks off) took a bond past its limit, by g1
 * (fl_static_break_margin).  Find the fraction s of the increment where the first bond reaches
 * its limit, by regula falsi with the Illinois weighting on the margin, each point an
 * equilibrium from the converged state: the peak before a break is then a smooth
 * function of the strength, as a fit by differences needs, not the last of a ladder of
 * cut-back increments.  On return the equilibrium at uc + s_lo (u - uc), below the
 * limit, is applied and not committed (s_lo 0: the converged state), and s_hi is a
 * fraction at or past the limit.  Returns 0 when an equilibrium fails (the state is
 * then the converged one). */
int fl_static_locate_break(workspace *w, double u, double g1, double *s_lo, double *s_hi, int *iterations)
{
  double uc = w->uc, lo = 0.0, hi = 1.0, glo = w->g_c, ghi = g1, at = 1.0;
  int side = 0;
  for (int k = 0; k < 60 && hi - lo > 1e-11 && glo < -1e-12; k++) {
    double s = (lo * ghi - hi * glo) / (ghi - glo);
    if (!(s > lo && s < hi))
      s = 0.5 * (lo + hi);
    int it = 0;
    if (!fl_static_increment(w, uc + s * (u - uc), &it))
      return 0;
    *iterations += it;
    at = s;
    double g = fl_static_break_margin(w);
    if (g < 0.0) {
      if (side < 0)
        ghi *= 0.5;
      lo = s;
      glo = g;
      side = -1;
    } else {
      if (side > 0)
        glo *= 0.5;
      hi = s;
      ghi = g;
      side = 1;
    }
  }
  *s_lo = lo;
  *s_hi = hi;
  if (lo == 0.0) {
    fl_static_restore(w);
    return 1;
  }
  if (at != lo) {
    int it = 0;
    if (!fl_static_increment(w, uc + lo * (u - uc), &it))
      return 0;
    *iterations += it;
  }
  return 1;
}
