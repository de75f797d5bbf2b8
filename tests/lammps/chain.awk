# chain.awk: a LAMMPS data file (atom_style bpm/sphere) of the straight chain that
# tests/bench.c times: nbond + 1 spheres of diameter 1 a unit apart on the x axis,
# bonded in a row, with small random velocities.  Usage: awk -v nbond=N -f chain.awk
BEGIN {
  n = nbond + 1
  printf "fiberlab bench: a straight chain of %d bonds\n\n", nbond
  printf "%d atoms\n%d bonds\n1 atom types\n1 bond types\n\n", n, nbond
  printf "-1 %d xlo xhi\n-2 2 ylo yhi\n-2 2 zlo zhi\n\n", n
  # bpm/sphere: atom-ID molecule-ID atom-type diameter density x y z
  printf "Atoms # bpm/sphere\n\n"
  for (i = 1; i <= n; i++)
    printf "%d 1 1 1.0 1.0 %d 0 0\n", i, i - 1
  srand(42)
  printf "\nVelocities\n\n"
  for (i = 1; i <= n; i++)
    printf "%d %.6e %.6e %.6e 0 0 0\n", i, 1e-3 * (2 * rand() - 1), 1e-3 * (2 * rand() - 1), 1e-3 * (2 * rand() - 1)
  printf "\nBonds\n\n"
  for (b = 1; b <= nbond; b++)
    printf "%d 1 %d %d\n", b, b, b + 1
}
