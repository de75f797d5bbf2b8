#!/bin/sh
# The parameter sheet for the DEM package (fiberlab-campaign(5), THE PARAMETER SHEET).
#
# 1. Beside a calibrated experiment: a hollow rod (R = 1 mm, R'/R = 0.5, 14 segments
#    over 28 mm: h = 2 mm, rho = 1200 kg/m^3) calibrated by tests/fit-bad/good.yaml.
#    By hand: fiberlab's segment mass m = rho pi (R^2 - R'^2) h
#      = 1200 pi (1e-6 - 0.25e-6) 2e-3 = 5.654867e-6 kg;
#    the DEM package's solid sphero-cylinder of radius R and cylinder length h has the
#    volume pi R^2 (h + 4 R / 3) = pi 1e-6 (2e-3 + 1.3333e-3) = 1.047198e-8 m^3, so the
#    density to enter is m / V = 540 kg/m^3 (= 1200 x 0.75 x 0.6).  a_rot E is a_rot
#    times E = 5 GPa; a round rod takes its strength at R = a: one convention.
# 2. An elliptic stem (tests/dem/ellipse.yaml, a = 2.2 mm, b = 2.6 mm) whose bonds buckle,
#    fitted (a_rot, the envelope's max_force) to a curve made from it at a_rot 1.1 and
#    max_force 14 N: the round radius R = (a^3 b)^(1/4) = 2.29383 mm, so the package's
#    strength is max_stress R / a = 1.04265 max_stress; beside the envelope's number the
#    sheet gives the peak, kink and plateau the fitted bonds make, and the measured ones.
# 3. Every field of each sheet's CSV read back (13 fields a row, quotes as written), every
#    row with a fiberlab key set on the fit's own experiment file with -s: the run of
#    that experiment gives the calibrated experiment's curve, every row the same.
# 4. A failed fit (tests/fit-bad/no-influence.yaml) says so in its sheet's first line;
# 5. a fit with a parameter held (the same with a_disp free) says it is partial.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
fits=$(cd "$top_srcdir/tests/fit-bad" && pwd)
dem=$(cd "$top_srcdir/tests/dem" && pwd)
. "$top_srcdir/tests/csv-awk.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cal=$top_builddir/fiber-calibrate
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# value SHEET NAME [SECTION]: the value column of the row called NAME
value() {
  awk "$csv_awk"' /^#/ { next } { n = csv_split($0, f) } f[2] == name && (sec == "" || f[1] == sec) { print f[5]; exit }' \
    name="$2" sec="${3:-}" "$1"
}
near() { # what got want relative-tolerance
  awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { exit !(g != "" && (g - w) / w <= t && (w - g) / w <= t) }' ||
    fail "$1: $2, want $3"
}
# roundtrip SHEET EXPERIMENT CALIBRATED: parse every field, set every keyed row on
# EXPERIMENT, and compare its curve with CALIBRATED's
roundtrip() {
  awk "$csv_awk"'
    NR == 1 { if ($0 !~ /^# Status: /) { print "BAD the first line is not the status: " $0; bad = 1 } next }
    NR == 2 { n = csv_split($0, h); if (n != 13 || h[5] != "value" || h[12] != "fiberlab_key") { print "BAD header " $0; bad = 1 } next }
    {
      n = csv_split($0, f)
      if (n != 13) { print "BAD " n " fields: " $0; bad = 1; next }
      for (k = 6; k <= 10; k++)  # std_error, sd, p05, p95, measured: numbers or empty
        if (f[k] != "" && f[k] !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) { print "BAD number " f[k] " in " $0; bad = 1 }
      if (f[11] == "") { print "BAD nothing shown: " $0; bad = 1 }
      if (f[12] != "" && f[5] != "") print "-s" > "sets"
      if (f[12] != "" && f[5] != "") print f[12] "=" f[5] > "sets"
      rows++
    }
    END { if (rows < 30) { print "BAD only " rows " rows"; bad = 1 } exit bad }' "$1" || return 1
  # shellcheck disable=SC2046
  set -- "$2" "$3"
  args=$(tr '\n' ' ' <sets)
  rm -f sets
  # shellcheck disable=SC2086
  "$top_builddir/fiber-bend3pt" -q --plot none -o rebuilt $args "$1" >rebuilt.summary 2>/dev/null &&
    "$top_builddir/fiber-bend3pt" -q --plot none -o direct "$2" >direct.summary 2>/dev/null || return 1
  # the rows (not the comment line with the command)
  grep -v '^#' rebuilt.csv >rebuilt.rows && grep -v '^#' direct.csv >direct.rows && cmp -s rebuilt.rows direct.rows
}

# 1. the hollow rod
cp "$fits/good.yaml" "$fits/bend.yaml" "$fits/curve.csv" . || exit 1
"$cal" -q --plot none -s fiber.inner_radius_ratio=0.5 -s fiber.density=1200 -o out good.yaml >summary.yaml 2>err.txt
st=$?
if [ "$st" != 0 ] || [ ! -s out-dem.csv ] || [ ! -s out-dem.txt ] || ! grep -q '^dem_sheet: out-dem.txt$' summary.yaml; then
  echo "FAIL: exit $st, or the sheet or its summary line missing"
  cat err.txt summary.yaml
  exit 1
fi
near "density to enter" "$(value out-dem.csv 'Density to enter (solid sphero-cylinder)')" 540 1e-12
near "segment mass" "$(value out-dem.csv 'Segment mass (fiberlab and DEM package alike)')" 5.654866776e-6 1e-9
near "particle radius" "$(value out-dem.csv 'Particle radius R (sphero-cylinder)')" 1e-3 1e-12
near "cylinder length" "$(value out-dem.csv 'Particle cylinder length h (centre spacing)')" 2e-3 1e-12
near "total length" "$(value out-dem.csv 'Particle total length (with both caps)')" 4e-3 1e-12
near "inner ratio" "$(value out-dem.csv 'Inner radius - Outer radius ratio')" 0.5 0
a=$(awk '$1 == "torque_stiffness_scale:" { print $2 }' out.yaml)
[ -n "$a" ] && [ "$(value out-dem.csv 'Torque Stiffness Scaling Factor')" = "$a" ] ||
  fail "a_rot in the sheet '$(value out-dem.csv 'Torque Stiffness Scaling Factor')', in out.yaml '$a'"
near "a_rot E" "$(value out-dem.csv 'Effective bending modulus a_rot E')" "$(awk -v a="$a" 'BEGIN { printf "%.17g", a * 5e9 }')" 1e-15
[ "$(value out-dem.csv 'Failure start criterion')" = "bending_stress" ] ||
  fail "criterion '$(value out-dem.csv 'Failure start criterion')'"
grep -q '^bond dialog,Failure start criterion,.*,Bending-caused stress,bond.failure.criterion,' out-dem.csv ||
  fail "the criterion is not shown under the dialog's name"
grep -q '^bond dialog,Post-failure behavior,.*,Constant torque (perfect plasticity),' out-dem.csv ||
  fail "the post-failure behaviour is not shown under the dialog's name"
near "round strength" "$(value out-dem.csv 'Maximum stress' 'bond dialog')" \
  "$(value out-dem.csv "Maximum stress, fiberlab's convention (at the outer fibre a)")" 0
grep -q '^Density to enter (solid sphero-cylinder) *kg/m^3 .* 540 ' out-dem.txt || fail "the text sheet lacks the density line"
head -n 1 out-dem.txt | grep -q '^Status: converged; R^2 [0-9.]* over [0-9]* of [0-9]* rows' ||
  fail "the text sheet's first line: $(head -n 1 out-dem.txt)"
grep -q '^Torque Stiffness Scaling Factor .* [0-9.]* +- [0-9.]* ' out-dem.txt || fail "a_rot shows no standard error"
roundtrip out-dem.csv bend.yaml out.yaml || fail "the hollow rod's sheet does not rebuild its experiment"

# 6. the same rod on tools pressing it with a contact modulus of its own: the sheet gives
#    it as the particle's contact modulus, and rebuilds the experiment with it; the rod
#    of 1. (no contact_modulus given) has no such row
"$cal" -q --plot none -s fiber.inner_radius_ratio=0.5 -s fiber.density=1200 -s test.contact_modulus=2e9 -o cm \
  good.yaml >cm.summary 2>cm.err || { fail "the rod with its contact modulus: exit $?"; cat cm.err; }
near "contact modulus" "$(value cm-dem.csv 'Contact modulus (Hertz)' material)" 2e9 0
[ -z "$(value out-dem.csv 'Contact modulus (Hertz)' material)" ] || fail "a contact modulus row without test.contact_modulus"
roundtrip cm-dem.csv bend.yaml cm.yaml || fail "the sheet with a contact modulus does not rebuild its experiment"

# 2. the elliptic stem with a buckling envelope
cp "$dem/ellipse.yaml" "$dem/ellipse-fit.yaml" . || exit 1
"$top_builddir/fiber-bend3pt" -q --plot none -s bond.torque_stiffness_scale=1.1 -s bond.buckling.max_force=14 \
  -o curve ellipse.yaml >/dev/null 2>&1 || { echo "FAIL: the stem's curve could not be made"; exit 1; }
"$cal" -q --plot none -o el ellipse-fit.yaml >el.summary 2>el.err || { echo "FAIL: the stem's fit"; cat el.err; exit 1; }
near "R" "$(value el-dem.csv 'Particle radius R (sphero-cylinder)')" 2.29383e-3 1e-5
near "a" "$(value el-dem.csv 'Section semi-axis a (loading plane, outer fibre)')" 2.2e-3 1e-12
near "the package's strength" "$(value el-dem.csv 'Maximum stress' 'bond dialog')" 8.34118e6 1e-5
near "R / a" "$(value el-dem.csv "Conversion to the package's stress, R / a")" 1.042650 1e-5
near "max_force" "$(value el-dem.csv 'Maximum force')" 14 0.01
pk=$(value el-dem.csv 'Peak force' 'calibrating test')
pm=$(awk "$csv_awk"' { csv_split($0, f) } f[2] == "Peak force" { print f[10] }' el-dem.csv)
near "the fitted curve's peak beside the envelope" "$pk" "$(awk '/^  fitted:/ { sub(/.*peak_force: /, ""); sub(/,.*/, ""); print }' el.summary)" 1e-4
near "the measured peak" "$pm" "$(awk '/^  measured:/ { sub(/.*peak_force: /, ""); sub(/,.*/, ""); print }' el.summary)" 1e-4
awk -v p="$pk" 'BEGIN { exit !(p > 16) }' || fail "the curve's peak $pk N should lie well above the envelope's 14 N"
roundtrip el-dem.csv ellipse.yaml el.yaml || fail "the stem's sheet does not rebuild its experiment"

# 4. a failed fit
cp "$fits/no-influence.yaml" "$fits/rod-tension.yaml" "$fits/rod-tension.csv" . || exit 1
"$cal" -q --plot none -o ni no-influence.yaml >/dev/null 2>&1
head -n 1 ni-dem.txt | grep -q '^Status: FAILED (bond.damping_stabilization has no influence' ||
  fail "the failed fit's sheet begins: $(head -n 1 ni-dem.txt)"
head -n 1 ni-dem.csv | grep -q '^# Status: FAILED (' || fail "the failed fit's CSV begins: $(head -n 1 ni-dem.csv)"
# 5. the same with a_disp free too: the stabilisation is held, a_disp fitted, and the
#    sheet's first line says the calibration is partial
sed 's/^free:$/free:\n  bond.force_stiffness_scale: { start: 2.6, min: 0.05, max: 20 }/' no-influence.yaml >held.yaml
"$cal" -q --plot none -o he held.yaml >/dev/null 2>&1 || fail "the fit with a parameter held: exit $?"
head -n 1 he-dem.txt | grep -q '^Status: converged in part: bond.damping_stabilization held, without influence' ||
  fail "the partial fit's sheet begins: $(head -n 1 he-dem.txt)"
[ "$fails" = 0 ] && echo "ok: 540 kg/m^3, R / a = 1.0427, the envelope beside its curve, both sheets rebuild their experiments, a failure in the first line"
[ "$fails" = 0 ]
