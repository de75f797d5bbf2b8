#!/bin/sh
# The slow calibration checks (make check-slow): the buckling recoveries of
# tests/check_calibrate and its strength statistics, with limits in reference times of
# this machine.
prog="${top_builddir:-.}/tests/check_calibrate"
if [ ! -x "$prog" ]; then
  echo "check-calibrate-slow: tests/check_calibrate was not built (Check missing): skipped"
  exit 77
fi
exec "$prog" --slow
