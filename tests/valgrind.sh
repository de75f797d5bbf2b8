#!/bin/sh
# Each program once under valgrind memcheck on a small experiment or fit: no errors,
# no leaks (make valgrind; not part of make check, it takes a few minutes).
set -u
top_srcdir=${top_srcdir:-.}
bin=$(cd "${top_builddir:-.}" && pwd)
src=$(cd "$top_srcdir" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not found: skipped"; exit 77; }
vg="valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9 -q"
fails=0
n=0
run() {
  n=$((n + 1))
  (cd "$work" && $vg "$@" >/dev/null 2>vg.log)
  st=$?
  if [ $st -eq 9 ] || [ -s "$work/vg.log" ] && grep -q '==' "$work/vg.log"; then
    echo "FAIL: $*"; cat "$work/vg.log"; fails=$((fails + 1))
  else
    echo "ok $n: $(basename "$1") (status $st)"
  fi
}
run "$bin/fiber-bend3pt" -q --plot none -o b -s fiber.segments=12 -s test.max_displacement=2e-4 \
  "$src/experiments/wheat-straw-bend3pt.yaml"
run "$bin/fiber-tension" -q --plot none -o t -s fiber.segments=16 --batch 2 "$src/experiments/glass-fibre-tension-break.yaml"
run "$bin/fiber-torsion" -q --plot none -o r -s fiber.segments=12 "$src/experiments/aluminium-tube-torsion-yield.yaml"
cp "$src"/tests/fit-bad/good.yaml "$src"/tests/fit-bad/*.csv "$src"/tests/fit-bad/*-tension.yaml "$src"/tests/fit-bad/bend.yaml "$work"/ 2>/dev/null
run "$bin/fiber-calibrate" -q --plot none -o c good.yaml
echo "$((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]
