// MPI: the processes of a job started by mpirun (or srun). MpiCommunicator all-reduces CPU tensors
// over MPI_COMM_WORLD (the data-parallel path on CPUs, and the bootstrap of NCCL across hosts). MPI
// is initialised by the first MpiCommunicator and finalised at exit; a launcher whose ranks MPI did
// not join into one job (srun without PMIx) is refused there. mpi.h stays out of this header.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include "kiln/distributed/abort_deadline.h"
#include "kiln/distributed/collective_watchdog.h"
#include "kiln/distributed/communicator.h"
#include "kiln/distributed/launch_environment.h"

namespace kiln {

bool mpi_initialized();  // and not yet finalised
// After an error on this rank: with MPI running and several ranks, prints nothing more and ends
// the whole job with MPI_Abort (the other ranks would otherwise wait for this one forever). If
// MPI_Abort has not ended this process after wait_s (its daemon cannot reach the other hosts),
// the process leaves by itself (abort_deadline.h). Returns when there is no such job.
void abort_mpi_job_if_running(int exit_code, double wait_s = kAbortWaitS);

class MpiCommunicator final : public Communicator {
 public:
  explicit MpiCommunicator(CommunicatorOptions options = {});
  ~MpiCommunicator() override;

  std::string describe() const override;
  // Raw bytes from `root` to every rank (the NCCL unique id). Blocking.
  void broadcast_bytes(void* data, std::size_t bytes, int root);

 protected:
  void all_reduce_async_impl(Tensor& x, CollectiveOp op) override;
  void wait_all_impl() override {}  // every MPI collective here completes before it returns
  void broadcast_impl(Tensor& x, int root) override;
  void all_reduce_host_impl(std::span<double> values, CollectiveOp op) override;
  void barrier_impl() override;

 private:
  struct Joined {
    int rank, world_size;
  };
  MpiCommunicator(Joined joined, CommunicatorOptions options);
  static Joined join();
  CollectiveWatchdog::Scope watch(const char* collective, std::size_t count, const char* type);

  CollectiveWatchdog watchdog_;
  std::size_t collectives_ = 0;  // numbers them in the watchdog's message
};

}  // namespace kiln
