#!/bin/sh
# The slow calibration checks (make check-slow): the buckling recoveries of
# tests/check_calibrate and its strength statistics, and the coverage of a ring-down's
# standard errors over 100 seeds of noise (tests/check_ringdown), with limits in
# reference times of this machine.
bin="${top_builddir:-.}/tests"
if [ ! -x "$bin/check_calibrate" ] || [ ! -x "$bin/check_ringdown" ]; then
  echo "check-calibrate-slow: tests/check_calibrate or tests/check_ringdown was not built (Check missing): skipped"
  exit 77
fi
"$bin/check_calibrate" --slow
rc=$?
"$bin/check_ringdown" --slow || rc=1
exit $rc
