#!/bin/sh
# The population check's plot where a figure has no value on either side
# (fiberlab-campaign(5), The population check): the 3 maize brace roots that only break
# (fits/maize-brace-roots-breaks.yaml) have no kink, measured or drawn, so the third
# panel has no point.  gnuplot refuses such a panel ("x range is invalid"), and the
# campaign used to end there with exit status 1 and none of its reports.  Now the panel
# is drawn empty and says so; every report and plot is written and the exit status is 0.
set -u
top_srcdir=${top_srcdir:-.}
bin=$(cd "${top_builddir:-.}" && pwd)
fits=$(cd "$top_srcdir/fits" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"$bin/fiber-calibrate" -q -o b "$fits/maize-brace-roots-breaks.yaml" >b.summary 2>b.err
st=$?
[ "$st" = 0 ] || { fail "exit $st, want 0"; cat b.err; }
for f in b-specimens.csv b-population.yaml b-curves.png b-parameters.png b-population-check.yaml \
  b-population-check.csv b-population-check.gp b-population-check.png; do
  [ -s "$f" ] || fail "$f not written"
done
grep -q "none in the lab or the population" b-population-check.gp || fail "the kink panel does not say it is empty"
awk -F, '($1 == "lab" || $1 == "population") && $9 ~ /^[-+]?[0-9]/ { n++ } END { exit n != 0 }' b-population-check.csv ||
  fail "a kink in the lab or the population: the test no longer tells"
grep -q "^verdict: passed" b-population-check.yaml || fail "verdict: $(grep verdict b-population-check.yaml)"
[ "$fails" = 0 ] && echo "the breaks campaign's check plotted, its kink panel empty"
[ "$fails" = 0 ]
