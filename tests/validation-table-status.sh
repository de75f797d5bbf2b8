#!/bin/sh
# validation-table.sh passes on the status of tests/validate, not of what prints it:
# with a stand-in validate that reports a failed case and exits 1, the script must fail
# (and keep no table); with one that passes, it must pass and keep the table.
set -u
top_srcdir=${top_srcdir:-.}
script=$(cd "$top_srcdir/tests" && pwd)/validation-table.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/tests"
fails=0

stand_in() { # status
  printf '#!/bin/sh\necho "| tension | n = 8 | a E A / L | 1 | 2 | +100 %% | 0.5 %% | FAIL |"\nexit %s\n' "$1" \
    >"$work/tests/validate"
  chmod +x "$work/tests/validate"
  rm -f "$work/validation-table.md"
}

stand_in 1
if top_builddir=$work sh "$script" >/dev/null 2>&1; then
  echo "FAIL: validation-table.sh exited 0 although validate exited 1"
  fails=$((fails + 1))
else
  echo "ok 1: a failing validate fails the script"
fi
if [ -e "$work/validation-table.md" ]; then
  echo "FAIL: a failing run left validation-table.md"
  fails=$((fails + 1))
else
  echo "ok 2: no table kept from a failing run"
fi
stand_in 0
if top_builddir=$work sh "$script" >/dev/null 2>&1 && [ -s "$work/validation-table.md" ]; then
  echo "ok 3: a passing validate passes and keeps the table"
else
  echo "FAIL: a passing validate did not pass or kept no table"
  fails=$((fails + 1))
fi
echo "$((3 - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
