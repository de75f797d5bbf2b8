# start-curvature.awk: the shape of the start of each curve of a campaign's -curves.csv
# (specimen, x, measured, fitted; fiberlab-campaign(5)), measured against fitted: on
# the rows up to the first to reach 30 % of the measured peak, the slope over the
# rows below 15 % of it (s1) and over those from 15 to 30 % (s2), each by least
# squares, for the measured and for the fitted loads at the same abscissae.
# s2 / s1 below 1: the start softens (concave); above 1: it stiffens (convex).
#   awk -F, -f docs/start-curvature.awk PREFIX-curves.csv
# prints per specimen: s2/s1 measured, s2/s1 fitted, and whether the signs of
# s2/s1 - 1 agree; then the count that agree.
/^#/ || $1 == "specimen" { next }
{
  k = $1
  n[k]++
  x[k, n[k]] = $2
  ym[k, n[k]] = $3
  yf[k, n[k]] = $4
  if ($3 > top[k]) top[k] = $3
  if (!(k in seen)) { seen[k] = 1; order[++ns] = k }
}
# least-squares slope of column c (1 measured, 2 fitted) of specimen k over rows whose
# measured load lies in [lo, hi) of its peak, before the row that first reaches hi
function slope(k, c, lo, hi,   i, sx, sy, sxx, sxy, m, yy, f) {
  sx = sy = sxx = sxy = m = 0
  for (i = 1; i <= n[k]; i++) {
    f = ym[k, i] / top[k]
    if (f >= hi) break
    if (f < lo) continue
    yy = c == 1 ? ym[k, i] : yf[k, i]
    sx += x[k, i]; sy += yy; sxx += x[k, i] * x[k, i]; sxy += x[k, i] * yy; m++
  }
  if (m < 3 || m * sxx - sx * sx <= 0) return "nan"
  return (m * sxy - sx * sy) / (m * sxx - sx * sx)
}
END {
  printf "%-10s %10s %10s %6s\n", "specimen", "measured", "fitted", "sign"
  for (j = 1; j <= ns; j++) {
    k = order[j]
    m1 = slope(k, 1, 0.0, 0.15); m2 = slope(k, 1, 0.15, 0.30)
    f1 = slope(k, 2, 0.0, 0.15); f2 = slope(k, 2, 0.15, 0.30)
    if (m1 == "nan" || m2 == "nan" || f1 == "nan" || f2 == "nan") { printf "%-10s too few rows\n", k; continue }
    rm = m2 / m1; rf = f2 / f1
    same = (rm - 1) * (rf - 1) > 0
    agree += same
    printf "%-10s %10.3f %10.3f %6s\n", k, rm, rf, same ? "same" : "other"
  }
  printf "same sign: %d of %d\n", agree, ns
}
