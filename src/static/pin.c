/* pin.c: the rigid motions a bending test leaves free (fiberlab-model(7), THE STATIC
 * SOLVER, Tangent): on tools that take no tangential load (no friction, or rotating
 * rollers) nothing but the contacts' curvature holds a specimen along its axis, and in
 * a problem solved in three dimensions nothing holds it along the rollers' axes or
 * against rolling about its own.  The solver pins these motions, as the test's symmetry
 * does for a symmetric specimen: Newton's steps keep out of them (a bordered solve with
 * the tangent's factors), and their reactions, the forces a pin would take, are taken
 * out of the residual and reported apart. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "internal.h"

enum { PIN_AXIAL, PIN_ACROSS, PIN_ROLL }; /* along x, along z, each body about its own axis */

/* Whether the test leaves the specimen's rigid motions free: a bending test whose tools
 * all take no tangential load.  Sets w->pin_free (0, 1 in a planar problem, else 3),
 * and pins them all. */
void fl_static_pin_init(workspace *w)
{
  const fl_system *sys = w->sys;
  w->pin_free = w->npin = 0;
  if (!fl_test_bends(w->kind))
    return;
  for (int k = 0; k < sys->ntool; k++)
    if (sys->law[k].mu != 0.0)
      return;
  w->pin_free = w->npin = w->planar ? 1 : NPIN;
  w->st.pinned = w->npin;
}

/* Frees the pinned motions, where the path found no equilibrium with them: in a large
 * deflection the contacts' curvature holds them, and a slender rod pressed to a quarter
 * of its span on frictionless rollers stalls pinned where the nose's contact passes
 * from one segment to two, and passes free.  Returns 1 when they were pinned and are
 * free now, 0 when there is nothing to free (they stay free for the rest of the run). */
int fl_static_pin_off(workspace *w)
{
  if (!w->npin)
    return 0;
  w->npin = w->st.pinned = 0;
  w->lu_valid = 0;
  return 1;
}

/* Motion k of free body j in its unknowns (u, NDOF a body, all six) and the direction
 * of its reaction in the residual (f, the same), from the present state: a translation
 * is a force, a turn a torque over the length scale (the residual's torque is scaled by
 * ts = fs L, so that a reaction's work over the motion is its generalised force). */
static void motion(const workspace *w, int k, int j, double *u, double *f)
{
  const fl_system *sys = w->sys;
  memset(u, 0, NDOF * sizeof *u);
  if (k == PIN_AXIAL)
    u[0] = 1.0;
  else if (k == PIN_ACROSS)
    u[2] = 1.0;
  else {
    fl_vec3 a = fl_qrot(sys->q[w->first + j], fl_v3(1.0, 0.0, 0.0));
    u[3] = a.x;
    u[4] = a.y;
    u[5] = a.z;
  }
  double arm = w->ts / w->fs;
  for (int c = 0; c < NDOF; c++)
    f[c] = c < 3 ? u[c] : u[c] / arm;
}

/* The pinned motions at the present state: w->pin_u (in the unknowns solved for) and
 * w->pin_r (their reactions' directions in the residual, orthonormal). */
void fl_static_pin_modes(workspace *w)
{
  const int n = w->n, m = w->m, nu = w->nu;
  for (int k = 0; k < w->npin; k++) {
    double *u = w->pin_u + (size_t)k * m, *f = w->pin_r + (size_t)k * n;
    for (int j = 0; j < w->nf; j++) {
      double uj[NDOF];
      motion(w, k, j, uj, f + NDOF * j);
      for (int a = 0; a < nu; a++)
        u[nu * j + a] = uj[w->dof[a]];
    }
    for (int l = 0; l < k; l++) { /* Gram and Schmidt */
      const double *g = w->pin_r + (size_t)l * n;
      double d = 0.0;
      for (int i = 0; i < n; i++)
        d += g[i] * f[i];
      for (int i = 0; i < n; i++)
        f[i] -= d * g[i];
    }
    double s = fl_static_norm2(f, n);
    for (int i = 0; i < n; i++)
      f[i] = s > 0.0 ? f[i] / s : 0.0;
  }
}

/* Take the pins' reactions out of the residual r (n components): its part along their
 * directions, kept in w->pin_react (generalised forces over fs). */
void fl_static_pin_project(workspace *w, double *r)
{
  const int n = w->n;
  for (int k = 0; k < w->npin; k++) {
    const double *f = w->pin_r + (size_t)k * n;
    double d = 0.0;
    for (int i = 0; i < n; i++)
      d += f[i] * r[i];
    for (int i = 0; i < n; i++)
      r[i] -= d * f[i];
    w->pin_react[k] = d;
  }
}

/* The reactions of the last evaluation taken out of body j's force (N) and torque
 * (N m), for the residual's norms. */
void fl_static_pin_reaction(const workspace *w, int j, fl_vec3 *f, fl_vec3 *t)
{
  *f = *t = fl_v3(0.0, 0.0, 0.0);
  for (int k = 0; k < w->npin; k++) {
    const double *g = w->pin_r + (size_t)k * w->n + NDOF * j;
    double d = w->pin_react[k];
    *f = fl_axpy(*f, d * w->fs, fl_v3(g[0], g[1], g[2]));
    *t = fl_axpy(*t, d * w->ts, fl_v3(g[3], g[4], g[5]));
  }
}

/* The pins' largest reaction of the last evaluation over the load scale: a slide's
 * total force over fs, the roll's total torque over ts. */
double fl_static_pin_size(const workspace *w)
{
  double big = 0.0;
  for (int k = 0; k < w->npin; k++) {
    const double *g = w->pin_r + (size_t)k * w->n;
    double sum = 0.0; /* the reaction's total along its own motion */
    for (int j = 0; j < w->nf; j++)
      sum += k == PIN_ROLL ? fl_norm(fl_v3(g[NDOF * j + 3], g[NDOF * j + 4], g[NDOF * j + 5]))
                           : g[NDOF * j + (k == PIN_AXIAL ? 0 : 2)];
    big = fmax(big, fabs(w->pin_react[k] * sum));
  }
  return big;
}

/* The Newton step x = -J^-1 r (unknowns) made to keep out of the pinned motions: x + B mu
 * with B = J^-1 R (R the reactions' directions in the rows solved for) and mu such that
 * U^T (x + B mu) = 0 (U the motions), the bordered system's solution.  Returns 0 when a
 * solve fails or the motions are held already (a singular U^T B). */
int fl_static_pin_step(workspace *w, double *x)
{
  const int m = w->m, n = w->n, nu = w->nu, np = w->npin;
  double g[NPIN][NPIN], rhs[NPIN];
  for (int k = 0; k < np; k++) {
    double *b = w->pin_b + (size_t)k * m;
    const double *f = w->pin_r + (size_t)k * n;
    for (int j = 0; j < w->nf; j++)
      for (int a = 0; a < nu; a++)
        b[nu * j + a] = f[NDOF * j + w->dof[a]];
    if (!fl_static_tangent_solve(w, b))
      return 0;
  }
  for (int k = 0; k < np; k++) {
    const double *u = w->pin_u + (size_t)k * m;
    rhs[k] = 0.0;
    for (int i = 0; i < m; i++)
      rhs[k] -= u[i] * x[i];
    for (int l = 0; l < np; l++) {
      const double *b = w->pin_b + (size_t)l * m;
      g[k][l] = 0.0;
      for (int i = 0; i < m; i++)
        g[k][l] += u[i] * b[i];
    }
  }
  /* G mu = rhs by Gaussian elimination with partial pivoting (np <= 3) */
  int perm[NPIN];
  for (int k = 0; k < np; k++)
    perm[k] = k;
  for (int c = 0; c < np; c++) {
    int p = c;
    for (int r = c + 1; r < np; r++)
      if (fabs(g[perm[r]][c]) > fabs(g[perm[p]][c]))
        p = r;
    int t = perm[c];
    perm[c] = perm[p];
    perm[p] = t;
    double piv = g[perm[c]][c];
    if (!(fabs(piv) > 0.0) || !isfinite(piv))
      return 0;
    for (int r = c + 1; r < np; r++) {
      double l = g[perm[r]][c] / piv;
      for (int q = c; q < np; q++)
        g[perm[r]][q] -= l * g[perm[c]][q];
      rhs[perm[r]] -= l * rhs[perm[c]];
    }
  }
  double mu[NPIN];
  for (int c = np - 1; c >= 0; c--) {
    double s = rhs[perm[c]];
    for (int q = c + 1; q < np; q++)
      s -= g[perm[c]][q] * mu[q];
    mu[c] = s / g[perm[c]][c];
  }
  for (int k = 0; k < np; k++) {
    const double *b = w->pin_b + (size_t)k * m;
    for (int i = 0; i < m; i++)
      x[i] += mu[k] * b[i];
  }
  return 1;
}
