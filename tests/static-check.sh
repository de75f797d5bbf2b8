#!/bin/sh
# The static solver against the explicit engine on every file in experiments/: peaks,
# rows before and after events, permanent sets, residuals (tests/static_check.c).
exec "${top_builddir:-.}/tests/static_check" "${top_srcdir:-.}"/experiments/*.yaml
