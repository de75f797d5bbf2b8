#!/bin/sh
# The parameter sheet for the DEM package (fiberlab-campaign(5), THE PARAMETER SHEET)
# beside a calibrated experiment: a hollow rod (R = 1 mm, R'/R = 0.5, 14 segments over
# 28 mm: h = 2 mm, rho = 1200 kg/m^3) calibrated by tests/fit-bad/good.yaml.
# By hand: fiberlab's segment mass m = rho pi (R^2 - R'^2) h
#   = 1200 pi (1e-6 - 0.25e-6) 2e-3 = 5.654867e-6 kg;
# the DEM package's solid sphero-cylinder of radius R and cylinder length h has the
# volume pi R^2 (h + 4 R / 3) = pi 1e-6 (2e-3 + 1.3333e-3) = 1.047198e-8 m^3, so the
# density to enter is m / V = 540 kg/m^3 (= 1200 x 0.75 x 0.6).
# The sheet must give those, the particle size, the fitted a_rot exactly as the
# calibrated experiment writes it, and the dialog's names for the options.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
fits=$(cd "$top_srcdir/tests/fit-bad" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cp "$fits/good.yaml" "$fits/bend.yaml" "$fits/curve.csv" . || exit 1
"$top_builddir/fiber-calibrate" -q --plot none -s fiber.inner_radius_ratio=0.5 -s fiber.density=1200 -o out good.yaml \
  >summary.yaml 2>err.txt
st=$?
if [ "$st" != 0 ] || [ ! -s out-dem.csv ] || [ ! -s out-dem.txt ] || ! grep -q '^dem_sheet: out-dem.txt$' summary.yaml; then
  echo "FAIL: exit $st, or the sheet or its summary line missing"
  cat err.txt summary.yaml
  exit 1
fi
value() { awk -F, -v k="$1" '$1 == k { print $4 }' out-dem.csv; }
fails=0
near() { # name got want relative-tolerance
  awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { exit !(g != "" && (g - w) / w <= t && (w - g) / w <= t) }' ||
    { echo "FAIL: $1: $2, want $3"; fails=$((fails + 1)); }
}
near "density to enter" "$(value 'Particle density to enter (solid sphero-cylinder)')" 540 1e-12
near "segment mass" "$(value 'Segment mass (fiberlab and DEM package alike)')" 5.654866776e-6 1e-9
near "particle radius" "$(value 'Particle radius (sphero-cylinder)')" 1e-3 1e-12
near "cylinder length" "$(value 'Particle cylinder length (centre spacing)')" 2e-3 1e-12
near "total length" "$(value 'Particle total length (with both caps)')" 4e-3 1e-12
near "inner ratio" "$(value 'Inner radius - Outer radius ratio')" 0.5 0
a=$(awk '$1 == "torque_stiffness_scale:" { print $2 }' out.yaml)
[ -n "$a" ] && [ "$(value 'Torque Stiffness Scaling Factor')" = "$a" ] ||
  { echo "FAIL: a_rot in the sheet '$(value 'Torque Stiffness Scaling Factor')', in out.yaml '$a'"; fails=$((fails + 1)); }
[ "$(value 'Failure start criterion')" = "Bending-caused stress" ] ||
  { echo "FAIL: criterion '$(value 'Failure start criterion')'"; fails=$((fails + 1)); }
[ "$(value 'Post-failure behavior')" = "Constant torque (perfect plasticity)" ] ||
  { echo "FAIL: post-failure '$(value 'Post-failure behavior')'"; fails=$((fails + 1)); }
grep -q '^Particle density to enter (solid sphero-cylinder) *kg/m^3 .* 540 ' out-dem.txt ||
  { echo "FAIL: the text sheet lacks the density line"; fails=$((fails + 1)); }
[ "$fails" = 0 ] && echo "ok: the sheet gives 540 kg/m^3, the particle size and the fitted values"
[ "$fails" = 0 ]
