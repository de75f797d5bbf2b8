#!/bin/sh
# fiber-calibrate --resume: a calibration stopped after 2 accepted iterations
# (--stop-after 2), resumed and stopped after a third, its last record then cut short
# as a kill in the middle of an append leaves it (and the start of another record
# added), and resumed to the end, gives the same summary, calibrated experiment and
# curves as an uninterrupted run; the calibrated experiment holds each fitted value as
# the shortest decimal that reads back to the same double, so equal files mean equal
# values bit for bit.  SIGTERM sent from outside once the checkpoint holds an evaluation
# stops a run with exit 1 and keeps the checkpoint: the test sees the record land in the
# file, and the run (on the explicit engine) has much work left when the signal comes.
# A checkpoint of another fit file, or one that is not a checkpoint, is refused
# with exit status 2 and nothing written.
set -u
top_srcdir=${top_srcdir:-.}
. "$top_srcdir/tests/held.sh"
top_builddir=${top_builddir:-.}
bin=$(cd "$top_builddir" && pwd)/fiber-calibrate
fits=$(cd "$top_srcdir/tests/fit-bad" && pwd)
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$work"' EXIT
fails=0
passes=0
n=0

ok() {
  n=$((n + 1))
  passes=$((passes + 1))
  echo "ok $n: $1"
}
fail() {
  n=$((n + 1))
  fails=$((fails + 1))
  echo "FAIL $n: $1"
  [ $# -gt 1 ] && [ -f "$2" ] && sed 's/^/  | /' "$2"
  return 0
}
size() { if [ -f "$1" ]; then wc -c <"$1" | tr -d ' '; else echo 0; fi; }

cp "$fits/good.yaml" "$fits/bend.yaml" "$fits/curve.csv" "$work/" || exit 1
cd "$work" || exit 1
mkdir full part

# 1. the uninterrupted run
"$bin" --plot none -o full/out good.yaml >full.out 2>full.err
st=$?
if [ "$st" = 0 ] && grep -q '^status: converged' full.out && [ ! -e full/out.checkpoint ]; then
  ok "uninterrupted run converged, no checkpoint left"
else
  fail "uninterrupted run: status $st" full.err
fi
iters=$(sed -n 's/^iterations: //p' full.out)
[ "${iters:-0}" -ge 4 ] || fail "the fit takes only ${iters:-?} iterations; the test needs at least 4"

# 2. stopped after 2 accepted iterations
"$bin" --plot none --stop-after 2 -o part/out good.yaml >stop.out 2>stop.err
st=$?
if [ "$st" = 1 ] && grep -q 'interrupted after iteration 2 (--stop-after)' stop.err && [ -s part/out.checkpoint ] &&
  grep -q 'the checkpoint part/out.checkpoint is kept' stop.err; then
  ok "--stop-after 2: exit 1, checkpoint kept"
else
  fail "--stop-after 2: status $st" stop.err
fi

# 2b. SIGTERM from outside, sent once the run's checkpoint holds its first evaluation,
# which the test sees land in the file; on the explicit engine the evaluations that
# follow take far longer than the test takes to see it, so the signal meets a run in
# progress
mkdir term
"$bin" --plot none --solver explicit -o term/out good.yaml >term.out 2>term.err &
pid=$!
if wait_record "$pid" term/out.checkpoint; then
  kill -TERM "$pid"
  wait "$pid"
  st=$?
  pid=
  if [ "$st" = 1 ] && grep -q 'interrupted' term.err && [ -s term/out.checkpoint ]; then
    ok "SIGTERM from outside: exit 1, checkpoint kept ($(size term/out.checkpoint) bytes)"
  else
    fail "SIGTERM from outside: status $st (want 1), checkpoint $(size term/out.checkpoint) bytes" term.err
  fi
else
  wait "$pid" 2>/dev/null
  pid=
  fail "the run ended before its checkpoint held an evaluation" term.err
fi

# 3. a checkpoint of another fit file, or not a checkpoint at all: refused
sed 's/start: 1,/start: 1.0,/' good.yaml >other.yaml
mkdir other
cp part/out.checkpoint other/out.checkpoint
"$bin" --plot none -o other/out --resume other.yaml >other.out 2>other.err
st=$?
if [ "$st" = 2 ] && grep -q 'was written for the fit file good.yaml' other.err && [ ! -s other.out ] &&
  [ "$(ls other)" = out.checkpoint ] && cmp -s other/out.checkpoint part/out.checkpoint; then
  ok "checkpoint of another fit file refused with exit 2, nothing written"
else
  fail "checkpoint of another fit file: status $st (want 2)" other.err
fi
echo 'not a checkpoint' >other/out.checkpoint
"$bin" --plot none -o other/out --resume other.yaml >other.out 2>other.err
st=$?
if [ "$st" = 2 ] && grep -q 'is not a fiber-calibrate checkpoint' other.err && [ "$(ls other)" = out.checkpoint ]; then
  ok "a file that is not a checkpoint refused with exit 2"
else
  fail "not a checkpoint: status $st (want 2)" other.err
fi

# 4. resumed and stopped after a third iteration; then its last record is cut short, as
# a kill in the middle of an append leaves it (every record is written at once and
# synced, so a kill leaves the records before it whole), and the start of another added
before=$(size part/out.checkpoint)
"$bin" --plot none --stop-after 3 -o part/out --resume good.yaml >kill.out 2>kill.err
st=$?
after=$(size part/out.checkpoint)
if [ "$st" = 1 ] && [ "$after" -gt "$before" ]; then
  head -c $((after - 5)) part/out.checkpoint >cut.checkpoint && mv cut.checkpoint part/out.checkpoint
  printf 'f\000\000\000\000' >>part/out.checkpoint
  ok "resumed run stopped after appending ($before -> $after bytes), its last record cut short"
else
  fail "the resumed run did not stop after appending records: status $st ($before -> $after bytes)" kill.err
fi

# 5. resumed to the end
"$bin" --plot none -o part/out --resume good.yaml >resume.out 2>resume.err
st=$?
replayed=$(sed -n 's/.*--resume: \([0-9]*\) evaluations replayed.*/\1/p' resume.err)
if [ "$st" = 0 ] && [ "${replayed:-0}" -gt 0 ] && [ ! -e part/out.checkpoint ]; then
  ok "resumed run finished: $replayed evaluations replayed, checkpoint removed"
else
  fail "resumed run: status $st, replayed '${replayed:-}'" resume.err
fi
if sed 's/part\//full\//' resume.out | cmp -s - full.out; then
  ok "summary identical (status, iterations, simulations, values, errors, curves)"
else
  fail "summaries differ"
  sed 's/part\//full\//' resume.out | diff full.out - | sed 's/^/  | /'
fi
# every free key's value, as written to the calibrated experiment (shortest round trip)
vals() { grep -e '^ *torque_stiffness_scale:' "$1"; }
if [ -n "$(vals full/out.yaml)" ] && [ "$(vals full/out.yaml)" = "$(vals part/out.yaml)" ]; then
  ok "fitted value bit for bit: $(vals full/out.yaml | tr -d ' ')"
else
  fail "fitted values differ: $(vals full/out.yaml) against $(vals part/out.yaml)"
fi
sed 1d full/out.csv >full.csv.body   # line 1: the command line, with its -o
sed 1d part/out.csv >part.csv.body
if cmp -s full/out.yaml part/out.yaml && cmp -s full.csv.body part.csv.body; then
  ok "calibrated experiment and curves CSV identical"
else
  fail "calibrated experiment or curves CSV differ"
fi

# 6. the global stage (solver.global: on) goes through the checkpoint too: a run
# stopped after it (--stop-after 1) and resumed gives the summary and calibrated
# experiment of a run straight through, its design and refinements replayed
{ cat good.yaml; printf 'solver:\n  global: on\n  global_points: 4\n  global_refine: 1\n'; } >global.yaml
mkdir gfull gpart
"$bin" --plot none -o gfull/out global.yaml >gfull.out 2>gfull.err
st=$?
if [ "$st" = 0 ] && grep -q '^global:' gfull.out && grep -q '^fiber-calibrate: global: 5 points (4 of the design and the start)' gfull.err; then
  ok "global stage: 5 points costed, reported on stderr and in the summary"
else
  fail "global stage run: status $st" gfull.err
fi
"$bin" --plot none --stop-after 1 -o gpart/out global.yaml >gstop.out 2>gstop.err
st=$?
"$bin" --plot none -o gpart/out --resume global.yaml >gresume.out 2>gresume.err
st2=$?
replayed=$(sed -n 's/.*--resume: \([0-9]*\) evaluations replayed.*/\1/p' gresume.err)
if [ "$st" = 1 ] && grep -q 'interrupted after iteration' gstop.err && [ "$st2" = 0 ] && [ "${replayed:-0}" -gt 0 ] &&
  sed 's/gpart\//gfull\//' gresume.out | cmp -s - gfull.out && cmp -s gfull/out.yaml gpart/out.yaml; then
  ok "global stage stopped and resumed: $replayed evaluations replayed, summary and calibrated experiment identical"
else
  fail "global stage stopped ($st) and resumed ($st2, '${replayed:-}' replayed)" gresume.err
  sed 's/gpart\//gfull\//' gresume.out | diff gfull.out - | sed 's/^/  | /'
fi

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
