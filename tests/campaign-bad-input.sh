#!/bin/sh
# fiber-calibrate CAMPAIGN.yaml (fiberlab-campaign(5)): a table row whose curve is
# missing, a mapped column the table lacks, a value out of range for the key it maps to
# (after the unit and the scale), a cell that is not a number, a name given twice, a
# unit of another quantity (a length's for a modulus too), a key that is not an experiment key, a file column the
# table lacks, a fitted range out of range or with x_min not below x_max, a campaign.drop
# that is not a choice or that keeps no row: each gets its exact message naming the table (or campaign file), its
# row and column, exit status 2, nothing on stdout and no file written (run from an
# empty directory with the fixtures of tests/campaign/ linked in as bad/).
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
bin=$(cd "$top_builddir" && pwd)/fiber-calibrate
fixtures=$(cd "$top_srcdir/tests/campaign" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
n=0

. "$top_srcdir/tests/bad-input-check.sh"
check() {
  expect=$1
  shift
  check_bad "$bin" fiber-calibrate "$expect" "$@"
}
ln -s "$fixtures" "$work/bad"

check "fiber-calibrate: bad/missing-file.csv:3: row 2 (rod-b), column 'curve': 'gone.csv' cannot be read (bad/curves/gone.csv): No such file or directory; allowed: a readable curve file, relative to data_folder; nothing written" bad/missing-file.yaml
check "fiber-calibrate: bad/no-such-column.yaml:9:35: campaign.columns.fiber.outer_radius.column: 'diameter' is not a column of bad/good.csv; allowed: name, curve, diameter_mm; nothing written" bad/no-such-column.yaml
check "fiber-calibrate: bad/out-of-range.csv:3: row 2 (rod-b), column 'diameter_mm': -2.1 mm gives fiber.outer_radius = -0.00105: fiber.outer_radius: '-0.0010500000000000002' is out of range; allowed: a number in (0, 1] m; nothing written" bad/out-of-range.yaml
check "fiber-calibrate: bad/not-a-number.csv:3: row 2 (rod-b), column 'diameter_mm' (fiber.outer_radius): 'two' is not a number; allowed: a number in every row; nothing written" bad/not-a-number.yaml
check "fiber-calibrate: bad/same-name.csv:3: row 2, column 'name': 'rod-a' is the name of row 1 too; allowed: a name for each specimen once; nothing written" bad/same-name.yaml
check "fiber-calibrate: bad/bad-unit.yaml:9:54: campaign.columns.fiber.outer_radius.unit: 'N' is not a unit of fiber.outer_radius (its YAML unit is m); allowed: mm | um | m; nothing written" bad/bad-unit.yaml
check "fiber-calibrate: bad/modulus-unit.yaml:9:56: campaign.columns.fiber.youngs_modulus.unit: 'mm' is not a unit of fiber.youngs_modulus (its YAML unit is Pa); allowed: Pa | kPa | MPa | GPa; nothing written" bad/modulus-unit.yaml
check "fiber-calibrate: bad/unknown-key.yaml:9:5: campaign.columns.fiber.outer_diameter: 'fiber.outer_diameter' is not a numeric experiment key; allowed: a dotted path of fiberlab-experiment(5) with a number, such as fiber.outer_radius or test.span; nothing written" bad/unknown-key.yaml
check "fiber-calibrate: bad/no-file-column.yaml:5:9: campaign.file: 'curve_file' is not a column of bad/good.csv; allowed: name, curve, diameter_mm; nothing written" bad/no-file-column.yaml
check "fiber-calibrate: bad/out-of-range.csv:3: row 2 (rod-b), column 'diameter_mm': -2.1 mm gives data.x_min = -0.00021 m: out of range; allowed: a number in [0, 10] m; nothing written" bad/xmin-out-of-range.yaml
check "fiber-calibrate: bad/good.csv:3: row 1 (rod-a): bad/fit.yaml:4:5: data[1].x_min: 0.0004 m is not below x_max 0.0002 m; allowed: x_min < x_max (data.x_min and data.x_max of the campaign's table included); nothing written" bad/range-inverted.yaml
check "fiber-calibrate: bad/drop-not-a-choice.yaml:8:9: campaign.drop: 'maybe' is not a choice; allowed: any, yes, no; nothing written" bad/drop-not-a-choice.yaml
check "fiber-calibrate: bad/drop-none.yaml:8:9: campaign.drop: yes: none of the 2 rows of bad/good.csv has a curve with a drop; allowed: a table with at least one such row, or drop: any; nothing written" bad/drop-none.yaml

echo "$n checks, $fails failed"
[ "$fails" = 0 ]
