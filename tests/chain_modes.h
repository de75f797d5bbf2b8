/* chain_modes.h: a chain's lowest bending frequency in the plane, for the tests that
 * compare it with beam theory: free body i has the deflection y_i (dof 2 i) and the
 * turn t_i (dof 2 i + 1); each bond adds its shear and bending springs to K, and
 * K phi = omega^2 M phi is solved by GSL's generalised symmetric solver. */
#ifndef FL_TEST_CHAIN_MODES_H
#define FL_TEST_CHAIN_MODES_H

#include <check.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <math.h>

#include "fl_defs.h"

/* The bond between bodies a and b (a negative index: a held body, which does not move),
 * its contact point r1 from a's centre and r2 from b's along the axis (m): its shear
 * spring ks (N/m) stretched by (y_b + r2 t_b) - (y_a + r1 t_a), its bending spring kb
 * (N m/rad) by t_b - t_a. */
static void chain_modes_bond(gsl_matrix *K, int a, int b, double r1, double r2, double ks, double kb)
{
  double bs[4] = {-1.0, -r1, 1.0, r2}, bt[4] = {0.0, -1.0, 0.0, 1.0};
  int dof[4] = {a < 0 ? -1 : 2 * a, a < 0 ? -1 : 2 * a + 1, b < 0 ? -1 : 2 * b, b < 0 ? -1 : 2 * b + 1};
  for (int p = 0; p < 4; p++)
    for (int q = 0; q < 4; q++) {
      if (dof[p] < 0 || dof[q] < 0)
        continue;
      double v = ks * bs[p] * bs[q] + kb * bt[p] * bt[q];
      gsl_matrix_set(K, dof[p], dof[q], gsl_matrix_get(K, dof[p], dof[q]) + v);
    }
}

/* The lowest frequency (Hz) of K phi = omega^2 M phi; frees K and M. */
static double chain_modes_lowest(gsl_matrix *K, gsl_matrix *M)
{
  size_t n = K->size1;
  gsl_vector *ev = gsl_vector_alloc(n);
  gsl_eigen_gensymm_workspace *ws = gsl_eigen_gensymm_alloc(n);
  ck_assert_int_eq(gsl_eigen_gensymm(K, M, ev, ws), GSL_SUCCESS);
  double lo = HUGE_VAL;
  for (size_t i = 0; i < n; i++)
    lo = fmin(lo, gsl_vector_get(ev, i));
  gsl_eigen_gensymm_free(ws);
  gsl_vector_free(ev);
  gsl_matrix_free(K);
  gsl_matrix_free(M);
  return sqrt(lo) / (2.0 * FL_PI);
}

#endif
