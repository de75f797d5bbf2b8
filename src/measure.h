/* measure.h: what a virtual test measures of its specimens, for every solver
 * (measure.c).  fl_run_measured, fl_run_midspan_deflection (kind/bend.c's),
 * fl_curve_quasi_static and fl_equally_loaded_bonds are declared in run.h, where the
 * programs find them. */
#ifndef FL_MEASURE_H
#define FL_MEASURE_H

#include "run.h"

/* The displacement column of specimen s: the path position pos measured from the first
 * touch (touch < 0: none yet, 0), or a cantilever's tip displacement. */
double fl_measure_x(const fl_system *sys, enum fl_test_kind kind, int s, double touch, double pos);

/* The load on the other end of specimen s from the loads of the last evaluation: the
 * supports' (bending), the fixed grip's or the clamp's, in the sign of
 * fl_run_measured(). */
double fl_measure_reaction(const fl_system *sys, enum fl_test_kind kind, int s);

/* Row r of curve c from specimen s's loads of the last evaluation: the measured load
 * (returned), the reaction (bending), the midspan deflection (4-point bending, span) or
 * the lateral deflection (compression), the strain energy and the bond counts.  The
 * solver sets the time, the displacement and the kinetic energy. */
double fl_measure_row(const fl_system *sys, enum fl_test_kind kind, int s, double span, fl_curve *c, size_t r);
/* The same with the bond counts given (fl_system_count's, as an engine that keeps the
 * bonds' state elsewhere counts them). */
double fl_measure_row_counted(const fl_system *sys, enum fl_test_kind kind, int s, double span, fl_curve *c,
                              size_t r, int broken, int yielded);

/* 1 when the measured load y and the reaction agree within 5 % of the larger. */
int fl_measure_balanced(double y, double react);

/* The figures of one specimen's rows [0, np), rows [0, nfirst) being the first loading
 * leg: the load at the largest displacement and the initial stiffness (the peak is
 * tracked during the run). */
void fl_measure_figures(const double *x, const double *y, int np, int nfirst, fl_specimen_result *r);

/* The crosshead's reading of specimen s's rows [0, np) with the machine's compliance C
 * (m/N, test.compliance) in series: each row's travel plus C times its load, and the
 * same for the peak and the static path's snaps in sr.  Where the crosshead would go
 * back while the tools advance (a specimen softening faster than 1 / C), it holds: the
 * load drops at constant crosshead, as a machine that jumps there records it.  C 0:
 * nothing changes. */
void fl_measure_compliance(fl_curve *c, int s, int np, double C, fl_specimen_result *sr);

/* The compliance in series with the crosshead of experiment e, m/N: test.compliance,
 * and with linear tools (test.contact linear) their springs', each carrying its
 * share of the load F: a nose F / n (n noses), each support F / 2, so that the
 * crosshead reads (1 / n + 1 / 2) F / k more (fiberlab-model(7), Tool contacts). */
double fl_measure_series_compliance(const fl_experiment *e);

/* The bending tools' indentation of specimen s of sys at a load F (N) on the noses:
 * the nose's overlap plus the supports' mean, as their contact laws carry the load (each
 * support F / 2, each of n noses F / n, shared by the segments touching a tool), m
 * (kind/bend.c). */
double fl_measure_indentation(const fl_system *sys, int s, double F);

/* The share of the displacement at the peak that the tools' Hertz indentation takes,
 * above which a run warns: there the indentation, growing as F^(2/3), bends the start
 * of the curve visibly (fiberlab-model(7), Tool contacts). */
#define FL_HERTZ_SHARE_WARN 0.10

#endif
