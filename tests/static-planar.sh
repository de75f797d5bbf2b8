#!/bin/sh
# The static solver's planar reduction against all six unknowns of every body, on each
# planar experiment and on torsion, which is not planar (tests/static_pair.c).
ex="${top_srcdir:-.}/experiments"
exec "${top_builddir:-.}/tests/static_pair" planar "$ex/wheat-straw-bend3pt-cycle.yaml" "$ex/wheat-straw-bend3pt-yield.yaml" \
  "$ex/wheat-straw-arc-bend3pt.yaml" "$ex/wheat-straw-cantilever.yaml" "$ex/wheat-straw-compression.yaml" \
  "$ex/glass-fibre-tension.yaml" "$ex/aluminium-tube-torsion.yaml"
