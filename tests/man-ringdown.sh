#!/bin/sh
# The man pages say what the programs do for a ring-down: fiber-calibrate(1) names the
# program of every test kind a fit file may give; fiber-cantilever(1) lists every
# column of the CSV a vibration run writes, as it writes them; fiberlab-model(7) gives
# the first mode's damping relations and the conversions to LAMMPS and LIGGGHTS-FF;
# fiberlab-fit(5) lists a ring-down's time units.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
man=$(cd "$top_srcdir/man" && pwd)
bin=$(cd "$top_builddir" && pwd)
experiments=$(cd "$top_srcdir/experiments" && pwd)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
n=0
fails=0
check() { # check DESCRIPTION STATUS
  n=$((n + 1))
  if [ "$2" -eq 0 ]; then echo "ok $n: $1"; else echo "FAIL $n: $1"; fails=$((fails + 1)); fi
}

# the test kinds of a fit file, from the loader's table
kinds=$(sed -n 's/^static const char \*const test_names\[\] = {\(.*\), NULL};/\1/p' "$top_srcdir/src/yaml_fit.c" |
  tr -d '" ' | tr ',' ' ')
[ -n "$kinds" ]
check "the fit loader's test kinds read: $kinds" $?
for k in $kinds; do
  grep -qx "\.Xr fiber-$k 1 ,\{0,1\}" "$man/fiber-calibrate.1"
  check "fiber-calibrate(1) names fiber-$k(1)" $?
  sed -n '/^\.Sh DESCRIPTION/,/^\.Sh /p' "$man/fiber-calibrate.1" | grep -q "^\.Xr fiber-$k 1"
  check "fiber-calibrate(1) DESCRIPTION runs the tests of fiber-$k(1)" $?
done

# the vibration CSV's header, written by a short ring-down, in fiber-cantilever(1), each
# column explained there or in fiber-tension(1), whose columns it shares
(cd "$root" && "$bin/fiber-cantilever" -q --plot none -o r -s test.ring_periods=3 \
  "$experiments/wheat-straw-vibration.yaml" > /dev/null 2>&1)
check "a short ring-down runs" $?
header=$(sed -n '2p' "$root/r.csv" 2>/dev/null)
[ -n "$header" ] && grep -qxF "$header" "$man/fiber-cantilever.1"
check "fiber-cantilever(1) shows the vibration CSV's header '$header'" $?
for c in $(echo "$header" | tr ',' ' '); do
  cat "$man/fiber-cantilever.1" "$man/fiber-tension.1" | grep -q "^\.Ar $c"
  check "fiber-cantilever(1) explains column $c" $?
done

# the damping relations and the conversions
for r in 'zeta_k = a_damp omega_k / 2' 'b_k    = zeta_k omega_k = a_damp omega_k^2 / 2' \
  'delta  = b_k / f_d' 'a_damp = 2 zeta / omega = 2 b / omega^2' 'beta = a_damp sqrt(K / M) / 2' \
  '.Ss The first mode'"'"'s damping' '.Cm bond_style bpm/rotational' 'Lk https://docs.lammps.org/bond_bpm_rotational.html'; do
  grep -qF "$r" "$man/fiberlab-model.7"
  check "fiberlab-model(7) has '$r'" $?
done
sed -n '/A ring-down.s abscissa is a time/,/^\.It/p' "$man/fiberlab-fit.5" | grep -q '^\.Cm ms'
check "fiberlab-fit(5) lists a ring-down's time units" $?
[ "$fails" -eq 0 ]
