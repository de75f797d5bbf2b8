#!/bin/sh
# The CUDA engine's logic without a device: gpu/engine.cu, unchanged, compiled for the
# CPU through the host shim of the CUDA runtime (tests/cuda/cuda_runtime.h) and run
# against the CPU engine by tests/gpu_check_shim, on a fresh seed (printed; set
# GPU_CHECK_SEED to repeat one):
#  1. bit for bit (--exact): random bonds, the fixed tests, random specimens of every
#     kind, and every file of experiments/: its first GPU_SHIM_ROWS rows (20), or all
#     of them with GPU_SHIM_ROWS=0 (make check-slow);
#  2. with one result in 3 of sin, cos and atan2 an ulp off (FL_SHIM_ULP=3), as a
#     device's maths library may round them: every comparison gpu_check makes on a
#     device, within its tolerances (gpu/README.md, Accuracy), and with
#     GPU_SHIM_ROWS=0 the buckling files too, whose kinks take atan2 past its series.
# Skipped (77) only where no C++ compiler built the shim.
prog="${top_builddir:-.}/tests/gpu_check_shim"
src="${top_srcdir:-.}"
if [ ! -x "$prog" ]; then
  echo "gpu-shim: no C++17 compiler built the host shim: skipped"
  exit 77
fi
seed=${GPU_CHECK_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
[ "$seed" -gt 0 ] 2>/dev/null || seed=1
rows=${GPU_SHIM_ROWS:-20}
echo "== bit for bit (seed $seed; repeat with GPU_CHECK_SEED=$seed)"
FL_SHIM_ULP=0 "$prog" --exact --seed "$seed" --rows "$rows" "$src"/experiments/*.yaml || exit 1
echo "== sin, cos and atan2 an ulp off in one result of 3, within the device's tolerances"
slow=""
[ "$rows" -eq 0 ] && slow="$src/experiments/straw-buckling-damage.yaml $src/experiments/straw-buckling-plastic.yaml $src/experiments/straw-buckling-reversible.yaml"
# shellcheck disable=SC2086
FL_SHIM_ULP=3 "$prog" --seed "$seed" $slow || exit 1
exit 0
