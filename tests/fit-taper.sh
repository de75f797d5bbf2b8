#!/bin/sh
# The ready fit on a tapered specimen (fits/straw-taper-cantilever.yaml): a hollow straw
# whose outer radius falls linearly from R0 at the clamp to R1 at the tip, bent as a
# static cantilever to a large deflection, its bonds turning plastic at the clamp.  Its
# curve (fits/data/straw-taper-cantilever-synthetic.csv) was made by fiberlab at
# a_rot = 1.15 and max_stress = 25 MPa, and the fit starts from 0.7 and 15 MPa.
#
# 1. The fit must converge and recover both to 1e-4 (relative).
# 2. The same curve fitted with the taper ignored (fits/straw-taper-cantilever-straight
#    .yaml: a uniform straw of the mean radius Rm = (R0 + R1) / 2) must land where beam
#    theory puts it, and so far from the truth:
#    - Stiffness.  By the unit-load method the tip compliance of the chain, bending from
#      the clamp's face x0 = nc h to the free end L, is
#        C = int_{x0}^{L} (L - x)^2 / (a_rot E I(x)) dx + int_{x0}^{L} dx / (G A(x))
#      (as in tests/check_shape.c, where the chain matches it to 1 %; a_rot scales the
#      bending term only).  The uniform fit's a_s matches the taper's compliance at the
#      truth a: a_s = Cb_u / (Cb_t / a + Cs_t - Cs_u), with Cb, Cs the two integrals at
#      a_rot = 1 of the taper (t) and of the uniform straw (u).  It must be within 1 %
#      of that (the chain's agreement with the integral; the curve beyond the small
#      deflections is the same elastica for both), and a_s / a - 1 must exceed the
#      predicted offset less that 1 %.
#    - Strength.  Both straws yield at the bond next to the clamp under the same moment;
#      the tapered one's limit there is that of its weaker side, the first free segment
#      (centre (nc + 1/2) h, radius R4), whose section modulus is (R4 / Rm)^3 times the
#      uniform one's (the hollow ratio is the same), so the uniform fit's max_stress is
#      (R4 / Rm)^3 times the truth, within 1 %.
# Simpson's rule on 4000 intervals evaluates the integrals; the geometry is read from
# the two experiment files, which must differ in their section only.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
fits=$(cd "$top_srcdir/fits" && pwd)
yp="$top_builddir/tests/yaml_parse"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
a_true=1.15
s_true=2.5e7
fails=0
for f in straw-taper-cantilever straw-taper-cantilever-straight; do
  "$top_builddir/fiber-calibrate" -q --plot none -o "$f" "$fits/$f.yaml" >"$f-summary.yaml" 2>"$f-err.txt"
  st=$?
  if [ "$st" != 0 ] || [ "$("$yp" "$f-summary.yaml" status)" != converged ] || [ ! -s "$f.yaml" ]; then
    echo "FAIL: $f: exit $st, or not converged, or no calibrated experiment"
    cat "$f-err.txt" "$f-summary.yaml"
    exit 1
  fi
done
at=$("$yp" straw-taper-cantilever.yaml bond.torque_stiffness_scale)
stt=$("$yp" straw-taper-cantilever.yaml bond.failure.max_stress)
as=$("$yp" straw-taper-cantilever-straight.yaml bond.torque_stiffness_scale)
ss=$("$yp" straw-taper-cantilever-straight.yaml bond.failure.max_stress)
near() { # name got want relative-tolerance
  awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { exit !(g != "" && (g - w) / w <= t && (w - g) / w <= t) }' ||
    { echo "FAIL: $1: $2, want $3 within $4 (relative)"; fails=$((fails + 1)); }
}
# a cantilever's strength is calibrated at one bond, the one at the clamp
elb=$("$yp" straw-taper-cantilever-summary.yaml strength_calibrated_at.equally_loaded_bonds)
[ "$elb" = 1 ] || { echo "FAIL: strength_calibrated_at.equally_loaded_bonds $elb, want 1 (the clamp's bond)"; fails=$((fails + 1)); }
near "tapered fit, a_rot" "$at" "$a_true" 1e-4
near "tapered fit, max_stress" "$stt" "$s_true" 1e-4
# the prediction for the straight fit, from the experiments' geometry
g() { "$yp" "$fits/$1-experiment.yaml" "$2"; }
e=straw-taper-cantilever
# the straight experiment must differ from the tapered one by its section only
for k in fiber.length fiber.inner_radius_ratio fiber.segments fiber.density fiber.youngs_modulus fiber.poisson_ratio \
  bond.failure.criterion bond.failure.post_failure test.kind test.clamp_length test.control test.max_tip_displacement \
  simulation.solver simulation.output_points; do
  [ "$(g $e $k)" = "$(g $e-straight $k)" ] ||
    { echo "FAIL: $k differs: $(g $e $k) (taper), $(g $e-straight $k) (straight)"; fails=$((fails + 1)); }
done
pred=$(awk -v L="$(g $e fiber.length)" -v R0="$(g $e fiber.outer_radius)" -v R1="$(g $e fiber.outer_radius_end)" \
  -v Ru="$(g $e-straight fiber.outer_radius)" -v k="$(g $e fiber.inner_radius_ratio)" -v n="$(g $e fiber.segments)" \
  -v E="$(g $e fiber.youngs_modulus)" -v nu="$(g $e fiber.poisson_ratio)" -v lc="$(g $e test.clamp_length)" -v a="$a_true" '
  function integral(r0, r1, bend,   m, i, x, r, dx, s, w) {
    m = 4000; dx = (L - x0) / m; s = 0
    for (i = 0; i <= m; i++) {
      x = x0 + i * dx; r = r0 + (r1 - r0) * x / L
      w = (i == 0 || i == m) ? 1 : (i % 2 ? 4 : 2)
      s += w * (bend ? (L - x) ^ 2 / (E * pi / 4 * r ^ 4 * (1 - k ^ 4)) : 1 / (G * pi * r * r * (1 - k * k)))
    }
    return s * dx / 3
  }
  BEGIN {
    pi = atan2(0, -1); G = E / (2 * (1 + nu)); h = L / n; nc = int(lc / h + 0.5); x0 = nc * h
    if (Ru / ((R0 + R1) / 2) - 1 > 1e-12 || (R0 + R1) / 2 / Ru - 1 > 1e-12) { print "the straight experiment is not of the mean radius" > "/dev/stderr"; exit 1 }
    as = integral(Ru, Ru, 1) / (integral(R0, R1, 1) / a + integral(R0, R1, 0) - integral(Ru, Ru, 0))
    r4 = R0 + (R1 - R0) * (nc + 0.5) * h / L
    printf "%.10g %.10g", as, (r4 / Ru) ^ 3
  }') || { echo "FAIL: no prediction"; exit 1; }
as_pred=${pred% *}
ratio=${pred#* }
ss_pred=$(awk -v r="$ratio" -v s="$s_true" 'BEGIN { printf "%.10g", r * s }')
echo "tapered fit: a_rot $at, max_stress $stt (true $a_true, $s_true)"
echo "straight fit of the mean radius: a_rot $as (beam theory $as_pred), max_stress $ss (section moduli $ss_pred)"
near "straight fit, a_rot against the integrals" "$as" "$as_pred" 0.01
near "straight fit, max_stress against the section moduli" "$ss" "$ss_pred" 0.01
awk -v g="$as" -v a="$a_true" -v p="$as_pred" 'BEGIN { exit !(g / a - 1 > 0.99 * p / a - 1) }' ||
  { echo "FAIL: the straight fit's a_rot $as is not off the truth by the taper's $as_pred less 1 %"; fails=$((fails + 1)); }
[ "$fails" = 0 ] && echo "ok: the taper's fit recovers the truth; ignoring the taper moves a_rot by" \
  "$(awk -v g="$as" -v a="$a_true" 'BEGIN { printf "%+.1f %%", 100 * (g / a - 1) }'), max_stress by" \
  "$(awk -v g="$ss" -v s="$s_true" 'BEGIN { printf "%+.1f %%", 100 * (g / s - 1) }')"
[ "$fails" = 0 ]
