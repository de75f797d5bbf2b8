# bad-input-check.sh: sourced by the bad-input scripts.  check_bad PROGRAM NAME EXPECT
# ARGS... runs PROGRAM -q ARGS in $work (an empty directory but for the links bad and
# ex) and passes when it exits with status 2, prints exactly EXPECT on stderr, nothing
# on stdout, and leaves no file behind; it prints "ok N: NAME ARGS" or the difference,
# counts in n and fails, and empties $work again.
check_bad() {
  cb_prog=$1
  cb_name=$2
  cb_expect=$3
  shift 3
  n=$((n + 1))
  (cd "$work" && "$cb_prog" -q "$@" >stdout 2>stderr; echo $? >status)
  cb_got=$(cat "$work/stderr")
  cb_status=$(cat "$work/status")
  cb_extra=$(cd "$work" && ls -A | grep -v -e '^stdout$' -e '^stderr$' -e '^status$' -e '^bad$' -e '^ex$')
  if [ "$cb_status" != 2 ] || [ "$cb_got" != "$cb_expect" ] || [ -s "$work/stdout" ] || [ -n "$cb_extra" ]; then
    echo "FAIL: $cb_name $*"
    echo "  status:   $cb_status (want 2)"
    echo "  stderr:   $cb_got"
    echo "  expected: $cb_expect"
    [ -s "$work/stdout" ] && echo "  stdout was not empty"
    [ -n "$cb_extra" ] && echo "  files created: $cb_extra"
    fails=$((fails + 1))
  else
    echo "ok $n: $cb_name $*"
  fi
  find "$work" -mindepth 1 -maxdepth 1 ! -name bad ! -name ex -exec rm -rf {} +
}
