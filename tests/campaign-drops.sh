#!/bin/sh
# A campaign of buckling fits (fiberlab-campaign(5), PREFIX-specimens.csv): where each
# curve's drop peaks, measured and fitted, in four columns.  Two hand-made curves rise
# straight to a peak (0.8 mm, 20 N and 0.9 mm, 24 N), drop to 60 % and stay there; the
# measured columns must give exactly those peaks (the highest row before the deepest
# fall; its load from the line through the rows just before it, here the rise itself),
# the fitted ones a number or nan.  A campaign with no buckling numbers free has no
# such columns.  campaign.drop: a third curve that rises to 0.85 mm, 22 N and ends at
# its fall (a break: no plateau after it) between the two: drop: yes fits rows 1 and 3
# (the table's numbers kept), drop: no only row 2, and a note names the rows left out.
# A template whose bonds buckle beyond the range: each row with a measured drop gets a
# warning that the fitted curve lost it.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
bin=$top_builddir/fiber-calibrate
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat >rod.yaml <<'YAML'
fiber: { length: 0.028, outer_radius: 1.0e-3, segments: 14, youngs_modulus: 5.0e9 }
bond:
  damping: 1.4e-6
  buckling: { type: plastic, sample_length: 0.024, max_force: 20, min_force: 12,
              displacement_at_min_force: 5.0e-4, slope_after_min_force: 0 }
test: { kind: bend3pt, span: 0.024, max_displacement: 1.5e-3 }
simulation: { solver: static, output_points: 100 }
YAML
# rise in 80 rows to (xp, yp), then 60 rows at 0.6 yp, 0.01 mm apart
curve() {
  awk -v xp="$2" -v yp="$3" 'BEGIN {
    print "displacement_m,force_N"
    for (i = 0; i <= 80; i++) printf "%.9g,%.9g\n", xp * i / 80, yp * i / 80
    for (i = 1; i <= 60; i++) printf "%.9g,%.9g\n", xp + i * 1e-5, 0.6 * yp }' >"$1"
}
curve a.csv 8e-4 20
curve b.csv 9e-4 24
printf 'name,curve,diameter_mm\nrod-a,a.csv,2.0\nrod-b,b.csv,2.1\n' >table.csv
fit() {
  printf 'experiment: %s\ndata:\n  - test: bend3pt\n    file: a.csv\n    columns: { x: displacement_m, y: force_N }\n' "$1"
  printf 'free:\n  %s: { start: auto, min: %s, max: %s }\nsolver: { max_iterations: 2, global: off }\n' "$2" "$3" "$4"
}
campaign() {
  printf 'campaign:\n  fit: %s\n  specimens: table.csv\n  file: curve\n  id: name\n' "$1"
  printf '  columns:\n    fiber.outer_radius: { column: diameter_mm, unit: mm, scale: 0.5 }\n'
}
fit rod.yaml bond.buckling.max_force 1 100 >fit.yaml
campaign fit.yaml >drops.yaml
"$bin" -q --plot none -o drops drops.yaml >out.txt 2>err.txt
st=$?
[ "$st" -le 1 ] || fail "the buckling campaign exited with $st: $(cat err.txt)"
header=$(grep '^row,' drops-specimens.csv)
case $header in
*,bond.buckling.max_force_se,peak_displacement_measured,peak_displacement_fitted,peak_force_measured,peak_force_fitted,message) ;;
*) fail "the header lacks the drop's columns: $header" ;;
esac
# the columns by name, from the header
check_row() {
  awk -F, -v id="$1" -v xp="$2" -v yp="$3" '
    /^row,/ { for (i = 1; i <= NF; i++) c[$i] = i; next }
    /^#/ { next }
    $2 == id {
      found = 1
      xm = $c["peak_displacement_measured"]; ym = $c["peak_force_measured"]
      xf = $c["peak_displacement_fitted"]; yf = $c["peak_force_fitted"]
      d = xm - xp; if (d < 0) d = -d; e = ym - yp; if (e < 0) e = -e
      if (d > 1e-9 * xp || e > 1e-9 * yp) { printf "%s: measured peak %s m, %s N; want %g m, %g N\n", id, xm, ym, xp, yp; exit 1 }
      if (!(xf == "nan" || xf + 0 > 0) || !(yf == "nan" || yf + 0 > 0)) { printf "%s: fitted peak %s m, %s N\n", id, xf, yf; exit 1 } }
    END { if (!found) { printf "%s: no row\n", id; exit 1 } }' drops-specimens.csv
}
msg=$(check_row rod-a 8e-4 20) || fail "$msg"
msg=$(check_row rod-b 9e-4 24) || fail "$msg"

# no buckling number free: no such columns
grep -v -e 'buckling' -e 'displacement_at_min_force' rod.yaml >plain.yaml
fit plain.yaml bond.torque_stiffness_scale 0.1 10 >plainfit.yaml
campaign plainfit.yaml >plain-campaign.yaml
"$bin" -q --plot none -o plain plain-campaign.yaml >out.txt 2>err.txt
st=$?
[ "$st" -le 1 ] || fail "the plain campaign exited with $st: $(cat err.txt)"
grep -q '^row,.*peak_displacement' plain-specimens.csv && fail "a campaign without buckling has the drop's columns"
grep -q '^row,.*bond.torque_stiffness_scale_se,message$' plain-specimens.csv || fail "the plain campaign's header: $(grep '^row,' plain-specimens.csv)"

# campaign.drop: the rows by the shape of their curves
awk 'BEGIN { print "displacement_m,force_N"
  for (i = 0; i <= 80; i++) printf "%.9g,%.9g\n", 8.5e-4 * i / 80, 22 * i / 80
  printf "%.9g,%.9g\n%.9g,%.9g\n%.9g,%.9g\n", 8.6e-4, 15, 8.7e-4, 5, 8.8e-4, 0.5 }' >c.csv
printf 'name,curve,diameter_mm\nrod-a,a.csv,2.0\nrod-c,c.csv,2.05\nrod-b,b.csv,2.1\n' >table.csv
# rows (the table's numbers) and ids of a campaign's specimens, one line
rows_of() { awk -F, '/^[0-9]/ { printf "%s%s %s", n++ ? ", " : "", $1, $2 }' "$1"; }
# pick FIT DROP ROWS LEFT: the campaign of FIT with drop: DROP fits ROWS ("row id, ...")
# and its note leaves out LEFT
pick() {
  { campaign "$1"; echo "  drop: $2"; } >"sel-$2.yaml"
  "$bin" -q --plot none -o "sel-$2" "sel-$2.yaml" >out.txt 2>err.txt
  st=$?
  [ "$st" -le 1 ] || fail "the drop: $2 campaign exited with $st: $(cat err.txt)"
  got=$(rows_of "sel-$2-specimens.csv")
  [ "$got" = "$3" ] || fail "drop: $2 fitted '$got'; want '$3'"
  kept=$(echo "$3" | awk -F, '{ print NF }')
  grep -qx "fiber-calibrate: note: campaign.drop: $2: $kept of the 3 rows of table.csv fitted; left out: $4" err.txt ||
    fail "drop: $2, the note: $(cat err.txt)"
}
pick fit.yaml yes "1 rod-a, 3 rod-b" "2 (rod-c)"
pick plainfit.yaml no "2 rod-c" "1 (rod-a), 3 (rod-b)"

# kink_weight (fiberlab-fit(5)): a template with it fits the rows whose curve drops
# (drop: yes), and refuses a kept row without a drop (drop: any keeps the break, row 2):
# exit 2, the row and the key named, nothing written
sed 's/^    columns: .*/&\n    kink_weight: 1/' fit.yaml >kinkfit.yaml
{ campaign kinkfit.yaml; echo "  drop: yes"; } >kink-yes.yaml
"$bin" -q --plot none -o kink-yes kink-yes.yaml >out.txt 2>err.txt
st=$?
[ "$st" -le 1 ] || fail "the kink_weight campaign (drop: yes) exited with $st: $(cat err.txt)"
got=$(rows_of kink-yes-specimens.csv)
[ "$got" = "1 rod-a, 3 rod-b" ] || fail "kink_weight, drop: yes fitted '$got'"
{ campaign kinkfit.yaml; echo "  drop: any"; } >kink-any.yaml
"$bin" -q --plot none -o kink-any kink-any.yaml >out.txt 2>err.txt
st=$?
want="fiber-calibrate: kink-any.yaml:2:8: row 2 (rod-c): data[1].kink_weight of kinkfit.yaml: 1, but the row's curve has no drop followed by a plateau in the fitted range: there is no kink to fit; allowed: kink_weight 0, or campaign.drop: yes (the rows without a drop left out); nothing written"
[ "$st" = 2 ] && [ "$(cat err.txt)" = "$want" ] || fail "kink_weight on a row without a drop: status $st, $(cat err.txt)"
ls kink-any* 2>/dev/null | grep -qv '^kink-any.yaml$' && fail "kink_weight on a row without a drop wrote $(ls kink-any*)"

# a fit whose curves lost the measured drop (the bonds buckle far beyond the range):
# a warning for each row with a drop, none for the one that breaks
sed 's/max_force: 20,/max_force: 1000,/' rod.yaml >stiff.yaml
fit stiff.yaml bond.torque_stiffness_scale 0.1 10 >lostfit.yaml
campaign lostfit.yaml >lost.yaml
"$bin" -q --plot none -o lost lost.yaml >out.txt 2>err.txt
st=$?
[ "$st" -le 1 ] || fail "the lost-drop campaign exited with $st: $(cat err.txt)"
for want in "row 1 (rod-a): lostfit.yaml: data[1] (a.csv): the measured curve drops after its peak at 0.0008 m" \
  "row 3 (rod-b): lostfit.yaml: data[1] (b.csv): the measured curve drops after its peak at 0.0009 m"; do
  grep -qF "fiber-calibrate: warning: table.csv:" err.txt && grep -F "$want" err.txt | grep -qF "the fitted one has no drop in the fitted range" ||
    fail "no warning '$want': $(cat err.txt)"
done
[ "$(grep -c 'has no drop in the fitted range' err.txt)" = 2 ] || fail "lost drops: $(cat err.txt)"
[ "$fails" = 0 ] && echo "ok: the drop's peaks, measured exactly, in the campaign's table; none without buckling; campaign.drop selects by the curve's shape"
[ "$fails" = 0 ]
