#!/bin/sh
# One batch spread over two MPI ranks (mpirun -n 2, oversubscribed) gives the serial
# run's results byte for byte:
# - fiber-tension --batch 6 of brittle rods whose bond strengths scatter (strength
#   variation 0.1): rank 0 simulates specimens 0-2, rank 1 specimens 3-5, each drawing
#   the strengths the serial run draws for those specimen numbers.  Had rank 1 drawn
#   them as specimens 0-2, its peaks would repeat rank 0's and the CSV would differ.
#   Once with the static solver (auto picks it for this test), once with the explicit
#   one; the summary is compared without its wall_time line.
# - fiber-calibrate fitting max_stress and strength_variation to 8 measured peaks,
#   every evaluation a batch of 12 specimens spread over the ranks: the same
#   calibrated experiment, CSV and summary.
# - fiber-calibrate fitting the aluminium tube's torque stiffness scale on the explicit
#   solver: the Jacobian's batch holds the base and the perturbed experiment, whose
#   stability bounds differ, one on each rank; both take the serial batch's time step
#   (the smaller), else the fitted value would differ in its last digits.
# - --resume with a fit file under mpirun is refused (exit 2): rank 0 alone keeps the
#   checkpoint.
# Skipped (77) unless fiberlab was configured with --with-mpi and mpirun was found.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
if ! grep -q '^#define HAVE_MPI 1' "$top_builddir/config.h" 2>/dev/null || [ -z "${MPIRUN:-}" ]; then
  echo "fiberlab was built without MPI (./configure --with-mpi): skipped"
  exit 77
fi
fits=$(cd "$top_srcdir/fits" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
root=
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
mpi() { "$MPIRUN" $root --oversubscribe -n 2 "$@"; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# brittle rods: 8 bonds between the grips, the weakest breaks each (peak about
# 0.85 times max_stress times the area, 94 N)
cat >rod.yaml <<'EOF'
fiber:
  length: 0.024
  outer_radius: 1.0e-3
  segments: 12
  density: 1000
  youngs_modulus: 5.0e9
  poisson_ratio: 0.3
bond:
  damping: 2.2e-7
  failure:
    criterion: axial_stress
    max_stress: 3.0e7
    ignore_compression: true
    strength_variation: 0.1
    post_failure: total_breakage
test:
  kind: tension
  gauge_length: 0.016
  grip_length: 0.004
  max_elongation: 1.5e-4
simulation:
  output_points: 20
  seed: 5
EOF

# same_run NAME ARGS...: the serial run and the two-rank run of fiber-tension ARGS
same_run() {
  name=$1
  shift
  mkdir "s-$name" "m-$name"
  (cd "s-$name" && "$top_builddir/fiber-tension" -q --plot none -o rod "$@" ../rod.yaml >sum.yaml 2>err.txt) ||
    { fail "$name: the serial run failed"; cat "s-$name/err.txt"; return; }
  (cd "m-$name" && mpi "$top_builddir/fiber-tension" -q --plot none -o rod "$@" ../rod.yaml >sum.yaml 2>err.txt) ||
    { fail "$name: mpirun -n 2 failed"; cat "m-$name/err.txt"; return; }
  cmp -s "s-$name/rod.csv" "m-$name/rod.csv" || fail "$name: rod.csv differs between the serial and the two-rank run"
  grep -v '^wall_time:' "s-$name/sum.yaml" >a.tmp
  grep -v '^wall_time:' "m-$name/sum.yaml" >b.tmp
  cmp -s a.tmp b.tmp || { fail "$name: the summaries differ"; diff a.tmp b.tmp; }
  grep -q '^specimens: 6$' "s-$name/sum.yaml" || fail "$name: not a batch of 6"
  # the strengths scatter: the specimens' peaks differ
  awk '$1 == "peak_force_std:" { exit !($2 > 0) }' "s-$name/sum.yaml" || fail "$name: the peaks do not scatter"
  [ ! -s "m-$name/err.txt" ] || { fail "$name: messages from the two-rank run"; cat "m-$name/err.txt"; }
}
same_run static --batch 6
same_run explicit --batch 6 --solver explicit

# a strength fit: method of moments on 8 hand-picked peaks near the rods' (N)
printf 'peak_N\n78.1\n82.4\n74.9\n80.2\n85.0\n76.3\n79.8\n81.7\n' >peaks.csv
cat >fit.yaml <<'EOF'
experiment: rod.yaml
data:
  - test: tension
    peaks: peaks.csv
    columns: { y: peak_N }
    specimens: 12
free:
  bond.failure.max_stress: { start: 2.5e7, min: 1.0e6, max: 1.0e9 }
  bond.failure.strength_variation: { start: 0.05, min: 0.005, max: 0.5 }
EOF
# same_fit NAME FIT ARGS...: the serial and the two-rank fiber-calibrate -o NAME FIT;
# returns 1 when either failed
same_fit() {
  name=$1
  fit=$2
  shift 2
  mkdir "s-$name" "m-$name"
  (cd "s-$name" && "$top_builddir/fiber-calibrate" -q --plot none -o "$name" "$@" "$fit" >sum.yaml 2>err.txt)
  st=$?
  (cd "m-$name" && mpi "$top_builddir/fiber-calibrate" -q --plot none -o "$name" "$@" "$fit" >sum.yaml 2>err.txt)
  mt=$?
  if [ "$st" != 0 ] || [ "$mt" != 0 ]; then
    fail "the fit $name: serial exit $st, mpirun -n 2 exit $mt"
    cat "s-$name/err.txt" "m-$name/err.txt"
    return 1
  fi
  for f in "$name.yaml" "$name.csv" sum.yaml; do
    cmp -s "s-$name/$f" "m-$name/$f" || fail "the fit's $f differs between the serial and the two-rank run"
  done
  [ "$(ls "m-$name" | wc -l)" = "$(ls "s-$name" | wc -l)" ] || fail "the two-rank fit wrote other files: $(ls "m-$name")"
}
if same_fit cal "$work/fit.yaml"; then
  grep -q '^status: converged' s-cal/sum.yaml || fail "the strength fit did not converge"
fi
# a batch of two experiments (base and perturbed): the serial batch's time step on each rank
same_fit tube "$fits/aluminium-tube-torsion.yaml" --solver explicit

mkdir again
(cd again && mpi "$top_builddir/fiber-calibrate" -q --plot none --resume -o again ../fit.yaml >out.txt 2>err.txt)
rt=$?
[ "$rt" = 2 ] && grep -q -- '--resume under mpirun with 2 ranks; allowed: --resume without mpirun' again/err.txt ||
  { fail "--resume under mpirun: exit $rt"; cat again/err.txt; }
[ ! -e again/again.yaml ] && [ ! -e again/again.checkpoint ] || fail "--resume under mpirun left files"

[ "$fails" = 0 ] && echo "ok: two ranks, the serial batch and fit byte for byte"
[ "$fails" = 0 ]
