/* fit/ring_report.c: what a calibration reports of its ring-down items (fiber-calibrate(1),
 * RING-DOWNS): the summary's ringdowns block, the two plot panels of each (the record
 * and its fit against time, the peaks and their decay lines on a log scale), and the
 * warnings on a record sampled too coarsely or read with the wrong signal. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl_defs.h"
#include "output.h" /* fl_gnuplot_quote */
#include "ring_report.h"
#include "series.h"

static void figure_block(fl_yaml_out *y, const char *key, const fl_figure *g, const char *fmt)
{
  fl_yaml_str(y, key);
  fl_yaml_map_begin(y, 1);
  fl_yaml_key_num(y, "value", fmt, g->value);
  fl_yaml_key_num(y, "std_error", "%.3g", g->std_error);
  fl_yaml_map_end(y);
}

void fl_ring_summary(fl_yaml_out *y, const fl_fit *fit, const fl_calibration *cal)
{
  static const char *const signal[] = {"first_mode", "tip"}, *const residuals[] = {"series", "figures"};
  int any = 0;
  for (int d = 0; d < cal->ncurves; d++)
    any |= cal->curve[d].ring.used;
  if (!any)
    return;
  fl_yaml_str(y, "ringdowns");
  fl_yaml_seq_begin(y, 0);
  for (int d = 0; d < cal->ncurves; d++) {
    const fl_calibration_ring *g = &cal->curve[d].ring;
    const fl_fit_data *it = &fit->data[d];
    if (!g->used)
      continue;
    fl_yaml_map_begin(y, 0);
    fl_yaml_key_str(y, "file", it->file);
    fl_yaml_key_str(y, "signal", signal[it->ring_signal]);
    fl_yaml_key_str(y, "residuals", residuals[it->ring_residuals]);
    fl_yaml_key_num(y, "periods", "%.4g", g->periods);
    fl_yaml_key_num(y, "rows_per_period", "%.4g", g->rows_per_period);
    fl_yaml_key_num(y, "noise", "%.3g", g->noise);
    if (it->ring_residuals == FL_RING_SERIES) {
      fl_yaml_key_num(y, "amplitude_ratio", "%.6g", g->amplitude_ratio);
      fl_yaml_key_num(y, "time_shift", "%.3g", g->time_shift);
      fl_yaml_key_num(y, "offset", "%.3g", g->offset);
    }
    fl_yaml_str(y, "measured");
    fl_yaml_map_begin(y, 1);
    fl_yaml_key_num(y, "first_frequency", "%.8g", g->measured_frequency);
    fl_yaml_key_num(y, "logarithmic_decrement", "%.6g", g->measured_decrement);
    fl_yaml_map_end(y);
    figure_block(y, "first_frequency", &g->frequency, "%.8g");
    figure_block(y, "logarithmic_decrement", &g->decrement, "%.6g");
    figure_block(y, "decay_rate", &g->decay_rate, "%.6g");
    figure_block(y, "damping_ratio", &g->damping_ratio, "%.6g");
    fl_yaml_key_num(y, "tip_logarithmic_decrement", "%.6g", g->tip_decrement);
    fl_figure share = {g->higher_modes, g->higher_modes_se};
    figure_block(y, "higher_modes", &share, "%.3g");
    fl_yaml_map_end(y);
  }
  fl_yaml_seq_end(y);
}

int fl_ring_panels(FILE *f, const fl_fit *fit, const fl_calibration *cal, int d, const char *file)
{
  const fl_calibration_curve *cc = &cal->curve[d];
  const fl_calibration_ring *g = &cc->ring;
  char title[FL_FIT_PATH + 64], m[16], p[16];
  snprintf(m, sizeof m, "m%d", d + 1);
  snprintf(p, sizeof p, "f%d", d + 1);
  fl_ringdown rm, rf;
  double range[2] = {HUGE_VAL, 0.0};
  int have_m = fl_gnuplot_peaks(f, m, cc->x, cc->measured, cc->points, &rm, range);
  int have_f = fl_gnuplot_peaks(f, p, cc->x, cc->fitted, cc->points, &rf, range);
  snprintf(title, sizeof title, "%d: %s (R^2 = %.4f)", d + 1, file, cc->r_squared);
  fprintf(f, "set title ");
  fl_gnuplot_quote(f, title);
  fprintf(f, " noenhanced\nset key below\nset xlabel 'Time (s)'\nset ylabel 'Tip displacement (mm)'\n");
  fprintf(f, "plot fl_csv using (column(1) == %d ? column(2) : NaN):(column(3)*1e3) with points pt 7 ps 0.4 "
             "lc rgb '#707070' title 'measured', \\\n"
             "     fl_csv using (column(1) == %d ? column(2) : NaN):(column(4)*1e3) with lines lw 1.5 lc rgb '#c00000' "
             "title 'fitted (%s%s)'\n", d + 1, d + 1, fit->data[d].ring_signal == FL_RING_TIP ? "tip" : "first mode",
          fit->data[d].ring_residuals == FL_RING_SERIES ? ", its offset, amplitude and phase fitted" : "");
  fprintf(f, "unset title\n");
  fl_gnuplot_log_axis(f, "Peak about the rest position (mm)", range);
  fprintf(f, "plot $%s using 1:2 with points pt 7 ps 0.5 lc rgb '#707070' title 'measured peaks', \\\n"
             "     $%s using 1:2 with points pt 6 ps 0.6 lc rgb '#c00000' title 'fitted peaks'", m, p);
  if (have_m)
    fprintf(f, ", \\\n     exp(%.10g - %.10g*x)*1e3 with lines lw 1.5 lc rgb '#404040' title 'measured: f = %.5g Hz, "
               "{/Symbol d} = %.4g'", rm.log_amplitude0, rm.log_decrement * rm.frequency, rm.frequency,
            rm.log_decrement);
  if (have_f)
    fprintf(f, ", \\\n     exp(%.10g - %.10g*x)*1e3 with lines lw 2 lc rgb '#c00000' title 'fitted first mode: f = "
               "%.5g Hz, {/Symbol d} = %.4g +- %.2g, b = %.4g +- %.2g 1/s, {/Symbol z} = %.3g'",
            rf.log_amplitude0, g->decay_rate.value, g->frequency.value, g->decrement.value,
            g->decrement.std_error, g->decay_rate.value, g->decay_rate.std_error, g->damping_ratio.value);
  /* the settings of the other panels back */
  fprintf(f, "\nunset logscale y\nset ytics autofreq\nset autoscale y\nset offsets 0, 0, 0, 0\nset key inside top left\n");
  return ferror(f) ? FL_EIO : FL_OK;
}

size_t fl_ring_warnings(const fl_fit *fit, const fl_calibration *cal, char *buf, size_t len, int *n)
{
  size_t used = 0;
  for (int d = 0; d < cal->ncurves && used < len; d++) {
    const fl_calibration_ring *g = &cal->curve[d].ring;
    const fl_fit_data *it = &fit->data[d];
    if (!g->used)
      continue;
    if (g->rows_per_period < 2.5) {
      used += (size_t)snprintf(buf + used, len - used,
                               "%s%s: data[%d] (%s): the fitted %.4g Hz ring is sampled at %.3g rows a period: below "
                               "2 a record cannot tell it from a slower one, and the fit may have found that; "
                               "record at least %d rows a period (a sampling rate of at least %.4g Hz)",
                               *n ? "\n" : "", fit->file, d + 1, it->file, g->frequency.value, g->rows_per_period,
                               FL_RING_MIN_ROWS, FL_RING_MIN_ROWS * g->frequency.value);
      (*n)++;
    }
    /* the mode mixing of a short record: the simulated tip decays faster than its first
     * mode while the higher modes die (by more than 0.5 % over the record: they matter);
     * which of the two the record holds, its share of the higher modes says, where that
     * stands out of its error */
    double excess = g->tip_decrement / g->decrement.value - 1.0, share = g->higher_modes;
    if (!(fabs(excess) > 5e-3) || !(fabs(share - 0.5) > 3.0 * g->higher_modes_se) || used >= len)
      continue;
    if (share > 0.5 && it->ring_signal == FL_RING_FIRST_MODE) {
      used += (size_t)snprintf(buf + used, len - used,
                               "%s%s: data[%d] (%s): the record holds the simulated tip's higher modes (share %.2f "
                               "+- %.2f), and over its %.3g periods the simulated tip decays %.3g %% faster than its "
                               "first mode, with which it is compared (signal: first_mode): %s; set signal: tip to "
                               "compare the tip with the tip, or record more periods (the excess falls as the higher "
                               "modes die)", *n ? "\n" : "", fit->file, d + 1, it->file, share, g->higher_modes_se,
                               g->periods, 100.0 * excess,
                               it->ring_residuals == FL_RING_FIGURES
                                   ? "the decrement read off the record's extremes holds the higher modes' faster "
                                     "decay, as far as its rows catch their peaks, and bond.damping takes it up"
                                   : "its higher modes count as noise, which widens the standard errors and moves "
                                     "bond.damping within them");
      (*n)++;
    } else if (share < 0.5 && it->ring_signal == FL_RING_TIP) {
      used += (size_t)snprintf(buf + used, len - used,
                               "%s%s: data[%d] (%s): the record lacks the simulated tip's higher modes (share %.2f "
                               "+- %.2f: its first mode alone, filtered, or A exp(-b t) cos(2 pi f t)), and over its "
                               "%.3g periods the simulated tip, with which it is compared (signal: tip), decays %.3g "
                               "%% faster than its first mode: %s; set signal: first_mode", *n ? "\n" : "",
                               fit->file, d + 1, it->file, share, g->higher_modes_se, g->periods, 100.0 * excess,
                               it->ring_residuals == FL_RING_FIGURES
                                   ? "bond.damping takes up the difference, up to that much high"
                                   : "the simulated higher modes count as misfit, which widens the standard errors and "
                                     "can move bond.damping by several of them");
      (*n)++;
    }
  }
  return used;
}
