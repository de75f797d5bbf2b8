#!/bin/sh
# A campaign's retries (fiberlab-campaign(5), Retries): five maize brace roots of
# fits/data/maize-brace-roots/ (rows 1, 2, 3, 5, 7 of its table), each fitted only up
# to its peak load (data.x_max = disp_at_max_mm).  From the automatic start the yield
# lands at the very end of the data on rows 1, 3 and 5 and their first fits stop with
# "bond.failure.max_stress has no influence"; rows 2 and 7 converge.  Each failed row
# must then converge on a retry from a converged row's solution, its message saying
# from which row and what the first fit said, with R^2 at least 0.95 (the converged
# rows reach 0.965 to 0.974), and the report counting 5 of 5 converged.  Without a
# converged row there is nothing to retry from: of the three failing roots alone, the
# first is fitted from its own start with max_stress held (undetermined), and the two
# others converge on a retry from it.  A campaign
# interrupted during a retry (SIGINT once row 3's first retry has a checkpoint) and
# resumed writes the same report as one that ran through.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
data=$(cd "$top_srcdir/fits/data/maize-brace-roots" && pwd)
fits=$(cd "$top_srcdir/fits" && pwd)
yp="$top_builddir/tests/yaml_parse"
. "$top_srcdir/tests/held.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# the rig of the campaign files before their tools went from 3 to 2 mm (fits/README.md,
# The rig's tools): with 3 mm tools the first fits of rows 1, 3 and 5 stop as described
sed -e 's/^\(  support_radius:\) *2.0e-3/\1 3.0e-3/' -e 's/^\(  nose_radius:\) *2.0e-3/\1 3.0e-3/' \
  "$fits/maize-brace-roots-experiment.yaml" >maize-brace-roots-experiment.yaml
grep -q '^  nose_radius: 3.0e-3' maize-brace-roots-experiment.yaml || { echo "FAIL: the 3 mm tools were not set"; exit 1; }
# and the template before it freed the tools' contact: a_rot and max_stress, toe auto,
# every Jacobian by differences, no residual of the start's bend
grep -v -e '^    x_max: auto$' -e '^  test.contact_modulus:' -e '^  jacobian: broyden$' -e '^    start_weight:' \
  "$fits/maize-brace-roots-fit.yaml" | sed 's/^    toe: none$/    toe: auto/' >fit.yaml
grep -q '^    toe: auto$' fit.yaml && ! grep -q -e '^  test.contact_modulus:' -e '^  jacobian:' -e '^ *start_weight:' fit.yaml ||
  { echo "FAIL: fit.yaml was not made"; exit 1; }
table() { # rows (1-based data rows of the shipped table) into specimens.csv
  awk -F, -v keep="$1" 'BEGIN { n = split(keep, k, " "); for (i = 1; i <= n; i++) want[k[i]] = 1 }
    NR == 1 || want[NR - 1]' "$data/specimens.csv" >specimens.csv
}
cat >campaign.yaml <<'YAML'
campaign:
  fit: fit.yaml
  specimens: specimens.csv
  file: file
  id: file
  columns:
    fiber.semi_axis_y: { column: D_caliper_min_mm, unit: mm, scale: 0.5 }
    fiber.semi_axis_z: { column: D_caliper_max_mm, unit: mm, scale: 0.5 }
    data.x_max: { column: disp_at_max_mm, unit: mm, scale: 1.0 }
YAML
for f in B73_P1_W1_R2 B73_P1_W1_R3 B73_P1_W2_R2 B73_P1_W2_R5 B73_P2_W2_R2; do cp "$data/$f.csv" .; done
table "1 2 3 5 7"
"$top_builddir/fiber-calibrate" -q --plot none -o five campaign.yaml >five.summary 2>five.err
st=$?
[ "$st" = 0 ] || { fail "five roots: exit $st"; cat five.err; }
[ "$("$yp" five.summary converged)" = 5 ] || fail "five roots: $("$yp" five.summary converged) converged, want 5"
# row, status, R^2 and message of each root (the message is the last column, quoted)
awk -F, '/^#/ || $1 == "row" { next } { m = $0; sub(/^([^,]*,){4}/, "", m)
    i = index($0, ",\""); msg = i ? substr($0, i + 2) : ""; sub(/"$/, "", msg)
    print $1 "|" $4 "|" $5 "|" msg }' five-specimens.csv >rows.txt
while IFS='|' read -r row status r2 msg; do
  case $row in
  1 | 3 | 4) # the table's rows 1, 3, 5 are the subset's 1, 3, 4
    case $msg in
    "converged on a retry from row "[25]"'s solution; the first fit: bond.failure.max_stress has no influence"*) ;;
    *) fail "row $row: message '$msg', want a retry from row 2 or 5 after 'max_stress has no influence'" ;;
    esac ;;
  *) [ -z "$msg" ] || fail "row $row converged at once, yet says '$msg'" ;;
  esac
  [ "$status" = converged ] || fail "row $row: $status"
  awk -v r="$r2" 'BEGIN { exit !(r >= 0.95) }' || fail "row $row: R^2 $r2, want at least 0.95"
done <rows.txt
[ "$(wc -l <rows.txt)" = 5 ] || fail "$(wc -l <rows.txt) rows in five-specimens.csv"
[ "$(grep -c "note: .*converged on a retry from row" five.err)" = 3 ] || fail "not 3 notes of a converged retry"
[ "$("$yp" five.summary retried.rows)" = 3 ] && [ "$("$yp" five.summary retried.converged)" = 3 ] || fail "the summary does not count 3 rows retried, 3 converged"
# interrupted during row 3's retry, then resumed
"$top_builddir/fiber-calibrate" -q --plot none -o part campaign.yaml >part.summary 2>part.err &
pid=$!
if wait_size "$pid" part.checkpoint.d/00003.retry1.checkpoint 0; then
  kill -INT "$pid"
  wait "$pid"
  st=$?
  [ "$st" = 1 ] && grep -q "interrupted: no report written" part.err || fail "interrupted during a retry: exit $st"
  [ -e part-specimens.csv ] && fail "a report written by the interrupted run"
  "$top_builddir/fiber-calibrate" -q --plot none --resume -o part campaign.yaml >part.summary 2>>part.err ||
    fail "the resumed campaign failed"
  for f in specimens.csv population.yaml curves.csv; do # the command line aside
    sed '/^# fiberlab .*: .*fiber-calibrate /d' "five-$f" >want
    sed '/^# fiberlab .*: .*fiber-calibrate /d' "part-$f" | cmp -s - want || fail "resumed $f differs"
  done
else
  wait "$pid"
  fail "row 3 was never retried"
fi
# nothing converged: nothing to retry from.  The first row is fitted again from its own
# start with max_stress held where it had no influence (fiber-calibrate(1), HELD
# PARAMETERS): it converges on a_rot, max_stress reported undetermined (no standard
# error), its message naming the value held and the first fit's failure; the two others
# then converge on a retry from a converged row's solution, both parameters determined;
# the summary counts 1 value held.
table "1 3 5"
"$top_builddir/fiber-calibrate" -q --plot none -o three campaign.yaml >three.summary 2>three.err
st=$?
[ "$st" = 0 ] || { fail "three roots, none converging at first: exit $st, want 0"; cat three.err; }
[ "$("$yp" three.summary converged)" = 3 ] || fail "three roots: $("$yp" three.summary converged) converged, want 3"
[ "$("$yp" three.summary held_values)" = 1 ] || fail "three roots: held_values $("$yp" three.summary held_values), want 1"
awk -F, '/^#/ || $1 == "row" { next } { i = index($0, ",\""); msg = i ? substr($0, i + 2) : ""
    print $1 "|" $4 "|" $12 "|" $14 "|" msg }' three-specimens.csv >held.txt
while IFS='|' read -r row status se_rot se_str msg; do
  [ "$status" = converged ] || fail "three roots, row $row: $status"
  if [ "$row" = 1 ]; then
    case $msg in
    "bond.failure.max_stress held at "*" (no influence: undetermined); the first fit: bond.failure.max_stress has no influence"*) ;;
    *) fail "row 1: message '$msg', want max_stress held after 'has no influence'" ;;
    esac
    want=nan
  else
    case $msg in
    "converged on a retry from row "[12]"'s solution; the first fit: bond.failure.max_stress has no influence"*) ;;
    *) fail "row $row: message '$msg', want a retry from row 1 or 2" ;;
    esac
    want=number
  fi
  awk -v a="$se_rot" -v b="$se_str" -v w="$want" 'BEGIN { exit !(a + 0 > 0 && (w == "nan" ? b == "nan" : b + 0 > 0)) }' ||
    fail "row $row: standard errors a_rot '$se_rot', max_stress '$se_str', want a number and $want"
done <held.txt
[ "$(wc -l <held.txt)" = 3 ] || fail "$(wc -l <held.txt) rows in three-specimens.csv"
cat rows.txt
[ "$fails" = 0 ]
