/* newton.c: Newton's method for the equilibrium at the position applied
 * (fiberlab-model(7), THE STATIC SOLVER, Tangent): the free bodies' unknowns (a
 * displacement and a rotation vector each, applied to the orientation as
 * q <- exp(theta) q) stepped until every free body's force and torque vanish.  The
 * tangent is a forward-difference Jacobian of the loads; a body's loads depend only on
 * its own and its two neighbours' positions (the tools act on one body alone), so
 * bodies j, j + 3, j + 6 ... are perturbed together: 18 evaluations whatever the length,
 * 9 in a planar problem (3 unknowns a body: x, y and the turn about z).  The tangent is
 * kept over iterations and increments while it serves, corrected by Broyden's updates
 * (band.c); a step is limited in length and backtracked while the residual grows. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "internal.h"

#define REG_MAX 1e-4      /* the stiffest diagonal spring (REG_MIN's) where Newton stalls */
#define TOL_STALL 5e-9    /* accepted as converged when Newton stalls below it (rounding) */
#define TOL_STALL_VISCO 1e-7 /* and in a viscoelastic run, where a kinked bond's cap on its Maxwell
                              * element (fl_bond_damp_cap) and a stuck contact's friction cone
                              * can meet in a kink of the residual at 1e-8 of the load scale */
#define BROYDEN_FLOOR 1e3 /* no update from a step that ends below this many times the residual's floor */

/* Move free body i by unknowns d[0..5] scaled by a: translation, then rotation. */
static void move_body(workspace *w, int i, const double *d, double a)
{
  fl_system *sys = w->sys;
  sys->x[i] = fl_axpy(sys->x[i], a, fl_v3(d[0], d[1], d[2]));
  sys->q[i] = fl_qnormalize(fl_qmul(fl_qexp(fl_scale(fl_v3(d[3], d[4], d[5]), a)), sys->q[i]));
}

/* The tangent dr/du by forward differences about w->r, into ab in GSL's band storage:
 * unknown a of free body j is column nu j + a, and its residual row the same. */
void fl_static_tangent(workspace *w, gsl_matrix *ab)
{
  fl_system *sys = w->sys;
  const int nu = w->nu;
  /* about a trial's state, whose bonds' loads the rows hold: each column evaluates only
   * the bonds of the bodies it moves, and the rows are put back after it */
  const int some = w->colours && fl_static_trial_is_current(w);
  const size_t rows = (size_t)FL_LOAD_ROWS * (size_t)sys->nbond * sizeof *w->rows0;
  if (some)
    memcpy(w->rows0, sys->bond_load, rows);
  gsl_matrix_set_zero(ab);
  const int diag = 2 * w->hb; /* column of the diagonal in GSL's band rows */
  for (int c = 0; c < NCOLOUR; c++)
    for (int a = 0; a < nu; a++) {
      int k = w->dof[a];
      double h = k < 3 ? w->hx : w->hr, d[NDOF] = {0};
      d[k] = h;
      int any = 0;
      for (int j = c; j < w->nf; j += NCOLOUR) {
        int i = w->first + j;
        w->xs[i] = sys->x[i];
        w->qs[i] = sys->q[i];
        move_body(w, i, d, 1.0);
        any = 1;
      }
      if (!any)
        continue;
      if (some) {
        fl_static_colour_residual(w, w->rp, c);
        memcpy(sys->bond_load, w->rows0, rows);
      } else
        fl_static_residual(w, w->rp);
      for (int j = c; j < w->nf; j += NCOLOUR) {
        int i = w->first + j;
        sys->x[i] = w->xs[i];
        sys->q[i] = w->qs[i];
        int col = nu * j + a;
        double *band = gsl_matrix_ptr(ab, (size_t)col, 0);
        for (int b = j - 1; b <= j + 1; b++) {
          if (b < 0 || b >= w->nf)
            continue;
          for (int e = 0; e < nu; e++) {
            int row = nu * b + e, from = NDOF * b + w->dof[e];
            /* A(row, col) sits in band row col, column 2 hb + row - col */
            band[diag + row - col] = (w->rp[from] - w->r[from]) / h;
          }
        }
      }
    }
}

/* dx = -tangent^-1 r with the factorised tangent as updated; the unknowns not solved
 * for step 0.  Returns 0 when not finite. */
static int newton_step(workspace *w)
{
  const int nu = w->nu;
  double *bv = w->ys + w->m; /* the right-hand side, solved in place */
  for (int j = 0; j < w->nf; j++)
    for (int a = 0; a < nu; a++)
      bv[nu * j + a] = -w->r[NDOF * j + w->dof[a]];
  if (!fl_static_tangent_solve(w, bv) || (w->npin && !fl_static_pin_step(w, bv)))
    return 0;
  memset(w->dx, 0, (size_t)w->n * sizeof *w->dx);
  for (int j = 0; j < w->nf; j++)
    for (int a = 0; a < nu; a++) {
      double d = bv[nu * j + a];
      if (!isfinite(d))
        return 0;
      w->dx[NDOF * j + w->dof[a]] = d;
    }
  return 1;
}

/* The fraction of the step dx to take: a body's step at most `reach` and 0.1 rad (far
 * steps leave the tangent behind). */
static double step_fraction(const workspace *w)
{
  double big_x = 0.0, big_r = 0.0;
  for (int j = 0; j < w->nf; j++)
    for (int a = 0; a < w->nu; a++) {
      int k = w->dof[a];
      if (k < 3)
        big_x = larger(big_x, fabs(w->dx[NDOF * j + k]));
      else
        big_r = larger(big_r, fabs(w->dx[NDOF * j + k]));
    }
  double a = 1.0;
  if (big_x > w->reach)
    a = w->reach / big_x;
  if (big_r * a > 0.1)
    a = 0.1 / big_r;
  return a;
}

/* The step *a dx from the present state (residual nrm, norm n2), halved while the
 * residual's norm does not fall, six tries: 1 when it fell, the state moved and its
 * residual in w->rp (*next its largest component, *next2 its norm).  Else 0, the state
 * back where it was, but far from balance (nrm above 1e-6: a contact at the start of its
 * Hertz law, where the tangent is no guide), where the shortest step is taken. */
static int backtrack(workspace *w, double *a, double nrm, double n2, double *next, double *next2)
{
  fl_static_save_state(w, w->xs, w->qs);
  for (int ls = 0; ls < 6; ls++) {
    for (int j = 0; j < w->nf; j++)
      move_body(w, w->first + j, w->dx + NDOF * j, *a);
    *next = fl_static_trial_residual(w, w->rp);
    *next2 = fl_static_norm2(w->rp, w->n);
    if (*next2 < n2)
      return 1;
    if (ls == 5 && nrm > 1e-6)
      break; /* far from balance: take the shortest step and go on */
    fl_static_load_state(w, w->xs, w->qs);
    *a *= 0.5;
  }
  return 0;
}

/* Newton's method at the position applied, from the free bodies' present state.  The
 * tangent of an earlier iteration or increment is kept, with a Broyden update after
 * each step (fl_static_broyden_update), while each step cuts the residual threefold,
 * and built afresh when one does not or after MAX_UPDATES updates.  Returns 1 when
 * converged (w->r holds the residual there). */
int fl_static_newton(workspace *w, int *iterations)
{
  if (w->npin)
    fl_static_pin_modes(w);
  double nrm = fl_static_trial_residual(w, w->r), first = nrm, n2 = fl_static_norm2(w->r, w->n);
  int stalled = 0, fresh = 0;
  const double tol_stall = w->visco ? TOL_STALL_VISCO : TOL_STALL;
  if (w->reg > REG_MIN) {
    w->reg = REG_MIN;
    w->lu_valid = 0;
  }
  *iterations = 0;
  for (int it = 0;; it++) {
    if (nrm <= w->tol || (stalled >= 3 && nrm <= tol_stall))
      return 1;
    if (it == w->max_newton && nrm <= 4.0 * w->floor)
      return 1; /* as close as the positions' rounding lets the loads come */
    if (it == w->max_newton || !(nrm < 1e8 * fmax(first, 1e-6)))
      return 0;
    fresh = !w->lu_valid;
    if (fresh) {
      fl_static_tangent(w, w->ab);
      w->nupd = 0;
      w->st.tangents++;
      if (!fl_static_factorise(w))
        return 0;
    }
    if (!newton_step(w)) {
      w->lu_valid = 0;
      if (fresh)
        return 0;
      continue;
    }
    w->st.newton++;
    (*iterations)++;
    double a = step_fraction(w), next = HUGE_VAL, next2 = HUGE_VAL;
    int descent = backtrack(w, &a, nrm, n2, &next, &next2);
    if (!descent && nrm <= 1e-6) {
      /* near balance and no descent along the step: a fresh tangent, or as near as the
       * loads' rounding and the differences let Newton come */
      fl_static_trial_residual(w, w->r);
      n2 = fl_static_norm2(w->r, w->n);
      if (!fresh) {
        w->lu_valid = 0;
        continue;
      }
      if (nrm <= fmax(tol_stall, 4.0 * w->floor)) /* the floor: as with MAX_NEWTON */
        return 1;
      if (w->reg >= REG_MAX)
        return 0;
      /* A fresh tangent that does not descend: its soft modes (a weightless body that
       * nothing but a contact at the foot of its Hertz law holds, without friction) are
       * lost in the differences' rounding.  A stiffer diagonal spring shortens the step
       * along them; the residual, and so the equilibrium, stay as they are. */
      w->reg *= 100.0;
      w->lu_valid = 0;
      continue;
    }
    if (w->updates && next > BROYDEN_FLOOR * w->floor) /* above it, the secant is more than rounding */
      fl_static_broyden_update(w, a);
    memcpy(w->r, w->rp, (size_t)w->n * sizeof *w->r);
    n2 = next2;
    stalled = next > 0.5 * nrm ? stalled + 1 : 0;
    if (next > 0.3 * nrm)
      w->lu_valid = 0; /* too slow: a fresh tangent next */
    nrm = next;
  }
}
