#!/bin/sh
# The automatic time step is stable for 1e5 steps on every file in experiments/.
set -e
exec "${top_builddir:-.}/tests/stability" "${top_srcdir:-.}"/experiments/*.yaml
