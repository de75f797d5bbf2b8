#!/bin/sh
# The device check of the CUDA engine, for a session lent a GPU machine (see the
# workplace's device tool): prepare here, run there in one call.
#   tests/gpu-session.sh prepare   build with --with-cuda into build-gpu/ and copy the
#                                  programs and the shared libraries they need (GSL,
#                                  libyaml, libcsv, libgomp) into .device/ (ignored by git)
#   tests/gpu-session.sh run       on the GPU machine, with .device carried: the
#                                  CPU-versus-GPU check on fresh random inputs,
#                                  compute-sanitizer on a small case, the GPU benchmark;
#                                  everything also lands in $OUT when that is set
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
case "${1:-}" in
prepare)
  rm -rf build-gpu .device && mkdir -p build-gpu .device/lib
  git archive --format=tar HEAD | (cd build-gpu && tar xf -) || exit 1
  (cd build-gpu && ./bootstrap >/dev/null 2>&1 && ./configure -q --with-cuda && make -j2 >/dev/null &&
    make -j2 tests/gpu_check tests/bench >/dev/null) || exit 1
  cp build-gpu/tests/gpu_check build-gpu/tests/bench build-gpu/fiber-bend3pt build-gpu/fiber-tension .device/
  cp -r experiments .device/
  for b in .device/gpu_check .device/bench .device/fiber-bend3pt; do
    ldd "$b" | awk '/=> \// {print $3}'
  done | sort -u | grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' | while read -r lib; do
    cp -L "$lib" .device/lib/
  done
  echo "prepared .device: $(ls .device | tr '\n' ' ')"
  ;;
run)
  out=${OUT:-/tmp/fl-gpu-out}
  mkdir -p "$out"
  export LD_LIBRARY_PATH="$top/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1 | tee "$out/device.txt"
  echo "== CPU versus GPU, fresh random inputs"
  .device/gpu_check 2>&1 | tee "$out/gpu_check.txt"
  echo "== compute-sanitizer, a small case"
  if command -v compute-sanitizer >/dev/null 2>&1; then
    compute-sanitizer --tool memcheck .device/fiber-bend3pt --device gpu -q --plot none -o "$out/san" \
      -s fiber.segments=12 -s test.max_displacement=2e-4 -s simulation.output_points=5 \
      .device/experiments/wheat-straw-bend3pt.yaml 2>&1 | tail -n 20 | tee "$out/sanitizer.txt"
  else
    echo "compute-sanitizer not found" | tee "$out/sanitizer.txt"
  fi
  echo "== GPU benchmark"
  .device/bench --gpu 200 2>&1 | tee "$out/bench_gpu.txt"
  echo "== a 1000-specimen 3-point batch: GPU against one CPU core"
  for dev in gpu cpu; do
    /usr/bin/time -f "$dev %e s" .device/fiber-bend3pt --device $dev -q --plot none -o "$out/batch_$dev" --batch 1000 \
      -s fiber.segments=24 -s test.max_displacement=1e-3 -s simulation.output_points=50 \
      .device/experiments/wheat-straw-bend3pt.yaml >/dev/null
  done 2>&1 | tee "$out/batch.txt"
  ;;
*)
  echo "usage: tests/gpu-session.sh prepare|run" >&2
  exit 2
  ;;
esac
