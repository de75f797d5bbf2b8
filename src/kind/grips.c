/* grips.c: the tests that hold a fiber in two grips, tension and torsion: the gauge
 * between the grips, the lowest mode that sets their speed, and their checks and
 * warnings (fiber-tension(1), fiber-torsion(1)). */
#include <config.h>

#include <math.h>
#include <stdio.h>

#include "fl_defs.h"
#include "kinds.h"

int fl_grips_layout(const fl_experiment *exp, double h, fl_test_layout *lay, fl_build_info *info)
{
  const fl_test_def *t = &exp->test;
  int ng = (int)floor(t->grip_length_m / h + 0.5);
  if (ng < 1)
    ng = 1;
  int m = (int)floor(t->gauge_length_m / h + 0.5);
  if (m < 2)
    m = 2;
  lay->ngrip = ng;
  lay->nfree = m - 1;
  lay->nbody = 2 * ng + lay->nfree;
  lay->chord = 1;
  info->gauge = m * h;
  info->free_bonds = m;
  return FL_OK;
}

double fl_grips_place(const fl_experiment *exp, const fl_experiment *const *exps, int nspec, const fl_shape *sh,
                      fl_system *sys, fl_build_info *info)
{
  (void)exps, (void)nspec, (void)sys;
  const fl_fiber_def *fb = &exp->fiber;
  const fl_section sec = info->section;
  double E = fb->youngs_modulus, G = fb->shear_modulus, rho = fb->density;
  if (exp->test.kind == FL_TEST_TENSION) {
    double c = sqrt(exp->bond.force_stiffness_scale * E / rho);
    info->first_period = 2.0 * info->gauge / c;
  } else {
    double c = sqrt(exp->bond.torque_stiffness_scale * G / rho);
    info->first_period = 2.0 * info->gauge / c;
  }
  if (sh->curved) {
    /* a curved gauge bends as it is pulled or turned: its first bending mode between
     * the clamps (4.730^2 for a clamped-clamped beam) is far slower than the axial or
     * torsional one, and the automatic speed must be slow against it */
    double om = (4.730 / info->gauge) * (4.730 / info->gauge) *
                sqrt(exp->bond.torque_stiffness_scale * E * sec.inertia / (rho * sec.area));
    info->first_period = fmax(info->first_period, 2.0 * FL_PI / om);
  }
  return 0.0;
}

/* The gauge and the two grips within the fiber (tension and torsion). */
int fl_grips_check(const fl_exp_checker *c)
{
  const fl_test_def *t = &c->exp->test;
  const fl_fiber_def *fb = &c->exp->fiber;
  if (t->gauge_length_m + 2.0 * t->grip_length_m > fb->length_m * (1.0 + 1e-9))
    return fl_exp_check_fail(c, "test.gauge_length",
                             "test.gauge_length: %g m plus two grip_length %g m exceeds fiber.length "
                             "%g m; allowed: gauge_length + 2 grip_length <= length",
                             t->gauge_length_m, t->grip_length_m, fb->length_m);
  return FL_OK;
}

/* Tension and torsion: the grips hold whole segments, so the gauge simulated is the
 * whole number m of segment lengths nearest to the one asked for (run.c).  Say so when
 * they differ, with the segment count nearest to the file's that makes them equal. */
void fl_grips_warn(fl_exp_warner *w)
{
  const fl_experiment *exp = w->exp;
  if (exp->test.kind != FL_TEST_TENSION && exp->test.kind != FL_TEST_TORSION)
    return;
  const fl_fiber_def *fb = &exp->fiber;
  double h = fb->length_m / fb->segments, g = exp->test.gauge_length_m;
  double m = floor(g / h + 0.5);
  if (m < 2)
    m = 2;
  if (!(fabs(m * h - g) > 1e-9 * g))
    return;
  char hint[160] = "";
  int best = 0;
  for (int d = 0; d <= 100000 && !best; d++) /* n segments give a whole n g / L */
    for (int sgn = -1; sgn <= 1 && !best; sgn += 2) {
      int cand = fb->segments + sgn * d;
      double wc = cand * g / fb->length_m;
      if (cand >= 3 && cand <= 1000000 && wc >= 1.5 && fabs(wc - floor(wc + 0.5)) <= 1e-9 * wc)
        best = cand;
    }
  if (best)
    snprintf(hint, sizeof hint, "; fiber.segments: %d would give it exactly", best);
  fl_exp_warn(w, "test.gauge_length",
              "test.gauge_length %g m is simulated as %.6g m (%.4g %%): the grips hold whole segments "
              "of %.6g m%s",
              g, m * h, 100.0 * (m * h / g - 1.0), h, hint);
}
