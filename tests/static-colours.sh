#!/bin/sh
# The static solver's tangent by colours against every bond evaluated for every column
# (tests/static_pair.c): on the general bond law (reversible and damage buckling, a
# crooked stem's oblique bonds, a yield), and on the vectorised law with a criterion and
# viscoelastic damping (the maize roots' drops experiment).
ex="${top_srcdir:-.}/experiments"
exec "${top_builddir:-.}/tests/static_pair" colours "$ex/straw-buckling-reversible.yaml" "$ex/straw-buckling-damage.yaml" \
  "$ex/crooked-stem-bend3pt.yaml" "$ex/wheat-straw-bend3pt-yield.yaml" "$ex/aluminium-tube-torsion-yield.yaml" \
  "${top_srcdir:-.}/fits/maize-brace-roots-drops-experiment.yaml"
