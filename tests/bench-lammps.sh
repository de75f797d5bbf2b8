#!/bin/sh
# bench-lammps.sh: LAMMPS's bond updates per second on the chain tests/bench.c times,
# for make bench.  Usage: bench-lammps.sh LMP NBOND STEPS.  One line in bench's
# format: lammps_chain_N bonds=N threads=1 steps=S seconds=T bond_updates_per_s=R
# cpu_seconds=C bond_updates_per_cpu_s=RC (T: LAMMPS's loop time; C: T times the CPU
# use it reports).  Exit 77 when LMP is empty.
lmp=$1
nbond=${2:-100000}
steps=${3:-500}
srcdir=$(dirname "$0")
if test -z "$lmp"; then
  echo "# LAMMPS skipped: give make bench LMP=/path/to/lmp for bpm/rotational side by side" >&2
  exit 77
fi
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
awk -v nbond="$nbond" -f "$srcdir/lammps/chain.awk" > "$dir/chain.data" || exit 1
OMP_NUM_THREADS=1 "$lmp" -in "$srcdir/lammps/in.chain" -var data "$dir/chain.data" -var steps "$steps" \
  -log "$dir/log" -echo none -screen none
rc=$?
if test $rc -ne 0; then
  echo "bench-lammps.sh: $lmp failed (status $rc)" >&2
  tail -5 "$dir/log" >&2
  exit 1
fi
awk -v nbond="$nbond" '
  /^Loop time of/ { t = $4; s = $9 }
  /% CPU use/ { cpu = $1; sub(/%/, "", cpu) }
  END {
    if (t == "") { print "bench-lammps.sh: no loop time in the log" > "/dev/stderr"; exit 1 }
    c = t * cpu / 100
    printf "lammps_chain_%d bonds=%d threads=1 steps=%d seconds=%.3f bond_updates_per_s=%.4g cpu_seconds=%.3f bond_updates_per_cpu_s=%.4g\n", nbond, nbond, s, t, nbond * s / t, c, nbond * s / c
  }' "$dir/log"
