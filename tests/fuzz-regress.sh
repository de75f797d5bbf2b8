#!/bin/sh
# Replays every input the fuzzers ever saved (tests/fuzz/regressions/) through the
# programs: each must end with status 0, 1 or 2, never a crash or a signal.
set -u
top_srcdir=${top_srcdir:-.}
bin=$(cd "${top_builddir:-.}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
fails=0
for f in "$top_srcdir"/tests/fuzz/regressions/experiment/*; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  (cd "$work" && "$bin/fiber-bend3pt" -q --plot none -o r -s simulation.output_points=2 "$f" >/dev/null 2>&1)
  st=$?
  [ $st -le 2 ] || { echo "FAIL: $f: status $st"; fails=$((fails + 1)); }
done
for f in "$top_srcdir"/tests/fuzz/regressions/set/*; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  set --
  while IFS= read -r line || [ -n "$line" ]; do set -- "$@" -s "$line"; done <"$f"
  (cd "$work" && "$bin/fiber-bend3pt" -q --plot none -o r "$@" "$(cd "$top_srcdir" && pwd)/tests/bad/missing-test.yaml" \
    >/dev/null 2>&1)
  st=$?
  [ $st -le 2 ] || { echo "FAIL: $f: status $st"; fails=$((fails + 1)); }
done
# fit files and measured tables: next to a valid experiment and curve, as the fuzzers
# read them
cat >"$work/exp.yaml" <<'YAML'
fiber: {segments: 12, length: 0.024}
test: {kind: tension, gauge_length: 0.016, grip_length: 0.004}
YAML
for f in "$top_srcdir"/tests/fuzz/regressions/fit/* "$top_srcdir"/tests/fuzz/regressions/csv/*; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  case $f in
  */fit/*)
    cp "$f" "$work/fit.yaml"
    printf 'x_mm,y_N\n0,0\n0.01,1\n0.02,2\n' >"$work/data.csv" ;;
  *)
    cp "$f" "$work/data.csv"
    printf 'experiment: exp.yaml\ndata:\n  - {test: tension, file: data.csv, columns: {x: 1, y: 2}, units: {x: mm, y: N}}\nfree:\n  bond.force_stiffness_scale: {start: 1.0, min: 0.1, max: 10}\nsolver: {max_iterations: 2}\n' >"$work/fit.yaml" ;;
  esac
  (cd "$work" && "$bin/fiber-calibrate" -q --plot none -o r fit.yaml >/dev/null 2>&1)
  st=$?
  [ $st -le 2 ] || { echo "FAIL: $f: status $st"; fails=$((fails + 1)); }
done
echo "$((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]
