/* cantilever.h: the cantilever test (fiber-cantilever(1)): its constants, and the free
 * vibration after the release (the ring-down, its first frequency and logarithmic
 * decrement: cantilever.c); the test's table entry is kind/cantilever.c. */
#ifndef FL_CANTILEVER_H
#define FL_CANTILEVER_H

#include <stddef.h>

#include "run.h" /* and series.h */

/* Stiffness of the spring that drives the tip under displacement control, in units of
 * the Euler-Bernoulli tip stiffness 3 E I / L^3 of the free length. */
#define FL_TIP_SPRING_SCALE 1000.0

/* The first bending mode of a clamped-free Euler-Bernoulli beam: beta L and the
 * ratio sigma of its shape cosh - cos - sigma (sinh - sin) (Blevins, Formulas for
 * Natural Frequency and Mode Shape, 1979, table 8-1). */
#define FL_CANTILEVER_BETA1 1.8751040687119611
#define FL_CANTILEVER_SIGMA1 0.7340955137589726

/* The Euler-Bernoulli first mode shape at the chain's bodies, once for every step of
 * a ring-down: phi[i] for the free bodies (0 in the clamp), and phi[nbody] the shape
 * at the tip; phi holds nbody + 1 numbers. */
void fl_cantilever_mode_shape(const fl_system *sys, const fl_build_info *info, double *phi);

/* The tip displacement of the first mode in specimen s: the free bodies' deflections
 * (along -y) projected, mass-weighted, on the first mode shape phi
 * (fl_cantilever_mode_shape), and scaled to the tip.  Higher modes, orthogonal to it,
 * drop out. */
double fl_cantilever_first_mode(const fl_system *sys, const fl_build_info *info, const double *phi, int s);

/* The extremes of one specimen's first mode in a ring-down, found sample by sample
 * (fl_ring_track_add, a parabola through each three samples: fl_extreme3). */
typedef struct {
  double t[3], x[3]; /* the last three samples */
  int have;          /* samples held */
  int last;          /* kind of the last extreme: +1 maximum, -1 minimum, 0 none yet */
  double *te, *xe;   /* extremes found */
  int ne, cap;
} fl_ring_track;

/* Add the sample x at time t (s); FL_OK or FL_ENOMEM.  k starts zeroed. */
int fl_ring_track_add(fl_ring_track *k, double t, double x);

/* The fewest extremes a ring-down's figures are read from: a maximum, a minimum and a
 * maximum (or the reverse), which a record of 2 periods after the release always holds. */
#define FL_RING_MIN_EXTREMES 3
#define FL_RING_MIN_PERIODS 2

/* The first frequency and logarithmic decrement of the extremes found (fl_ringdown_fit)
 * into sr, where they give one (NAN otherwise: too few extremes), with the decay rate and
 * damping ratio (fl_ring_figures), and their count; frees k's arrays. */
void fl_ring_track_done(fl_ring_track *k, fl_specimen_result *sr);

/* A ring-down's figures into sr: the first frequency and the decrement with their
 * standard errors, the decay rate b = delta f and the damping ratio
 * zeta = delta / sqrt(4 pi^2 + delta^2) with theirs. */
void fl_ring_figures(const fl_ringdown *rd, fl_specimen_result *sr);

/* Rows a period below which a ring-down's rows miss the tip's peaks, sharpened by the
 * higher modes: the tip's decrement read off their extremes moves by 2.4 % at 10 rows a
 * period, 0.3 % at 20 and 0.04 % at 26 (experiments/wheat-straw-vibration.yaml). */
#define FL_RING_CSV_MIN_ROWS 20

/* The decrement of specimen s's tip displacement itself, off its np rows of c, into
 * sr->tip_log_decrement: above the first mode's where the higher modes, damped faster,
 * are still in it (a short record).  NAN where the rows hold too few extremes, or fewer
 * than FL_RING_CSV_MIN_ROWS a first period (sr->ring_rows_per_period, set here from
 * sr->frequency). */
void fl_cantilever_tip_decrement(const fl_curve *c, int s, int np, fl_specimen_result *sr);

/* The warning of a ring-down whose rows are too few a period for its CSV, plot and
 * tip_logarithmic_decrement (fl_cantilever_tip_decrement), with the
 * simulation.output_points that would do, into buf; 0 when none is called for. */
int fl_cantilever_rows_warning(const fl_result *res, int output_points, char *buf, size_t len);

/* The release: each specimen's tip displacement into res->spec[s].release_x, then no
 * load and no spring on the tip; res->vibration set. */
void fl_cantilever_release(int nspec, fl_system *sys, fl_result *res);

/* Row r of the ring-down from specimen s of sys at time tm after the release, with
 * the loads of the present state evaluated (pload_force, strain_energy) and v, w, L
 * set: the tip displacement, the tip load, the first mode's tip displacement
 * (support), the kinetic and strain energies, the bonds broken and yielded. */
void fl_cantilever_ring_row(const fl_system *sys, int s, const fl_build_info *info, const double *phi, double tm,
                            fl_curve *curve, size_t r);

/* Release the tips (no load, no spring) and step the explicit engine for
 * test.ring_periods periods of the first mode: the curve's rows become the ring-down
 * (time from the release, tip displacement; support holds the first mode's tip
 * displacement), and each specimen's frequency and logarithmic decrement come from the
 * extremes of the first mode, found at every step.  s0 (the batch's number of the
 * first specimen) is not used: a ring-down's batch is never spread over ranks.  FL_OK,
 * FL_ELIMIT (too many steps), FL_EUNSTABLE, FL_EINTERRUPT, FL_ENOMEM, with a message in
 * err.  The explicit solvers' ringdown (solver.h). */
int fl_cantilever_ringdown(const fl_experiment *const *exps, int nspec, int s0, fl_system *sys,
                           const fl_build_info *info, const fl_run_hooks *hooks, fl_curve *curve, fl_result *res,
                           char *err, size_t errlen);

#endif
