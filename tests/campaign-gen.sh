# Sourced by the campaign tests: gen_population N SEED [RHO] writes, in the current
# folder, a population of N rods of tests/campaign/rod.yaml drawn from known
# distributions (Box-Muller normals from awk's generator seeded with SEED):
#   diameter                     uniform in [1.8, 2.2] mm
#   bond.torque_stiffness_scale  normal, mean 1.2, sd 0.12
#   bond.failure.max_stress      normal, mean 30 MPa, sd 3 MPa, correlated with a_rot
#                                at RHO (default 0: independent)
# truth.csv (name, diameter_mm, a_rot, max_stress_Pa), specimens.csv (name, curve,
# diameter_mm: what a lab would record), the curves in curves/ made by fiber-bend3pt
# with each rod's true values, and campaign.yaml fitting fit.yaml on every rod.
# Needs $top_builddir, $fixtures (tests/campaign); returns 1 when a run fails.
gen_population() {
  awk -v n="$1" -v seed="$2" -v rho="${3:-0}" 'BEGIN {
    srand(seed); pi = 3.14159265358979
    print "name,diameter_mm,a_rot,max_stress_Pa"
    for (i = 1; i <= n; i++) {
      d = 1.8 + 0.4 * rand()
      u1 = rand(); u2 = rand(); if (u1 < 1e-12) u1 = 1e-12
      z1 = sqrt(-2 * log(u1)) * cos(2 * pi * u2); z2 = sqrt(-2 * log(u1)) * sin(2 * pi * u2)
      if (rho != 0) z2 = rho * z1 + sqrt(1 - rho * rho) * z2
      printf "rod%03d,%.6f,%.8f,%.8e\n", i, d, 1.2 + 0.12 * z1, 30e6 + 3e6 * z2
    }
  }' >truth.csv || return 1
  mkdir -p curves
  echo "# rods of a synthetic population; diameter measured with a caliper" >specimens.csv
  echo "name,curve,diameter_mm" >>specimens.csv
  tail -n +2 truth.csv | while IFS=, read -r name d a s; do
    r=$(awk -v d="$d" 'BEGIN { printf "%.10g", d / 2000 }')
    "$top_builddir/fiber-bend3pt" -q --plot none -s "fiber.outer_radius=$r" -s "bond.torque_stiffness_scale=$a" \
      -s "bond.failure.max_stress=$s" -o "curves/$name" "$fixtures/rod.yaml" >/dev/null || return 1
    echo "$name,$name.csv,$d" >>specimens.csv
  done || return 1
  sed "s|experiment: rod.yaml|experiment: $fixtures/rod.yaml|" "$fixtures/fit.yaml" >fit.yaml
  cat >campaign.yaml <<EOC
campaign:
  fit: fit.yaml
  specimens: specimens.csv
  file: curve
  id: name
  data_folder: curves
  columns:
    fiber.outer_radius: { column: diameter_mm, unit: mm, scale: 0.5 }
EOC
}
