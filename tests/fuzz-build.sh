#!/bin/sh
# The libFuzzer targets compile and link against the sources they read (each names
# its sources by hand, so a new dependency of the YAML and CSV readers must be added
# there): CI fuzzes them; this catches a broken list before it gets there.  Skipped
# without clang and its fuzzer runtime.
set -u
top_srcdir=${top_srcdir:-.}
command -v clang >/dev/null 2>&1 || { echo "clang not found: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$work/t.c"
clang -fsanitize=fuzzer "$work/t.c" -o "$work/t" >/dev/null 2>&1 || { echo "no libFuzzer runtime: skipped"; exit 77; }
FUZZ_BUILD="$work" sh "$top_srcdir/tests/fuzz/run.sh" 0 || { echo "FAIL: a fuzz target does not build"; exit 1; }
for t in experiment set fit csv; do
  [ -x "$work/fuzz_$t" ] || { echo "FAIL: fuzz_$t missing"; exit 1; }
done
echo "ok: 4 fuzz targets link"
