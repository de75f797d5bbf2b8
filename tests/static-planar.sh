#!/bin/sh
# The static solver's planar reduction (man 7 fiberlab-model, THE STATIC SOLVER): every
# planar experiment solved for x, y and the turn about z only and for all six unknowns
# of each segment (FL_STATIC_ALL_DOFS=1) gives the same curve: at every row the two
# measured loads within 1e-6 of the curve's largest, the abscissae within 1e-6 of the
# largest.  Both are equilibria to 1e-9 of the load scale; what may differ is where
# Newton stops inside that tolerance.  Torsion is not planar and says so.
bin="${top_builddir:-.}"
ex="${top_srcdir:-.}/experiments"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
n=0
for spec in bend3pt:wheat-straw-bend3pt-cycle bend3pt:wheat-straw-bend3pt-yield bend3pt:wheat-straw-arc-bend3pt \
  cantilever:wheat-straw-cantilever compression:wheat-straw-compression tension:glass-fibre-tension \
  torsion:aluminium-tube-torsion; do
  prog=fiber-${spec%%:*}
  file=${spec#*:}
  n=$((n + 1))
  "$bin/$prog" -q --plot none --solver static -o "$work/p" "$ex/$file.yaml" >"$work/p.yaml" 2>"$work/err" &&
    FL_STATIC_ALL_DOFS=1 "$bin/$prog" -q --plot none --solver static -o "$work/a" "$ex/$file.yaml" >"$work/a.yaml" 2>>"$work/err"
  st=$?
  up=$("$bin/tests/yaml_parse" "$work/p.yaml" unknowns_per_body 2>/dev/null)
  ua=$("$bin/tests/yaml_parse" "$work/a.yaml" unknowns_per_body 2>/dev/null)
  want=3
  [ "$file" = aluminium-tube-torsion ] && want=6
  # rows: skip the comment and the header; columns 3 (abscissa) and 4 (load)
  cmp=$(awk -F, 'FNR <= 2 { next }
    FNR == NR { x[FNR] = $3; y[FNR] = $4; rows = FNR; next }
    { if (!(FNR in x)) { bad = 1; next }
      dx = $3 - x[FNR]; dy = $4 - y[FNR]; if (dx < 0) dx = -dx; if (dy < 0) dy = -dy
      if (dx > mx) mx = dx; if (dy > my) my = dy
      ax = $3 < 0 ? -$3 : $3; ay = $4 < 0 ? -$4 : $4; if (ax > sx) sx = ax; if (ay > sy) sy = ay; last = FNR }
    END { if (bad || last != rows || sx == 0 || sy == 0) { print "rows differ"; exit }
          printf "%.3g %.3g\n", mx / sx, my / sy }' "$work/p.csv" "$work/a.csv")
  if [ $st -eq 0 ] && [ "$up" = $want ] && [ "$ua" = 6 ] &&
    echo "$cmp" | awk '{ exit !($1 <= 1e-6 && $2 <= 1e-6) }'; then
    echo "ok $n: $prog $file: unknowns $up and $ua, largest differences (abscissa, load) $cmp"
  else
    echo "FAIL: $prog $file: status $st, unknowns $up and $ua (want $want and 6), differences $cmp"
    cat "$work/err"
    fails=$((fails + 1))
  fi
done
[ $fails -eq 0 ]
