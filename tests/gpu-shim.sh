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
#     GPU_SHIM_ROWS=0 the buckling files too, whose kinks take atan2 past its series;
#  3. the programs (tests/fiber_shim: cli.c as built with CUDA, over the shim): every
#     test kind with --device gpu --solver explicit writes the CPU's CSV and summary
#     byte for byte, the summary saying device: gpu; --device auto and gpu on a
#     quasi-static test keep the CPU's static solver or run explicit on the GPU, each
#     with a note; a device out of memory or a kernel's fault ends the run with
#     CUDA's reason; MPI ranks take the devices in turn by their local rank.
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

echo "== the programs with --device gpu, against --device cpu"
bin=$(cd "${top_builddir:-.}" && pwd)
fiber="$bin/tests/fiber_shim"
prog="$bin/tests/gpu_check_shim"
ex=$(cd "$src/experiments" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0
same() { # KIND FILE ARGS...: the GPU's CSV rows and summary are the CPU's
  k=$1
  shift
  if ! "$fiber" "$k" --device gpu --solver explicit -q --plot none -o g "$@" >g.sum 2>g.err ||
    ! "$bin/fiber-$k" --solver explicit -q --plot none -o c "$@" >c.sum 2>c.err; then
    echo "FAIL: $k $*"
    cat g.err c.err
    fails=$((fails + 1))
    return
  fi
  tail -n +2 g.csv >g.rows # the first line is the command
  tail -n +2 c.csv >c.rows
  grep -v -e '^wall_time:' -e '^csv:' -e '^device: gpu$' g.sum >g.keys
  grep -v -e '^wall_time:' -e '^csv:' c.sum >c.keys
  if cmp -s g.rows c.rows && cmp -s g.keys c.keys && grep -q '^device: gpu$' g.sum; then
    echo "ok: $k $* ($(grep '^steps:' c.sum))"
  else
    echo "FAIL: $k $*: the GPU's CSV or summary differs"
    diff g.sum c.sum
    fails=$((fails + 1))
  fi
}
same bend3pt "$ex/wheat-straw-bend3pt.yaml" -s fiber.segments=12 -s test.max_displacement=1e-3
same bend4pt "$ex/wheat-straw-bend4pt.yaml" -s fiber.segments=12 -s test.max_displacement=1e-3
# rigid tools on springs (test.contact linear): the penalty law, and the springs on the rows
same bend3pt "$ex/wheat-straw-bend3pt.yaml" -s fiber.segments=12 -s test.max_displacement=1e-3 -s test.contact=linear -s test.contact_stiffness=1e5
same tension "$ex/glass-fibre-tension-break.yaml"
same torsion "$ex/aluminium-tube-torsion-yield.yaml" -s fiber.segments=18
same cantilever "$ex/wheat-straw-vibration.yaml" -s fiber.segments=8
same cantilever "$ex/wheat-straw-taper-cantilever.yaml" -s fiber.segments=10 -s test.max_tip_displacement=0.01
same compression "$ex/wheat-straw-compression.yaml" -s fiber.segments=10
# a batch large enough that the downloads page-lock the host's arrays, and unlock them
same tension "$ex/glass-fibre-tension.yaml" --batch 12000 -s fiber.segments=4 -s simulation.output_points=3 -s test.speed=5
if grep -q ' [1-9][0-9]* host arrays page-locked;' g.err && ! grep -q 'LEFT LOCKED' g.err; then
  echo "ok: the batch's host arrays page-locked for the downloads, and unlocked"
else
  echo "FAIL: page-locking: $(grep 'cuda shim' g.err)"; fails=$((fails + 1))
fi
# the device and the solver: auto keeps the CPU's static solver, gpu runs explicit
quick="-s fiber.segments=12 -s test.max_displacement=5e-4 -q --plot none"
# shellcheck disable=SC2086
"$fiber" bend3pt --device auto $quick -o a "$ex/wheat-straw-bend3pt.yaml" >a.sum 2>a.err
if grep -q '^solver: static$' a.sum && ! grep -q '^device:' a.sum && grep -q 'note: --device auto: .*static solver' a.err; then
  echo "ok: --device auto on a quasi-static test: the CPU's static solver, with a note"
else
  echo "FAIL: --device auto on a quasi-static test"; cat a.sum a.err; fails=$((fails + 1))
fi
# shellcheck disable=SC2086
"$fiber" bend3pt --device gpu $quick -o a "$ex/wheat-straw-bend3pt.yaml" >a.sum 2>a.err
if grep -q '^solver: explicit$' a.sum && grep -q '^device: gpu$' a.sum && grep -q 'note: --device gpu: .*explicit on the GPU' a.err; then
  echo "ok: --device gpu on a quasi-static test: explicit on the GPU, with a note"
else
  echo "FAIL: --device gpu on a quasi-static test"; cat a.sum a.err; fails=$((fails + 1))
fi
# a device out of memory while the engine is made, and a kernel's fault seen at a copy:
# exit 1 with CUDA's reason, nothing written (leaks: the sanitised suite)
for f in "malloc:20 CUDA: cudaMalloc: out of memory" \
  "copy:3 cannot copy the state back from the GPU: CUDA: copy from the device: an illegal memory access"; do
  rm -f f.csv
  FL_SHIM_FAIL=${f%% *} "$fiber" tension --device gpu -q --plot none -s simulation.output_points=5 -o f \
    "$ex/glass-fibre-tension.yaml" >/dev/null 2>f.err
  rc=$?
  if [ $rc -eq 1 ] && grep -q "${f#* }" f.err && [ ! -e f.csv ]; then
    echo "ok: FL_SHIM_FAIL=${f%% *}: exit 1, $(grep -o "${f#* }" f.err)"
  else
    echo "FAIL: FL_SHIM_FAIL=${f%% *}: exit $rc"; cat f.err; fails=$((fails + 1))
  fi
done
# ranks on a node take its devices in turn
if FL_SHIM_DEVICES=4 OMPI_COMM_WORLD_LOCAL_RANK=6 "$prog" --bonds 10 --random 0 --no-fixed 2>&1 | grep -q '(device 2 of 4)'; then
  echo "ok: local rank 6 of a node with 4 devices takes device 2"
else
  echo "FAIL: the device by local rank"; fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] || exit 1
exit 0
