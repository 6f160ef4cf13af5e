// MPI collectives on CPU tensors over MPI_COMM_WORLD, blocking, each watched by the watchdog.
// MPI is initialised with MPI_THREAD_MULTIPLE when offered, because the watchdog calls MPI_Abort
// from its own thread while the training thread is blocked in a collective.
#include "kiln/distributed/mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kiln/core/error.h"
#include "kiln/core/ops.h"

namespace kiln {

namespace {

int g_thread_level = MPI_THREAD_SINGLE;

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  KILN_THROW("{} failed: {}", call, std::string(text, static_cast<std::size_t>(length)));
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

MPI_Op mpi_op(CollectiveOp op) { return op == CollectiveOp::max ? MPI_MAX : MPI_SUM; }

// MPI counts are int: larger buffers go in chunks.
template <typename F> void in_chunks(std::size_t count, F&& f) {
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min<std::size_t>(count - done, INT_MAX);
    f(done, static_cast<int>(n));
    done += n;
  }
}

// srun without a PMI that this Open MPI speaks starts N processes that each initialise MPI alone
// (rank 0 of 1): every one would train the whole data set and write the same checkpoints.
void check_launch_agrees(int mpi_rank, int mpi_size) {
  const std::optional<MpiLaunch> launch = mpi_launch_from_environment();
  if (!launch || (launch->world_size == mpi_size && launch->rank == mpi_rank)) return;
  const bool slurm = launch->launcher.starts_with("Slurm");
  KILN_THROW(
      "{} placed this process as rank {} of {} ({}), but MPI_Init made it rank {} of {}: the "
      "launcher did not join its processes into one MPI job. {}",
      launch->launcher, launch->rank, launch->world_size, launch->source, mpi_rank, mpi_size,
      slurm ? "Start the step with `srun --mpi=pmix` (Open MPI talks to Slurm through PMIx; "
              "`srun --mpi=list` shows what this Slurm offers), or run mpirun inside the "
              "allocation instead of srun"
            : "Start every rank with the same mpirun, and link kiln to that MPI");
}

}  // namespace

bool mpi_initialized() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

void abort_mpi_job_if_running(int exit_code, double wait_s) {
  if (!mpi_initialized()) return;
  int size = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (size > 1) {
    std::fflush(stdout);
    std::fflush(stderr);
    leave_by_itself_after(wait_s, exit_code, fmt::format("rank {} of {} (MPI)", rank, size),
                          "MPI_Abort");
    MPI_Abort(MPI_COMM_WORLD, exit_code);
  }
}

MpiCommunicator::Joined MpiCommunicator::join() {
  if (!mpi_initialized()) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    KILN_CHECK(!finalized, "MPI was already finalised in this process; it cannot be started again");
    check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &g_thread_level),
              "MPI_Init_thread");
    std::atexit(finalize_at_exit);
  }
  Joined j{0, 1};
  MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &j.world_size);
  check_launch_agrees(j.rank, j.world_size);
  return j;
}

MpiCommunicator::MpiCommunicator(CommunicatorOptions options) : MpiCommunicator(join(), options) {}

MpiCommunicator::MpiCommunicator(Joined joined, CommunicatorOptions options)
    : Communicator(joined.rank, joined.world_size, Device::cpu()),
      watchdog_(
          options.timeout_s, fmt::format("rank {} of {} (MPI)", joined.rank, joined.world_size),
          [who = fmt::format("rank {} of {} (MPI)", joined.rank, joined.world_size)](
              const std::string& message) {
            std::fprintf(stderr, "%s\n", message.c_str());
            std::fflush(stdout);
            std::fflush(stderr);
            // MPI_Abort from this thread is allowed only at MPI_THREAD_MULTIPLE; otherwise
            // exiting makes mpirun end the other ranks just the same.
            if (g_thread_level >= MPI_THREAD_MULTIPLE) {
              leave_by_itself_after(kAbortWaitS, 1, who, "MPI_Abort");
              MPI_Abort(MPI_COMM_WORLD, 1);
            }
            std::_Exit(1);
          },
          *options.words) {}

MpiCommunicator::~MpiCommunicator() = default;

std::string MpiCommunicator::describe() const {
  return fmt::format("MPI rank {} of {}", rank(), world_size());
}

CollectiveWatchdog::Scope MpiCommunicator::watch(const char* collective, std::size_t count,
                                                 const char* type) {
  return {watchdog_, fmt::format("{} #{} ({} {})", collective, ++collectives_, count, type)};
}

void MpiCommunicator::all_reduce_async_impl(Tensor& x, CollectiveOp op) {
  auto* data = x.data<float>();
  const auto count = static_cast<std::size_t>(x.numel());
  {
    const char* what = op == CollectiveOp::max    ? "all-reduce (max)"
                       : op == CollectiveOp::mean ? "all-reduce (mean)"
                                                  : "all-reduce (sum)";
    const auto watched = watch(what, count, "floats");
    in_chunks(count, [&](std::size_t offset, int n) {
      check_mpi(
          MPI_Allreduce(MPI_IN_PLACE, data + offset, n, MPI_FLOAT, mpi_op(op), MPI_COMM_WORLD),
          "MPI_Allreduce");
    });
  }
  if (op == CollectiveOp::mean && world_size() > 1)
    scale(x, 1.0f / static_cast<float>(world_size()));
}

void MpiCommunicator::broadcast_impl(Tensor& x, int root) {
  broadcast_bytes(x.raw_data(), x.nbytes(), root);
}

void MpiCommunicator::broadcast_bytes(void* data, std::size_t bytes, int root) {
  const auto watched = watch("broadcast", bytes, "bytes");
  in_chunks(bytes, [&](std::size_t offset, int n) {
    check_mpi(MPI_Bcast(static_cast<char*>(data) + offset, n, MPI_BYTE, root, MPI_COMM_WORLD),
              "MPI_Bcast");
  });
}

void MpiCommunicator::all_reduce_host_impl(std::span<double> values, CollectiveOp op) {
  const auto watched = watch("all-reduce of host values", values.size(), "doubles");
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE,
                          mpi_op(op), MPI_COMM_WORLD),
            "MPI_Allreduce");
}

void MpiCommunicator::barrier_impl() {
  const auto watched = watch("barrier", 0, "bytes");
  check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

}  // namespace kiln
