#!/bin/sh
# Runs every experiment of experiments/ (on auto, explicit and static), every fit and
# campaign of fits/, and the validation table, into one folder, so that two builds can
# be compared file by file (diff -r) when a change must keep every result to the bit.
# Wall times are blanked, and the runs name the tree through a link in the folder, so
# that the command lines the outputs record do not depend on where the tree is.
# Usage, from the top of a built tree: tests/golden.sh OUTDIR [experiments|fits|all]
# Not part of make check: the campaigns take minutes.
set -u
out=${1:?usage: tests/golden.sh OUTDIR [experiments|fits|all]}
what=${2:-all}
top=$(pwd)
mkdir -p "$out" && cd "$out" || exit 1
rm -f tree && ln -s "$top" tree
export PATH="$top:$PATH"
blank() { sed -E -e 's/^( *wall_time[a-z_]*:).*/\1 -/' -e 's/^( *(cpu|elapsed)_time[a-z_]*:).*/\1 -/' "$1" > "$1.t" && mv "$1.t" "$1"; }
if [ "$what" != fits ]; then
  for f in tree/experiments/*.yaml; do
    n=$(basename "$f" .yaml)
    p=fiber-$(sed -n 's/^ *kind: *\([a-z0-9]*\).*/\1/p' "$f" | head -n 1)
    for s in auto explicit static; do
      o="exp-$n-$s"
      "$p" -q --plot none --solver "$s" -o "$o" "$f" > "$o.summary" 2> "$o.stderr"
      echo "rc $?" >> "$o.summary"
      blank "$o.summary"
    done
  done
  tree/tests/validate > validation.txt 2>&1
fi
if [ "$what" != experiments ]; then
  for f in aluminium-tube-torsion steel-1045-tension maize-brace-root-bend3pt maize-brace-root-buckling \
      straw-vibration straw-taper-cantilever straw-taper-cantilever-straight \
      maize-brace-roots maize-brace-roots-drops maize-brace-roots-breaks; do
    o="fit-$f"
    rm -rf "$o" "$o".*
    fiber-calibrate -q --plot none -o "$o" "tree/fits/$f.yaml" > "$o.summary" 2> "$o.stderr"
    echo "rc $?" >> "$o.summary"
    for s in "$o".summary "$o".yaml "$o"*.txt "$o"/*.yaml "$o"/*.txt; do [ -f "$s" ] && blank "$s"; done
  done
fi
find . -name '*.checkpoint*' -prune -exec rm -rf {} +
rm -f tree
exit 0
