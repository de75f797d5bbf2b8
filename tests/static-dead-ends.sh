#!/bin/sh
# The static solver where it found no equilibrium (issue #32), on the glass rod of
# tests/static-dead-ends.yaml, against the explicit engine's curves of the same runs
# (tests/data/dead-end-*.csv: displacement, force and the bonds broken or yielded, made
# once with --solver explicit, 40 s together): every static row within 1 % of the
# explicit peak before an event and 3 % after one (a plateau, or the drop's zero), each
# against the explicit curve interpolated between two rows with no event between them.
# - total breakage on frictionless rollers: the pieces fall off the tools after the
#   break, and the test ends there (separated in the summary), exit 0;
# - a plastic hinge (constant_torque) to 4 mm: the same curve with 100, 300 and 1000
#   rows (the increment does not matter);
# - frictionless and weightless, where the specimen's rigid motions are pinned; 27
#   segments on rotating rollers; 4-point bending on rotating rollers under gravity.
set -u
top_srcdir=${top_srcdir:-.}
bin=$(cd "${top_builddir:-.}" && pwd)
tests=$(cd "$top_srcdir/tests" && pwd)
rod="$tests/static-dead-ends.yaml"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0
fails=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fails=$((fails + 1)); echo "FAIL: $*"; }

# compare NAME STATIC.csv REFERENCE.csv: prints the worst rows, fails beyond tolerance
compare() {
  awk -F, -v name="$1" '
    FNR == 1 { file++ }
    /^#/ { next }
    file == 1 && FNR > 1 && $1 ~ /^[-0-9.]/ { n++; rx[n] = $1; ry[n] = $2; re[n] = $3; if ($2 > peak) peak = $2; next }
    file == 2 && !cols { for (i = 1; i <= NF; i++) { c[$i] = i }; cols = 1; next }
    file == 2 {
      x = $3; y = $(c["force_N"]); ev = $(c["broken_bonds"]) + $(c["yielded_bonds"])
      for (k = 1; k < n && rx[k + 1] < x; k++) ;
      if (k >= n || x < rx[1] || re[k] != re[k + 1]) next
      yr = rx[k + 1] == rx[k] ? ry[k] : ry[k] + (ry[k + 1] - ry[k]) * (x - rx[k]) / (rx[k + 1] - rx[k])
      d = y - yr; if (d < 0) d = -d
      if (ev == 0) { nb++; if (d > wb) { wb = d; xb = x } } else { na++; if (d > wa) { wa = d; xa = x } }
    }
    END {
      printf "%s: %d rows before events, worst %.3f %% of the peak %.6g N (at %.4g mm); %d after, worst %.3f %% (at %.4g mm)\n",
        name, nb, 100 * wb / peak, peak, 1e3 * xb, na, 100 * wa / peak, 1e3 * xa
      exit !(nb >= 10 && wb <= 0.01 * peak && wa <= 0.03 * peak)
    }' "$3" "$2"
}

# run NAME PROGRAM ARGS...: the static run, exit 0
run() {
  n=$1
  p=$2
  shift 2
  "$bin/$p" -q --plot none --solver static -o "$n" "$@" "$rod" >"$n.summary" 2>"$n.err"
  st=$?
  [ $st -eq 0 ] || { bad "$n: exit $st: $(cat "$n.err")"; return 1; }
}

if run break fiber-bend3pt; then
  grep -q '^separated: 1$' break.summary && grep -q '^bonds_broken: 1$' break.summary &&
    ok "total breakage: exit 0, separated in the summary" || bad "total breakage summary: $(cat break.summary)"
  at=$(sed -n 's/^separated_at: //p' break.summary)
  ref=$(awk -F, '$1 !~ /^[0-9]/ { next } $3 > 0 { print x; exit } { x = $1 }' "$tests/data/dead-end-break.csv")
  awk -v a="$at" -v r="$ref" 'BEGIN { exit !(a > 0 && a >= r && a - r < 0.01 * r) }' &&
    ok "the break at $at m, the explicit curve's last row before it at $ref m" || bad "break at $at m, explicit $ref m"
  compare "total breakage" break.csv "$tests/data/dead-end-break.csv" && ok "total breakage: the explicit curve" ||
    bad "total breakage against the explicit curve"
fi

peaks=""
for rows in 100 300 1000; do
  run "hinge$rows" fiber-bend3pt -s bond.failure.post_failure=constant_torque -s test.max_displacement=4e-3 \
    -s simulation.output_points=$rows || continue
  peaks="$peaks $(sed -n 's/^peak_force: //p' "hinge$rows.summary")"
done
compare "plastic hinge" hinge300.csv "$tests/data/dead-end-hinge.csv" && ok "plastic hinge to 4 mm: the explicit curve" ||
  bad "plastic hinge against the explicit curve"
echo "$peaks" | awk '{ for (i = 2; i <= NF; i++) if ($i - $1 > 1e-6 * $1 || $1 - $i > 1e-6 * $1) exit 1; exit NF != 3 }' &&
  ok "plastic hinge: the same peak with 100, 300 and 1000 rows:$peaks N" || bad "plastic hinge peaks by rows:$peaks"

if run free fiber-bend3pt -s test.gravity=0 -s test.max_displacement=1e-3; then
  grep -q '^pinned_motions: 1$' free.summary && ok "frictionless, weightless: its rigid motion pinned" ||
    bad "frictionless, weightless: $(grep pin free.summary)"
  compare "frictionless, weightless" free.csv "$tests/data/dead-end-free.csv" && ok "frictionless, weightless: the explicit curve" ||
    bad "frictionless, weightless against the explicit curve"
fi
if run rot27 fiber-bend3pt -s fiber.segments=27 -s test.rollers=rotating -s test.max_displacement=1e-3; then
  compare "rotating rollers, 27 segments" rot27.csv "$tests/data/dead-end-rot27.csv" &&
    ok "rotating rollers, 27 segments: the explicit curve" || bad "rotating rollers, 27 segments against the explicit curve"
fi
if run rot4 fiber-bend4pt -s test.kind=bend4pt -s test.loading_span=0.02 -s test.rollers=rotating -s test.max_displacement=1e-3; then
  compare "4-point, rotating rollers" rot4.csv "$tests/data/dead-end-rot4.csv" &&
    ok "4-point on rotating rollers under gravity: the explicit curve" || bad "4-point, rotating rollers against the explicit curve"
fi
echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
