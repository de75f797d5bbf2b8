#!/bin/sh
# A fit on simulation.solver auto whose static runs find no equilibrium
# (tests/fit-fallback.yaml): its summary counts the batches the explicit engine ran
# instead (fallbacks).  Its one iteration ends it short of convergence: exit 1, with
# the report of the best point written.
set -u
top_srcdir=${top_srcdir:-.}
bin=$(cd "${top_builddir:-.}" && pwd)
tests=$(cd "$top_srcdir/tests" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
"$bin/fiber-calibrate" -q --plot none -o f "$tests/fit-fallback.yaml" >summary 2>err
st=$?
n=$(sed -n 's/^fallbacks: //p' summary)
if [ $st -le 1 ] && grep -q '^status: max_iterations$' summary && [ "${n:-0}" -gt 0 ] && grep -q 'found no static equilibrium' err; then
  echo "ok: fallbacks: $n of $(sed -n 's/^simulations: //p' summary) simulations"
else
  echo "FAIL: exit $st, fallbacks '${n:-}'"
  cat summary err
  exit 1
fi
