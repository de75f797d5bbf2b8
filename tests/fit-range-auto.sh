#!/bin/sh
# x_max: auto (fiberlab-fit(5)) on a curve whose highest load is not its first peak.
# The rod of tests/fit-range/rod.yaml (a_rot 1.3, buckling peak 12 N, plateau 8 N) is
# run by fiber-bend3pt; its rows to 1.2 mm, then a second hump the model cannot make
# (a straight rise to 1.5 times the first peak at 2 mm), are the measured curve.
# 1. The range ends where the rule puts it: 1.25 times the abscissa of the row before
#    the first drop of more than 5 %, the peak row of the simulated curve; the summary
#    says so (x_max_auto: value, from: first_drop, peak_x, peak_load) and the fit keeps
#    the rows up to it and none beyond.
# 2. The fit from a_rot 1.0 and 10 N recovers a_rot and the buckling peak within 1 %.
# 3. The same fit over the whole curve (x_max removed) is pulled off the truth by the
#    second hump: a_rot more than 5 % away, or R^2 below 0.99; the rule is what buys the
#    recovery.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
src=$(cd "$top_srcdir/tests/fit-range" && pwd)
yp="$top_builddir/tests/yaml_parse"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
near() { # name got want relative-tolerance
  awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { exit !(g != "" && (g - w) / w <= t && (w - g) / w <= t) }' ||
    fail "$1: $2, want $3 within $4 (relative)"
}
"$top_builddir/fiber-bend3pt" -q --plot none -o rod "$src/rod.yaml" >rod.summary 2>rod.err ||
  { echo "FAIL: fiber-bend3pt rod.yaml"; cat rod.err; exit 1; }
# the measured curve, in mm and N; the truth's peak row
awk -F, 'NR == 2 { print "displacement_mm,force_N" }
  NR > 2 && $3 * 1e3 <= 1.2 { x = $3 * 1e3; y = $4; printf "%.6f,%.6f\n", x, y
    if (y > py) { py = y; px = x } }
  END { for (i = 1; i <= 40; i++) { x = 1.2 + 0.02 * i; printf "%.6f,%.6f\n", x, y + (1.5 * py - y) * (x - 1.2) / 0.8 }
        printf "%.6f %.6f\n", px, py > "peak.txt" }' rod.csv >rod-curve.csv
read px py <peak.txt
sed 's/^  torque_stiffness_scale: 1.3$/  torque_stiffness_scale: 1.0/; s/^    max_force: 12$/    max_force: 10/' \
  "$src/rod.yaml" >rod-start.yaml
cp "$src/rod-fit.yaml" .
"$top_builddir/fiber-calibrate" -q --plot none -o auto rod-fit.yaml >auto.summary 2>auto.err
st=$?
[ "$st" = 0 ] && [ "$("$yp" auto.summary status)" = converged ] || { fail "auto fit: exit $st"; cat auto.err auto.summary; }
grep -q "data\[1\].x_max: auto: the first drop follows the peak of" auto.err || fail "no note of the auto range"; 
near "x_max_auto.peak_x" "$("$yp" auto.summary curves.0.x_max_auto.peak_x)" "$px" 1e-5
near "x_max_auto.peak_load" "$("$yp" auto.summary curves.0.x_max_auto.peak_load)" "$py" 1e-5
near "x_max_auto.value" "$("$yp" auto.summary curves.0.x_max_auto.value)" "$(awk -v p="$px" 'BEGIN { print 1.25 * p }')" 1e-5
[ "$("$yp" auto.summary curves.0.x_max_auto.from)" = first_drop ] || fail "x_max_auto.from is not first_drop"
want=$(awk -F, -v m="$(awk -v p="$px" 'BEGIN { print 1.25 * p }')" 'NR > 1 && $1 >= 0 && $1 <= m { n++ } END { print n }' rod-curve.csv)
[ "$("$yp" auto.summary curves.0.points)" = "$want" ] || fail "rows fitted $("$yp" auto.summary curves.0.points), want $want"
near "auto fit, a_rot" "$("$yp" auto.yaml bond.torque_stiffness_scale)" 1.3 0.01
near "auto fit, buckling max_force" "$("$yp" auto.yaml bond.buckling.max_force)" 12 0.01
grep -v '^    x_max: auto$' rod-fit.yaml >whole-fit.yaml
"$top_builddir/fiber-calibrate" -q --plot none -o whole whole-fit.yaml >whole.summary 2>whole.err
aw=$("$yp" whole.yaml bond.torque_stiffness_scale 2>/dev/null)
r2=$("$yp" whole.summary r_squared)
awk -v a="$aw" -v r="$r2" 'BEGIN { exit !(a == "" || a / 1.3 - 1 > 0.05 || 1 - a / 1.3 > 0.05 || r < 0.99) }' ||
  fail "the whole curve fits as well as the auto range (a_rot $aw, R^2 $r2): the test shows nothing"
echo "x_max: auto: peak $py N at $px mm, range to $("$yp" auto.summary curves.0.x_max_auto.value) mm;" \
  "a_rot $("$yp" auto.yaml bond.torque_stiffness_scale) (whole curve: $aw, R^2 $r2)"
[ "$fails" = 0 ]
