#!/bin/sh
# Every class of bad input gets its exact message on stderr, exit status 2, nothing on
# stdout and no output file.  Each case: program, expected message, then the arguments
# (files under tests/bad/, run from an empty directory).
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
bin=$(cd "$top_builddir" && pwd)
bad=$(cd "$top_srcdir/tests/bad" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
n=0

. "$top_srcdir/tests/bad-input-check.sh"
check() {
  prog=$1
  expect=$2
  shift 2
  check_bad "$bin/$prog" "$prog" "$expect" "$@"
}
ln -s "$bad" "$work/bad"
ln -s "$(cd "$top_srcdir/experiments" && pwd)" "$work/ex"
good=ex/wheat-straw-bend3pt.yaml

check fiber-bend3pt "fiber-bend3pt: bad/unknown-key.yaml:2:3: fiber.lenght: unknown key; allowed in fiber: length, outer_radius, inner_radius_ratio, section, semi_axis_y, semi_axis_z, inner_semi_axis_y, inner_semi_axis_z, segments, density, youngs_modulus, shear_modulus, poisson_ratio, shape, arc_radius, arc_angle, polyline, outer_radius_end, section_table, nodes, table_unit" bad/unknown-key.yaml
check fiber-bend3pt "fiber-bend3pt: bad/ellipse-with-radius.yaml:5:17: fiber.outer_radius: given with section ellipse; allowed: semi_axis_y, semi_axis_z and the optional inner_semi_axis_y, inner_semi_axis_z for an ellipse" bad/ellipse-with-radius.yaml
check fiber-bend3pt "fiber-bend3pt: bad/circle-with-semi-axis.yaml:3:16: fiber.semi_axis_y: given with section circle; allowed: outer_radius and inner_radius_ratio for a circle, or section: ellipse" bad/circle-with-semi-axis.yaml
check fiber-bend3pt "fiber-bend3pt: bad/ellipse-missing-axis.yaml:2:12: fiber.semi_axis_z: missing, and section 'ellipse' needs it; allowed: a number in (0, 1] m" bad/ellipse-missing-axis.yaml
check fiber-bend3pt "fiber-bend3pt: bad/ellipse-one-inner.yaml:5:22: fiber.inner_semi_axis_z: missing, and inner_semi_axis_y is given; allowed: both inner semi-axes or neither" bad/ellipse-one-inner.yaml
check fiber-bend3pt "fiber-bend3pt: bad/ellipse-inner-too-large.yaml:5:22: fiber.inner_semi_axis_y: 0.002 m is not below semi_axis_y 0.002 m; allowed: inner semi-axes below the outer ones" bad/ellipse-inner-too-large.yaml
check fiber-bend3pt "fiber-bend3pt: bad/section-bad-name.yaml:2:12: fiber.section: 'oval' is not allowed; allowed: circle | ellipse" bad/section-bad-name.yaml
check fiber-bend3pt "fiber-bend3pt: --set 'fiber.semi_axis_y': fiber.semi_axis_y: given with section circle; allowed: outer_radius and inner_radius_ratio for a circle, or section: ellipse" -s fiber.semi_axis_y=1e-3 "$good"
check fiber-bend3pt "fiber-bend3pt: bad/duplicate-key.yaml:3:3: fiber.segments: duplicate key (first at line 2); allowed: each key once" bad/duplicate-key.yaml
check fiber-bend3pt "fiber-bend3pt: bad/not-a-number.yaml:2:11: fiber.length: 'ten centimetres' is not a number; allowed: a number in (0, 1000] m" bad/not-a-number.yaml
check fiber-bend3pt "fiber-bend3pt: bad/out-of-range.yaml:2:13: fiber.segments: '1' is out of range; allowed: an integer in [2, 1000000]" bad/out-of-range.yaml
check fiber-bend3pt "fiber-bend3pt: bad/ratio-open-bound.yaml:2:23: fiber.inner_radius_ratio: '1.0' is out of range; allowed: a number in [0, 1)" bad/ratio-open-bound.yaml
check fiber-bend3pt "fiber-bend3pt: bad/bad-enum.yaml:3:16: bond.failure.criterion: 'tresca' is not allowed; allowed: none | bending_stress | bending_angle | axial_stress | force_stress | von_mises" bad/bad-enum.yaml
check fiber-bend3pt "fiber-bend3pt: bad/bool.yaml:2:20: simulation.force_time_step: 'maybe' is not a boolean; allowed: true | false" bad/bool.yaml
check fiber-bend3pt "fiber-bend3pt: bad/missing-kind.yaml:2:3: test: missing key 'kind'; allowed: bend3pt | tension | torsion | cantilever | bend4pt | compression" bad/missing-kind.yaml
check fiber-bend3pt "fiber-bend3pt: bad/missing-test.yaml:1:1: test: missing block; allowed: a test block with kind bend3pt | tension | torsion | cantilever | bend4pt | compression" bad/missing-test.yaml
check fiber-bend3pt "fiber-bend3pt: bad/syntax.yaml:3:12: not valid YAML: mapping values are not allowed in this context; allowed: key: value lines, blocks indented with spaces (fiberlab-experiment(5))" bad/syntax.yaml
check fiber-bend3pt "fiber-bend3pt: bad/empty.yaml:1:1: the file is empty; allowed: a block with fiber, bond, test and simulation" bad/empty.yaml
check fiber-bend3pt "fiber-bend3pt: bad/top-level-list.yaml:1:1: the top level is a list; allowed: a block with fiber, bond, test and simulation" bad/top-level-list.yaml
check fiber-bend3pt "fiber-bend3pt: bad/section-scalar.yaml:1:8: fiber: is a value; allowed: a block of keys (length, outer_radius, inner_radius_ratio, section, semi_axis_y, semi_axis_z, inner_semi_axis_y, inner_semi_axis_z, segments, density, youngs_modulus, shear_modulus, poisson_ratio, shape, arc_radius, arc_angle, polyline, outer_radius_end, section_table, nodes, table_unit)" bad/section-scalar.yaml
check fiber-bend3pt "fiber-bend3pt: bad/value-mapping.yaml:2:11: fiber.length: is a block of keys; allowed: a single value" bad/value-mapping.yaml
check fiber-bend3pt "fiber-bend3pt: bad/two-documents.yaml:3:1: a second YAML document; allowed: one document per experiment file" bad/two-documents.yaml
check fiber-bend3pt "fiber-bend3pt: bad/shear-and-poisson.yaml:3:18: fiber.poisson_ratio: given with fiber.shear_modulus; allowed: one of the two" bad/shear-and-poisson.yaml
check fiber-bend3pt "fiber-bend3pt: bad/span-too-long.yaml:5:9: test.span: 0.12 m is not shorter than fiber.length 0.1 m; allowed: span < length" bad/span-too-long.yaml
check fiber-cantilever "fiber-cantilever: bad/cantilever-clamp-too-long.yaml:6:17: test.clamp_length: 0.09 m clamps 9 of the 10 segments of 0.01 m; allowed: at least half a segment, and at least 2 segments free: [0.005, 0.085) m" bad/cantilever-clamp-too-long.yaml
check fiber-cantilever "fiber-cantilever: bad/cantilever-bad-control.yaml:5:12: test.control: 'force' is not allowed; allowed: displacement | load" bad/cantilever-bad-control.yaml
check fiber-cantilever "fiber-cantilever: bad/cantilever-span.yaml:5:3: test.span: unknown key for a cantilever test; allowed: kind, gravity, clamp_length, control, max_tip_displacement, max_tip_load, mode, ring_periods, cycles" bad/cantilever-span.yaml
check fiber-bend4pt "fiber-bend4pt: bad/bend4pt-loading-span.yaml:6:17: test.loading_span: 0.1 m is not shorter than test.span 0.1 m; allowed: loading_span < span" bad/bend4pt-loading-span.yaml
check fiber-compression "fiber-compression: bad/compression-imperfection.yaml:5:17: test.imperfection: '0.5' is out of range; allowed: a number in [0, 0.1]" bad/compression-imperfection.yaml
check fiber-tension "fiber-tension: bad/grips-too-long.yaml:5:17: test.gauge_length: 0.09 m plus two grip_length 0.01 m exceeds fiber.length 0.1 m; allowed: gauge_length + 2 grip_length <= length" bad/grips-too-long.yaml
check fiber-bend3pt "fiber-bend3pt: bad/cycles-end.yaml:4:11: test.cycles: the last turning point 0.0015 is not max_displacement 0.002; allowed: a list ending at the maximum" bad/cycles-end.yaml
check fiber-torsion "fiber-torsion: bad/negative-cycle.yaml:4:15: test.cycles: item 2 '-1' is negative; allowed: turning points >= 0" bad/negative-cycle.yaml
check fiber-tension "fiber-tension: bad/key-for-other-test.yaml:3:3: test.span: unknown key for a tension test; allowed: kind, speed, gauge_length, grip_length, max_elongation, compliance, cycles" bad/key-for-other-test.yaml
check fiber-bend3pt "fiber-bend3pt: bad/forbidden-pair.yaml:5:19: bond.failure.post_failure: 'constant_torque' does not go with criterion 'von_mises'; allowed with von_mises: total_breakage | combined_plasticity" bad/forbidden-pair.yaml
check fiber-bend3pt "fiber-bend3pt: bad/missing-max-stress.yaml:3:16: bond.failure.max_stress: missing, and criterion 'axial_stress' needs it; allowed: a number in (0, 1e+13] Pa" bad/missing-max-stress.yaml
check fiber-bend3pt "fiber-bend3pt: bad/bending-angle-180.yaml:4:24: bond.failure.max_bending_angle: '180' is out of range; allowed: a number in [0, 180) deg" bad/bending-angle-180.yaml
check fiber-tension "fiber-tension: bad/negative-variation.yaml:5:25: bond.failure.strength_variation: '-0.1' is out of range; allowed: a number in [0, 10]" bad/negative-variation.yaml
check fiber-bend3pt "fiber-bend3pt: --set 'bond.failure.post_failure': bond.failure.post_failure: 'constant_force' does not go with criterion 'bending_stress'; allowed with bending_stress: total_breakage | constant_torque" -s bond.failure.criterion=bending_stress -s bond.failure.max_stress=1e7 -s bond.failure.post_failure=constant_force "$good"
# Shapes and sections (fiberlab-experiment(5), SHAPE AND SECTIONS): the CSV files'
# messages name the file (resolved against the experiment's directory) and its line.
wp=$(cd "$work" && pwd -P)
check fiber-bend3pt "fiber-bend3pt: $wp/bad/polyline-one-point.csv:2: fiber.polyline: 1 point; allowed: at least 2 points (x, y) of the centreline" bad/polyline-one-point.yaml
check fiber-bend3pt "fiber-bend3pt: $wp/bad/polyline-repeated.csv:4: fiber.polyline: the point (40, 5) mm repeats the one before (line 3); allowed: each point apart from the one before" bad/polyline-repeated.yaml
check fiber-bend3pt "fiber-bend3pt: $wp/bad/polyline-kink.csv:3: fiber.polyline: a kink of 90 deg between segments 12 and 13 (near this point); allowed: at most 45 deg between two segments of 0.005 m (45 deg, and no bend tighter than the outer radius); round the corner with more points, or use fewer, longer segments" bad/polyline-kink.yaml
check fiber-bend3pt "fiber-bend3pt: $wp/bad/section-vanishes.csv:3: fiber.section_table: outer radius 0 mm: the section vanishes; allowed: an outer radius above 0" bad/section-vanishes.yaml
check fiber-bend3pt "fiber-bend3pt: $wp/bad/node-outside.csv:3: fiber.nodes: node 2: position 150 mm; allowed: a position on the fiber, in [0, 120] mm" bad/node-outside.yaml
check fiber-compression "fiber-compression: bad/arc-in-compression.yaml:2:10: fiber.shape: 'arc' in a compression test; allowed in compression: straight (its imperfection is the half-sine bow test.imperfection gives; a curved fiber goes in bend3pt, tension, torsion or a static cantilever)" bad/arc-in-compression.yaml
check fiber-bend4pt "fiber-bend4pt: --set 'fiber.shape': fiber.shape: 'arc' in a bend4pt test; allowed in bend4pt: straight (its two noses are placed on a straight fiber; a curved fiber goes in bend3pt, tension, torsion or a static cantilever)" -s fiber.shape=arc -s fiber.arc_radius=0.3 ex/wheat-straw-bend4pt.yaml
check fiber-cantilever "fiber-cantilever: --set 'fiber.shape': fiber.shape: 'arc' in a cantilever test; allowed in a vibration cantilever: straight (its first mode is a straight beam's; a curved fiber goes in bend3pt, tension, torsion or a static cantilever)" -s test.mode=vibration -s fiber.shape=arc -s fiber.arc_radius=0.2 ex/wheat-straw-cantilever.yaml
check fiber-bend3pt "fiber-bend3pt: bad/arc-two-sizes.yaml:4:14: fiber.shape: arc needs one size, and both are given; allowed: one of arc_radius (m) and arc_angle (deg)" bad/arc-two-sizes.yaml
check fiber-bend3pt "fiber-bend3pt: bad/arc-too-tight.yaml:3:15: fiber.arc_radius: 0.004 m closes a fiber of length 0.12 m on itself (1719 deg); allowed: a radius above length / (2 pi) = 0.0190986 m" bad/arc-too-tight.yaml
check fiber-bend3pt "fiber-bend3pt: bad/taper-von-mises.yaml:5:16: bond.failure.criterion: 'von_mises' with a section varying along the fiber (fiber.outer_radius_end); allowed with a varying section: none | bending_stress | bending_angle" bad/taper-von-mises.yaml
check fiber-bend3pt "fiber-bend3pt: --set 'fiber.arc_angle': fiber.arc_angle: given with shape straight; allowed: arc_radius or arc_angle with shape: arc" -s fiber.arc_angle=30 "$good"

# The stability bound is the engine's to compute, not this test's: the message must
# quote the bound and the automatic step that a valid run of the same file reports.
summary=$(cd "$work" && "$bin/fiber-tension" -q --plot none -o ts bad/time-step-too-large.yaml -s simulation.time_step=auto)
rm -f "$work"/ts.*
bound=$(printf '%.4g' "$(echo "$summary" | sed -n 's/^critical_time_step: //p')")
auto=$(printf '%.4g' "$(echo "$summary" | sed -n 's/^time_step: //p')")
check fiber-tension "fiber-tension: bad/time-step-too-large.yaml:6:14: simulation.time_step: 0.001 s is above the stability bound $bound s; allowed: a step up to $bound s, auto ($auto s with safety 0.2), or force_time_step: true" bad/time-step-too-large.yaml
check fiber-bend3pt "fiber-bend3pt: bad/buckling-min-above-max.yaml:6:16: bond.buckling.min_force: 5 N is above max_force 4 N; allowed: [0, max_force]" bad/buckling-min-above-max.yaml
check fiber-bend3pt "fiber-bend3pt: bad/buckling-missing.yaml:3:11: bond.buckling.min_force: missing, and buckling type 'plastic' needs it; allowed: a number in [0, 1e+12] N" bad/buckling-missing.yaml
check fiber-bend3pt "fiber-bend3pt: bad/buckling-zero-length.yaml:4:20: bond.buckling.sample_length: '0' is out of range; allowed: a number in (0, 1000] m" bad/buckling-zero-length.yaml
check fiber-bend3pt "fiber-bend3pt: bad/not-there.yaml: cannot open: No such file or directory" bad/not-there.yaml
check fiber-tension "fiber-tension: ex/wheat-straw-bend3pt.yaml:22:9: test.kind: 'bend3pt' is not a fiber-tension test; allowed here: tension (use fiber-bend3pt)" "$good"
check fiber-bend3pt "fiber-bend3pt: --set 'fiber.segmnts=3': fiber.segmnts: unknown key; allowed in fiber: length, outer_radius, inner_radius_ratio, section, semi_axis_y, semi_axis_z, inner_semi_axis_y, inner_semi_axis_z, segments, density, youngs_modulus, shear_modulus, poisson_ratio, shape, arc_radius, arc_angle, polyline, outer_radius_end, section_table, nodes, table_unit" -s fiber.segmnts=3 "$good"
check fiber-bend3pt "fiber-bend3pt: --set 'fiber.density=-5': fiber.density: '-5' is out of range; allowed: a number in (0, 100000] kg/m^3" -s fiber.density=-5 "$good"
check fiber-bend3pt "fiber-bend3pt: --set 'fiber.density': not KEY=VALUE; allowed: a dotted key such as fiber.segments=40" -s fiber.density "$good"
check fiber-bend3pt "fiber-bend3pt: --batch '0': allowed: an integer in [1, 1000000]" --batch 0 "$good"
check fiber-bend3pt "fiber-bend3pt: --batch 1000000 with 60 segments holds 6e+07 bodies; allowed: at most 50000000 in one run" --batch 1000000 -s fiber.segments=60 "$good"
check fiber-bend3pt "fiber-bend3pt: --batch 200000 with simulation.output_points 500 makes 1e+08 curve rows; allowed: at most 50000000" --batch 200000 -s simulation.output_points=500 "$good"
check fiber-bend3pt "fiber-bend3pt: --plot 'jpg': allowed: png | svg | none" --plot jpg "$good"
check fiber-bend3pt "fiber-bend3pt: --device gpu: this fiberlab was built without CUDA; allowed: cpu | auto" --device gpu "$good"
check fiber-bend3pt "fiber-bend3pt: --seed '-3': allowed: an integer >= 0" --seed -3 "$good"
check fiber-bend3pt "fiber-bend3pt: --solver 'implicit': allowed: auto | explicit | static" --solver implicit "$good"
check fiber-bend3pt "fiber-bend3pt: --set 'simulation.solver=implicit': simulation.solver: 'implicit' is not allowed; allowed: auto | explicit | static" -s simulation.solver=implicit "$good"
check fiber-bend3pt "fiber-bend3pt: --device gpu with --solver static: the static solver runs on the CPU only; allowed: --solver explicit | auto with --device gpu, or --device cpu | auto with --solver static" --device gpu --solver static "$good"
check fiber-bend3pt "fiber-bend3pt: unknown option '--colour'
Try 'fiber-bend3pt --help'." --colour "$good"
check fiber-bend3pt "fiber-bend3pt: --set 'test.rollers=spinning': test.rollers: 'spinning' is not allowed; allowed: fixed | rotating" -s test.rollers=spinning "$good"
check fiber-bend3pt "fiber-bend3pt: unknown option '-Z'
Try 'fiber-bend3pt --help'." -qZ "$good"
check fiber-bend3pt "fiber-bend3pt: unknown option '--colour'
Try 'fiber-bend3pt --help'." --colour=red "$good"
check fiber-bend3pt "fiber-bend3pt: missing the experiment FILE.yaml
Try 'fiber-bend3pt --help'."

# Limits checked before parsing, on files made here (not shipped): 100 000 nested
# brackets (200 kB, once 44 s of parsing) and a 2 MiB file (sparse, nothing read).
gen=$(mktemp -d)
trap 'rm -rf "$work" "$gen"' EXIT
{ printf 'test:\n  kind: bend3pt\n  cycles: '; printf '%100000s' '' | tr ' ' '['; printf '%100000s\n' '' | tr ' ' ']'; } >"$gen/deep.yaml"
truncate -s 2M "$gen/big.yaml"
check fiber-bend3pt "fiber-bend3pt: $gen/deep.yaml:3:25: nesting deeper than 16 levels; allowed: at most 16 levels of blocks and lists" "$gen/deep.yaml"
check fiber-bend3pt "fiber-bend3pt: $gen/big.yaml: has 2097152 bytes, more than an experiment file may have; allowed: at most 1 MiB (1048576 bytes)" "$gen/big.yaml"

echo "$((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
