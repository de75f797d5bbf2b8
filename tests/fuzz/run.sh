#!/bin/sh
# Build the libFuzzer targets with clang (ASan + UBSan) and run each for SECONDS
# (default 600).  Seeds: experiments/, tests/bad/ and the saved regressions.  A crash
# or a leak is saved under tests/fuzz/regressions/TARGET/ (replayed by make check) and
# fails the run.  SECONDS 0 only builds the targets (make check's fuzz-build.sh).
# Usage: tests/fuzz/run.sh [SECONDS] [TARGET...]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILD:-$top/build-fuzz}
seconds=${1:-600}
[ $# -gt 0 ] && shift
targets=${*:-experiment set fit csv}
CC=${FUZZ_CC:-clang}
if ! command -v "$CC" >/dev/null 2>&1; then
  echo "fuzz: $CC not found: skipped"
  exit 77
fi
mkdir -p "$build"
# config.h for the sources: the one of a configured tree, else a minimal one
if [ -f "$top/config.h" ]; then cp "$top/config.h" "$build/config.h"; else
  printf '#define PACKAGE_VERSION "fuzz"\n' >"$build/config.h"; fi
flags="-g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
srcs="$top/src/yaml_input.c $top/src/yaml_experiment.c $top/src/experiment_keys.c $top/src/experiment_checks.c $top/src/experiment_write.c $top/src/yaml_emit.c $top/src/errors.c $top/src/shape.c $top/src/measured.c $top/src/table_text.c $top/src/files.c $top/src/test_kind.c $top/src/kind/*.c $top/src/system.c"
fitsrcs="$top/src/yaml_fit.c $top/src/fit_rows.c $top/src/series.c"
status=0
for t in $targets; do
  echo "== fuzz_$t: building"
  extra=""
  case $t in fit | csv) extra=$fitsrcs ;; esac
  $CC $flags -I"$build" -I"$top/src" "$top/tests/fuzz/fuzz_$t.c" $srcs $extra \
    $(pkg-config --cflags --libs yaml-0.1 gsl) -lcsv -lm -o "$build/fuzz_$t" || { status=1; continue; }
  [ "$seconds" -gt 0 ] || continue
  corpus="$build/corpus_$t"
  mkdir -p "$corpus" "$top/tests/fuzz/regressions/$t"
  if [ "$t" = set ]; then
    # seeds: each experiment's keys as KEY=VALUE lines are not at hand; a few by hand
    printf 'fiber.segments=40\ntest.kind=tension\ntest.cycles=1e-3,0,2e-3\n' >"$corpus/seed1"
    printf 'bond.failure.criterion=von_mises\nbond.failure.max_stress=1e8\n' >"$corpus/seed2"
    printf 'bond.buckling.type=plastic\nbond.buckling.min_force=3\n' >"$corpus/seed3"
  elif [ "$t" = fit ]; then
    printf 'experiment: exp.yaml\ndata:\n  - test: tension\n    file: data.csv\n    columns: {x: 1, y: 2}\n    units: {x: mm, y: N}\nfree:\n  bond.force_stiffness_scale: {start: 1.0, min: 0.1, max: 10}\n' >"$corpus/seed1"
    printf 'experiment: exp.yaml\ndata:\n  - {test: tension, file: data.csv, columns: {x: x_mm, y: y_N}, units: {x: mm, y: N}, weight: 2}\nfree:\n  bond.failure.max_stress: {start: auto, min: 1e6, max: 1e9}\nsolver: {method: dogleg, max_iterations: 20}\n' >"$corpus/seed2"
    cp "$top"/fits/*.yaml "$top"/tests/fit-bad/*.yaml "$corpus/" 2>/dev/null
  elif [ "$t" = csv ]; then
    cp "$top"/fits/data/*.csv "$top"/tests/fit-bad/*.csv "$top"/tests/data/*.csv "$corpus/" 2>/dev/null
    printf 'x_mm;y_N\n0;0\n1;2\n' >"$corpus/seed1"
    printf '# c\n\nx_mm\ty_N\n0\t0\n1\t2\n' >"$corpus/seed2"
  else
    cp "$top"/experiments/*.yaml "$top"/tests/bad/*.yaml "$corpus/" 2>/dev/null
  fi
  cp "$top/tests/fuzz/regressions/$t"/* "$corpus/" 2>/dev/null
  echo "== fuzz_$t: $seconds s"
  (cd "$build" && ASAN_OPTIONS=detect_leaks=1 ./fuzz_$t -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$top/tests/fuzz/regressions/$t/" "$corpus" 2>&1 | tail -n 5) || status=1
  echo "fuzz_$t: corpus $(ls "$corpus" | wc -l) inputs, regressions $(ls "$top/tests/fuzz/regressions/$t" | wc -l)"
done
exit $status
