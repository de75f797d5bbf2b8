#!/bin/sh
# A row whose start cannot be run does not end the campaign (fiberlab-campaign(5),
# Retries): three rods of tests/campaign/rod.yaml on the quasi-static solver (no
# explicit engine to fall back to), two with the curves of a_rot 1.0 and 1.3, the third
# with a curve that goes on to 30 mm of a 24 mm span, where the rod slips between the
# supports and the static solver finds no equilibrium at the fit's start.  The third row
# must fail with "its start could not be run: ... no equilibrium found", be retried from
# the two others' solutions, be left out and named, its simulations counted (those of
# its start and of the retries'); the two others converge to their a_rot within 1 %; the reports are written (specimens, population, curves with the
# row's panel titled "not run") and the exit status is 1.  (Before, the campaign
# stopped at that row with "no point could be evaluated" and wrote no report.)
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
fixtures=$(cd "$top_srcdir/tests/campaign" && pwd)
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
mkdir curves
"$top_builddir/fiber-bend3pt" -q --plot none -o curves/a "$fixtures/rod.yaml" >/dev/null || bad "curve a"
"$top_builddir/fiber-bend3pt" -q --plot none -s bond.torque_stiffness_scale=1.3 -o curves/b "$fixtures/rod.yaml" \
  >/dev/null || bad "curve b"
# the third: curve a's rise, then a level load on to 30 mm
{ echo "displacement_m,force_N"
  awk -F, '/^[0-9]/ { print $3 "," $4; x = $3; y = $4 }
    END { for (k = 1; k <= 40; k++) printf "%.6g,%.6g\n", x + k * (0.03 - x) / 40, y }' curves/a.csv; } >curves/c.csv
{ echo "name,curve"; echo "rod-a,a.csv"; echo "rod-b,b.csv"; echo "rod-c,c.csv"; } >specimens.csv
sed "s|experiment: rod.yaml|experiment: $fixtures/rod.yaml|" "$fixtures/fit.yaml" >fit.yaml
cat >campaign.yaml <<EOC
campaign:
  fit: fit.yaml
  specimens: specimens.csv
  file: curve
  id: name
  data_folder: curves
EOC
"$top_builddir/fiber-calibrate" -q -o pop campaign.yaml >summary.yaml 2>err.txt
st=$?
[ "$st" = 1 ] || bad "exit status $st, not 1"
grep -q "row 3 (rod-c) is left out of the population: failed: its start could not be run: .*static solver: no equilibrium found" err.txt ||
  bad "row 3 not named as unrunnable: $(cat err.txt)"
grep -q "retried from the solutions of rows 1, 2: none converged" err.txt || bad "row 3 not retried: $(cat err.txt)"
for f in pop-specimens.csv pop-population.yaml pop-curves.csv pop-curves.gp pop-curves.png; do
  [ -s "$f" ] || bad "$f not written"
done
grep -q "rod-c.csv: not run (left out)\|rod-c: not run (left out)" pop-curves.gp || bad "row 3's panel: $(grep -n rod-c pop-curves.gp)"
got=$(awk -F, '/^[0-9]/ { printf "%s %s %s %s\n", $2, $4, $8, $7 }' pop-specimens.csv)
echo "$got"
echo "$got" | awk '$1 == "rod-a" && $2 == "converged" { a = $3 } $1 == "rod-b" && $2 == "converged" { b = $3 }
  $1 == "rod-c" && $2 == "failed" && $4 > 0 { c = 1 }
  END { exit !(a > 0.99 && a < 1.01 && b > 1.287 && b < 1.313 && c) }' || bad "rows: $got"
grep -q "^converged: 2" summary.yaml || bad "summary: $(head -5 summary.yaml)"
exit $fail
