// Where this process sits in a job, read from what its launcher put in the environment, before
// any MPI call: Open MPI's mpirun (OMPI_COMM_WORLD_*), MPICH's Hydra (PMI_*), or a Slurm job step
// started by srun (SLURM_PROCID, SLURM_STEP_NUM_TASKS or SLURM_NTASKS, SLURM_LOCALID). mpirun's
// variables win: mpirun inside a Slurm allocation starts its daemons through srun, so its ranks
// also inherit the daemons' SLURM_* values, which describe the daemons, not the ranks.
#pragma once

#include <optional>
#include <string>

namespace kiln {

struct MpiLaunch {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;  // among the processes on this host: picks the GPU
  // "Open MPI (mpirun)", "MPICH (Hydra)" or "Slurm (srun)": named in messages.
  std::string launcher;
  // Slurm's node list of the step ("node[01-04]"); empty for the others.
  std::string nodes;
  // The variables the sizes came from, for messages ("SLURM_PROCID=1, SLURM_STEP_NUM_TASKS=4").
  std::string source;
};

// Nothing when no launcher started this process (a plain run, or a Slurm batch script itself:
// only a step, with SLURM_STEP_ID, counts). Throws kiln::Error for values that are not numbers
// or out of range, naming the variable.
std::optional<MpiLaunch> mpi_launch_from_environment();

// The GPU a rank drives among the `visible_gpus` its process sees: its host-local rank, or the
// only one visible when the launcher gave each rank a GPU of its own (Slurm's --gpus-per-task=1
// or --gpu-bind=single:1, a CUDA_VISIBLE_DEVICES per rank). Throws when the host has fewer GPUs
// than ranks on it, saying how many to start.
int gpu_for_local_rank(int local_rank, int visible_gpus);

}  // namespace kiln
