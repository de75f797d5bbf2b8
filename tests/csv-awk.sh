# Sourced by the tests that read CSV files with quoted fields: csv_awk holds an awk
# function, csv_split(line, f), that splits one line into f[1..n] with RFC 4180 quotes
# undone (a field may hold commas and doubled quotes, not line breaks) and returns n;
# put it before the program (awk "$csv_awk"' ... '), as mawk has no FPAT.
# shellcheck disable=SC2034
csv_awk='function csv_split(line, f,   n, i, c, q, cur) {
  n = 0; cur = ""; q = 0
  for (i = 1; i <= length(line); i++) {
    c = substr(line, i, 1)
    if (q) { if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ } else q = 0 } else cur = cur c }
    else if (c == "\"") q = 1
    else if (c == ",") { f[++n] = cur; cur = "" }
    else cur = cur c
  }
  f[++n] = cur
  return n
}'
