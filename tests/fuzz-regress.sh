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
echo "$((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]
