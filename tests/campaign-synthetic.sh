#!/bin/sh
# Synthetic population (fiberlab-campaign(5)): 50 rods drawn from known distributions
# (tests/campaign-gen.sh: a_rot normal 1.2 +- 0.12, max_stress normal 30 +- 3 MPa,
# correlated with a_rot at 0.8, diameter uniform 1.8-2.2 mm, each rod's curve
# simulated by fiber-bend3pt with its true values on the quasi-static solver), fitted
# back by a campaign that knows only each rod's diameter.  The fitted population's mean
# must be within 1 % and its standard deviation within 10 % of those of the sampled
# true values (of the rods used), their correlation within 0.1 of the sampled one, and
# so must the correlation of the specimens the population check draws; every converged
# rod's values must be within 1 % of its own truth, at most 2 rods may fail (each named
# on stderr and in the population's left_out, the exit status then 1; the quasi-static
# solver can fail to settle a light rod on its supports at a Jacobian point); the
# population experiment must carry the centre of a_rot and the strength rule for a
# 3-point test (one bond: max_stress the centre, strength_variation sd / centre of the
# fitted strengths); the check must pass (the rods' own law made their curves); and the
# population's sheet, its keyed rows set on the template's experiment, must rebuild the
# population experiment: the same curve.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
fixtures=$(cd "$top_srcdir/tests/campaign" && pwd)
. "$top_srcdir/tests/campaign-gen.sh"
. "$top_srcdir/tests/csv-awk.sh"
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
cd "$work" || exit 1
gen_population 50 20261202 0.8 || { echo "FAIL: the population could not be generated"; exit 1; }
"$top_builddir/fiber-calibrate" -q --plot none -o pop campaign.yaml >summary.yaml 2>err.txt
st=$?
left=$(grep -c 'is left out of the population' err.txt)
if [ "$st" != 0 ] && { [ "$st" != 1 ] || [ "$left" = 0 ] || [ "$left" -gt 2 ]; }; then
  echo "FAIL: the campaign exited with $st, $left rods left out"
  cat err.txt summary.yaml
  exit 1
fi
[ "$left" != 0 ] && { echo "note: $left rods left out:"; grep 'left out' err.txt; }
fails=0
# the truth of the rods used (converged), from pop-specimens.csv's status
awk -F, 'NR == FNR { if (FNR > 1) t[FNR - 1] = $0; next }
  /^#/ { next } $1 == "row" { for (k = 1; k <= NF; k++) col[$k] = k; print "name,diameter_mm,a_rot,max_stress_Pa"; next }
  $col["status"] == "converged" { print t[$1] }' truth.csv pop-specimens.csv >used.csv
# the fitted values beside the truth, row by row (same order)
awk -F, 'NR == FNR { if (FNR > 1) { a[FNR - 1] = $3; s[FNR - 1] = $4 } next }
  /^#/ { next }
  $1 == "row" { for (k = 1; k <= NF; k++) col[$k] = k; next }
  {
    i = $1; fa = $col["bond.torque_stiffness_scale"]; fs = $col["bond.failure.max_stress"]
    if ($col["status"] != "converged") { n++; next }
    ea = fa / a[i] - 1; es = fs / s[i] - 1
    if (ea < -0.01 || ea > 0.01 || es < -0.01 || es > 0.01) {
      print "FAIL: row " i ": a_rot " fa " (true " a[i] "), max_stress " fs " (true " s[i] ")"; bad++ }
    n++
  }
  END { if (n != 50) { print "FAIL: " n " rows in pop-specimens.csv"; bad++ } exit bad > 0 }' \
  truth.csv pop-specimens.csv || fails=$((fails + 1))
# the population against the sampled truth
truth=$(awk -F, 'NR > 1 { n++; a += $3; aa += $3 * $3; s += $4; ss += $4 * $4 }
  END { ma = a / n; ms = s / n
        printf "%.10g %.10g %.10g %.10g", ma, sqrt((aa - n * ma * ma) / (n - 1)), ms, sqrt((ss - n * ms * ms) / (n - 1)) }' used.csv)
got=$(awk 'function field(line, k,   t) { t = line; sub(".*[{ ]" k ": ", "", t); sub("[,}].*", "", t); return t }
  /^  bond.torque_stiffness_scale: \{/ && a == "" { a = field($0, "mean"); ad = field($0, "sd") }
  /^  bond.failure.max_stress: \{/ && s == "" { s = field($0, "mean"); sd = field($0, "sd") }
  END { printf "%s %s %s %s", a, ad, s, sd }' pop-population.yaml)
echo "truth (sampled): a_rot mean sd, max_stress mean sd = $truth"
echo "fitted population:                                  $got"
echo "$truth $got" | awk '{
  ok = 1
  if ($5 / $1 - 1 > 0.01 || $5 / $1 - 1 < -0.01) { print "FAIL: a_rot mean " $5 " against " $1; ok = 0 }
  if ($6 / $2 - 1 > 0.10 || $6 / $2 - 1 < -0.10) { print "FAIL: a_rot sd " $6 " against " $2; ok = 0 }
  if ($7 / $3 - 1 > 0.01 || $7 / $3 - 1 < -0.01) { print "FAIL: max_stress mean " $7 " against " $3; ok = 0 }
  if ($8 / $4 - 1 > 0.10 || $8 / $4 - 1 < -0.10) { print "FAIL: max_stress sd " $8 " against " $4; ok = 0 }
  exit !ok }' || fails=$((fails + 1))
# the correlation of a_rot and max_stress: the sampled truth's, the fitted values', the draws'
rt=$(awk -F, 'NR > 1 { n++; a[n] = $3; s[n] = $4; ma += $3; ms += $4 }
  END { ma /= n; ms /= n; for (i = 1; i <= n; i++) { sab += (a[i] - ma) * (s[i] - ms); saa += (a[i] - ma) ^ 2; sbb += (s[i] - ms) ^ 2 }
        printf "%.4f", sab / sqrt(saa * sbb) }' used.csv)
rf=$(awk '/^correlation:/ { getline; sub(/.*, /, ""); sub(/\]/, ""); print; exit }' pop-population.yaml)
rd=$(awk '/^correlation_drawn:/ { getline; sub(/.*, /, ""); sub(/\]/, ""); print; exit }' pop-population-check.yaml)
echo "correlation of a_rot and max_stress: sampled $rt, fitted $rf, drawn $rd"
for r in "$rf" "$rd"; do
  awk -v t="$rt" -v r="$r" 'BEGIN { exit !(r != "" && r - t < 0.1 && t - r < 0.1) }' ||
    { echo "FAIL: correlation $r against the sampled $rt"; fails=$((fails + 1)); }
done
grep -q '^verdict: passed$' pop-population-check.yaml ||
  { echo "FAIL: the population check of rods fitted by their own law:"; cat pop-population-check.yaml; fails=$((fails + 1)); }
head -n 1 pop-population-experiment-dem.txt | grep -q "^Status: $((50 - left)) of 50 specimens converged; population check passed" ||
  { echo "FAIL: the population sheet begins: $(head -n 1 pop-population-experiment-dem.txt)"; fails=$((fails + 1)); }
# the population experiment: the strength rule on one bond is the identity, at the centre
cs=$(awk 'function field(line, k,   t) { t = line; sub(".*[{ ]" k ": ", "", t); sub("[,}].*", "", t); return t }
  /^  bond.failure.max_stress: \{/ { print field($0, "centre"); exit }' pop-population.yaml)
awk -v m="$cs" -v d="$(echo "$got" | cut -d' ' -f4)" '
  $1 == "max_stress:" { s = $2 } $1 == "strength_variation:" { v = $2 }
  END { if (s / m - 1 > 1e-6 || s / m - 1 < -1e-6 || v / (d / m) - 1 > 1e-4 || v / (d / m) - 1 < -1e-4) {
          print "FAIL: population experiment max_stress " s ", strength_variation " v " against " m ", " d / m; exit 1 } }' \
  pop-population-experiment.yaml || fails=$((fails + 1))
# the population's sheet rebuilds the population experiment (the rows of the sheet
# proper, not the classes')
awk "$csv_awk"'
  NR <= 2 { next }
  { n = csv_split($0, f) }
  n != 13 { print "BAD " $0 > "/dev/stderr"; exit 1 }
  f[1] !~ /^class/ && f[12] != "" && f[5] != "" { print "-s"; print f[12] "=" f[5] }' pop-population-experiment-dem.csv >sets ||
  fails=$((fails + 1))
# shellcheck disable=SC2046
"$top_builddir/fiber-bend3pt" -q --plot none -o rebuilt $(tr '\n' ' ' <sets) "$fixtures/rod.yaml" >/dev/null 2>&1 &&
  "$top_builddir/fiber-bend3pt" -q --plot none -o direct pop-population-experiment.yaml >/dev/null 2>&1 &&
  grep -v '^#' rebuilt.csv >rebuilt.rows && grep -v '^#' direct.csv >direct.rows && cmp -s rebuilt.rows direct.rows ||
  { echo "FAIL: the population's sheet does not rebuild the population experiment"; fails=$((fails + 1)); }
used=$(($(wc -l <used.csv) - 1))
grep -q "^used: $used\$" pop-population.yaml || { echo "FAIL: pop-population.yaml does not say used: $used"; fails=$((fails + 1)); }
[ "$(grep -c '^  id: ' pop-population.yaml)" = "$left" ] || { echo "FAIL: left_out does not list the $left rods"; fails=$((fails + 1)); }
[ "$fails" = 0 ] && echo "ok: $used of 50 rods recovered; population within 1 % (mean) and 10 % (sd), its correlation within 0.1, the check passed, the sheet rebuilds the population experiment"
[ "$fails" = 0 ]
