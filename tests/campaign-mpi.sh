#!/bin/sh
# A campaign spread over two MPI ranks (mpirun -n 2, oversubscribed) writes the same
# reports as the serial run, byte for byte, both ranks fitting specimens (rows 1, 3 on
# rank 0, rows 2, 4 on rank 1).  Skipped (77) unless fiberlab was configured with
# --with-mpi and mpirun was found.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
if ! grep -q '^#define HAVE_MPI 1' "$top_builddir/config.h" 2>/dev/null || [ -z "${MPIRUN:-}" ]; then
  echo "fiberlab was built without MPI (./configure --with-mpi): skipped"
  exit 77
fi
fixtures=$(cd "$top_srcdir/tests/campaign" && pwd)
. "$top_srcdir/tests/campaign-gen.sh"
bin=$top_builddir/fiber-calibrate
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
gen_population 4 5 || { echo "FAIL: the population could not be generated"; exit 1; }
mkdir serial mpi
(cd serial && "$bin" -q --plot none -o pop ../campaign.yaml >out.yaml 2>err.txt)
st=$?
root=
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
(cd mpi && "$MPIRUN" $root --oversubscribe -n 2 "$bin" --progress --plot none -o pop ../campaign.yaml >out.yaml 2>err.txt)
mt=$?
fails=0
if [ "$st" != 0 ] || [ "$mt" != 0 ]; then
  echo "FAIL: serial exit $st, mpirun -n 2 exit $mt"
  cat serial/err.txt mpi/err.txt
  exit 1
fi
for f in serial/pop-*; do
  if [ "${f%-specimens.csv}" != "$f" ]; then
    tail -n +2 "$f" >a.tmp && tail -n +2 "mpi/${f#serial/}" >b.tmp && cmp -s a.tmp b.tmp
  else
    cmp -s "$f" "mpi/${f#serial/}"
  fi || { echo "FAIL: ${f#serial/} differs between the serial and the two-rank campaign"; fails=$((fails + 1)); }
done
[ "$(ls mpi | grep -c '^pop-')" = "$(ls serial | grep -c '^pop-')" ] || { echo "FAIL: other files"; fails=$((fails + 1)); }
grep -q 'specimen 2/4 rod002 (rank 1 of 2)' mpi/err.txt && grep -q 'specimen 3/4 rod003 (rank 0 of 2)' mpi/err.txt ||
  { echo "FAIL: the rows were not spread over the ranks"; cat mpi/err.txt; fails=$((fails + 1)); }
[ ! -e mpi/pop.checkpoint.d ] || { echo "FAIL: checkpoints left"; fails=$((fails + 1)); }
[ "$fails" = 0 ] && echo "ok: two ranks, the serial reports byte for byte"
[ "$fails" = 0 ]
