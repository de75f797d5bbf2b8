#!/bin/sh
# An example Slurm batch script for a fiberlab campaign spread over MPI ranks
# (fiberlab-campaign(5)); submit with: sbatch docs/slurm-campaign.sh CAMPAIGN.yaml
# fiberlab must be configured with --with-mpi.  Each rank fits the rows i with
# i mod N = its rank, with a checkpoint per row in PREFIX.checkpoint.d/ (a shared
# file system); rank 0 gathers the results and writes the reports, the same, bit for
# bit, as a serial run's.  A job that hits its time limit keeps its checkpoints:
# resubmit with RESUME=--resume to go on from where it stopped.
#SBATCH --job-name=fiber-campaign
#SBATCH --ntasks=32              # ranks: at most one per specimen is useful
#SBATCH --cpus-per-task=1        # each rank fits one specimen at a time, on one thread
#SBATCH --time=01:00:00
#SBATCH --output=fiber-campaign-%j.log
set -eu
campaign=${1:?usage: sbatch slurm-campaign.sh CAMPAIGN.yaml [PREFIX]}
prefix=${2:-$(basename "$campaign" .yaml)}
# srun starts the ranks Slurm allotted (mpirun -n "$SLURM_NTASKS" works as well);
# -q: no progress lines in the log, --plot png: the reports' plots on rank 0
srun fiber-calibrate -q --plot png ${RESUME:-} -o "$prefix" "$campaign" >"$prefix-summary.yaml"
