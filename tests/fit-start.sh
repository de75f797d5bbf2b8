#!/bin/sh
# The start's bend as a residual (fiberlab-fit(5), start_weight): maize brace root
# B73_P1_W1_R2 and its neighbour in the table on the 14-root campaign's template
# (fits/maize-brace-roots.yaml).
# Its measured start is straight (docs/start-curvature.awk: the slope from 15 to 30 % of
# the peak over the slope below 15 %, 1.013).  Fitted by the rows alone (start_weight
# left out) the start softens (0.872: the population's relaxation), on the other side of
# 1; with start_weight 1, as shipped, the fitted start bends as measured, within 0.01,
# and the fit still converges with R^2 above 0.96.
set -u
top_srcdir=${top_srcdir:-.}
bin=$(cd "${top_builddir:-.}" && pwd)
src=$(cd "$top_srcdir" && pwd)
fits="$src/fits"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mkdir -p data/maize-brace-roots
cp "$fits/data/maize-brace-roots/B73_P1_W1_R2.csv" "$fits/data/maize-brace-roots/B73_P1_W1_R3.csv" data/maize-brace-roots/
head -n 3 "$fits/data/maize-brace-roots/specimens.csv" >data/maize-brace-roots/specimens.csv # and its neighbour: a population
cp "$fits/maize-brace-roots.yaml" "$fits/maize-brace-roots-fit.yaml" "$fits/maize-brace-roots-experiment.yaml" .
grep -q '^    start_weight: 1 ' maize-brace-roots-fit.yaml || fail "the template has no start_weight 1"
sed '/^    start_weight:/d' maize-brace-roots-fit.yaml >rows-fit.yaml
sed 's/^\(  fit:\) maize-brace-roots-fit.yaml/\1 rows-fit.yaml/' maize-brace-roots.yaml >rows.yaml
grep -q 'fit: rows-fit.yaml' rows.yaml && ! grep -q '^ *start_weight:' rows-fit.yaml || fail "rows.yaml was not made"
for c in maize-brace-roots rows; do
  "$bin/fiber-calibrate" -q --plot none -o "$c" "$c.yaml" >"$c.summary" 2>"$c.err" || { fail "$c: exit $?"; cat "$c.err"; }
done
bend() { awk -F, -f "$src/docs/start-curvature.awk" "$1-curves.csv" | awk '$1 == 1 { print $2, $3 }'; }
r2() { awk -F, '!/^#/ && $1 == 1 { print $5, $4 }' "$1-specimens.csv"; }
set -- $(bend maize-brace-roots) $(bend rows) $(r2 maize-brace-roots)
echo "start's bend: measured $1, fitted $2 with start_weight 1, $4 by the rows alone; R^2 $5 ($6)"
awk -v m="$1" -v f="$2" 'BEGIN { d = f - m; if (d < 0) d = -d; exit !(d <= 0.01 && (m - 1) * (f - 1) > 0) }' ||
  fail "with start_weight the fitted bend $2, measured $1"
awk -v m="$3" -v f="$4" 'BEGIN { exit !((m - 1) * (f - 1) < 0) }' ||
  fail "by the rows alone the fitted bend $4 is on the measured side of 1 ($3): the test no longer tells"
[ "$6" = converged ] && awk -v r="$5" 'BEGIN { exit !(r > 0.96) }' || fail "status $6, R^2 $5"
[ "$fails" = 0 ]
