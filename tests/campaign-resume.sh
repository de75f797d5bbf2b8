#!/bin/sh
# A campaign (fiberlab-campaign(5)) stopped in its second specimen (--stop-after,
# counted over the campaign) writes no report, exits 1 and keeps its checkpoints;
# resumed, it writes the same reports as an uninterrupted run, byte for byte (the
# command line in the table's first comment aside), and removes the checkpoints.  A
# campaign killed with SIGKILL once its third specimen's checkpoint exists, then
# resumed, does the same.  A resume with another table value is refused (exit 2).
set -u
top_srcdir=${top_srcdir:-.}
. "$top_srcdir/tests/held.sh"
top_builddir=$(cd "${top_builddir:-.}" && pwd)
fixtures=$(cd "$top_srcdir/tests/campaign" && pwd)
. "$top_srcdir/tests/campaign-gen.sh"
bin=$top_builddir/fiber-calibrate
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n: $1"; }
fail() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL $n: $1"; [ $# -gt 1 ] && [ -f "$2" ] && sed 's/^/  | /' "$2"; return 0; }
same_reports() { # dir: its reports equal full/'s
  for f in full/pop-*; do
    g=$1/${f#full/}
    if [ "${f%-specimens.csv}" != "$f" ]; then
      tail -n +2 "$f" >a.tmp; tail -n +2 "$g" >b.tmp 2>/dev/null || return 1
      cmp -s a.tmp b.tmp || return 1
    else
      cmp -s "$f" "$g" || return 1
    fi
  done
  [ "$(ls "$1" | grep -c '^pop-')" = "$(ls full | grep -c '^pop-')" ]
}
gen_population 4 7 || { echo "FAIL: the population could not be generated"; exit 1; }
mkdir full part killed

(cd full && "$bin" -q --plot none -o pop ../campaign.yaml >out.yaml 2>err.txt)
st=$?
if [ "$st" = 0 ] && [ ! -e full/pop.checkpoint.d ] && [ -s full/pop-population.yaml ]; then
  ok "uninterrupted campaign: exit 0, reports written, no checkpoints left"
else
  fail "uninterrupted campaign: exit $st" full/err.txt
fi
first=$(awk -F, '$1 == "1" { print $6 }' full/pop-specimens.csv)
stop=$((first + 2))

(cd part && "$bin" -q --plot none --stop-after "$stop" -o pop ../campaign.yaml >out.yaml 2>err.txt)
st=$?
if [ "$st" = 1 ] && grep -q 'interrupted: no report written' part/err.txt && [ -s part/pop.checkpoint.d/00002.checkpoint ] &&
  [ ! -e part/pop.checkpoint.d/00003.checkpoint ] && ! ls part | grep -q '^pop-'; then
  ok "--stop-after $stop (in specimen 2): exit 1, no report, checkpoints 1 and 2 kept"
else
  fail "--stop-after $stop: exit $st" part/err.txt
fi

(cd part && "$bin" -q --plot none --resume -o pop ../campaign.yaml >out.yaml 2>err.txt)
st=$?
if [ "$st" = 0 ] && same_reports part && [ ! -e part/pop.checkpoint.d ]; then
  ok "resumed: the same reports as the uninterrupted campaign, byte for byte; checkpoints removed"
else
  fail "resumed: exit $st, reports differ or checkpoints left" part/err.txt
fi

# SIGKILL once the third specimen's checkpoint holds its header, which the test sees in
# the file while the campaign has that specimen's fit and the next one's to run
(cd killed && exec "$bin" -q --plot none -o pop ../campaign.yaml >out.yaml 2>err.txt) &
pid=$!
if wait_size "$pid" killed/pop.checkpoint.d/00003.checkpoint 0; then
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null
  pid=
  if [ -s killed/pop.checkpoint.d/00003.checkpoint ] && ! ls killed | grep -q '^pop-'; then
    ok "SIGKILL in specimen 3: checkpoints kept, no report"
  else
    fail "SIGKILL in specimen 3: no checkpoint 3, or reports written" killed/err.txt
  fi
else
  wait "$pid" 2>/dev/null
  pid=
  fail "the campaign ended before the third specimen's checkpoint was seen" killed/err.txt
fi
(cd killed && "$bin" -q --plot none --resume -o pop ../campaign.yaml >out.yaml 2>err.txt)
st=$?
if [ "$st" = 0 ] && same_reports killed; then
  ok "resumed after SIGKILL: the same reports, byte for byte"
else
  fail "resumed after SIGKILL: exit $st or reports differ" killed/err.txt
fi

mkdir other
(cd other && "$bin" -q --plot none --stop-after 1 -o pop ../campaign.yaml >/dev/null 2>/dev/null)
sed 's/^rod001,rod001.csv,\([0-9.]*\)/rod001,rod001.csv,2.0/' specimens.csv >s2.csv && mv s2.csv specimens.csv
(cd other && "$bin" -q --plot none --resume -o pop ../campaign.yaml >out.yaml 2>err.txt)
st=$?
if [ "$st" = 2 ] && grep -q 'was written with other settings' other/err.txt; then
  ok "resume after a table value changed: refused, exit 2"
else
  fail "resume after a table value changed: exit $st" other/err.txt
fi
echo "$n checks, $fails failed"
[ "$fails" = 0 ]
