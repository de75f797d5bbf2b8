/* band.c: the tangent's linear algebra (fiberlab-model(7), THE STATIC SOLVER, Tangent):
 * GSL's band LU factors with a diagonal spring where a rigid mode leaves a zero pivot,
 * a solve with them in GSL's order of operations, and Broyden's updates of the kept
 * tangent.  With a body's unknowns side by side the tangent is block tridiagonal,
 * banded with 2 nu - 1 sub- and super-diagonals for nu unknowns a body (11, or 5 in a
 * planar problem: there the band and its LU hold only the unknowns solved for, a
 * quarter of the solve's and a tenth of the factorisation's work of 6-unknown blocks). */
#include <config.h>

#include <math.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

#include "internal.h"

/* Factorise the tangent.  A free body that nothing holds in some direction (a rigid
 * mode: no friction, a contact at zero overlap, no gravity) has a zero pivot; a spring
 * of w->reg (1e-10, REG_MIN) of the stiffest diagonal of its kind (translation,
 * rotation) on every unknown keeps the factorisation regular and leaves the residual,
 * and so the equilibrium found, as it is.  Returns 0 on failure. */
int fl_static_factorise(workspace *w)
{
  const int diag = 2 * w->hb, nu = w->nu;
  double big[2] = {0.0, 0.0};
  for (int col = 0; col < w->m; col++) {
    int rot = w->dof[col % nu] >= 3;
    big[rot] = fmax(big[rot], fabs(gsl_matrix_get(w->ab, (size_t)col, (size_t)diag)));
  }
  for (int col = 0; col < w->m; col++) {
    double *a = gsl_matrix_ptr(w->ab, (size_t)col, (size_t)diag);
    double reg = w->reg * big[w->dof[col % nu] >= 3];
    *a += *a < 0.0 ? -reg : reg;
    if (*a == 0.0)
      *a = 1e-300;
  }
  w->lu_valid = gsl_linalg_LU_band_decomp((size_t)w->m, (size_t)w->hb, (size_t)w->hb, w->ab, w->piv) == GSL_SUCCESS;
  if (w->lu_valid) /* where U's band ends in zeros (no row swap reached that far) */
    for (int i = 0; i < w->m; i++) {
      int last = i + diag < w->m - 1 ? i + diag : w->m - 1;
      while (last > i && w->ab->data[(size_t)last * w->ab->tda + diag + i - last] == 0.0)
        last--;
      w->ulast[i] = last;
    }
  return w->lu_valid;
}

/* x <- A^-1 x with the factors gsl_linalg_LU_band_decomp left in ab and piv, in its
 * documented layout (LAPACK's dgbtrf, row j of ab holding column j of A): U's column j
 * with the diagonal at column 2 hb of the row and the rows above it before, L's
 * multipliers after it, piv[j] the row swapped with j at step j.  The operations are
 * those of gsl_linalg_LU_band_solve and its reference CBLAS dtbsv, in their order, so
 * the result is theirs to the bit (fl_static_tangent_solve compares the two on a
 * workspace's first solves and keeps GSL's if they differ): GSL's takes a vector view
 * and a BLAS call for every column, which in a planar problem's narrow band cost more
 * than the products themselves.  The one difference: a row of U stops at its last
 * nonzero factor (ulast), where dtbsv goes on to 2 hb columns; each product left out is
 * an exact zero, whose subtraction leaves the sum as it is (but for the sign of a sum
 * that is itself zero), and the back substitution is a chain of dependent subtractions,
 * so the ones left out were its time (a row swap in the factorisation fills U's band
 * only as far as it reaches). */
static void band_solve(const workspace *w, double *x)
{
  const int n = w->m, hb = w->hb, diag = 2 * w->hb;
  const size_t tda = w->ab->tda;
  const double *ab = w->ab->data;
  const unsigned int *piv = w->piv->data;
  for (int j = 0; j < n; j++) { /* L: the swaps and the multipliers, column by column */
    int p = (int)piv[j];
    if (p != j) {
      double t = x[j];
      x[j] = x[p];
      x[p] = t;
    }
    int below = n - 1 - j < hb ? n - 1 - j : hb;
    double a = -x[j];
    const double *l = ab + (size_t)j * tda + diag + 1;
    for (int i = 0; i < below; i++)
      x[j + 1 + i] += a * l[i];
  }
  for (int i = n - 1; i >= 0; i--) { /* U: back substitution, row by row */
    double t = x[i];
    int last = w->ulast[i];
    for (int j = i + 1; j <= last; j++)
      t -= ab[(size_t)j * tda + diag + i - j] * x[j];
    x[i] = t / ab[(size_t)i * tda + diag];
  }
}

/* x <- J^-1 x for the tangent J as updated: GSL's factors solve (band_solve, or
 * GSL's own solve while the two are compared or where they differ), then the Broyden
 * updates in their order.  Returns 0 when GSL's solve fails. */
int fl_static_tangent_solve(workspace *w, double *x)
{
  const size_t bytes = (size_t)w->m * sizeof(double);
  if (w->own_solve && w->solve_checks == 0)
    band_solve(w, x);
  else {
    double *bv = gsl_vector_ptr(w->bv, 0), *xv = gsl_vector_ptr(w->xv, 0);
    memcpy(bv, x, bytes);
    if (gsl_linalg_LU_band_solve((size_t)w->hb, (size_t)w->hb, w->ab, w->piv, w->bv, w->xv))
      return 0;
    if (w->solve_checks > 0) {
      w->solve_checks--;
      memcpy(w->ys, bv, bytes);
      band_solve(w, w->ys);
      if (memcmp(w->ys, xv, bytes) != 0)
        w->own_solve = w->solve_checks = 0;
    }
    memcpy(x, xv, bytes);
  }
  for (int k = 0; k < w->nupd; k++) {
    const double *sk = w->upd_s + (size_t)k * w->m, *ak = w->upd_a + (size_t)k * w->m;
    double d = 0.0;
    for (int i = 0; i < w->m; i++)
      d += sk[i] * x[i];
    for (int i = 0; i < w->m; i++)
      x[i] += d * ak[i];
  }
  return 1;
}

/* Broyden's update of the tangent J to the secant of the step just taken: s the step
 * (a dx in the unknowns), y the change of the residual over it (rp - r), so that the
 * updated J' s = y and J' v = J v for v orthogonal to s.  Applied to the inverse as
 * J'^-1 = (I + a s^T) J^-1 with a = (s - J^-1 y) / (s^T J^-1 y) (Sherman and
 * Morrison), kept as the pair (s, a).  Where a kept tangent has gone stale through a
 * few directions (a Hertz contact stiffening as it is pressed in, a bond softening
 * towards its buckling point), each update corrects the one the step explored, and
 * Newton converges faster than the tangent's linear rate. */
void fl_static_broyden_update(workspace *w, double step)
{
  if (w->nupd == MAX_UPDATES) {
    w->lu_valid = 0; /* as many as it takes: a fresh tangent next */
    return;
  }
  const int nu = w->nu, m = w->m;
  double *sk = w->upd_s + (size_t)w->nupd * m, *ak = w->upd_a + (size_t)w->nupd * m;
  double ss = 0.0;
  for (int j = 0; j < w->nf; j++)
    for (int a = 0; a < nu; a++) {
      int from = NDOF * j + w->dof[a];
      sk[nu * j + a] = step * w->dx[from];
      ak[nu * j + a] = w->rp[from] - w->r[from];
      ss += sk[nu * j + a] * sk[nu * j + a];
    }
  if (!(ss > 0.0) || !fl_static_tangent_solve(w, ak))
    return;
  double d = 0.0, hh = 0.0;
  for (int i = 0; i < m; i++) {
    d += sk[i] * ak[i];
    hh += ak[i] * ak[i];
  }
  if (!(fabs(d) > 1e-3 * sqrt(ss * hh))) /* J^-1 y nearly orthogonal to s: no update */
    return;
  for (int i = 0; i < m; i++)
    ak[i] = (sk[i] - ak[i]) / d;
  w->nupd++;
}
