#!/bin/sh
# fiber-calibrate: every class of bad input gets its exact message on stderr, exit
# status 2, nothing on stdout and no output file (fit files under tests/fit-bad/, run
# from an empty directory).  Then a fit that cannot converge: exit status 1, a message
# saying why, and the report of its best point all the same.
set -u
top_srcdir=${top_srcdir:-.}
. "$top_srcdir/tests/held.sh"
top_builddir=${top_builddir:-.}
bin=$(cd "$top_builddir" && pwd)
bad=$(cd "$top_srcdir/tests/fit-bad" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
n=0
prog=fiber-calibrate

. "$top_srcdir/tests/bad-input-check.sh"
check() {
  expect=$1
  shift
  check_bad "$bin/$prog" "$prog" "$expect" "$@"
}
ln -s "$bad" "$work/bad"
good=bad/good.yaml

check "fiber-calibrate: bad/missing-data.yaml:4:11: data[1].file: 'not-there.csv' cannot be read: No such file or directory; allowed: a readable table file, relative to the fit file" bad/missing-data.yaml
check "fiber-calibrate: bad/unreadable-data.yaml:4:11: data[1].file: '.' cannot be read: Is a directory; allowed: a readable table file, relative to the fit file" bad/unreadable-data.yaml
check "fiber-calibrate: bad/no-such-column.yaml:5:25: data[1].columns.y: '3' is not a column of curve.csv, which has 2; allowed: a number in [1, 2], or a header name: displacement_mm, force_N" bad/no-such-column.yaml
check "fiber-calibrate: bad/no-such-column-name.yaml:5:39: data[1].columns.y: 'load_N' is not a column of curve.csv; allowed: a number in [1, 2], or a header name: displacement_mm, force_N" bad/no-such-column-name.yaml
check "fiber-calibrate: bad/bad-cell.csv:4:5: column 2 (force_N): 'n/a' is not a number (data row 3); allowed: a number in every data row" bad/non-numeric.yaml
check "fiber-calibrate: bad/too-few-points.yaml:7:1: free: 3 parameters for 2 measured points; allowed: at most 2 free parameters (no more than the points)" bad/too-few-points.yaml
check "fiber-calibrate: bad/no-such-path.yaml:8:3: free: 'bond.torque_stiffnes_scale' is not a numeric key of an experiment; allowed: the dotted path of a number, such as bond.torque_stiffness_scale or bond.failure.max_stress" bad/no-such-path.yaml
check "fiber-calibrate: bad/not-a-number-key.yaml:7:3: free: 'fiber.segments' is not a numeric key of an experiment; allowed: the dotted path of a number, such as bond.torque_stiffness_scale or bond.failure.max_stress" bad/not-a-number-key.yaml
check "fiber-calibrate: bad/min-above-max.yaml:8:58: free.bond.torque_stiffness_scale.max: '0.1' is not above min 10; allowed: a number above min" bad/min-above-max.yaml
check "fiber-calibrate: bad/min-equals-max.yaml:8:57: free.bond.torque_stiffness_scale.max: '2' is not above min 2; allowed: a number above min" bad/min-equals-max.yaml
check "fiber-calibrate: bad/start-outside.yaml:8:41: free.bond.torque_stiffness_scale.start: '30' is not strictly between min and max; allowed: auto, or a number in (0.1, 10)" bad/start-outside.yaml
check "fiber-calibrate: bad/start-on-bound.yaml:8:41: free.bond.torque_stiffness_scale.start: '0.1' is not strictly between min and max; allowed: auto, or a number in (0.1, 10)" bad/start-on-bound.yaml
check "fiber-calibrate: bad/bound-outside-key.yaml:8:49: free.bond.torque_stiffness_scale.min: '-1' is outside the range of bond.torque_stiffness_scale; allowed: a number in [0, 1e+06]" bad/bound-outside-key.yaml
check "fiber-calibrate: bad/missing-bound.yaml:7:32: free.bond.torque_stiffness_scale: missing key 'min'; allowed: a block with start, min and max" bad/missing-bound.yaml
check "fiber-calibrate: bad/unknown-key.yaml:5:5: data[1].colums: unknown key for a curve item; allowed: test, file, columns, units, weight, experiment, set, x_max, x_max_drop, x_max_past, x_min, toe, weights, kink_weight, start_weight, signal, residuals" bad/unknown-key.yaml
check "fiber-calibrate: bad/duplicate-key.yaml:8:1: free: duplicate key (first at line 6); allowed: each key once" bad/duplicate-key.yaml
check "fiber-calibrate: bad/bad-unit.yaml:6:24: data[1].units.y: 'lbf' is not a unit; allowed: N | kN" bad/bad-unit.yaml
check "fiber-calibrate: bad/unit-for-other-test.yaml:6:17: data[1].units.x: 'deg' does not go with a bend3pt test; allowed: mm | um | m" bad/unit-for-other-test.yaml
check "fiber-calibrate: bad/wrong-test.yaml:3:11: data[1].test: 'tension' is not the test of its experiment bad/bend.yaml (bend3pt); allowed: bend3pt" bad/wrong-test.yaml
check "fiber-calibrate: bad/bad-method.yaml:9:11: solver.method: 'newton' is not allowed; allowed: lm | lmaccel | dogleg | ddogleg | subspace2D" bad/bad-method.yaml
check "fiber-calibrate: bad/bad-scale.yaml:10:10: solver.scale: 'jacobian' is not allowed; allowed: more | levenberg | marquardt" bad/bad-scale.yaml
check "fiber-calibrate: bad/bad-differences.yaml:10:16: solver.differences: 'backward' is not allowed; allowed: forward | central" bad/bad-differences.yaml
check "fiber-calibrate: bad/bad-difference-step.yaml:11:20: solver.difference_step: '0.5' is out of range; allowed: a number in (0, 0.1]" bad/bad-difference-step.yaml
check "fiber-calibrate: bad/bad-global.yaml:9:11: solver.global: 'always' is not allowed; allowed: auto | on | off" bad/bad-global.yaml
check "fiber-calibrate: bad/bad-global-points.yaml:9:18: solver.global_points: '2' is out of range; allowed: an integer in [4, 4096]" bad/bad-global-points.yaml
check "fiber-calibrate: bad/bad-global-points-word.yaml:9:18: solver.global_points: 'many' is not an integer; allowed: an integer in [4, 4096]" bad/bad-global-points-word.yaml
check "fiber-calibrate: bad/bad-global-refine.yaml:9:18: solver.global_refine: '0' is out of range; allowed: an integer in [1, 16]" bad/bad-global-refine.yaml
check "fiber-calibrate: bad/global-refine-above-points.yaml:11:18: solver.global_refine: '6' is more than the 5 points of the design and the start; allowed: an integer in [1, solver.global_points + 1]" bad/global-refine-above-points.yaml
check "fiber-calibrate: bad/bad-weight.yaml:6:13: data[1].weight: '0' is out of range; allowed: a number in (0, 1e+06]" bad/bad-weight.yaml
check "fiber-calibrate: bad/bad-set.yaml:6:26: bond.damping: '-1' is out of range; allowed: a number in [0, 1000] s" bad/bad-set.yaml
check "fiber-calibrate: bad/missing-experiment.yaml:1:13: experiment: 'not-there.yaml' cannot be read: No such file or directory; allowed: an experiment file, relative to the fit file" bad/missing-experiment.yaml
check "fiber-calibrate: bad/file-and-peaks.yaml:5:5: data[1].peaks: given with file; allowed: one of file (a curve) and peaks (peak loads)" bad/file-and-peaks.yaml
check "fiber-calibrate: bad/empty-data.yaml:2:7: data: is an empty list; allowed: a list of one or more measured curves" bad/empty-data.yaml
check "fiber-calibrate: bad/not-there.yaml: cannot open: No such file or directory" bad/not-there.yaml
check "fiber-calibrate: bad/bad-toe.yaml:6:10: data[1].toe: 'yes' is not allowed; allowed: none | auto" bad/bad-toe.yaml
check "fiber-calibrate: bad/kink-no-buckling.yaml:7:18: data[1].kink_weight: 1, but the experiment bad/bend.yaml has no buckling envelope (bond.buckling.type none): there is no kink to fit; allowed: 0, or a 3-point test whose bonds buckle (bond.buckling.type reversible, damage or plastic)" bad/kink-no-buckling.yaml
check "fiber-calibrate: bad/kink-no-drop.yaml:9:18: data[1].kink_weight: 1, but the measured curve 'curve.csv' has no drop followed by a plateau in the fitted range (fiber-calibrate(1), STARTING VALUES): there is no kink to fit; allowed: 0 for this curve" bad/kink-no-drop.yaml
check "fiber-calibrate: bad/start-few-rows.yaml:8:19: data[1].start_weight: 1, but the measured curve 'curve.csv' has fewer than 3 rows below 15 % of its largest load or from 15 to 30 % in the fitted range (fiberlab-fit(5), start_weight): there is no start's bend to fit; allowed: 0 for this curve" bad/start-few-rows.yaml
check "fiber-calibrate: bad/start-negative.yaml:7:19: data[1].start_weight: '-1' is out of range; allowed: a number in [0, 1e+06]" bad/start-negative.yaml
check "fiber-calibrate: bad/bad-weights.yaml:7:46: data[1].weights[2]: missing key 'weight'; allowed: a block with weight and x_min, x_max or both" bad/bad-weights.yaml
check "fiber-calibrate: bad/x-max-word.yaml:7:12: data[1].x_max: 'atuo' is not a number or auto; allowed: auto, or a number in (0, 10] m" bad/x-max-word.yaml
check "fiber-calibrate: bad/x-max-drop-given.yaml:8:17: data[1].x_max_drop: a share of x_max: auto, and x_max is 2.0e-3; allowed: x_max_drop with x_max: auto only" bad/x-max-drop-given.yaml
check "fiber-calibrate: bad/x-max-drop-one.yaml:8:17: data[1].x_max_drop: 1 leaves no load; allowed: a share in (0, 1)" bad/x-max-drop-one.yaml
check "fiber-calibrate: bad/bad-x-min.yaml:7:12: data[1].x_min: 0.003 m is not below x_max 0.002 m; allowed: x_min < x_max" bad/bad-x-min.yaml
check "fiber-calibrate: bad/unused-strength.yaml:9:3: free.bond.failure.max_stress: bond.failure.max_stress is free but bond.failure.criterion is none in bad/rod-tension.yaml; allowed: free keys the experiments use (set bond.failure.criterion, or leave bond.failure.max_stress out of free)" bad/unused-strength.yaml
check "fiber-calibrate: bad/unused-buckling.yaml:8:3: free.bond.buckling.max_force: bond.buckling.max_force is free but bond.buckling.type is none in bad/rod-tension.yaml; allowed: free keys the experiments use (set bond.buckling.type, or leave bond.buckling.max_force out of free)" bad/unused-buckling.yaml
check "fiber-calibrate: bad/buckling-start.yaml:10:3: at the fit's value bond.buckling.min_force = 3 (its start or a trial point): bond.buckling.min_force: 3 N is above max_force 2 N; allowed: [0, max_force]; no point could be evaluated, no output written" bad/buckling-start.yaml
check "fiber-calibrate: bad/set-blame.yaml:8:32: bond.buckling.min_force: missing, and buckling type 'reversible' needs it; allowed: a number in [0, 1e+12] N" bad/set-blame.yaml
check "fiber-calibrate: --set 'fiber.segmnts=3': fiber.segmnts: unknown key; allowed in fiber: length, outer_radius, inner_radius_ratio, section, semi_axis_y, semi_axis_z, inner_semi_axis_y, inner_semi_axis_z, segments, density, youngs_modulus, shear_modulus, poisson_ratio, shape, arc_radius, arc_angle, polyline, outer_radius_end, section_table, nodes, table_unit" -s fiber.segmnts=3 "$good"
check "fiber-calibrate: --device 'tpu': allowed: cpu | gpu | auto" --device tpu "$good"
check "fiber-calibrate: --plot 'jpg': allowed: png | svg | none" --plot jpg "$good"
check "fiber-calibrate: --threads '0': allowed: an integer in [1, 1024]" --threads 0 "$good"
check "fiber-calibrate: --seed '-3': allowed: an integer >= 0" --seed -3 "$good"
check "fiber-calibrate: -o 'bad/good': the output bad/good.yaml is the input bad/good.yaml (the fit or campaign file); allowed: outputs (-o PREFIX) that are not inputs; nothing written" -o bad/good "$good"
check "fiber-calibrate: unknown option '--colour'
Try 'fiber-calibrate --help'." --colour "$good"
check "fiber-calibrate: unknown option '-Z'
Try 'fiber-calibrate --help'." -qZ "$good"
check "fiber-calibrate: --stop-after '0': allowed: an integer in [1, 1000000]" --stop-after 0 "$good"
check "fiber-calibrate: more than one fit file given
Try 'fiber-calibrate --help'." "$good" "$good"
check "fiber-calibrate: missing the fit FILE.yaml
Try 'fiber-calibrate --help'." 
check "fiber-calibrate: option '-o' needs a value
Try 'fiber-calibrate --help'." "$good" -o

# Limits checked before parsing, on files made here (not shipped): a fit file nesting
# 40 lists, a 2 MiB fit file and a 100 MiB table (sparse files: nothing is read).
gen=$(mktemp -d)
trap 'rm -rf "$work" "$gen"' EXIT
{ printf 'experiment: bend.yaml\ndata: '; printf '%40s' '' | tr ' ' '['; printf '%40s\n' '' | tr ' ' ']'; } >"$gen/deep.yaml"
truncate -s 2M "$gen/big.yaml"
truncate -s 100M "$gen/huge.csv"
sed -e "s|^experiment: bend.yaml|experiment: $bad/bend.yaml|" -e 's|file: curve.csv|file: huge.csv|' "$bad/good.yaml" >"$gen/huge-table.yaml"
check "fiber-calibrate: $gen/deep.yaml:2:22: nesting deeper than 16 levels; allowed: at most 16 levels of blocks and lists" "$gen/deep.yaml"
check "fiber-calibrate: $gen/big.yaml: has 2097152 bytes, more than a fit file may have; allowed: at most 1 MiB (1048576 bytes)" "$gen/big.yaml"
check "fiber-calibrate: $gen/huge-table.yaml:4:11: data[1].file: 'huge.csv' has 104857600 bytes, more than a measured table may have; allowed: at most 64 MiB (67108864 bytes)" "$gen/huge-table.yaml"

# Warnings: one line each on stderr, never silent, never failing the run by
# themselves (each of these runs ends with its own exit status, given first; "ran":
# the fit ran and wrote its summary, converged or not, as a fit led astray by a unit
# mistake may end either way).
warn() {
  want_status=$1; expect=$2; shift 2
  n=$((n + 1))
  ( cd "$work" && "$bin/$prog" -q --plot none "$@" >stdout 2>stderr; echo $? >status )
  status=$(cat "$work/status")
  if { [ "$status" = "$want_status" ] || { [ "$want_status" = ran ] && [ "$status" -le 1 ] && [ -s "$work/stdout" ]; }; } &&
    grep -qxF -- "$expect" "$work/stderr"; then
    echo "ok $n: $prog $*: warning"
  else
    echo "FAIL: $prog $*"
    echo "  status:   $status (want $want_status)"
    echo "  stderr:   $(cat "$work/stderr")"
    echo "  expected: $expect"
    fails=$((fails + 1))
  fi
  find "$work" -mindepth 1 -maxdepth 1 ! -name bad -exec rm -rf {} +
}
warn ran "fiber-calibrate: warning: bad/warn-rows.yaml:9:12: data[1].x_max: 0.05 m is beyond the data (largest x 9.82579e-05 m): it leaves nothing out; x_max is in m, whatever the file's unit" bad/warn-rows.yaml
warn ran "fiber-calibrate: warning: bad/warn-rows.yaml:11:11: data[2].file: 18 of the 55 rows of 'rod-tension.csv' are used, fewer than half (x_min, x_max, toe and negative x leave the others out); check x_min and x_max, which are in m" bad/warn-rows.yaml
warn 1 "fiber-calibrate: warning: bad/at-bound.yaml:9:3: free.bond.force_stiffness_scale: the fitted value 0.8 is at its bound max = 0.8: the fit is held there, not determined by the data (widen the bounds, or check the data and units)" bad/at-bound.yaml
warn 1 "fiber-calibrate: warning: bad/rod-tension-mpa.yaml:6:19: fiber.youngs_modulus 5000 Pa is below 1e+06 Pa: looks like MPa (5000 MPa = 5e+09 Pa); the experiment's unit is Pa" bad/units-hint.yaml
warn 1 "fiber-calibrate: warning: bad/set-units.yaml:8:34: fiber.youngs_modulus 5000 Pa is below 1e+06 Pa: looks like MPa (5000 MPa = 5e+09 Pa); the experiment's unit is Pa" bad/set-units.yaml
warn 1 "fiber-calibrate: warning: bad/rod-tension-mpa.yaml:3:11: fiber.length 24 m is above 2 m: looks like mm (24 mm = 0.024 m); the experiment's unit is m" bad/units-hint.yaml

# A fit that cannot converge: bond.damping_stabilization does nothing without damping.
n=$((n + 1))
( cd "$work" && "$bin/$prog" -q --plot none bad/no-influence.yaml >stdout 2>stderr; echo $? >status )
status=$(cat "$work/status")
expect="fiber-calibrate: bad/no-influence.yaml: the fit failed: bond.damping_stabilization has no influence on the residuals (singular covariance): these data cannot determine it; fix it, or add data it changes; the report of the best point found is written"
if [ "$status" = 1 ] && [ "$(cat "$work/stderr")" = "$expect" ] && grep -q '^status: failed$' "$work/stdout" &&
   [ -s "$work/no-influence-calibrated.yaml" ] && [ -s "$work/no-influence-calibrated.csv" ] &&
   [ -s "$work/no-influence-calibrated.gp" ]; then
  echo "ok $n: $prog bad/no-influence.yaml: exit 1 with the report"
else
  echo "FAIL: $prog bad/no-influence.yaml"
  echo "  status: $status (want 1)"
  echo "  stderr: $(cat "$work/stderr")"
  echo "  files:  $(cd "$work" && ls | tr '\n' ' ')"
  fails=$((fails + 1))
fi

# --progress lines give the time elapsed and, from iteration 1, the time per iteration
# and the most time left; the plot's titles name the files by their base names.  The
# fit holds the stabilisation (bad/held.yaml) and converges.
n=$((n + 1))
mkdir "$work/a-rather-long-folder-name"
cp "$bad/held.yaml" "$bad/rod-tension.yaml" "$bad/rod-tension.csv" "$work/a-rather-long-folder-name/"
( cd "$work" && "$bin/$prog" --progress --plot none -o out a-rather-long-folder-name/held.yaml >stdout 2>stderr; echo $? >status )
if [ "$(cat "$work/status")" = 0 ] &&
   grep -q '^fiber-calibrate: iteration 0: cost [0-9.e+-]*, .* ([0-9]* simulations, [0-9.]* s elapsed)$' "$work/stderr" &&
   grep -q '^fiber-calibrate: iteration 1: cost .* ([0-9]* simulations, [0-9.]* s elapsed, [0-9.e+-]* s per iteration, at most 99 more: about [0-9.e+-]* s left at most)$' "$work/stderr" &&
   grep -qF "set multiplot layout 1,1 title 'fiber-calibrate held.yaml: R^2 = " "$work/out.gp" &&
   grep -q '^fiber-calibrate: note: bond.damping_stabilization has no influence on the residuals at iteration' "$work/stderr"; then
  echo "ok $n: $prog --progress: time elapsed and left; plot titles by base name"
else
  echo "FAIL: $prog --progress: time elapsed and left; plot titles by base name"
  cat "$work/stderr"; grep title "$work/out.gp"
  fails=$((fails + 1))
fi
find "$work" -mindepth 1 -maxdepth 1 ! -name bad -exec rm -rf {} +

# toe: auto (and weights by region): the shift on stderr (a note) and in the summary, in
# the curve's unit and in SI; the plot shows the curve as read next to the corrected one.
n=$((n + 1))
( cd "$work" && "$bin/$prog" -q --plot none -o toe bad/toe.yaml >stdout 2>stderr; echo $? >status )
if [ "$(cat "$work/status")" = 0 ] &&
   [ "$(cat "$work/stderr")" = "fiber-calibrate: note: bad/toe.yaml:6:11: data[1].file: toe: auto shifts 'rod-tension-toe.csv' by 0.0255268 mm (2.55268e-05 m); rows left at x < 0 are dropped" ] &&
   grep -qF 'toe_shift: {value: 0.0255268, unit: mm, si: 2.55268e-05}' "$work/stdout" &&
   grep -qF "title 'measured, as read (before the toe shift)'" "$work/toe.gp" &&
   grep -qF "title 'measured, toe corrected'" "$work/toe.gp"; then
  echo "ok $n: $prog bad/toe.yaml: toe shift reported and plotted"
else
  echo "FAIL: $prog bad/toe.yaml: toe shift"
  cat "$work/stdout" "$work/stderr"
  fails=$((fails + 1))
fi
find "$work" -mindepth 1 -maxdepth 1 ! -name bad -exec rm -rf {} +

# weights: one region over every row weighs exactly as the item's weight (the same
# report, bit for bit); regions of different weight move the fitted value.
n=$((n + 1))
for w in item regions split; do
  ( cd "$work" && "$bin/$prog" -q --plot none -o "w-$w" "bad/weight-$w.yaml" >"w-$w.out" 2>/dev/null )
done
v_item=$(grep 'bond.force_stiffness_scale' "$work/w-item.out"); v_split=$(grep 'bond.force_stiffness_scale' "$work/w-split.out")
if [ "$(tail -n +2 "$work/w-item.csv")" = "$(tail -n +2 "$work/w-regions.csv")" ] && [ -s "$work/w-item.csv" ] && [ "$v_item" = "$(grep 'bond.force_stiffness_scale' "$work/w-regions.out")" ] &&
   [ -n "$v_item" ] && [ -n "$v_split" ] && [ "$v_item" != "$v_split" ]; then
  echo "ok $n: $prog weights: a region over every row is the item's weight; split regions move the fit"
else
  echo "FAIL: $prog weights: item '$v_item', split '$v_split'"
  fails=$((fails + 1))
fi
find "$work" -mindepth 1 -maxdepth 1 ! -name bad -exec rm -rf {} +

# An interrupt before the starting point is evaluated (its run takes minutes): no best
# point yet, so nothing is written but the checkpoint, and the message says so.
n=$((n + 1))
# SIGINT is sent once the run's checkpoint is open with its header written, which the
# test sees in the file, long before the start's run ends.
( cd "$work" && {
  "$bin/$prog" -q --plot none --solver explicit bad/interrupt-start.yaml >stdout 2>stderr &
  pid=$!
  if wait_size $pid interrupt-start-calibrated.checkpoint 0; then
    kill -INT $pid; wait $pid; echo $? >status
  else
    wait $pid; echo "no checkpoint: $?" >status
  fi; } )
files=$(cd "$work" && ls | grep -v -e '^stdout$' -e '^stderr$' -e '^status$' -e '^bad$' | tr '\n' ' ')
if [ "$(cat "$work/status")" = 1 ] && [ ! -s "$work/stdout" ] && [ "$files" = "interrupt-start-calibrated.checkpoint " ] &&
   [ "$(cat "$work/stderr")" = "fiber-calibrate: bad/interrupt-start.yaml: interrupted before the starting point was evaluated: no best point yet, no output written" ]; then
  echo "ok $n: $prog bad/interrupt-start.yaml: interrupted before the start, only the checkpoint kept"
else
  echo "FAIL: $prog bad/interrupt-start.yaml: status $(cat "$work/status"), files: $files"
  cat "$work/stderr"
  fails=$((fails + 1))
fi
find "$work" -mindepth 1 -maxdepth 1 ! -name bad -exec rm -rf {} +

# A strength fit's summary names the segment length and the gauge's bonds it holds for
# (its strength cannot be determined here: held, with a note, exit 0).
n=$((n + 1))
( cd "$work" && "$bin/$prog" -q --plot none bad/strength-at.yaml >stdout 2>stderr; echo $? >status )
at_h=$("$bin/tests/yaml_parse" "$work/stdout" strength_calibrated_at.segment_length 2>/dev/null)
at_n=$("$bin/tests/yaml_parse" "$work/stdout" strength_calibrated_at.equally_loaded_bonds 2>/dev/null)
held=$("$bin/tests/yaml_parse" "$work/stdout" parameters.bond.failure.max_stress.held 2>/dev/null)
if [ "$(cat "$work/status")" = 0 ] && [ "$at_h" = 0.002 ] && [ "$at_n" = 8 ] && [ -n "$held" ]; then
  echo "ok $n: $prog bad/strength-at.yaml: strength calibrated at h = $at_h m, $at_n bonds"
else
  echo "FAIL: $prog bad/strength-at.yaml: segment_length '$at_h' (want 0.002), bonds '$at_n' (want 8)"
  cat "$work/stdout" "$work/stderr"
  fails=$((fails + 1))
fi

echo "$((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
