#!/bin/sh
# A parameter without influence is held, not a failure (fiber-calibrate(1), HELD
# PARAMETERS): maize brace root B73_P1_W3_R2 of fits/data/maize-brace-roots/ fitted only
# up to its peak load (2.487 mm), from the automatic start.  The yield lands at the end
# of the data, where bond.failure.max_stress stops changing the residuals: the fit must
# hold it there, converge on a_rot, exit 0 and say so everywhere: a note on stderr, the
# summary's `held` and null standard error, the calibrated YAML's comment, the DEM
# sheet's first line.  The held fit must be the one-parameter fit it claims to be: a_rot
# fitted alone with max_stress set to the held value agrees within a tenth of a_rot's
# standard error.
set -u
top_srcdir=${top_srcdir:-.}
bin=$(cd "${top_builddir:-.}" && pwd)
yp="$bin/tests/yaml_parse"
fits=$(cd "$top_srcdir/fits" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mkdir -p data/maize-brace-roots
cp "$fits/data/maize-brace-roots/B73_P1_W3_R2.csv" data/maize-brace-roots/
sed -e 's/^\(  semi_axis_y:\) *[0-9.e-]*/\1 2.815e-3/' -e 's/^\(  semi_axis_z:\) *[0-9.e-]*/\1 3.055e-3/' \
  "$fits/maize-brace-roots-experiment.yaml" >exp.yaml
sed -e 's#^experiment: .*#experiment: exp.yaml#' -e 's#B73_P1_W2_R5.csv#B73_P1_W3_R2.csv#' \
  -e 's#^    x_max: auto$#    x_max: 2.487e-3#' -e 's#^    toe: none$#    toe: auto#' -e '/^  test.contact_modulus:/d' \
  -e '/^  jacobian: broyden$/d' -e '/^    start_weight:/d' \
  "$fits/maize-brace-roots-fit.yaml" >fit.yaml # the template before it freed the tools' contact, updated its Jacobian
# and weighed the start's bend
grep -q 'x_max: 2.487e-3' fit.yaml && grep -q 'semi_axis_z: 3.055e-3' exp.yaml && grep -q 'toe: auto' fit.yaml &&
  ! grep -q -e '^  test.contact_modulus:' -e '^  jacobian:' -e '^ *start_weight:' fit.yaml || fail "the fit files were not made"
"$bin/fiber-calibrate" -q --plot none -o held fit.yaml >held.summary 2>held.err
st=$?
[ "$st" = 0 ] || { fail "exit $st, want 0"; cat held.err; }
[ "$("$yp" held.summary status)" = converged ] || fail "status $("$yp" held.summary status)"
[ -n "$("$yp" held.summary parameters.bond.failure.max_stress.held)" ] || fail "no 'held' on max_stress in the summary"
[ "$("$yp" held.summary parameters.bond.failure.max_stress.std_error)" = null ] || fail "max_stress has a standard error"
! "$yp" held.summary parameters.bond.torque_stiffness_scale.held >/dev/null 2>&1 || fail "a_rot held"
rot=$("$yp" held.summary parameters.bond.torque_stiffness_scale.value)
se=$("$yp" held.summary parameters.bond.torque_stiffness_scale.std_error)
sig=$("$yp" held.summary parameters.bond.failure.max_stress.value)
awk -v s="$se" -v r="$rot" 'BEGIN { exit !(s > 0 && s < 0.05 * r) }' || fail "a_rot $rot +- $se: no standard error"
grep -q "note: bond.failure.max_stress has no influence on the residuals at iteration [0-9]* .*held at" held.err ||
  fail "no note of the holding on stderr"
grep -q "^# bond.failure.max_stress: value .*std_error not determined (held: no influence)" held.yaml ||
  fail "the calibrated YAML's comment does not say held"
head -n 1 held-dem.txt | grep -q "^Status: converged in part: bond.failure.max_stress held" ||
  fail "the DEM sheet's first line: $(head -n 1 held-dem.txt)"
# the same fit with max_stress fixed at the held value and a_rot alone free
sed -e '/^  bond.failure.max_stress:/d' fit.yaml >one.yaml
"$bin/fiber-calibrate" -q --plot none -s "bond.failure.max_stress=$sig" -o alone one.yaml >alone.summary 2>alone.err ||
  { fail "the one-parameter fit: exit $?"; cat alone.err; }
rot1=$("$yp" alone.summary parameters.bond.torque_stiffness_scale.value)
awk -v a="$rot" -v b="$rot1" -v s="$se" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.1 * s) }' ||
  fail "held fit a_rot $rot, one-parameter fit $rot1 (standard error $se)"
echo "held: max_stress $sig; a_rot $rot +- $se; alone: $rot1"
[ "$fails" = 0 ]
