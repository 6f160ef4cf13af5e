#!/bin/sh
# Runs COMMAND... as `srun --mpi=pmix` runs a task: an mpirun rank dressed as one. The variables a
# Slurm step sets (SLURM_STEP_ID, SLURM_PROCID, SLURM_STEP_NUM_TASKS, SLURM_NTASKS, SLURM_LOCALID,
# SLURM_STEP_NODELIST, ...) take the rank's values and Open MPI's own OMPI_COMM_WORLD_* go, so the
# program must find its place from Slurm's variables alone; MPI_Init still joins the job through
# the PMIx server of mpirun's daemon, as it would through slurmstepd's under srun --mpi=pmix.
export SLURM_JOB_ID=81723 SLURM_STEP_ID=0 SLURM_STEPID=0
export SLURM_PROCID="$OMPI_COMM_WORLD_RANK" SLURM_LOCALID="$OMPI_COMM_WORLD_LOCAL_RANK" SLURM_NODEID=0
export SLURM_STEP_NUM_TASKS="$OMPI_COMM_WORLD_SIZE" SLURM_NTASKS="$OMPI_COMM_WORLD_SIZE"
export SLURM_STEP_NODELIST='node[01-02]' SLURM_JOB_NODELIST='node[01-02]' SLURM_STEP_NUM_NODES=2 SLURM_NNODES=2
for v in $(env | sed -n 's/^\(OMPI_COMM_WORLD_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
exec "$@"
