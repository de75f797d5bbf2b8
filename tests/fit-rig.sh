#!/bin/sh
# The rig fitted back (fiberlab-fit(5), fiberlab-model(7), Tool contacts): a maize-like
# root (solid round, R 2.4 mm, E 56.4 MPa, span 17 mm) in 3-point bending on linear
# tools of 1e5 N/m, on a machine of compliance 2e-5 m/N, with a_rot 1.2, pressed 2 mm
# (3.5 mm of crosshead), simulated by fiber-bend3pt on the quasi-static solver; then
#  1. a_rot and test.compliance freed (the tools' spring known): each back within 1 %;
#  2. a_rot and test.contact_stiffness freed (the compliance known): each within 1 %;
#  3. a fit that frees test.contact_stiffness on tools that are not linear is refused;
#  4. on Hertz's tools with test.contact_modulus 2e7 Pa (E / 2.8) and the same
#     machine, a_rot and test.contact_modulus freed (the compliance known): each
#     within 1 % (the indentation's F^(2/3) tells the contact from the beam); the
#     modulus from start: auto, which lands within a factor 1.5 of it from the middle
#     of its bounds (7.1e8 Pa): the start whose simulated start bends as the curve's;
#  5. a fit that frees test.contact_modulus on linear tools is refused.
# (The tools' springs and the machine's compliance each add a compliance in proportion
# to the load, so one curve cannot tell them apart: a fit frees one of the two.)
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
cd "$work" || exit 1
cat >exp.yaml <<'EOF'
fiber:
  length: 0.0255
  outer_radius: 2.4e-3
  segments: 30
  density: 1000
  youngs_modulus: 5.64e7
  poisson_ratio: 0.3
bond:
  damping: 1.0e-6
test:
  kind: bend3pt
  span: 0.017
  support_radius: 3.0e-3
  nose_radius: 3.0e-3
  friction: 0.3
  contact: linear
  contact_stiffness: 1.0e5
  max_displacement: 2.0e-3
simulation:
  solver: static
  output_points: 121
EOF
sed 's/^  contact_stiffness: 1.0e5$/&\n  compliance: 2.0e-5/' exp.yaml >exp-c.yaml
"$top_builddir/fiber-bend3pt" -q --plot none -o truth exp-c.yaml -s bond.torque_stiffness_scale=1.2 \
  -s simulation.output_points=61 >truth.txt || { echo "FAIL: the synthetic curve"; exit 1; }
awk -F, '/^#/ { next } !h { h = 1; print "x_m,y_N"; next } { print $3 "," $4 }' truth.csv >curve.csv
fit() { # NAME EXPERIMENT KEY START MIN MAX: a_rot and KEY freed
  cat >"$1.yaml" <<EOF
experiment: $2
data:
  - test: bend3pt
    file: curve.csv
    columns: { x: x_m, y: y_N }
free:
  bond.torque_stiffness_scale: { start: 0.8, min: 0.1, max: 10 }
  $3: { start: $4, min: $5, max: $6 }
EOF
  "$top_builddir/fiber-calibrate" -q --plot none -o "$1-out" "$1.yaml" >"$1.sum" 2>"$1.err"
}
value() { sed -n "s/^  $2: {value: \\([^,]*\\),.*/\\1/p" "$1.sum"; }
within() { # NAME KEY TRUE: the fitted value within 1 % of the truth
  v=$(value "$1" "$2")
  if awk -v v="$v" -v t="$3" 'BEGIN { e = v / t - 1; exit !(v != "" && e < 0.01 && e > -0.01) }'; then
    echo "ok: $1: $2 $v (true $3)"
  else
    echo "FAIL: $1: $2 '$v', true $3"
    cat "$1.sum" "$1.err"
    fails=$((fails + 1))
  fi
}
fails=0
fit compliance exp.yaml test.compliance 5.0e-6 1.0e-7 1.0e-3
within compliance bond.torque_stiffness_scale 1.2
within compliance test.compliance 2.0e-5
fit stiffness exp-c.yaml test.contact_stiffness 3.0e5 1.0e3 1.0e8
within stiffness bond.torque_stiffness_scale 1.2
within stiffness test.contact_stiffness 1.0e5
sed '/^  contact/d' exp-c.yaml >exp-h.yaml
if fit hertz exp-h.yaml test.contact_stiffness 3.0e5 1.0e3 1.0e8 || ! grep -q 'are not linear (test.contact)' hertz.err
then
  echo "FAIL: test.contact_stiffness freed on Hertz's tools was not refused"
  cat hertz.err
  fails=$((fails + 1))
else
  echo "ok: test.contact_stiffness freed on Hertz's tools is refused"
fi
sed 's/^  contact: linear$/  contact_modulus: 2.0e7/; /^  contact_stiffness/d' exp-c.yaml >exp-m.yaml
"$top_builddir/fiber-bend3pt" -q --plot none -o truth-m exp-m.yaml -s bond.torque_stiffness_scale=1.2 \
  -s simulation.output_points=61 >truth-m.txt || { echo "FAIL: the synthetic Hertz curve"; exit 1; }
awk -F, '/^#/ { next } !h { h = 1; print "x_m,y_N"; next } { print $3 "," $4 }' truth-m.csv >curve.csv
fit modulus exp-m.yaml test.contact_modulus auto 5.0e6 1.0e11
within modulus bond.torque_stiffness_scale 1.2
within modulus test.contact_modulus 2.0e7
start=$(sed -n 's/^  test.contact_modulus: {.*start: \([^}]*\)}.*/\1/p' modulus.sum)
if awk -v s="$start" 'BEGIN { exit !(s != "" && s > 2.0e7 / 1.5 && s < 2.0e7 * 1.5) }'; then
  echo "ok: modulus: test.contact_modulus starts at $start (true 2.0e7)"
else
  echo "FAIL: modulus: test.contact_modulus starts at '$start', not within 1.5 times 2.0e7"
  fails=$((fails + 1))
fi
if fit linear exp-c.yaml test.contact_modulus 5.0e7 5.0e6 1.0e10 ||
  ! grep -q "do not indent by Hertz's law (test.contact)" linear.err
then
  echo "FAIL: test.contact_modulus freed on linear tools was not refused"
  cat linear.err
  fails=$((fails + 1))
else
  echo "ok: test.contact_modulus freed on linear tools is refused"
fi
[ "$fails" = 0 ]
