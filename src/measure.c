/* measure.c: what a virtual test measures of its specimens (fiberlab-model(7)): the
 * load on the nose or grip and the reaction at the other end, the displacement column
 * and a row's own columns (each through its kind's table, test_kind.h), each
 * specimen's figures, the crosshead's reading through the machine's compliance and the
 * tools' springs, and the rows a slow lab machine would record.  The same for every
 * solver: the explicit engine and the static solver (static/) read a specimen through
 * these. */
#include <config.h>

#include <math.h>
#include <stdlib.h>

#include "measure.h"
#include "series.h"
#include "test_kind.h"
#include "track.h"

/* Peak figures and initial stiffness of one specimen's rows [0, np); rows [0, nfirst)
 * belong to the first loading leg. */
void fl_measure_figures(const double *x, const double *y, int np, int nfirst, fl_specimen_result *r)
{
  int ix = 0;
  for (int i = 0; i < np; i++)
    if (x[i] >= x[ix])
      ix = i;
  r->y_at_max_x = y[ix]; /* the peak was tracked step by step during the run */
  /* Initial stiffness: least squares over the first leg's rows with 10-50 % of the
   * first leg's peak, before that peak. */
  int fp = 0;
  for (int i = 0; i < nfirst; i++)
    if (y[i] > y[fp])
      fp = i;
  int a = -1, b = -1;
  for (int i = 0; i <= fp; i++) {
    if (a < 0 && y[i] >= 0.1 * y[fp])
      a = i;
    if (y[i] <= 0.5 * y[fp])
      b = i + 1;
  }
  if (a < 0 || b - a < 3) {
    a = 0;
    b = fp + 1;
  }
  /* fewer than two rows, or all at one abscissa: no slope to measure (null, not 0) */
  int spread = 0;
  for (int i = a + 1; i < b && !spread; i++)
    spread = x[i] != x[a];
  r->initial_stiffness = spread ? fl_fit_slope(x, y, a, b) : NAN;
}

/* The row before which a state of the path at travel xs (m) lies: the first row on
 * the first leg past it (np: none). */
static int row_after(const double *x, int np, double xs)
{
  int i = 0;
  while (i < np && !(x[i] > xs))
    i++;
  return i;
}

void fl_measure_compliance(fl_curve *c, int s, int np, double C, fl_specimen_result *sr)
{
  if (!(C > 0.0) || np < 1)
    return;
  double *x = c->x + (size_t)s * (size_t)np;
  const double *y = c->y + (size_t)s * (size_t)np;
  /* the states between rows, each before its row, in travel first */
  int peak_row = row_after(x, np, sr->x_at_peak);
  int snap_row[FL_MAX_SNAPS];
  for (int k = 0; k < sr->nsnaps; k++)
    snap_row[k] = sr->snap_row[k];
  sr->x_at_peak += C * sr->peak;
  for (int k = 0; k < sr->nsnaps; k++)
    sr->snap_x[k] += C * sr->snap_y[k];
  double travel = x[0], held = x[0] + C * y[0];
  x[0] = held;
  for (int i = 1; i < np; i++) {
    double t = x[i], xc = t + C * y[i];
    if (t > travel) { /* advancing: the crosshead holds at the furthest it reached */
      for (int k = 0; k < sr->nsnaps; k++)
        if (snap_row[k] == i)
          held = sr->snap_x[k] = fmax(held, sr->snap_x[k]);
      if (peak_row == i)
        held = sr->x_at_peak = fmax(held, sr->x_at_peak);
      xc = fmax(xc, held);
    } else if (t < travel) { /* unloading: it holds at the least */
      xc = fmin(xc, held);
    }
    travel = t;
    held = x[i] = xc;
  }
}

double fl_measure_series_compliance(const fl_experiment *e)
{
  const fl_test_def *t = &e->test;
  double c = t->compliance;
  if (fl_test_bends(t->kind) && t->contact == FL_CONTACT_LINEAR) {
    int noses = t->kind == FL_TEST_BEND4PT ? 2 : 1;
    c += (1.0 / noses + 0.5) / t->contact_stiffness;
  }
  return c;
}

/* The measured load (run.h), as the explicit solver watches it at every step. */
double fl_run_measured(const fl_system *sys, enum fl_test_kind kind, int s)
{
  return fl_track_load(kind, sys->tool_force + (size_t)s * sys->ntool, sys->ntool, sys->grip_force[s],
                       sys->grip_torque[s], sys->pload_force[s]);
}

/* The test's displacement column for specimen s: the path position measured from the
 * first touch, or the kind's own (a cantilever's tip displacement). */
double fl_measure_x(const fl_system *sys, enum fl_test_kind kind, int s, double touch, double pos)
{
  return fl_test_type_of(kind)->abscissa(sys, s, fl_track_travel(touch, pos));
}

/* The load on the other end of specimen s, from the loads of the last evaluation: the
 * supports', the fixed grip's or the clamp's, in the sign of fl_run_measured().  At rest
 * it balances the measured load; a specimen that rings after a break or a buckle does
 * not balance. */
double fl_measure_reaction(const fl_system *sys, enum fl_test_kind kind, int s)
{
  return fl_test_type_of(kind)->reaction(sys, s);
}

double fl_measure_row(const fl_system *sys, enum fl_test_kind kind, int s, double span, fl_curve *c, size_t r)
{
  int broken, yielded;
  fl_system_count(sys, s, &broken, &yielded);
  return fl_measure_row_counted(sys, kind, s, span, c, r, broken, yielded);
}

double fl_measure_row_counted(const fl_system *sys, enum fl_test_kind kind, int s, double span, fl_curve *c,
                              size_t r, int broken, int yielded)
{
  const fl_test_type *type = fl_test_type_of(kind);
  double y = fl_run_measured(sys, kind, s);
  c->y[r] = y;
  if (type->columns)
    type->columns(sys, s, span, c, r);
  c->strain[r] = sys->strain_energy[s];
  c->broken[r] = broken;
  c->yielded[r] = yielded;
  return y;
}

/* 1 when the measured load y and the reaction agree within 5 % of the larger. */
int fl_measure_balanced(double y, double react) { return fabs(y - react) <= 0.05 * fmax(fabs(y), fabs(react)); }

/* The quasi-static rows (run.h).
 * - A 3-point specimen is out of equilibrium where the forces on the nose and on the
 *   supports differ by more than 5 % of the larger (and by more than 1 % of the
 *   curve's largest force), in a row or in one of its neighbours: the snap after a
 *   buckle or a break, while the specimen rings and leaves the nose.  Those rows are
 *   left out.
 * - A lab machine loading slowly records a snap as a steep drop at the peak.  Where
 *   rows are left out right after the peak, the peak (which the engine takes at every
 *   step) goes between the rows, and the curve falls from it, within one row's width
 *   of displacement, to the level of the first row in equilibrium.  The drop then
 *   moves smoothly with the parameters, where the ringing's phase (and so the rows)
 *   would jump, and a measured row on the drop sees it move.
 * - The first and last rows always stay; tension and torsion keep every row (but the
 *   one within a row's width after a static snap, above). */
static int out_of_balance(const double *y, const double *sup, int i, double top)
{
  double gap = fabs(y[i] - sup[i]);
  return gap > 0.05 * fmax(fabs(y[i]), fabs(sup[i])) && gap > 0.01 * top;
}

/* Row i of np is out of equilibrium when it or a neighbour is out of balance: a
 * ringing specimen passes through balance now and then. */
static int out_of_equilibrium(const double *y, const double *sup, int i, int np, double top)
{
  for (int r = i - 1; r <= i + 1; r++)
    if (r >= 0 && r < np && out_of_balance(y, sup, r, top))
      return 1;
  return 0;
}

/* Whether a state (xs, ys) goes before the row (x, y): at a lesser abscissa, or at the
 * same one with another load (a drop at a crosshead held there, fl_measure_compliance). */
static int before(double xs, double ys, double x, double y) { return xs < x || (xs == x && ys != y); }

/* The states of a static path that go between its rows (fl_curve_quasi_static): its
 * snaps, and its peak where that is not one; in the order of the path, each with the
 * output row it goes before and whether the load falls after it.  Returns how many. */
static int path_states(const fl_specimen_result *sr, const double *x, const double *y, int np, double *px, double *py,
                       int *prow, int *pdrop)
{
  int m = 0, peak_row = -1, peak_placed = !sr->peak_on_path;
  for (int i = 1; i < np && peak_row < 0; i++)
    if (x[i - 1] < sr->x_at_peak && before(sr->x_at_peak, sr->peak, x[i], y[i]))
      peak_row = i;
  for (int s = 0; s < sr->nsnaps; s++) {
    if (sr->snap_x[s] == sr->x_at_peak && sr->snap_y[s] == sr->peak)
      peak_placed = 1;
    else if (!peak_placed && peak_row >= 0 &&
             (peak_row < sr->snap_row[s] || (peak_row == sr->snap_row[s] && sr->x_at_peak < sr->snap_x[s]))) {
      px[m] = sr->x_at_peak, py[m] = sr->peak, prow[m] = peak_row, pdrop[m++] = sr->snap_at_peak;
      peak_placed = 1;
    }
    px[m] = sr->snap_x[s], py[m] = sr->snap_y[s], prow[m] = sr->snap_row[s], pdrop[m++] = 1;
  }
  if (!peak_placed && peak_row >= 0)
    px[m] = sr->x_at_peak, py[m] = sr->peak, prow[m] = peak_row, pdrop[m++] = sr->snap_at_peak;
  return m;
}

int fl_curve_quasi_static(const fl_curve *c, const fl_specimen_result *sr, enum fl_test_kind kind, int k,
                          double *qx, double *qy)
{
  size_t o = (size_t)k * (size_t)c->npoints;
  int np = c->npoints;
  const double *x = c->x + o, *y = c->y + o;
  const double *sup = fl_test_type_of(kind)->csv_support && c->support ? c->support + o : NULL;
  double top = 0.0;
  for (int i = 0; i < np; i++)
    top = fmax(top, fabs(y[i]));
  double w = np > 1 ? fabs(x[np - 1] - x[0]) / (np - 1) : 0.0; /* one row's width */
  double px[FL_MAX_SNAPS + 1], py[FL_MAX_SNAPS + 1];
  int prow[FL_MAX_SNAPS + 1], pdrop[FL_MAX_SNAPS + 1];
  int m = path_states(sr, x, y, np, px, py, prow, pdrop), next = 0, n = 0;
  for (int i = 0; i < np; i++) {
    if (sup && i > 0 && i < np - 1 && out_of_equilibrium(y, sup, i, np, top))
      continue;
    for (; next < m && prow[next] <= i; next++) {
      if (!(n > 0 && px[next] > qx[n - 1] && before(px[next], py[next], x[i], y[i])))
        continue;
      /* a state of the static path between two rows; after a snap there the drop
       * takes a row's width, as below, to the load the rows after it give there */
      qx[n] = px[next];
      qy[n] = py[next];
      n++;
      double at = px[next] + w;
      if (pdrop[next]) {
        while (i + 1 < np && x[i + 1] <= at)
          i++;
        if (i + 1 < np && x[i] < at) {
          qx[n] = at;
          qy[n] = y[i] + (y[i + 1] - y[i]) * (at - x[i]) / (x[i + 1] - x[i]);
          n++;
          i++;
        }
      }
    }
    if (!sr->peak_on_path && sup && n > 0 && sr->x_at_peak > qx[n - 1] && before(sr->x_at_peak, sr->peak, x[i], y[i])) {
      /* rows left out right after the peak: a snap, and a step down at the peak */
      int j = 0;
      while (j < np && !(x[j] > sr->x_at_peak))
        j++;
      if (j < i) {
        qx[n] = sr->x_at_peak;
        qy[n] = sr->peak;
        n++;
        if (sr->x_at_peak + w < x[i]) {
          qx[n] = sr->x_at_peak + w;
          qy[n] = y[i];
          n++;
        }
      }
    }
    qx[n] = x[i];
    qy[n] = y[i];
    n++;
  }
  return n;
}

int fl_equally_loaded_bonds(const fl_experiment *e) { return fl_test_type_of(e->test.kind)->equally_loaded(e); }
