#!/bin/sh
# Nothing lost, nothing silently wrong: no output ever replaces an input (a campaign's
# table, curve or own file; a polyline under the default prefix; a link to an input),
# every bad input exits 2 naming its place and writes nothing, and a figure that cannot
# be measured is null, never 0.  Each case copies the fixtures of tests/campaign and
# tests/fit-bad into a fresh folder, runs one program there, and checks the exit status,
# the message, what was written and that every input is unchanged.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
bin=$(cd "$top_builddir" && pwd)
campaign=$(cd "$top_srcdir/tests/campaign" && pwd)
fitbad=$(cd "$top_srcdir/tests/fit-bad" && pwd)
experiments=$(cd "$top_srcdir/experiments" && pwd)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
n=0
fails=0

# fresh NAME: an empty case folder $root/NAME with the campaign fixtures, as $w
fresh() {
  w="$root/$1"
  mkdir -p "$w" && cp -R "$campaign/." "$w/" && cp "$fitbad/bend.yaml" "$fitbad/good.yaml" "$fitbad/curve.csv" "$w/"
}
fail() {
  echo "FAIL $n: $1"
  fails=$((fails + 1))
}
# expect STATUS MESSAGE-PATTERN PROGRAM ARGS...: run in $w; the status must be STATUS
# and stderr must match the grep -E pattern; with status 2, no file may appear or change
expect() {
  n=$((n + 1))
  want=$1
  pattern=$2
  shift 2
  (cd "$w" && find . -type f -exec cksum {} + | sort -k 3) > "$root/before"
  (cd "$w" && "$@" > "$root/stdout" 2> "$root/stderr")
  got=$?
  (cd "$w" && find . -type f -exec cksum {} + | sort -k 3) > "$root/after"
  if [ "$got" != "$want" ]; then
    fail "$*: status $got, want $want; stderr: $(cat "$root/stderr")"
  elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$root/stderr"; then
    fail "$*: stderr does not match /$pattern/: $(cat "$root/stderr")"
  elif [ "$want" = 2 ] && ! cmp -s "$root/before" "$root/after"; then
    fail "$*: files changed or appeared: $(diff "$root/before" "$root/after" | grep '^[<>]' | tr '\n' ' ')"
  elif [ "$want" = 2 ] && [ -s "$root/stdout" ]; then
    fail "$*: something on stdout"
  else
    echo "ok $n: $(echo "$*" | cut -c 1-150)"
  fi
}
cal="$bin/fiber-calibrate -q --plot none"

# ---- 1. a campaign's outputs never replace its inputs --------------------------------
fresh ow-table
cp "$campaign/good.csv" "$w/ow-specimens.csv"
sed 's/specimens: missing-file.csv/specimens: ow-specimens.csv/' "$campaign/missing-file.yaml" > "$w/c.yaml"
expect 2 "^fiber-calibrate: -o 'ow': the output ow-specimens.csv is the input ow-specimens.csv \(the specimen table\); allowed: outputs \(-o PREFIX\) that are not inputs; nothing written$" $cal -o ow c.yaml

fresh ow-itself
sed 's/specimens: missing-file.csv/specimens: good.csv/' "$campaign/missing-file.yaml" > "$w/ow2-population.yaml"
expect 2 "the output ow2-population.yaml is the input ow2-population.yaml \(the fit or campaign file\)" $cal -o ow2 ow2-population.yaml

fresh ow-curve
cp "$campaign/curves/a.csv" "$w/pop-curves.csv"
sed 's/^rod-a,a.csv/rod-a,pop-curves.csv/' "$campaign/good.csv" > "$w/g.csv"
cp "$campaign/curves/b.csv" "$w/b.csv"
sed -e 's/specimens: missing-file.csv/specimens: g.csv/' -e '/data_folder/d' "$campaign/missing-file.yaml" > "$w/c.yaml"
expect 2 "the output pop-curves.csv is the input (\./)?pop-curves.csv \(the curve of row 1 \(rod-a\) of g.csv\)" $cal -o pop c.yaml

fresh ow-link
ln -s good.csv "$w/link-specimens.csv"
sed 's/specimens: missing-file.csv/specimens: good.csv/' "$campaign/missing-file.yaml" > "$w/c.yaml"
expect 2 "the output link-specimens.csv is the input good.csv \(the specimen table\)" $cal -o link c.yaml

fresh ow-fit-data
expect 2 "the output curve.csv is the input (\./)?curve.csv \(data\[1\].file at good.yaml:4:11\)" $cal -o curve good.yaml

fresh ow-checkpoint
mkdir "$w/x.checkpoint.d"
ln -s ../good.csv "$w/x.checkpoint.d/00001.checkpoint"
sed 's/specimens: missing-file.csv/specimens: good.csv/' "$campaign/missing-file.yaml" > "$w/c.yaml"
expect 2 "the output x.checkpoint.d/00001.checkpoint is the input good.csv" $cal -o x c.yaml

# ---- 2. a run's default prefix never replaces its polyline -----------------------------
fresh ow-polyline
printf 'x_mm,y_mm\n0,0\n40,0.5\n80,1.0\n120,1.2\n' > "$w/poly-ow.csv"
sed -e 's/^  length: 0.12 .*/  shape: polyline\n  polyline: poly-ow.csv\n  table_unit: mm/' \
  "$experiments/wheat-straw-cantilever.yaml" > "$w/poly-ow.yaml"
expect 2 "^fiber-cantilever: the default output prefix 'poly-ow' \(the input file's base name\): the output poly-ow.csv is the input .*poly-ow.csv \(fiber.polyline\); allowed: outputs \(-o PREFIX\) that are not inputs; nothing written$" \
  "$bin/fiber-cantilever" -q --plot none poly-ow.yaml

# ---- 3. a row's cells must match the header -------------------------------------------
fresh cells
printf 'name,curve,diameter_mm\nrod-a,a.csv,2.0\nrod-b,b.csv,2,1\n' > "$w/comma.csv"
sed 's/specimens: missing-file.csv/specimens: comma.csv/' "$campaign/missing-file.yaml" > "$w/c.yaml"
expect 2 "comma.csv:3: row 2 has 4 fields, the header \(line 1\) 3; allowed: one field for each column in every row \(a decimal comma\? write numbers with a decimal point, or separate the columns with ';'\)" $cal c.yaml
printf 'name,curve,diameter_mm\nrod-a,a.csv\n' > "$w/short.csv"
sed 's/specimens: missing-file.csv/specimens: short.csv/' "$campaign/missing-file.yaml" > "$w/c.yaml"
expect 2 "short.csv:2: row 1 has 2 fields, the header \(line 1\) 3; allowed: one field for each column in every row; nothing written$" $cal c.yaml
printf 'displacement_mm,force_N\n0,0\n0.1,1,0\n0.2,2.0\n' > "$w/curve.csv"
expect 2 "curve.csv:3: row 2 has 3 fields, the header \(line 1\) 2" $cal good.yaml

# ---- 4. no path is cut short ----------------------------------------------------------
fresh long
long=$(printf '%02000d' 0 | tr 0 x)
# a curve name of 2012 characters whose first 2000 name an existing curve
mkdir -p "$w/curves/d"
cp "$w/curves/a.csv" "$w/curves/curve-a.csv"
name="$(printf '%0397d' 0 | sed 's|0|d/../|g')././curve-a.csv-missing.csv"
printf 'name,curve,diameter_mm\nrod-a,%s,2.0\nrod-b,b.csv,2.1\n' "$name" > "$w/l.csv"
sed 's/specimens: missing-file.csv/specimens: l.csv/' "$campaign/missing-file.yaml" > "$w/c.yaml"
expect 2 "row 1 \(rod-a\), column 'curve': '(d/\.\./){397}\./\./curve-a\.csv-missing\.csv' cannot be read \(curves/(d/\.\./){397}\./\./curve-a\.csv-missing\.csv\): No such file or directory" $cal c.yaml
expect 2 "^fiber-calibrate: -o 'x{2000}x{2000}x{200}': the output prefix is 4200 bytes long; allowed: at most [0-9]+ bytes; nothing written$" \
  $cal -o "$long$long$(printf '%0200d' 0 | tr 0 x)" good.yaml

# ---- 5. a curve that goes out and back is refused, with the cut that fits its rise -----
fresh outback
printf 'displacement_mm,force_N\n0,0\n0.1,1.0\n0.2,2.0\n0.4,2.6\n0.5,2.7\n0.3,1.5\n0.1,0.5\n' > "$w/curve.csv"
expect 2 "good.yaml:4:11: data\[1\].file: 'curve.csv' turns back at line 7: x = 0.3 mm after 0.5 mm at line 6 \(an unloading\); allowed: x that only grows: set data\[1\].x_max below 0.0005 m \(the turning point\) to fit the loading alone" $cal good.yaml
sed 's/    units: { x: mm, y: N }/    units: { x: mm, y: N }\n    x_max: 0.00045/' "$w/good.yaml" > "$w/cut.yaml"
expect 1 "interrupted after iteration 1 \(--stop-after\)" $cal --stop-after 1 -o cut-out cut.yaml

# ---- 6. a ring-down too short to measure: null and a warning, never 0 -----------------
fresh ring
expect 0 "specimen 1 rang [0-9] extremes? after the release, too few to measure its first frequency and decrement \(null in the summary\); allowed: test.ring_periods of at least 2" \
  "$bin/fiber-cantilever" -q --plot none -o r -s test.ring_periods=1.5 "$experiments/wheat-straw-vibration.yaml"
n=$((n + 1))
if grep -qx 'first_frequency: null' "$root/stdout" && grep -qx 'logarithmic_decrement: null' "$root/stdout" &&
  grep -qx 'decay_rate: null' "$root/stdout" && grep -qx 'damping_ratio: null' "$root/stdout" &&
  ! grep -q '^initial_stiffness:' "$root/stdout"; then
  echo "ok $n: the ring's figures are null"
else
  fail "the ring's figures: $(grep -E 'first_frequency|logarithmic|decay_rate|damping_ratio|initial_stiffness' "$root/stdout" | tr '\n' ' ')"
fi

# ---- 6b. a ring-down written at too few rows a period: a warning with the fix, and the
# tip's decrement read off those rows null, never a misread number --------------------
fresh coarse
expect 0 "specimen 1's ring-down is written at 4.96 rows a period, too few for its peaks: the CSV and the plot miss them, and tip_logarithmic_decrement is null; set simulation.output_points to at least 404 \(20 rows a period\)" \
  "$bin/fiber-cantilever" -q --plot none -o r -s simulation.output_points=100 "$experiments/wheat-straw-vibration.yaml"
n=$((n + 1))
if grep -qx 'tip_logarithmic_decrement: null' "$root/stdout" && grep -q '^logarithmic_decrement: 0\.00611' "$root/stdout"; then
  echo "ok $n: the tip's decrement off coarse rows is null, the first mode's stands"
else
  fail "the coarse ring's figures: $(grep -E 'logarithmic' "$root/stdout" | tr '\n' ' ')"
fi

# ---- 7. a header naming a column twice, a mapped key the fit frees, overlapping nodes --
fresh twice
printf 'name,curve,name\nrod-a,a.csv,2.0\n' > "$w/dup.csv"
sed 's/specimens: missing-file.csv/specimens: dup.csv/' "$campaign/missing-file.yaml" > "$w/c.yaml"
expect 2 "dup.csv:1: the header names columns 1 and 3 both 'name'; allowed: each column named once" $cal c.yaml
printf 'displacement_mm,force_N,force_N\n0,0,0\n0.1,1,1\n0.2,2,2\n' > "$w/curve.csv"
expect 2 "curve.csv:1: the header names columns 2 and 3 both 'force_N'" $cal good.yaml
fresh mapfree
printf 'campaign:\n  fit: fit.yaml\n  specimens: good.csv\n  file: curve\n  id: name\n  data_folder: curves\n  columns:\n    bond.torque_stiffness_scale: { column: diameter_mm }\n' > "$w/c.yaml"
expect 2 "c.yaml:8:5: campaign.columns.bond.torque_stiffness_scale: the fit fit.yaml frees bond.torque_stiffness_scale, which the table would set for each row" $cal c.yaml
fresh nodes
sed 's|^  nodes: .*|  nodes: n.csv|' "$experiments/wheat-straw-node-bend3pt.yaml" > "$w/nodes.yaml"
printf 'position_mm,length_mm,outer_radius_mm,inner_radius_ratio,youngs_modulus_Pa,max_stress_Pa\n60,5,2.3,0.3,0,0\n63,5,2.3,0.3,0,0\n' > "$w/n.csv"
expect 2 "n.csv:3: fiber.nodes: node 2 \(60.5 to 65.5 mm\) overlaps node 1 \(line 2, 57.5 to 62.5 mm\); allowed: nodes that do not overlap" \
  "$bin/fiber-bend3pt" -q --plot none nodes.yaml
printf 'position_mm,length_mm,outer_radius_mm,inner_radius_ratio,youngs_modulus_Pa,max_stress_Pa\n61.0,0.5,2.3,0.3,0,0\n61.6,0.5,2.3,0.3,0,0\n' > "$w/n.csv"
expect 2 "n.csv:3: fiber.nodes: node 2 falls on segment 25, which node 1 \(line 2\) holds; allowed: nodes at least a segment \(2.5 mm\) apart" \
  "$bin/fiber-bend3pt" -q --plot none nodes.yaml

# ---- 8. limits: a large or endless table is bad input; wide tables are valid -----------
fresh limits
truncate -s 65M "$w/curves/b.csv"
sed 's/specimens: missing-file.csv/specimens: good.csv/' "$campaign/missing-file.yaml" > "$w/c.yaml"
expect 2 "b.csv' has 68157440 bytes, more than a measured table may have; allowed: at most 64 MiB" $cal c.yaml
sed 's|file: curve.csv|file: /dev/zero|' "$w/good.yaml" > "$w/zero.yaml"
expect 2 "zero.yaml:4:11: data\[1\].file: '/dev/zero' has more than 67108864 bytes, more than a table may have; allowed: at most 64 MiB" $cal zero.yaml
sed 's/specimens: missing-file.csv/specimens: \/dev\/zero/' "$campaign/missing-file.yaml" > "$w/z.yaml"
expect 2 "campaign.specimens: /dev/zero has more than 67108864 bytes, more than a table may have" $cal z.yaml
awk 'BEGIN { for (i = 1; i <= 300; i++) printf "%sc%d", (i > 1 ? "," : ""), i; print "";
             for (r = 0; r < 6; r++) { for (i = 1; i <= 300; i++) printf "%s%g", (i > 1 ? "," : ""), (i == 1 ? r / 10 : r); print "" } }' > "$w/curve.csv"
sed 's/columns: { x: 1, y: 2 }/columns: { x: 1, y: c299 }/' "$w/good.yaml" > "$w/wide.yaml"
expect 1 "interrupted after iteration 1 \(--stop-after\)" $cal --stop-after 1 -o wide-out wide.yaml

# ---- 9. messages that say where and what -------------------------------------------
fresh messages
printf '\357\273\277displacement_mm,force_N\n0,0\n0.1,1.0\n0.2,2.0\n0.4,2.6\n' > "$w/curve.csv"
sed 's/columns: { x: 1, y: 2 }/columns: { x: displacement_mm, y: load }/' "$w/good.yaml" > "$w/bom.yaml"
expect 2 "'load' is not a column of curve.csv; allowed: a number in \[1, 2\], or a header name: displacement_mm, force_N$" $cal bom.yaml
printf '"Displacement, mm","Load, N"\n0,0\n0.1,1.0\n0.2,2.0\n' > "$w/curve.csv"
sed 's/columns: { x: 1, y: 2 }/columns: { x: 1, y: load }/' "$w/good.yaml" > "$w/quoted.yaml"
expect 2 "header name: \"Displacement, mm\", \"Load, N\"$" $cal quoted.yaml
sed 's/  outer_radius: 1.0e-3/  section: ellipse\n  semi_axis_y: 1.0e-3\n  semi_axis_z: 1.1e-3/' "$campaign/rod.yaml" > "$w/rod-ell.yaml"
sed 's/rod.yaml/rod-ell.yaml/' "$campaign/fit.yaml" > "$w/fit-ell.yaml"
printf 'name,curve,ai_mm\nrod-a,a.csv,0.5\nrod-b,b.csv,1.2\n' > "$w/ell.csv"
printf 'campaign:\n  fit: fit-ell.yaml\n  specimens: ell.csv\n  file: curve\n  id: name\n  data_folder: curves\n  columns:\n    fiber.inner_semi_axis_y: { column: ai_mm, unit: mm }\n    fiber.inner_semi_axis_z: { column: ai_mm, unit: mm }\n' > "$w/ell.yaml"
expect 2 "^fiber-calibrate: ell.csv:3: row 2 \(rod-b\), column 'ai_mm' \(fiber.inner_semi_axis_y = 0.0012\): fiber.inner_semi_axis_y: 0.0012 m is not below semi_axis_y 0.001 m" $cal ell.yaml
awk 'NR == 4 { printf "%s", substr($0, 1, 5); printf "%c", 0; print substr($0, 6); next } { print }' "$campaign/rod.yaml" > "$w/nul.yaml"
expect 2 "^fiber-bend3pt: nul.yaml:4:6: not valid YAML: a NUL byte; allowed: UTF-8 text" "$bin/fiber-bend3pt" -q nul.yaml
printf 'fiber:\n\tlength: 0.1\n' > "$w/tab.yaml"
expect 2 "^fiber-bend3pt: tab.yaml:2:1: not valid YAML: a tab; allowed: spaces for indentation" "$bin/fiber-bend3pt" -q tab.yaml
printf '\177ELF\002\001\001\000' > "$w/bin.yaml"
expect 2 "^fiber-bend3pt: bin.yaml:1:1: not valid YAML: control characters are not allowed \(byte 0x7f\); allowed: UTF-8 text" "$bin/fiber-bend3pt" -q bin.yaml
expect 2 "^fiber-tension: rod.yaml:[0-9]+:[0-9]+: test.kind: 'bend3pt' is not a fiber-tension test" "$bin/fiber-tension" -q rod.yaml
sed 's/  youngs_modulus: 5.0e9/  youngs_modulus: 5,0e9/' "$campaign/rod.yaml" > "$w/comma.yaml"
expect 2 "comma.yaml:6:19: fiber.youngs_modulus: '5,0e9' is not a number \(a decimal comma\? write the number with a decimal point\)" "$bin/fiber-bend3pt" -q comma.yaml
if [ -w /dev/full ]; then
  n=$((n + 1))
  (cd "$w" && "$bin/fiber-bend3pt" -q --plot none -o full rod.yaml > /dev/full 2> "$root/stderr")
  st=$?
  if [ "$st" = 1 ] && grep -q 'cannot write the summary: No space left on device' "$root/stderr"; then
    echo "ok $n: a full disk says so"
  else
    fail "stdout on a full disk: status $st, $(cat "$root/stderr")"
  fi
fi
sed 's/  youngs_modulus: 5.0e9/  youngs_modulus: 40.2/' "$campaign/rod.yaml" > "$w/mpa.yaml"
expect 1 "the likely cause of the failure below: mpa.yaml:6:19: fiber.youngs_modulus 40.2 Pa is below 1e\+06 Pa: looks like MPa" \
  "$bin/fiber-bend3pt" -q --plot none --solver static mpa.yaml

# ---- 10. what a killed campaign left is swept; a folder that cannot be made ---------
fresh sweep
sed 's/specimens: missing-file.csv/specimens: good.csv/' "$campaign/missing-file.yaml" > "$w/c.yaml"
printf 'half a report' > "$w/x-specimens.csv.tmpAb12Cd"
printf 'half a plot' > "$w/x-curves.png.tmpZz99Yy"
expect 0 "" $cal -o x c.yaml
n=$((n + 1))
if [ -e "$w/x-specimens.csv.tmpAb12Cd" ] || [ -e "$w/x-curves.png.tmpZz99Yy" ] || ! [ -s "$w/x-specimens.csv" ]; then
  fail "the killed campaign's temporaries are still there: $(ls "$w" | grep tmp | tr '\n' ' ')"
else
  echo "ok $n: the killed campaign's temporaries are gone"
fi
expect 1 "cannot make the checkpoint folder no/such/dir/x.checkpoint.d: No such file or directory; no checkpoint and no report written$" \
  $cal -o no/such/dir/x c.yaml

echo "$n checks, $fails failed"
[ "$fails" = 0 ]
