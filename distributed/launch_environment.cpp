// The launchers' variables, read in order of precedence (distributed/launch_environment.h).
#include "kiln/distributed/launch_environment.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <initializer_list>
#include <string>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"

namespace kiln {

namespace {

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

// A whole non-negative number, or kiln::Error naming the variable.
int env_count(const char* name, const char* value) {
  int n = -1;
  const char* end = value + std::char_traits<char>::length(value);
  const auto [ptr, ec] = std::from_chars(value, end, n);
  KILN_CHECK(ec == std::errc() && ptr == end && n >= 0,
             "the environment variable {} must be a whole number >= 0, found {}", name,
             excerpt(value));
  return n;
}

// The first of `names` that is set, as a number; `fallback` when none is.
int first_count(std::initializer_list<const char*> names, int fallback, std::string& source) {
  for (const char* name : names)
    if (const char* value = env(name)) {
      const int n = env_count(name, value);
      source += fmt::format("{}{}={}", source.empty() ? "" : ", ", name, n);
      return n;
    }
  return fallback;
}

MpiLaunch checked(MpiLaunch launch) {
  KILN_CHECK(launch.world_size >= 1 && launch.rank < launch.world_size,
             "{} set an impossible place for this process ({}): the rank must be below the "
             "number of ranks, which must be at least 1",
             launch.launcher, launch.source);
  return launch;
}

}  // namespace

std::optional<MpiLaunch> mpi_launch_from_environment() {
  MpiLaunch launch;
  if (env("OMPI_COMM_WORLD_SIZE")) {
    launch.launcher = "Open MPI (mpirun)";
    launch.world_size = first_count({"OMPI_COMM_WORLD_SIZE"}, 1, launch.source);
    launch.rank = first_count({"OMPI_COMM_WORLD_RANK"}, 0, launch.source);
    launch.local_rank = first_count({"OMPI_COMM_WORLD_LOCAL_RANK"}, 0, launch.source);
    return checked(launch);
  }
  if (env("PMI_SIZE")) {
    launch.launcher = "MPICH (Hydra)";
    launch.world_size = first_count({"PMI_SIZE"}, 1, launch.source);
    launch.rank = first_count({"PMI_RANK"}, 0, launch.source);
    launch.local_rank = first_count({"MPI_LOCALRANKID"}, 0, launch.source);
    return checked(launch);
  }
  // A step's own count first: srun --preserve-env keeps the allocation's SLURM_NTASKS.
  if (env("SLURM_STEP_ID") && env("SLURM_PROCID")) {
    launch.launcher = "Slurm (srun)";
    launch.world_size = first_count({"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"}, 1, launch.source);
    launch.rank = first_count({"SLURM_PROCID"}, 0, launch.source);
    launch.local_rank = first_count({"SLURM_LOCALID"}, 0, launch.source);
    const char* nodes = env("SLURM_STEP_NODELIST");
    if (nodes == nullptr) nodes = env("SLURM_JOB_NODELIST");
    if (nodes != nullptr) launch.nodes = nodes;
    return checked(launch);
  }
  return std::nullopt;
}

int gpu_for_local_rank(int local_rank, int visible_gpus) {
  KILN_CHECK(visible_gpus >= 1, "this rank (host-local rank {}) sees no GPU", local_rank);
  if (visible_gpus == 1) return 0;  // each rank was given its own, or there is only one
  KILN_CHECK(local_rank < visible_gpus,
             "host-local rank {} would drive GPU {}, but this host shows {} GPUs: start at most {} "
             "ranks per host (mpirun --map-by ppr:{}:node, srun --ntasks-per-node={}), or give "
             "each rank its own GPU (srun --gpus-per-task=1)",
             local_rank, local_rank, visible_gpus, visible_gpus, visible_gpus, visible_gpus);
  return local_rank;
}

}  // namespace kiln
