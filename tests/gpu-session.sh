#!/bin/sh
# The device check of the CUDA engine, for a session lent a GPU machine: everything is
# built here, and the machine only runs it, in one call of under 10 minutes.
#   tests/gpu-session.sh prepare   build this tree (committed or not) with --with-cuda
#                                  (sm_90, cudart static) in build-gpu/, and put the
#                                  programs, experiments/ and the shared libraries they
#                                  need (GSL, libyaml, libcsv, libgomp, libstdc++) in
#                                  .device/ (ignored by git: carry it)
#   tests/gpu-session.sh run       on the GPU machine, from the tree's root, with .device
#                                  carried: each stage timed, in order of size
#                                    1 the device (nvidia-smi)
#                                    2 gpu_check: the GPU against the CPU on fresh random
#                                      bonds and specimens and the first rows of every
#                                      experiment file, within the device's tolerances
#                                    3 compute-sanitizer memcheck and initcheck, a short run
#                                    4 a 1000-specimen 3-point batch (24 segments, 85 889
#                                      steps), explicit on both: the GPU against 16 CPU
#                                      threads, and their curves
#                                    5 make bench's GPU cases, largest last (1e7 bonds)
#                                  what each prints also lands in $OUT when that is set
# A stage that passes its time limit is stopped and the next one starts; the limits add
# up to 515 s.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
case "${1:-}" in
prepare)
  rm -rf build-gpu .device && mkdir -p build-gpu .device/bin .device/lib || exit 1
  git ls-files -z -co --exclude-standard | tar --null -T - -cf - | (cd build-gpu && tar xf -) || exit 1
  (cd build-gpu && ./bootstrap >/dev/null 2>&1 && ./configure -q --with-cuda NVCCFLAGS="-O3 -arch=sm_90 -lineinfo" &&
    make -j2 >/dev/null && make -j2 tests/gpu_check tests/bench >/dev/null) || exit 1
  for p in tests/gpu_check tests/bench fiber-bend3pt; do
    cp "build-gpu/$p" .device/bin/ || exit 1
  done
  cp -r experiments .device/
  for b in .device/bin/*; do
    ldd "$b" | awk '/=> \// {print $3}'
  done | sort -u | grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' | while read -r lib; do
    cp -L "$lib" .device/lib/
  done
  (git describe --always --dirty && date -u) >.device/MANIFEST
  echo "prepared .device ($(du -sh .device | cut -f1)): $(ls .device/bin | tr '\n' ' ')"
  ;;
run)
  out=${OUT:-/tmp/fl-gpu-out}
  mkdir -p "$out"
  dev="$top/.device"
  [ -x "$dev/bin/gpu_check" ] || { echo "no .device/bin/gpu_check: run 'tests/gpu-session.sh prepare' here first"; exit 2; }
  export LD_LIBRARY_PATH="$dev/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  ex="$dev/experiments"
  t_all=$(date +%s)
  # stage NAME LIMIT_S COMMAND...: the command's output on the terminal and in $out/NAME.txt
  stage() {
    name=$1 limit=$2
    shift 2
    echo "== $name (at most $limit s)"
    t0=$(date +%s.%N)
    timeout "$limit" "$@" >"$out/$name.txt" 2>&1
    rc=$?
    cat "$out/$name.txt"
    t1=$(date +%s.%N)
    echo "-- $name: exit $rc, $(echo "$t1 - $t0" | bc) s" | tee -a "$out/times.txt"
  }
  stage device 15 nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  stage gpu_check 120 "$dev/bin/gpu_check" --rows 20 "$ex"/*.yaml
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  small="--device gpu -q --plot none -s fiber.segments=12 -s test.max_displacement=2e-4 -s test.speed=0.2"
  small="$small -s simulation.output_points=5"
  if [ -x "$san" ]; then
    # shellcheck disable=SC2086
    stage memcheck 45 "$san" --tool memcheck --error-exitcode 9 "$dev/bin/fiber-bend3pt" $small -o "$out/san" \
      "$ex/wheat-straw-bend3pt.yaml"
    # shellcheck disable=SC2086
    stage initcheck 45 "$san" --tool initcheck --error-exitcode 9 "$dev/bin/fiber-bend3pt" $small -o "$out/san" \
      "$ex/wheat-straw-bend3pt.yaml"
  else
    echo "compute-sanitizer not found" | tee "$out/memcheck.txt"
  fi
  batch="-q --plot none --solver explicit --batch 1000 -s fiber.segments=24 -s test.max_displacement=1e-3 -s test.speed=0.08"
  batch="$batch -s simulation.output_points=50"
  # shellcheck disable=SC2086
  stage batch_gpu 60 "$dev/bin/fiber-bend3pt" --device gpu $batch -o "$out/batch_gpu" "$ex/wheat-straw-bend3pt.yaml"
  # shellcheck disable=SC2086
  stage batch_cpu 90 "$dev/bin/fiber-bend3pt" --device cpu --threads 16 $batch -o "$out/batch_cpu" \
    "$ex/wheat-straw-bend3pt.yaml"
  if [ -f "$out/batch_gpu.csv" ] && [ -f "$out/batch_cpu.csv" ]; then
    # the rows side by side: the largest difference of the force column, of its largest value
    paste -d, "$out/batch_gpu.csv" "$out/batch_cpu.csv" | awk -F, 'NR > 2 {
        n = NF / 2; d = $4 - $(n + 4); d = d < 0 ? -d : d; if (d > worst) worst = d;
        y = $(n + 4) < 0 ? -$(n + 4) : $(n + 4); if (y > peak) peak = y }
      END { printf "batch: GPU against CPU rows, largest force difference %.3g of the largest force %.4g N\n",
            peak > 0 ? worst / peak : worst, peak }' | tee "$out/batch_diff.txt"
  fi
  stage bench_gpu 140 "$dev/bin/bench" --gpu 200
  echo "== all stages: $(($(date +%s) - t_all)) s"
  ;;
*)
  echo "usage: tests/gpu-session.sh prepare|run" >&2
  exit 2
  ;;
esac
