/* fit/starts.c: a calibration's starting values, start: auto (fiber-calibrate(1),
 * STARTING VALUES): stiffness scales from the measured initial slope, the tools' contact
 * modulus from the start's bend, the strength from beam theory on the measured peak,
 * its variation from the peaks' spread, and the buckling envelope's numbers from the
 * measured drop, aligned by runs. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fl_defs.h"
#include "model.h"
#include "param.h"
#include "series.h"
#include "starts.h"
#include "system.h" /* fl_section_hollow */
#include "test_kind.h"

/* Slope of the measured curve over its rows from 10 % to 50 % of the peak, before the
 * peak (the rule the virtual tests use for initial_stiffness). */
static double measured_slope(const fl_measured *m)
{
  int ip = 0;
  for (int i = 0; i < m->n; i++)
    if (m->y[i] > m->y[ip])
      ip = i;
  double peak = m->y[ip];
  double *x = malloc((size_t)m->n * sizeof *x), *y = malloc((size_t)m->n * sizeof *y);
  int k = 0;
  if (!x || !y) {
    free(x);
    free(y);
    return 0.0;
  }
  for (int i = 0; i <= ip; i++)
    if (m->y[i] >= 0.1 * peak && m->y[i] <= 0.5 * peak) {
      x[k] = m->x[i];
      y[k] = m->y[i];
      k++;
    }
  double s = k >= 2 ? fl_fit_slope(x, y, 0, k) : (m->x[ip] > 0 ? peak / m->x[ip] : 0.0);
  free(x);
  free(y);
  return s;
}

static double measured_peak(const fl_measured *m)
{
  double p = -HUGE_VAL;
  for (int i = 0; i < m->n; i++)
    if (m->y[i] > p)
      p = m->y[i];
  return p;
}

/* The stress a load y makes in a beam-theory specimen of experiment e. */
static double beam_stress(const fl_experiment *e, double y)
{
  double R = e->fiber.outer_radius_m;
  fl_section s = fl_section_hollow(R, e->fiber.inner_radius_ratio * R);
  double c = e->test.kind == FL_TEST_TORSION ? R : fl_fiber_outer_fibre(&e->fiber);
  return fl_test_type_of(e->test.kind)->stress_at(e, &s, c, y);
}

static int find_param(const fl_fit *fit, const char *path)
{
  for (int j = 0; j < fit->nfree; j++)
    if (strcmp(fit->free[j].path, path) == 0)
      return j;
  return -1;
}

/* A free min_force (jb[1]) kept below nine tenths of max_force (jb[0]): the plateau
 * stays below the envelope's peak, or the next run does not start. */
static void plateau_below_peak(const fl_fit *fit, const int jb[4], double *start)
{
  if (jb[1] >= 0)
    start[jb[1]] = fl_param_inside(&fit->free[jb[1]], fmin(start[jb[1]], 0.9 * start[jb[0]]));
}

/* Align the free buckling numbers jb (indices into fit->free, -1 when fixed) at start
 * to the measured drop features want of curve item db (fiber-calibrate(1), STARTING
 * VALUES): runs that each scale the forces by the measured over the simulated feature
 * and shift the displacement and slope by their differences; a correction that does
 * not run leaves the last point that did.
 * With bonds that yield before they buckle (st->drop_js, their free max_stress), the
 * yield sets the height of the peak and the envelope's peak only the bending angle at
 * which the bond buckles, so the peak's load aligns max_stress and its displacement
 * max_force: a secant on the logarithms of max_force and of the kink's displacement
 * (the first step taking the displacement as the square root of max_force, roughly
 * what a plastic hinge gives), kept inside the bracket of the runs so far (a kink
 * early below, a kink late or none in the range above: then halved in the
 * logarithm); the start is the run whose kink came closest, with its max_stress and
 * min_force corrections, at most 12 runs, fewer where one lands its peak and kink
 * close (ALIGN_CLOSE). */
#define ALIGN_CLOSE 0.01 /* of the measured peak, and of the range for the kink */
int fl_cal_align_drop(fl_cal_state *st, int db, const int jb[4], const double want[5], double *start)
{
  const fl_fit *fit = st->fit;
  const fl_measured *m = &fit->data[db].data;
  int p = st->p, rc, js = st->drop_js, yield_first = js >= 0 && jb[0] >= 0;
  double prev[FL_FIT_MAX_FREE], lf0 = 0.0, lx0 = 0.0;
  int secant = 0; /* 1: (lf0, lx0) is the last pass's point */
  /* yield first: log max_force of the runs that kinked early (lo, its log kink lo_x) and
   * late or not in the range (hi, hi_x; INFINITY: no drop), and the closest run */
  double lo = -INFINITY, lo_x = 0.0, hi = INFINITY, hi_x = INFINITY, best[FL_FIT_MAX_FREE], best_d = INFINITY;
  if (yield_first) {
    /* in the envelope's terms the bonds yield at the force fy (beam theory, M = F L / 4):
     * the plateau after the drop starts below it in the measured ratio, the envelope's
     * peak above it */
    fl_experiment e;
    if ((rc = fl_cal_experiment(st, db, start, &e)))
      return rc;
    double fy = want[0] * start[js] / beam_stress(&e, want[0]);
    start[jb[0]] = fl_param_inside(&fit->free[jb[0]], fmax(start[jb[0]], 2.0 * fy));
    if (jb[1] >= 0)
      start[jb[1]] = fl_param_inside(&fit->free[jb[1]], fy * want[1] / want[0]);
  }
  for (int pass = 0, passes = yield_first ? 12 : 4; pass < passes; pass++) {
    const double *t[1] = {start};
    double got[5];
    rc = fl_cal_run_curve(st, db, 1, t, st->ybuf, NULL);
    if (rc && pass > 0 && (rc == FL_EINPUT || rc == FL_EUNSTABLE || rc == FL_ETIMESTEP)) {
      /* the correction went too far (min_force above max_force, say): keep the last
       * point that ran */
      memcpy(start, prev, (size_t)p * sizeof *start);
      break;
    }
    if (rc)
      return rc;
    memcpy(prev, start, (size_t)p * sizeof *start);
    /* a fall under a quarter of the measured one is no drop (on viscoelastic bonds a
     * yield's few tenths of a newton can pass for one) */
    if (!fl_drop_features(m->x, st->ybuf, m->n, 1, got) || got[0] - got[1] < 0.25 * (want[0] - want[1])) {
      /* no drop inside the measured range: bring the simulated curve's highest
       * force down to the measured peak, so that the next run drops (with yield first:
       * the plateau after the drop below the yield, and the kink earlier) */
      double top = 0.0;
      for (int i = 0; i < m->n; i++)
        top = fmax(top, st->ybuf[i]);
      if (yield_first) {
        /* the bond does not reach its buckling angle within the range: buckle earlier */
        double lf = log(start[jb[0]]);
        if (lf < hi) {
          hi = lf;
          hi_x = INFINITY;
        }
        start[jb[0]] = fl_param_inside(&fit->free[jb[0]], exp(isfinite(lo) ? 0.5 * (lo + hi) : lf + log(0.7)));
        plateau_below_peak(fit, jb, start);
        secant = 0;
        continue;
      }
      if (jb[0] < 0 || !(top > want[0]))
        break;
      start[jb[0]] = fl_param_inside(&fit->free[jb[0]], start[jb[0]] * want[0] / top);
      continue;
    }
    for (int k = yield_first; k < 2; k++)
      if (jb[k] >= 0)
        start[jb[k]] = fl_param_inside(&fit->free[jb[k]], start[jb[k]] * want[k] / got[k]);
    for (int k = 2; k < 4; k++)
      if (jb[k] >= 0)
        start[jb[k]] = fl_param_inside(&fit->free[jb[k]], start[jb[k]] + want[k] - got[k]);
    if (yield_first) {
      /* a run whose peak is off by more than 5 % yields elsewhere: its kink neither
       * brackets max_force nor competes with those whose peak is right */
      int peak_right = fabs(got[0] - want[0]) <= 0.05 * want[0];
      start[js] = fl_param_inside(&fit->free[js], start[js] * want[0] / got[0]);
      double lf = log(start[jb[0]]), lx = log(got[4]), lw = log(want[4]), slope = 0.5;
      double d = fabs(got[4] - want[4]) + (peak_right ? 0.0 : 2.0 * (m->x[m->n - 1] - m->x[0])); /* the peak first */
      plateau_below_peak(fit, jb, start);
      if (d < best_d) {
        best_d = d;
        memcpy(best, start, (size_t)p * sizeof *best);
      }
      /* the peak within ALIGN_CLOSE of the measured one and the kink within ALIGN_CLOSE
       * of the range: the trust region takes it from here */
      if (fabs(got[0] - want[0]) <= ALIGN_CLOSE * want[0] &&
          fabs(got[4] - want[4]) <= ALIGN_CLOSE * (m->x[m->n - 1] - m->x[0]))
        break;
      if (peak_right && lx < lw && lf > lo) {
        lo = lf;
        lo_x = lx;
      } else if (peak_right && lx >= lw && lf < hi) {
        hi = lf;
        hi_x = lx;
      }
      if (secant && lf != lf0 && (lx - lx0) / (lf - lf0) > 0.05)
        slope = (lx - lx0) / (lf - lf0);
      secant = 1;
      lf0 = lf;
      lx0 = lx;
      double next = lf + (lw - lx) / slope;
      if (isfinite(lo) && isfinite(hi) && isfinite(hi_x) && hi_x > lo_x)
        next = lo + (lw - lo_x) * (hi - lo) / (hi_x - lo_x); /* between the bracket's runs */
      if (!(next > lo && next < hi))
        next = isfinite(lo) && isfinite(hi) ? 0.5 * (lo + hi)
               : isfinite(hi)                ? fmin(next, hi + log(0.7))
                                             : fmax(next, lo - log(0.7));
      start[jb[0]] = fl_param_inside(&fit->free[jb[0]], exp(next));
      plateau_below_peak(fit, jb, start);
    }
  }
  if (yield_first && best_d < INFINITY)
    memcpy(start, best, (size_t)p * sizeof *start);
  return FL_OK;
}

/* The stiffness scales: measured over simulated initial slope, from a run at scale 1
 * (the first curve of the test each scale acts in). */
static int start_stiffness(fl_cal_state *st, double *start)
{
  static const char *const scales[2] = {"bond.torque_stiffness_scale", "bond.force_stiffness_scale"};
  const fl_fit *fit = st->fit;
  int rc;
  for (int k = 0; k < 2; k++) {
    int j = find_param(fit, scales[k]);
    if (j < 0 || !fit->free[j].start_auto)
      continue;
    for (int d = 0; d < fit->ndata; d++) {
      const fl_fit_data *it = &fit->data[d];
      if (it->kind != FL_FIT_CURVE || strcmp(fl_test_type_of(it->test)->slope_scale, scales[k]))
        continue;
      double theta[FL_FIT_MAX_FREE];
      fl_specimen_result sr;
      memcpy(theta, start, (size_t)st->p * sizeof *theta);
      theta[j] = 1.0;
      if ((rc = fl_cal_run_one(st, d, theta, 1, &sr)))
        return rc;
      double km = measured_slope(&it->data);
      if (sr.initial_stiffness > 0.0 && km > 0.0)
        start[j] = fl_param_inside(&fit->free[j], km / sr.initial_stiffness);
      break;
    }
  }
  return FL_OK;
}

/* The start's bend: the least-squares slope of y over the rows whose measured load ym
 * is below 15 % of its peak, and over those from 15 to 30 %, before the first row to
 * reach 30 % (docs/start-curvature.awk's rule); their ratio, above 1 where the start
 * stiffens (a toe), or NAN with fewer than 3 rows in either (or no memory). */
static double start_bend(const double *x, const double *ym, const double *y, int n)
{
  double top = 0.0, s[2] = {0.0, 0.0};
  for (int i = 0; i < n; i++)
    top = fmax(top, ym[i]);
  double *wx = malloc((size_t)(n > 0 ? n : 1) * sizeof *wx), *wy = malloc((size_t)(n > 0 ? n : 1) * sizeof *wy);
  int ok = wx && wy;
  for (int w = 0; ok && w < 2; w++) {
    int k = 0;
    for (int i = 0; i < n && ym[i] < 0.30 * top; i++)
      if ((ym[i] >= 0.15 * top) == w) {
        wx[k] = x[i];
        wy[k++] = y[i];
      }
    ok = k >= 3;
    if (ok)
      s[w] = fl_fit_slope(wx, wy, 0, k);
  }
  free(wx);
  free(wy);
  return ok && s[0] > 0.0 && s[1] > 0.0 ? s[1] / s[0] : NAN;
}

/* The tools' contact modulus (free parameter j, start auto): the value whose simulated
 * start bends as the measured one does (start_bend), by a secant on the logarithms of
 * the modulus and the bend, from the middle of its bounds: a softer contact indents
 * deeper and the start stiffens more.  At most six runs; the closest is kept. */
static int start_contact(fl_cal_state *st, int j, double *start)
{
  const fl_fit *fit = st->fit;
  int d = -1, rc;
  for (int k = 0; k < fit->ndata && d < 0; k++)
    if (fit->data[k].kind == FL_FIT_CURVE && fl_test_bends(fit->data[k].test))
      d = k;
  if (d < 0)
    return FL_OK;
  const fl_measured *m = &fit->data[d].data;
  double want = start_bend(m->x, m->y, m->y, m->n);
  if (!isfinite(want))
    return FL_OK;
  double lo = log(fit->free[j].min), hi = log(fit->free[j].max), u0 = 0.0, b0 = 0.0, best = start[j], best_d = INFINITY;
  for (int pass = 0; pass < 6; pass++) {
    const double *t[1] = {start};
    if ((rc = fl_cal_run_curve(st, d, 1, t, st->ybuf, NULL)))
      return rc;
    double got = start_bend(m->x, m->y, st->ybuf, m->n), u = log(start[j]);
    if (!isfinite(got))
      break;
    double b = log(got) - log(want);
    if (fabs(b) < best_d) {
      best_d = fabs(b);
      best = start[j];
    }
    if (fabs(b) < 0.01)
      break;
    if (b > 0.0) /* stiffens too much: a stiffer contact, above this one */
      lo = u;
    else
      hi = u;
    double next = u + (b > 0.0 ? log(4.0) : -log(4.0));
    if (pass > 0 && b != b0 && u != u0 && (b - b0) / (u - u0) < 0.0)
      next = u - b * (u - u0) / (b - b0);
    if (!(next > lo && next < hi))
      next = 0.5 * (lo + hi);
    u0 = u;
    b0 = b;
    start[j] = fl_param_inside(&fit->free[j], exp(next));
  }
  start[j] = best;
  return FL_OK;
}

/* The strength bond.failure.max_stress (free parameter js): beam theory on the measured
 * peak, then scaled by the measured over the simulated peak of a run that reached its
 * limit. */
static int start_strength(fl_cal_state *st, int js, double *start)
{
  const fl_fit *fit = st->fit;
  int dc = -1, rc;
  for (int d = 0; d < fit->ndata && dc < 0; d++)
    if (fit->data[d].kind == FL_FIT_CURVE && fit->data[d].exp.bond.failure.criterion != FL_CRIT_NONE)
      dc = d;
  for (int d = 0; d < fit->ndata && dc < 0; d++)
    if (fit->data[d].kind == FL_FIT_PEAKS)
      dc = d;
  if (dc < 0)
    return FL_OK;
  const fl_fit_data *it = &fit->data[dc];
  fl_experiment e;
  if ((rc = fl_cal_experiment(st, dc, start, &e)))
    return rc;
  double peak = it->kind == FL_FIT_PEAKS ? st->item[dc].mean : measured_peak(&it->data);
  start[js] = fl_param_inside(&fit->free[js], beam_stress(&e, peak));
  if (it->kind == FL_FIT_PEAKS) {
    double m, s;
    if ((rc = fl_cal_run_peaks(st, dc, start, &m, &s, NULL)))
      return rc;
    if (m > 0.0)
      start[js] = fl_param_inside(&fit->free[js], start[js] * peak / m);
  } else {
    fl_specimen_result sr;
    if ((rc = fl_cal_run_one(st, dc, start, 0, &sr)))
      return rc;
    if (sr.failure_row >= 0 && sr.peak > 0.0)
      start[js] = fl_param_inside(&fit->free[js], start[js] * peak / sr.peak);
  }
  return FL_OK;
}

/* The buckling numbers: read off the first bending curve that has a drop after its
 * peak, then aligned by runs (fl_cal_align_drop), with max_stress (free parameter js,
 * -1 when fixed) where the bonds yield before they buckle; a start given in the fit
 * file that moves is noted. */
static int start_buckling(fl_cal_state *st, int js, double *start)
{
  const fl_fit *fit = st->fit;
  int jb[4], any = 0, db = -1, rc;
  for (int k = 0; k < 4; k++) {
    jb[k] = find_param(fit, fl_cal_buckling_keys[k]);
    any |= jb[k] >= 0;
  }
  double want[5];
  for (int d = 0; d < fit->ndata && any && db < 0; d++) {
    const fl_measured *m = &fit->data[d].data;
    if (fit->data[d].kind != FL_FIT_CURVE || !fl_test_type_of(fit->data[d].test)->kink ||
        fit->data[d].exp.bond.buckling.type == FL_BUCKLING_NONE || !fl_drop_features(m->x, m->y, m->n, 0, want))
      continue;
    db = d;
    for (int k = 0; k < 4; k++)
      if (jb[k] >= 0 && fit->free[jb[k]].start_auto)
        start[jb[k]] = fl_param_inside(&fit->free[jb[k]], want[k]);
  }
  /* Then align the free forces, given or auto: the virtual test does not give back the
   * envelope's forces as they are (the contacts move inwards on the rollers as the
   * specimen turns, a shorter lever arm; damping holds part of the moment while the
   * hinge turns), and a drop in the wrong place is a step in the residuals that the
   * trust region cannot cross; a plateau that ends before the drop leaves
   * displacement_at_min_force without influence.  Run the test and scale each free
   * force by the measured over the simulated feature, and shift the displacement by the
   * measured less the simulated end of the plateau and the slope by the measured less
   * the simulated slope beyond it, four times (fiber-calibrate(1), STARTING VALUES). */
  st->drop_item = db >= 0 && (jb[0] >= 0 || jb[1] >= 0 || jb[2] >= 0 || jb[3] >= 0) ? db : -1;
  st->drop_js = -1;
  if (db >= 0 && fit->data[db].exp.bond.buckling.type == FL_BUCKLING_PLASTIC &&
      fit->data[db].exp.bond.failure.criterion != FL_CRIT_NONE &&
      fit->data[db].exp.bond.failure.post_failure != FL_POST_TOTAL_BREAKAGE)
    st->drop_js = js;
  memcpy(st->drop_jb, jb, sizeof jb);
  if (db >= 0)
    memcpy(st->drop_want, want, sizeof want);
  if (st->drop_item < 0)
    return FL_OK;
  double given[4], given_s = st->drop_js >= 0 ? start[st->drop_js] : 0.0;
  for (int k = 0; k < 4; k++)
    given[k] = jb[k] >= 0 ? start[jb[k]] : 0.0;
  if ((rc = fl_cal_align_drop(st, db, jb, want, start)))
    return rc;
  static const char *const feature[4] = {"peak", "plateau after the drop", "end of the plateau",
                                         "slope beyond the plateau"};
  int yf = st->drop_js >= 0 && jb[0] >= 0; /* max_force aligns the kink's displacement, max_stress the peak */
  for (int k = 0; k < 4; k++)
    if (jb[k] >= 0 && !fit->free[jb[k]].start_auto && start[jb[k]] != given[k])
      fl_cal_note(st, "note: the start of %s moved from %.6g to %.6g, where the simulated %s meets the measured one",
                  fl_cal_buckling_keys[k], given[k], start[jb[k]], k == 0 && yf ? "peak's displacement" : feature[k]);
  if (yf && !fit->free[st->drop_js].start_auto && start[st->drop_js] != given_s)
    fl_cal_note(st, "note: the start of bond.failure.max_stress moved from %.6g to %.6g, where the simulated peak "
                "meets the measured one", given_s, start[st->drop_js]);
  return FL_OK;
}

/* fl_cal_starts, the message of a run that failed in st->err. */
static int resolve_starts(fl_cal_state *st, double *start)
{
  fl_fit *fit = st->fit;
  int rc;
  for (int j = 0; j < st->p; j++)
    start[j] = fit->free[j].start_auto ? fl_param_at(&fit->free[j], 0.5) : fit->free[j].start;
  if ((rc = start_stiffness(st, start)))
    return rc;
  /* the tools' contact, then the stiffness again, which the contact's indentation softens */
  int jc = find_param(fit, "test.contact_modulus");
  if (jc >= 0 && fit->free[jc].start_auto &&
      ((rc = start_contact(st, jc, start)) || (rc = start_stiffness(st, start))))
    return rc;
  /* strength variation: the measured coefficient of variation of the peaks */
  int jcv = find_param(fit, "bond.failure.strength_variation");
  if (jcv >= 0 && fit->free[jcv].start_auto)
    for (int d = 0; d < fit->ndata; d++)
      if (fit->data[d].kind == FL_FIT_PEAKS) {
        start[jcv] = fl_param_inside(&fit->free[jcv], st->item[d].sd / st->item[d].mean);
        break;
      }
  int js = find_param(fit, "bond.failure.max_stress");
  if (js >= 0 && fit->free[js].start_auto && (rc = start_strength(st, js, start)))
    return rc;
  return start_buckling(st, js, start);
}

int fl_cal_starts(fl_cal_state *st, double *start, char *err, size_t errlen)
{
  int rc = resolve_starts(st, start);
  if (rc)
    snprintf(err, errlen, "%s", st->err);
  return rc;
}
