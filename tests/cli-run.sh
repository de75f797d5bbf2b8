#!/bin/sh
# The programs end to end: the summary on stdout, the CSV header, the .gp script and
# the plot; --batch statistics; -s overrides; an unstable run stops with exit 1, names
# step, specimen and bond, and writes nothing.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
bin=$(cd "$top_builddir" && pwd)
ex=$(cd "$top_srcdir/experiments" && pwd)
tests=$(cd "$top_srcdir/tests" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0
fails=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fails=$((fails + 1)); echo "FAIL: $*"; }
plot=none
command -v gnuplot >/dev/null 2>&1 && plot=png

# bend3pt, coarse and short so the test is quick
"$bin/fiber-bend3pt" -q --plot $plot -o b -s fiber.segments=24 -s test.max_displacement=1e-3 \
  -s simulation.output_points=50 "$ex/wheat-straw-bend3pt.yaml" >summary 2>err
[ $? -eq 0 ] && ok "bend3pt exit 0" || { bad "bend3pt exit"; cat err; }
grep -q '^test: bend3pt$' summary && grep -q '^span: 0.1$' summary && grep -q '^segments: 24$' summary &&
  grep -q '^kinetic_to_strain_energy: ' summary && grep -q '^peak_force: ' summary &&
  grep -q '^force_at_max_displacement: ' summary && grep -q '^csv: b.csv$' summary &&
  ok "bend3pt summary keys" || { bad "bend3pt summary"; cat summary; }
sed -n 2p b.csv | grep -qx 'specimen,time_s,displacement_m,force_N,support_force_N,kinetic_energy_J,strain_energy_J,broken_bonds,yielded_bonds' &&
  ok "bend3pt CSV header" || bad "bend3pt CSV header: $(sed -n 2p b.csv)"
head -1 b.csv | grep -q '^# fiberlab .*fiber-bend3pt' && ok "CSV comment line" || bad "CSV comment: $(head -1 b.csv)"
[ "$(grep -c '^0,' b.csv)" -eq 50 ] && ok "50 rows" || bad "rows: $(grep -c '^0,' b.csv)"
[ -s b.gp ] && ok "gp script" || bad "no gp script"
if [ $plot = png ]; then
  [ -s b.png ] && grep -q '^plot: b.png$' summary && ok "png plot" || bad "no png plot"
fi
ls | grep -q tmp && bad "temporary files left: $(ls)" || ok "no temporary files"

# the span simulated is the one asked for; a gauge the grips cannot hold exactly (they
# hold whole segments) is reported with the segment count that would make it exact
"$bin/fiber-bend3pt" -q --plot none -o sp -s fiber.segments=26 -s fiber.length=0.12 -s test.max_displacement=2e-4 \
  -s simulation.output_points=20 "$ex/wheat-straw-bend3pt.yaml" >summary 2>err
grep -q '^span: 0.1$' summary && ok "26 segments on 0.12 m: span 0.1 exactly" || { bad "span: $(grep span summary)"; cat err; }
"$bin/fiber-tension" -q --plot none -o ga -s test.gauge_length=0.0127 "$ex/glass-fibre-tension.yaml" >summary 2>err
want="fiber-tension: warning: --set 'test.gauge_length': test.gauge_length 0.0127 m is simulated as 0.0125 m (-1.575 %): the grips hold whole segments of 0.0005 m; fiber.segments: 300 would give it exactly"
[ "$(cat err)" = "$want" ] && grep -q '^gauge_length: 0.0125$' summary && ok "gauge rounded to whole segments: warned" ||
  { bad "gauge warning"; cat err; }
"$bin/fiber-tension" -q --plot none -o gb "$ex/glass-fibre-tension.yaml" >summary 2>err
[ ! -s err ] && ok "an exact gauge draws no warning" || { bad "warning for an exact gauge"; cat err; }
# the static solver: the same summary, which says so and what it did
"$bin/fiber-bend3pt" -q --plot none -o bs --solver static -s fiber.segments=24 -s test.max_displacement=1e-3 \
  -s simulation.output_points=50 "$ex/wheat-straw-bend3pt.yaml" >summary 2>err
[ $? -eq 0 ] && ok "bend3pt --solver static exit 0" || { bad "bend3pt --solver static exit"; cat err; }
grep -q '^solver: static$' summary && grep -q '^increments: [1-9]' summary && grep -q '^newton_iterations: ' summary &&
  grep -q '^cutbacks: ' summary && grep -q '^events: 0$' summary && grep -q '^max_residual_force: ' summary &&
  grep -q '^peak_force: ' summary && ok "static summary keys" || { bad "static summary"; cat summary; }
[ "$(grep -c '^0,' bs.csv)" -eq 50 ] && ok "static: 50 rows" || bad "static rows: $(grep -c '^0,' bs.csv)"
"$bin/fiber-bend3pt" -q --plot none -o be --solver explicit -s fiber.segments=24 -s test.max_displacement=1e-3 \
  -s simulation.output_points=50 "$ex/wheat-straw-bend3pt.yaml" >summary 2>err
grep -q '^solver: explicit$' summary && ok "explicit summary says so" || bad "explicit summary: $(grep solver summary)"

# a specimen that collapses after its bond buckles: the static solver finds no rest
# after the snap, exits 1 naming it and keeps the rows so far; auto runs the explicit
# engine instead and says why
col="$tests/static-collapse.yaml"
"$bin/fiber-bend3pt" -q --plot none -o cs --solver static "$col" >summary 2>err
st=$?
[ $st -eq 1 ] && grep -q 'static solver: no equilibrium found at path position .*the specimen did not come to rest in a relaxation of' err &&
  [ -s cs.partial.csv ] && [ ! -e cs.csv ] && ok "static: a collapse ends the run, exit 1, partial rows kept" ||
  { bad "static collapse: exit $st"; cat err; }
"$bin/fiber-bend3pt" -q --plot none -o ca "$col" >summary 2>err
st=$?
[ $st -eq 0 ] && grep -q '^solver: explicit$' summary && grep -q "^static_fallback: 'static solver: no equilibrium found at path position .*did not come to rest" summary &&
  [ -s ca.csv ] && ok "auto: the explicit engine after the static solver's collapse, static_fallback in the summary" ||
  { bad "auto after a collapse: exit $st"; cat summary err; }
"$bin/fiber-bend3pt" -q --plot none -o cn -s bond.buckling.min_force=2.5 -s bond.buckling.slope_after_min_force=-100 \
  -s bond.buckling.displacement_at_min_force=4e-3 -s bond.buckling.max_force=4 "$col" >summary 2>err
grep -q '^solver: static$' summary && ! grep -q '^static_fallback' summary && ok "auto: static where the envelope holds" ||
  { bad "auto, an envelope that holds: $(grep solver summary)"; cat err; }

# the summary is YAML and nothing else: every line "key: value"
grep -qv '^[a-z_]*: ' summary && bad "summary has non-YAML lines" || ok "summary is key: value lines"

# tension with --batch 3: statistics keys, every specimen in the CSV
"$bin/fiber-tension" -q --plot none -o t --batch 3 -s simulation.output_points=20 \
  "$ex/glass-fibre-tension.yaml" >summary 2>err
[ $? -eq 0 ] && ok "tension --batch 3" || { bad "tension exit"; cat err; }
for k in peak_force_mean peak_force_std peak_force_min peak_force_max elongation_at_peak_mean; do
  grep -q "^$k: " summary || bad "missing $k"
done
grep -q '^specimens: 3$' summary && ok "specimens: 3" || bad "specimens"
[ "$(grep -c '^2,' t.csv)" -eq 20 ] && ok "specimen 2 rows" || bad "specimen 2 rows"
sed -n 2p t.csv | grep -qx 'specimen,time_s,elongation_m,force_N,kinetic_energy_J,strain_energy_J,broken_bonds,yielded_bonds' &&
  ok "tension CSV header" || bad "tension CSV header"
[ -e t.png ] && bad "plot written with --plot none" || ok "--plot none writes no plot"

# torsion: header and a positive peak torque
"$bin/fiber-torsion" -q --plot none -o r -s simulation.output_points=20 "$ex/aluminium-tube-torsion.yaml" >summary 2>err
[ $? -eq 0 ] && ok "torsion exit 0" || { bad "torsion exit"; cat err; }
sed -n 2p r.csv | grep -qx 'specimen,time_s,twist_rad,torque_Nm,kinetic_energy_J,strain_energy_J,broken_bonds,yielded_bonds' &&
  ok "torsion CSV header" || bad "torsion CSV header"
grep -q '^peak_torque: [1-9]' summary && ok "torsion peak torque > 0" || bad "torsion peak: $(grep peak summary)"

# instability: a forced time step 3 times the bound blows up; exit 1, no files, message
"$bin/fiber-tension" -q --plot none -o u --solver explicit -s simulation.force_time_step=true \
  -s simulation.time_step=1.2e-6 -s fiber.segments=12 \
  "$ex/glass-fibre-tension.yaml" >out 2>err
st=$?
[ $st -eq 1 ] && ok "unstable run exits 1" || bad "unstable run exit $st: $(cat err)"
grep -q 'unstable at step [0-9]*.*specimen 0, bond [0-9]*' err && ok "message names step, specimen, bond" ||
  bad "instability message: $(cat err)"
[ -s out ] && bad "stdout not empty on failure" || ok "nothing on stdout"
[ -e u.csv ] || [ -e u.gp ] && bad "output written by a failed run" || ok "no output from a failed run"
[ -s u.partial.csv ] && grep -q 'rows recorded so far are in u.partial.csv' err && ok "partial curve kept as u.partial.csv" ||
  bad "partial curve: $(ls; cat err)"

# a weightless chain of 25 stiff segments (a segment's centre under the nose) on
# frictionless rollers, held by contact alone, slides along its axis and rolls about it
# freely: Newton stalled near 35 um (issue #12) until the static solver pinned those
# motions (fiberlab-model(7), THE STATIC SOLVER, Tangent).  It runs to the end, says so
# in the summary, and its pins take no load.
"$bin/fiber-bend3pt" -q --plot none -o ne --solver static -s fiber.outer_radius=1e-3 -s fiber.inner_radius_ratio=0 \
  -s fiber.segments=25 -s fiber.density=1000 -s fiber.youngs_modulus=5e9 -s test.support_radius=2e-3 \
  -s test.nose_radius=2e-3 -s test.friction=0 -s test.gravity=0 -s test.max_displacement=2e-4 \
  -s simulation.output_points=200 -s bond.damping=3e-7 "$ex/wheat-straw-bend3pt.yaml" >out 2>err
st=$?
[ $st -eq 0 ] && grep -q '^pinned_motions: [1-3]$' out && [ -s ne.csv ] &&
  awk '/^max_pin_force:/ { exit !($2 < 1e-6) }' out && ok "static: rigid motions pinned, exit 0, pins unloaded" ||
  bad "static on frictionless rollers, weightless: exit $st: $(cat out err)"

# the static solver with no equilibrium (the collapse above): exit 1, the message names
# increment, load, specimen and body, nothing on stdout, the rows so far kept
"$bin/fiber-bend3pt" -q --plot none -o ne2 --solver static "$col" >out 2>err
grep -q 'static solver: no equilibrium found at path position .* (increment [0-9]*, .*), load .* N, specimen 0, body [0-9]* (largest residual)' err &&
  ok "message names increment, load, specimen, body" || bad "static no-equilibrium message: $(cat err)"
[ -s out ] && bad "stdout not empty on a failed static run" || ok "nothing on stdout (static)"
[ -e ne2.csv ] || [ -e ne2.gp ] && bad "output written by a failed static run" || ok "no output from a failed static run"
[ -s ne2.partial.csv ] && grep -q 'rows recorded so far are in ne2.partial.csv' err &&
  ok "static partial curve kept as ne2.partial.csv" || bad "static partial curve: $(ls; cat err)"

# what a file may ask for: a run of more than 1e10 steps is refused before it starts
"$bin/fiber-tension" -q --plot none -o big -s test.speed=1e-12 "$ex/glass-fibre-tension.yaml" >/dev/null 2>err
st=$?
[ $st -eq 2 ] && grep -q 'time steps of .*allowed: at most 1e+10' err && ok "step limit: exit 2" ||
  bad "step limit: $st $(cat err)"


# an earlier good output survives a failed run under the same prefix
cp t.csv keep.csv
"$bin/fiber-tension" -q --plot none -o t --solver explicit -s simulation.force_time_step=true -s simulation.time_step=1.2e-6 \
  -s fiber.segments=12 "$ex/glass-fibre-tension.yaml" \
  >/dev/null 2>&1
cmp -s t.csv keep.csv && ok "previous output untouched" || bad "previous output replaced"

# strength variation: the same seed gives bit-identical CSVs, for 1 and 2 threads;
# another seed gives other specimens
run_batch() {
  prefix=$1
  shift
  "$bin/fiber-tension" -q --plot none -o "$prefix" --batch 6 "$@" -s fiber.segments=20 -s simulation.output_points=30 \
    "$ex/glass-fibre-tension-break.yaml" >/dev/null 2>&1
}
run_batch s1 --threads 1 --seed 11 && run_batch s2 --threads 2 --seed 11 && run_batch s3 --threads 1 --seed 11 &&
  run_batch s4 --threads 1 --seed 12 || bad "batch runs failed"
tail -n +2 s1.csv >a; tail -n +2 s2.csv >b; tail -n +2 s3.csv >c3; tail -n +2 s4.csv >d
cmp -s a c3 && ok "same seed, same CSV" || bad "same seed gave different CSVs"
cmp -s a b && ok "1 and 2 threads, same CSV" || bad "1 and 2 threads gave different CSVs"
cmp -s a d && bad "another seed gave the same CSV" || ok "another seed, other specimens"

# warnings: valid input runs (exit 0) and says what looks wrong, naming file, line, key
cat >w.yaml <<'YAML'
fiber: {segments: 23}
bond:
  buckling: {type: none, max_force: 3}
test: {kind: bend3pt, max_displacement: 1.0e-4}
simulation: {output_points: 10}
YAML
"$bin/fiber-bend3pt" -q --plot none -o w w.yaml >/dev/null 2>err && ok "warnings: exit 0" || bad "warnings: exit"
grep -qx 'fiber-bend3pt: warning: w.yaml:3:20: bond.buckling: type is none, so the buckling numbers given are ignored' err &&
  ok "warning: buckling numbers ignored" || bad "warning text: $(cat err)"
grep -q '^fiber-bend3pt: warning: w.yaml:1:19: fiber.segments 23 is odd' err && ok "warning: odd segments" ||
  bad "odd warning: $(cat err)"
cat >w2.yaml <<'YAML'
bond:
  buckling: {type: reversible, sample_length: 0.017, max_force: 30, min_force: 20, displacement_at_min_force: 3.0e-3}
test: {kind: bend3pt, max_displacement: 1.0e-4}
simulation: {output_points: 10}
YAML
"$bin/fiber-bend3pt" -q --plot none -o w2 w2.yaml >/dev/null 2>err
grep -qx 'fiber-bend3pt: warning: w2.yaml:2:47: bond.buckling.sample_length 0.017 m differs from test.span 0.1 m: the envelope comes from a test of another span' err &&
  ok "warning: sample length against span" || bad "span warning: $(cat err)"

# --help and --version on stdout, exit 0
"$bin/fiber-bend3pt" --help | grep -q '^Usage: fiber-bend3pt' && ok "--help" || bad "--help"
"$bin/fiber-torsion" --version | grep -q '^fiber-torsion (fiberlab) ' && ok "--version" || bad "--version"
# GNU's closing lines: the licence in --version, where to report bugs in --help
for p in fiber-bend3pt fiber-tension fiber-torsion fiber-calibrate; do
  "$bin/$p" --version | grep -q '^License GPLv3+: GNU GPL version 3 or later' && ok "$p --version: licence" ||
    bad "$p --version: no licence line"
  "$bin/$p" --help | tail -n 1 | grep -q '^Report bugs to: ' && ok "$p --help: bug-report line" ||
    bad "$p --help: no bug-report line"
done

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
