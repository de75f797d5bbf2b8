#!/bin/sh
# Every YAML the programs print or write is one well-formed document that reads back as
# written, whatever the names in it: for output prefixes with a colon, a hash, quotes,
# spaces, non-ASCII letters, YAML indicators, words YAML reads as other types and control
# characters, the summary of fiber-tension and fiber-calibrate on stdout parses (one
# document, a mapping) and names the files written; the calibrated experiment parses,
# keeps its header and unit comments, and loads and runs.  The fit file and the files it
# names have such names too.  tests/yaml_parse reads the YAML with libyaml's parser.
set -eu
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
bin=$(cd "$top_builddir" && pwd)
src=$(cd "$top_srcdir" && pwd)
parse=$bin/tests/yaml_parse
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! touch 'Ähre straw é' 2>/dev/null; then
  echo "SKIP: this file system takes no UTF-8 file names"
  exit 77
fi
rm -f 'Ähre straw é'
passes=0
fails=0
ok() {
  passes=$((passes + 1))
  echo "ok: $1"
}
fail() {
  fails=$((fails + 1))
  echo "FAIL: $1"
  [ $# -gt 1 ] && [ -f "$2" ] && sed 's/^/  | /' "$2"
  return 0
}
tab=$(printf '\t')
nl='
'
# "$1" names the file the key "$3" of YAML file "$2" must name, the file existing
names_file() {
  got=$("$parse" "$2" "$3" 2>/dev/null) || got='(no such key)'
  if [ "$got" = "$1" ] && [ -f "$1" ]; then
    ok "$4: $3 reads back as [$1], which exists"
  else
    fail "$4: $3 reads back as [$got], not [$1] (or no such file)" "$2"
  fi
}
is_document() {
  if "$parse" "$1" 2>parse.err; then
    ok "$2: one YAML document, a mapping"
  else
    fail "$2: not one YAML document with a mapping at its root: $(cat parse.err)" "$1"
  fi
}

# ---- the fit: its file, the experiment and the curve with awkward names too -------------
cp "$src/tests/fit-bad/rod-tension.yaml" 'rod: #1.yaml'
cp "$src/tests/fit-bad/rod-tension.csv" "it's \"q\" é.csv"
fitfile="fit: #1${nl}x: [y].yaml"
cat >"$fitfile" <<'YAML'
experiment: 'rod: #1.yaml'
data:
  - test: tension
    file: "it's \"q\" é.csv"
    columns: { x: 1, y: 2 }
free:
  bond.force_stiffness_scale: { start: 2.6, min: 0.05, max: 20 }
YAML

i=0
for prefix in 'run: #1' "it's \"q\"" 'Ähre straw é' '- [a], {b}: &c *d !e %f @g `h` |i >j' 'true' '0x1F' \
  "tab${tab}and${nl}newline" ' lead and trail '; do
  i=$((i + 1))
  what="prefix $i"

  # fiber-tension: the summary on stdout
  if "$bin/fiber-tension" -q --plot none -o "$prefix" "$src/experiments/glass-fibre-tension.yaml" \
    >"tension$i.out" 2>"tension$i.err"; then
    is_document "tension$i.out" "fiber-tension, $what"
    names_file "$prefix.csv" "tension$i.out" csv "fiber-tension, $what"
    [ "$("$parse" "tension$i.out" plot 2>&1)" = null ] && ok "fiber-tension, $what: plot: null" ||
      fail "fiber-tension, $what: plot" "tension$i.out"
  else
    fail "fiber-tension, $what: exit status" "tension$i.err"
  fi

  # fiber-calibrate: the summary and the calibrated experiment
  if "$bin/fiber-calibrate" -q --plot none -o "$prefix" "$fitfile" >"calibrate$i.out" 2>"calibrate$i.err"; then
    is_document "calibrate$i.out" "fiber-calibrate, $what"
    names_file "$prefix.yaml" "calibrate$i.out" calibrated "fiber-calibrate, $what"
    names_file "$prefix.csv" "calibrate$i.out" csv "fiber-calibrate, $what"
    names_file "it's \"q\" é.csv" "calibrate$i.out" curves.0.file "fiber-calibrate, $what"
    [ "$("$parse" "calibrate$i.out" status 2>&1)" = converged ] && ok "fiber-calibrate, $what: converged" ||
      fail "fiber-calibrate, $what: status" "calibrate$i.out"
    value=$("$parse" "calibrate$i.out" parameters.bond.force_stiffness_scale.value 2>&1) || value=
    case $value in
    1.* | 0.*) ok "fiber-calibrate, $what: the fitted value $value" ;;
    *) fail "fiber-calibrate, $what: the fitted value [$value]" "calibrate$i.out" ;;
    esac
    cp -- "$prefix.yaml" "calibrated$i.yaml"
    is_document "calibrated$i.yaml" "calibrated experiment, $what"
    if [ "$(grep -c '^# ' "calibrated$i.yaml")" = 3 ] && grep -q '^# Calibrated by fiber-calibrate .* from fit: #1 x: \[y\]\.yaml: status converged' "calibrated$i.yaml" &&
      grep -q '^# The experiment rod: #1\.yaml with bond\.force_stiffness_scale = ' "calibrated$i.yaml" &&
      grep -q '^# bond\.force_stiffness_scale: value 1\.[0-9]*, std_error [0-9.e-]*, R^2 = 0\.99[0-9]*$' "calibrated$i.yaml" &&
      grep -q '^  outer_radius: 0\.001  # m$' "calibrated$i.yaml"; then
      ok "calibrated experiment, $what: three header comment lines (the last with the standard error), units as comments"
    else
      fail "calibrated experiment, $what: comments" "calibrated$i.yaml"
    fi
    # the experiment loader reads it back, and it runs (a copy: a name may start with '-')
    if "$bin/fiber-tension" -q --plot none -o "rerun$i" "calibrated$i.yaml" >"rerun$i.out" 2>"rerun$i.err"; then
      names_file "rerun$i.csv" "rerun$i.out" csv "the calibrated experiment of $what, run"
    else
      fail "the calibrated experiment of $what does not run" "rerun$i.err"
    fi
  else
    fail "fiber-calibrate, $what: exit status" "calibrate$i.err"
  fi
done

# names YAML would read as another type stay strings; numbers are numbers, no plot null
cp "$src/tests/fit-bad/rod-tension.csv" 1e3
cp "$src/tests/fit-bad/rod-tension.yaml" yes
printf 'experiment: "yes"\ndata:\n  - {test: tension, file: "1e3", columns: {x: 1, y: 2}}\nfree:\n  bond.force_stiffness_scale: {start: 2.6, min: 0.05, max: 20}\n' >typed.yaml
if "$bin/fiber-calibrate" -q --plot none -o null typed.yaml >typed.out 2>typed.err; then
  types=$(for k in curves.0.file curves.0.points r_squared parameters.bond.force_stiffness_scale.std_error calibrated plot; do
    "$parse" -t typed.out "$k" || echo "(no $k)"
  done | tr '\n' ' ')
  [ "$types" = 'str int float float str null ' ] && ok "fiber-calibrate: a file named 1e3 reads as a string; types $types" ||
    fail "fiber-calibrate: types of file, points, r_squared, std_error, calibrated, plot: $types" typed.out
  names_file 1e3 typed.out curves.0.file "fiber-calibrate, a curve file named 1e3"
  grep -q '^# The experiment yes with' null.yaml && ok "calibrated experiment: the experiment named yes" ||
    fail "calibrated experiment: header" null.yaml
else
  fail "fiber-calibrate on typed.yaml: exit status" typed.err
fi

# a prefix that is not UTF-8: the documents stay well formed (the byte reads as U+FFFD)
bad=$(printf 'latin1-\351')
"$bin/fiber-tension" -q --plot none -o "$bad" "$src/experiments/glass-fibre-tension.yaml" >latin.out 2>latin.err ||
  fail "fiber-tension, a prefix that is not UTF-8: exit status" latin.err
is_document latin.out "fiber-tension, a prefix that is not UTF-8"
"$bin/fiber-calibrate" -q --plot none -o "$bad" "$fitfile" >latin-cal.out 2>latin-cal.err ||
  fail "fiber-calibrate, a prefix that is not UTF-8: exit status" latin-cal.err
is_document latin-cal.out "fiber-calibrate, a prefix that is not UTF-8"

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
