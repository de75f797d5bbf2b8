#!/bin/sh
# The man pages are clean under mandoc -Tlint -W warning.
set -u
MANDOC=${MANDOC:-$(command -v mandoc)}
if [ -z "$MANDOC" ]; then
  echo "mandoc not found: skipped"
  exit 77
fi
out=$("$MANDOC" -Tlint -W warning "${top_srcdir:-.}"/man/*.[157] 2>&1)
status=$?
[ -n "$out" ] && echo "$out"
[ $status -eq 0 ] && [ -z "$out" ] && echo "man pages lint clean"
[ $status -eq 0 ] && [ -z "$out" ]
