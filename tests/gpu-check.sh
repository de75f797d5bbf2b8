#!/bin/sh
# The CUDA engine against the CPU engine (tests/gpu_check): skipped (77) in a build
# without CUDA, and by gpu_check itself when no device answers.
prog="${top_builddir:-.}/tests/gpu_check"
if [ ! -x "$prog" ]; then
  echo "gpu-check: this build has no CUDA engine: skipped"
  exit 77
fi
exec "$prog" "$@"
