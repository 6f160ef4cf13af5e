// Communicator: the collectives data-parallel training needs across the ranks of one job —
// all-reduce of float tensors (gradients), broadcast (initial weights), all-reduce of a few host
// doubles (evaluation metrics, agreement checks) and a barrier. Every rank must call the same
// collectives in the same order.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "kiln/core/setting.h"
#include "kiln/core/tensor.h"

namespace kiln {

enum class CollectiveOp : unsigned char { sum, mean, max };
const char* collective_op_name(CollectiveOp op);

struct CommunicatorOptions {
  // A collective that has not finished after this long makes the watchdog print which one, on
  // which rank, and end the whole job (a peer died or hangs). 0 turns the watchdog off.
  double timeout_s = 300.0;
  // The words the watchdog's message names that setting in (an app gives its flags').
  const SettingWords* words = &api_setting_words();
};

// Implementations: one process alone (no-ops, here), MPI on CPU tensors
// (distributed/mpi_communicator.h) and NCCL on GPU tensors (distributed/nccl_communicator.h).
class Communicator {
 public:
  virtual ~Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  // Where the tensors handed to the collectives must live.
  Device device() const { return device_; }
  // "MPI rank 1 of 2", "NCCL rank 0 of 4 on cuda:0", "single process".
  virtual std::string describe() const = 0;
  // True when all_reduce_async runs beside compute (NCCL's own stream), so starting a bucket as
  // soon as backward has produced it saves time; false when it runs in the calling thread.
  virtual bool overlaps_compute() const { return false; }
  // True only for the one-process communicator, whose collectives do nothing.
  virtual bool is_single_process() const { return false; }

  // In place across ranks: each element becomes the sum / mean / max of that element on every
  // rank. `x` is a contiguous float32 tensor on device(). Ordered after the work already queued
  // on the calling thread's current stream; it may still be running when this returns (NCCL),
  // so call wait_all() before reading `x`.
  void all_reduce_async(Tensor& x, CollectiveOp op);
  // Makes the calling thread's current stream (on the CPU: the caller) wait for every collective
  // started so far.
  void wait_all();
  // all_reduce_async of each tensor, then wait_all().
  void all_reduce(std::span<Tensor* const> tensors, CollectiveOp op);
  // In place: every rank's tensors become `root`'s. Same placement rules; waits like all_reduce.
  void broadcast(std::span<Tensor* const> tensors, int root = 0);
  // Host values, in place: sum or max over ranks (mean is sum / world_size). Blocking.
  void all_reduce_host(std::span<double> values, CollectiveOp op);
  void barrier();
  // After an error on this rank: makes peers in this process that wait on it fail rather than
  // hang (NCCL: aborts every communicator made together with this one). Across processes the
  // job is ended instead (abort_mpi_job_if_running). Later collectives here throw.
  virtual void abort() noexcept {}

 protected:
  Communicator(int rank, int world_size, Device device);
  virtual void all_reduce_async_impl(Tensor& x, CollectiveOp op) = 0;
  virtual void wait_all_impl() = 0;
  virtual void broadcast_impl(Tensor& x, int root) = 0;
  virtual void all_reduce_host_impl(std::span<double> values, CollectiveOp op) = 0;
  virtual void barrier_impl() = 0;

 private:
  void check_tensor(const char* what, const Tensor& x) const;
  int rank_;
  int world_size_;
  Device device_;
};

// One process alone: every collective leaves its data as it is (the mean of one rank is itself).
std::unique_ptr<Communicator> make_single_process_communicator(Device device);

}  // namespace kiln
