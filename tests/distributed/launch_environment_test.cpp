// Where a process sits in a job, from the variables its launcher sets: Open MPI's mpirun, MPICH's
// Hydra and a Slurm step (srun) — the exact sets each one gives a task — and which GPU a rank
// takes among those its process sees.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "kiln/distributed/launch_environment.h"
#include "tests/support/error_testing.h"

namespace {

// The launchers' variables this test sets, cleared before and after each case.
constexpr const char* kVariables[] = {"OMPI_COMM_WORLD_SIZE",
                                      "OMPI_COMM_WORLD_RANK",
                                      "OMPI_COMM_WORLD_LOCAL_RANK",
                                      "PMI_SIZE",
                                      "PMI_RANK",
                                      "MPI_LOCALRANKID",
                                      "SLURM_JOB_ID",
                                      "SLURM_STEP_ID",
                                      "SLURM_PROCID",
                                      "SLURM_NTASKS",
                                      "SLURM_STEP_NUM_TASKS",
                                      "SLURM_LOCALID",
                                      "SLURM_NODEID",
                                      "SLURM_STEP_NODELIST",
                                      "SLURM_JOB_NODELIST",
                                      "SLURM_STEP_NUM_NODES",
                                      "SLURM_TASKS_PER_NODE",
                                      "SLURM_NNODES"};

class LaunchEnvironment : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* name : kVariables) ::unsetenv(name);
  }
  static void set(const std::map<std::string, std::string>& values) {
    for (const auto& [name, value] : values) ::setenv(name.c_str(), value.c_str(), 1);
  }
  // Task 5 of a 6-task step on node[01-03], two tasks per node (block distribution): node 03's
  // second task. What slurmstepd and srun put in its environment.
  static void set_slurm_step_task() {
    set({{"SLURM_JOB_ID", "81723"},
         {"SLURM_STEP_ID", "0"},
         {"SLURM_PROCID", "5"},
         {"SLURM_NTASKS", "6"},
         {"SLURM_STEP_NUM_TASKS", "6"},
         {"SLURM_LOCALID", "1"},
         {"SLURM_NODEID", "2"},
         {"SLURM_STEP_NODELIST", "node[01-03]"},
         {"SLURM_JOB_NODELIST", "node[01-03]"},
         {"SLURM_STEP_NUM_NODES", "3"},
         {"SLURM_TASKS_PER_NODE", "2(x3)"},
         {"SLURM_NNODES", "3"}});
  }
};

}  // namespace

TEST_F(LaunchEnvironment, APlainProcessIsNoLaunch) {
  EXPECT_FALSE(kiln::mpi_launch_from_environment().has_value());
}

TEST_F(LaunchEnvironment, ReadsOpenMpisRankSizeAndLocalRank) {
  set({{"OMPI_COMM_WORLD_SIZE", "7"},
       {"OMPI_COMM_WORLD_RANK", "4"},
       {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}});
  const auto launch = kiln::mpi_launch_from_environment();
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->world_size, 7);
  EXPECT_EQ(launch->rank, 4);
  EXPECT_EQ(launch->local_rank, 1);
  EXPECT_EQ(launch->launcher, "Open MPI (mpirun)");
  EXPECT_TRUE(launch->nodes.empty());
}

TEST_F(LaunchEnvironment, ReadsMpichHydrasVariables) {
  set({{"PMI_SIZE", "3"}, {"PMI_RANK", "2"}, {"MPI_LOCALRANKID", "0"}});
  const auto launch = kiln::mpi_launch_from_environment();
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->world_size, 3);
  EXPECT_EQ(launch->rank, 2);
  EXPECT_EQ(launch->local_rank, 0);
  EXPECT_EQ(launch->launcher, "MPICH (Hydra)");
}

TEST_F(LaunchEnvironment, ReadsASlurmStepTaskWithItsNodeList) {
  set_slurm_step_task();
  const auto launch = kiln::mpi_launch_from_environment();
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->world_size, 6);
  EXPECT_EQ(launch->rank, 5);
  EXPECT_EQ(launch->local_rank, 1);
  EXPECT_EQ(launch->launcher, "Slurm (srun)");
  EXPECT_EQ(launch->nodes, "node[01-03]");
  EXPECT_EQ(launch->source, "SLURM_STEP_NUM_TASKS=6, SLURM_PROCID=5, SLURM_LOCALID=1");
}

TEST_F(LaunchEnvironment, ASlurmStepCountsItsOwnTasksNotTheAllocations) {
  // srun -n 2 --preserve-env inside an 8-task allocation keeps SLURM_NTASKS=8.
  set_slurm_step_task();
  set({{"SLURM_NTASKS", "8"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_PROCID", "1"}});
  EXPECT_EQ(kiln::mpi_launch_from_environment()->world_size, 2);
  ::unsetenv("SLURM_STEP_NUM_TASKS");  // an older srun: only SLURM_NTASKS
  set({{"SLURM_NTASKS", "6"}});
  EXPECT_EQ(kiln::mpi_launch_from_environment()->world_size, 6);
}

TEST_F(LaunchEnvironment, ASlurmBatchScriptItselfIsNoLaunch) {
  // The batch script runs as one process with the allocation's variables but no step.
  set({{"SLURM_JOB_ID", "81723"},
       {"SLURM_PROCID", "0"},
       {"SLURM_NTASKS", "8"},
       {"SLURM_LOCALID", "0"},
       {"SLURM_JOB_NODELIST", "node[01-02]"}});
  EXPECT_FALSE(kiln::mpi_launch_from_environment().has_value());
}

TEST_F(LaunchEnvironment, MpirunInsideASlurmAllocationWinsOverItsDaemonsStep) {
  // mpirun starts its daemons with srun (one task per node): its ranks inherit that step's
  // SLURM_PROCID (the node) beside Open MPI's own variables, which are the ranks'.
  set_slurm_step_task();
  set({{"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "3"}});
  set({{"OMPI_COMM_WORLD_SIZE", "12"},
       {"OMPI_COMM_WORLD_RANK", "7"},
       {"OMPI_COMM_WORLD_LOCAL_RANK", "3"}});
  const auto launch = kiln::mpi_launch_from_environment();
  EXPECT_EQ(launch->launcher, "Open MPI (mpirun)");
  EXPECT_EQ(launch->world_size, 12);
  EXPECT_EQ(launch->rank, 7);
  EXPECT_EQ(launch->local_rank, 3);
}

TEST_F(LaunchEnvironment, ValuesThatAreNoPlaceInTheJobAreRefusedNamingTheVariable) {
  set_slurm_step_task();
  set({{"SLURM_PROCID", "5x"}});
  std::string message = kiln::testing::error_message([] { kiln::mpi_launch_from_environment(); });
  EXPECT_NE(message.find("SLURM_PROCID must be a whole number >= 0, found '5x'"), std::string::npos)
      << message;
  set({{"SLURM_PROCID", "6"}});
  message = kiln::testing::error_message([] { kiln::mpi_launch_from_environment(); });
  EXPECT_NE(message.find("Slurm (srun) set an impossible place for this process "
                         "(SLURM_STEP_NUM_TASKS=6, SLURM_PROCID=6, SLURM_LOCALID=1)"),
            std::string::npos)
      << message;
  clear();
  set({{"OMPI_COMM_WORLD_SIZE", "-2"}});
  message = kiln::testing::error_message([] { kiln::mpi_launch_from_environment(); });
  EXPECT_NE(message.find("OMPI_COMM_WORLD_SIZE must be a whole number"), std::string::npos)
      << message;
}

TEST(GpuForLocalRank, TakesTheHostLocalRanksGpuOrTheOnlyOneVisible) {
  EXPECT_EQ(kiln::gpu_for_local_rank(0, 8), 0);
  EXPECT_EQ(kiln::gpu_for_local_rank(5, 8), 5);
  EXPECT_EQ(kiln::gpu_for_local_rank(2, 3), 2);
  // srun --gpus-per-task=1: each task sees one GPU, its own, as device 0.
  EXPECT_EQ(kiln::gpu_for_local_rank(3, 1), 0);
}

TEST(GpuForLocalRank, MoreRanksThanGpusOnAHostAreRefusedSayingHowManyToStart) {
  const std::string message = kiln::testing::error_message([] { kiln::gpu_for_local_rank(4, 4); });
  EXPECT_NE(message.find("host-local rank 4 would drive GPU 4, but this host shows 4 GPUs: start "
                         "at most 4 ranks per host"),
            std::string::npos)
      << message;
  EXPECT_NE(kiln::testing::error_message([] { kiln::gpu_for_local_rank(0, 0); }), "");
}
