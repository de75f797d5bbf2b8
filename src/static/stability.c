/* stability.c: the stability of an equilibrium and the way off a bifurcation
 * (fiberlab-model(7), THE STATIC SOLVER, Stability): the count of the tangent's
 * unstable directions, from the signs of the pivots of a symmetric factorisation
 * (Sylvester's law of inertia), the critical mode by inverse iteration on those factors,
 * and the switch to the branch that leaves a bifurcation along it. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "internal.h"

#define MODE_ITERATIONS 30 /* inverse iterations for the critical mode at most, */
#define MODE_TOL 1e-10     /* until its direction moves by less than this */
#define SWITCH_TRIES 4     /* amplitudes tried along the critical mode, each twice the last */
#define SWITCH_FIRST 1e-2  /* the first trial amplitude of the model, of the length scale */

/* The weight of unknown a of a body in the work of the residual: the residual's torque
 * is scaled by ts and its force by fs, so a turn's row is taken ts / fs times (the
 * symmetric tangent is -W J). */
static double work_weight(const workspace *w, int a)
{
  return w->dof[a] < 3 ? 1.0 : w->ts / w->fs;
}

/* The weight of unknown a in the length of a mode: a turn counts as the half segment
 * it moves a segment's end by (m/rad), squared. */
static double mode_weight(const workspace *w, int a)
{
  return w->dof[a] < 3 ? 1.0 : 0.25 * w->seg * w->seg;
}

/* Solve H x = b with the factors L D L^T in w->ks (unit lower band of hb, the pivots
 * on its diagonal), in place. */
static void ldl_solve(const workspace *w, double *x)
{
  const int m = w->m, hb = w->hb, ld = hb + 1;
  const double *ks = w->ks;
  for (int i = 0; i < m; i++) /* L y = b */
    for (int k = 1; k <= hb && k <= i; k++)
      x[i] -= ks[(size_t)i * ld + k] * x[i - k];
  for (int i = 0; i < m; i++)
    x[i] /= ks[(size_t)i * ld];
  for (int i = m - 1; i >= 0; i--) /* L^T x = z */
    for (int k = 1; k <= hb && i + k < m; k++)
      x[i] -= ks[(size_t)(i + k) * ld + k] * x[i + k];
}

/* The symmetric tangent H = -W J (W: work_weight) from the band of w->abs, its two
 * triangles averaged, with a stiffening spring of w->reg of the stiffest diagonal of
 * its kind on every unknown (a rigid motion counts as held), into w->ks, then L D L^T
 * in place without pivoting.  Returns the pivots that are negative. */
static int ldl_factor(workspace *w)
{
  const int m = w->m, hb = w->hb, nu = w->nu, ld = hb + 1, diag = 2 * hb;
  double *ks = w->ks;
  double big[2] = {0.0, 0.0};
  for (int i = 0; i < m; i++)
    for (int k = 0; k <= hb && k <= i; k++) {
      int j = i - k; /* H(i, j) = -(W_i J(i, j) + W_j J(j, i)) / 2; J(r, c) at band row c, column diag + r - c */
      double a = gsl_matrix_get(w->abs, (size_t)j, (size_t)(diag + i - j)) * work_weight(w, i % nu);
      double b = gsl_matrix_get(w->abs, (size_t)i, (size_t)(diag + j - i)) * work_weight(w, j % nu);
      ks[(size_t)i * ld + k] = -0.5 * (a + b);
      if (k == 0)
        big[w->dof[i % nu] >= 3] = fmax(big[w->dof[i % nu] >= 3], fabs(ks[(size_t)i * ld]));
    }
  for (int i = 0; i < m; i++)
    ks[(size_t)i * ld] += REG_MIN * big[w->dof[i % nu] >= 3];
  int negative = 0;
  for (int i = 0; i < m; i++) {
    double *li = ks + (size_t)i * ld;
    for (int k = (i < hb ? i : hb); k >= 1; k--) { /* L(i, j), j = i - k, j ascending */
      const double *lj = ks + (size_t)(i - k) * ld;
      double s = li[k];
      for (int q = k + 1; q <= hb && q <= i; q++) /* the columns p = i - q before j */
        s -= li[q] * ks[(size_t)(i - q) * ld] * lj[q - k];
      li[k] = s / lj[0];
    }
    double d = li[0];
    for (int k = 1; k <= hb && k <= i; k++)
      d -= li[k] * li[k] * ks[(size_t)(i - k) * ld];
    if (d == 0.0 || !isfinite(d))
      d = d == 0.0 ? 1e-300 : d;
    li[0] = d;
    negative += d < 0.0;
  }
  return negative;
}

int fl_static_stability(workspace *w, int *negative)
{
  w->st.stability_checks++;
  fl_static_residual(w, w->r);
  fl_static_tangent(w, w->abs);
  w->st.tangents++;
  *negative = ldl_factor(w);
  fl_static_residual(w, w->r); /* the loads of the state itself again (the rows read them) */
  return 1;
}

/* The critical mode of the factorised tangent: the direction of its eigenvalue nearest 0
 * in the mode metric M (mode_weight), by inverse iteration x <- H^-1 M x, into phi (m
 * unknowns, of unit M-length); its eigenvalue into *lambda (the generalised force over
 * fs per unit amplitude, per unit amplitude). */
static void critical_mode(workspace *w, double *phi, double *lambda)
{
  const int m = w->m, nu = w->nu;
  double *x = w->ys; /* 2 m of room */
  for (int i = 0; i < m; i++) /* a start with every unknown in it */
    phi[i] = 1.0 + 0.1 * (i % 7) - 0.05 * (i % 3);
  double nrm = 0.0;
  for (int i = 0; i < m; i++)
    nrm += mode_weight(w, i % nu) * phi[i] * phi[i];
  for (int i = 0; i < m; i++)
    phi[i] /= sqrt(nrm);
  *lambda = 0.0;
  for (int it = 0; it < MODE_ITERATIONS; it++) {
    for (int i = 0; i < m; i++)
      x[i] = mode_weight(w, i % nu) * phi[i];
    ldl_solve(w, x);
    double xx = 0.0, px = 0.0;
    for (int i = 0; i < m; i++) {
      xx += mode_weight(w, i % nu) * x[i] * x[i];
      px += mode_weight(w, i % nu) * phi[i] * x[i];
    }
    if (!(xx > 0.0) || !isfinite(xx))
      return;
    *lambda = 1.0 / px; /* the Rayleigh quotient of the iteration */
    double s = (px < 0.0 ? -1.0 : 1.0) / sqrt(xx), move = 0.0;
    for (int i = 0; i < m; i++) {
      double v = s * x[i];
      move = fmax(move, fabs(v - phi[i]));
      phi[i] = v;
    }
    if (move < MODE_TOL)
      break;
  }
  /* a mode's sign is free: its largest component positive (a column bows towards +y,
   * as its imperfection does), so that a symmetric branching goes the same way always */
  int top = 0;
  for (int i = 1; i < m; i++)
    if (fabs(phi[i]) * sqrt(mode_weight(w, i % nu)) > fabs(phi[top]) * sqrt(mode_weight(w, top % nu)))
      top = i;
  if (phi[top] < 0.0)
    for (int i = 0; i < m; i++)
      phi[i] = -phi[i];
}

/* The free bodies at the state (xb, qb) moved by a times phi (unknowns). */
static void along(workspace *w, const double *phi, double a)
{
  fl_static_load_state(w, w->xb, w->qb);
  for (int j = 0; j < w->nf; j++) {
    double d[NDOF] = {0.0};
    for (int k = 0; k < w->nu; k++)
      d[w->dof[k]] = a * phi[w->nu * j + k];
    int i = w->first + j;
    fl_system *sys = w->sys;
    sys->x[i] = fl_axpy(sys->x[i], 1.0, fl_v3(d[0], d[1], d[2]));
    sys->q[i] = fl_qnormalize(fl_qmul(fl_qexp(fl_v3(d[3], d[4], d[5])), sys->q[i]));
  }
}

/* The generalised force along phi at amplitude a from the state (xb, qb), over fs:
 * phi^T W r. */
static double force_along(workspace *w, const double *phi, double a)
{
  along(w, phi, a);
  fl_static_residual(w, w->rp);
  double f = 0.0;
  for (int j = 0; j < w->nf; j++)
    for (int k = 0; k < w->nu; k++)
      f += phi[w->nu * j + k] * work_weight(w, k) * w->rp[NDOF * j + w->dof[k]];
  return f;
}

/* The amplitude along phi where the model of the energy along it, V(a) = lambda a^2 / 2
 * + b a^3 / 3 + c a^4 / 4, has its stable equilibrium nearest the present state, b and c
 * from the force along phi at +-a0; 0 where the model has none (a subcritical branch). */
static double model_amplitude(workspace *w, const double *phi, double lambda, double a0)
{
  double fp = force_along(w, phi, a0), fm = force_along(w, phi, -a0);
  /* f(a) = -(lambda a + b a^2 + c a^3) */
  double b = -(fp + fm) / (2.0 * a0 * a0), c = -((fp - fm) / (2.0 * a0) + lambda) / (a0 * a0);
  double best = 0.0, energy = 0.0;
  double disc = b * b - 4.0 * c * lambda;
  if (!(disc >= 0.0) || c == 0.0)
    return 0.0;
  for (int sg = -1; sg <= 1; sg += 2) {
    double a = (-b + sg * sqrt(disc)) / (2.0 * c);
    double stiff = lambda + 2.0 * b * a + 3.0 * c * a * a;
    double v = 0.5 * lambda * a * a + b * a * a * a / 3.0 + 0.25 * c * a * a * a * a;
    /* the lower of the two, the one along +phi where they tie (a symmetric branching) */
    if (a != 0.0 && stiff > 0.0 && (best == 0.0 || v < energy - 1e-9 * fabs(energy) || (!(v > energy + 1e-9 * fabs(energy)) && a > 0.0))) {
      best = a;
      energy = v;
    }
  }
  return best;
}

int fl_static_branch_switch(workspace *w, int before, int *negative, int *iterations)
{
  double *phi = w->mode, lambda;
  critical_mode(w, phi, &lambda);
  if (!(lambda < 0.0))
    return 0;
  fl_static_save_state(w, w->xb, w->qb);
  /* the amplitude of a bow over the whole length, as unknowns' M-length */
  double a0 = SWITCH_FIRST * w->st.length_scale * sqrt(0.5 * w->nf);
  double a = 0.0;
  for (int k = 0; k < 3; k++) { /* the model refined at its own amplitude */
    double next = model_amplitude(w, phi, lambda, a0);
    if (next == 0.0)
      break;
    a = next;
    if (fabs(fabs(a) / a0 - 1.0) < 0.1)
      break;
    a0 = fabs(a);
  }
  if (a == 0.0)
    a = a0;
  for (int t = 0; t < 2 * SWITCH_TRIES; t++) {
    along(w, phi, (t % 2 ? -a : a) * (double)(1 << (t / 2)));
    int it = 0, n;
    w->lu_valid = 0;
    int okn = fl_static_newton(w, &it), okst = okn && fl_static_stability(w, &n);
      if (okst && n <= before) {
      *iterations += it;
      *negative = n;
      w->st.bifurcations++;
      return 1;
    }
  }
  fl_static_load_state(w, w->xb, w->qb);
  fl_static_residual(w, w->r);
  w->lu_valid = 0;
  return 0;
}
