// NCCL collectives on a communication stream of their own. A collective waits (by an event) for
// the work already queued on the caller's current stream, then runs beside whatever is queued
// next there — backward of the layers before the bucket; wait_all() makes the current stream wait
// for the communication stream. Host values go through a small device buffer.
#include "kiln/distributed/cuda/nccl_communicator.h"

#include <cuda_runtime_api.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <shared_mutex>
#include <vector>

#include "kiln/core/cuda/context.h"
#include "kiln/core/error.h"
#include "kiln/core/log.h"
#include "kiln/distributed/collective_watchdog.h"
#include "kiln/distributed/cuda/nccl_check.h"
#include "kiln/distributed/mpi_communicator.h"

namespace kiln::cuda {

namespace {

// The communicators made together share their fate. After one rank's error (or a timeout),
// ncclCommAbort on all of them makes the peers' kernels give up instead of waiting forever. The
// lock keeps an abort from freeing a communicator while another thread is inside an NCCL call.
struct NcclGroup {
  std::shared_mutex mutex;
  bool aborted = false;
  std::vector<ncclComm_t> comms;

  void abort_all() noexcept {
    std::unique_lock lock(mutex);
    if (aborted) return;
    aborted = true;
    for (ncclComm_t comm : comms) (void)ncclCommAbort(comm);
  }
};

ncclRedOp_t nccl_op(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::sum: return ncclSum;
    case CollectiveOp::mean: return ncclAvg;  // averaged inside NCCL: no extra kernel
    case CollectiveOp::max: return ncclMax;
  }
  return ncclSum;
}

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(ncclComm_t comm, int rank, int world_size, int device,
                   std::shared_ptr<NcclGroup> group, CommunicatorOptions options)
      : Communicator(rank, world_size, Device::cuda(device)), comm_(comm), device_(device),
        group_(std::move(group)), stream_(create_stream(device)), ready_(create_event(device)),
        watchdog_(
            options.timeout_s, describe(),
            [group = group_, who = describe()](const std::string& message) {
              std::fprintf(stderr, "%s\n", message.c_str());
              std::fflush(stderr);
              // ncclCommAbort and MPI_Abort may both wait on a network that just died.
              leave_by_itself_after(kAbortWaitS, 1, who, "ncclCommAbort and MPI_Abort");
              group->abort_all();
              abort_mpi_job_if_running(1);
              std::_Exit(1);
            },
            *options.words) {
    for (void*& event : done_) event = create_event(device);
  }

  ~NcclCommunicator() override {
    // Unwinding from an error, collectives the peers will never match may still be queued, and
    // ncclCommDestroy would wait for them forever: abort the group instead.
    if (std::uncaught_exceptions() > 0) group_->abort_all();
    bool destroy = false;
    {  // taken out of the group first, so no abort frees it while it is destroyed
      std::unique_lock lock(group_->mutex);
      destroy = !group_->aborted;
      if (destroy) std::erase(group_->comms, comm_);
    }
    // Outside the lock: should the destroy hang, the watchdog (still armed) can take the lock,
    // abort the others and end the job.
    if (destroy) {
      const ncclResult_t status = ncclCommDestroy(comm_);
      if (status != ncclSuccess) log::warn("ncclCommDestroy: {}", ncclGetErrorString(status));
    }
    watchdog_.disarm();  // the events it polls go away below
    if (host_scratch_ != nullptr) (void)cudaFree(host_scratch_);
    destroy_event(ready_);
    for (void* event : done_) destroy_event(event);
  }

  std::string describe() const override {
    return fmt::format("NCCL rank {} of {} on cuda:{}", rank(), world_size(), device_);
  }
  bool overlaps_compute() const override { return true; }
  void abort() noexcept override { group_->abort_all(); }

 protected:
  void all_reduce_async_impl(Tensor& x, CollectiveOp op) override {
    after_current_stream();
    enqueue([&] {
      return ncclAllReduce(x.raw_data(), x.raw_data(), static_cast<std::size_t>(x.numel()),
                           ncclFloat, nccl_op(op), comm_, stream_);
    });
    record_stream(device_, x.raw_data(), stream_);  // x freed early is not reused under NCCL's feet
    pending_ = fmt::format("all-reduce #{} ({} of {} floats)", ++collectives_,
                           collective_op_name(op), x.numel());
  }

  void wait_all_impl() override {
    if (pending_.empty()) return;
    // Each wait gets its own event from a ring, so the watchdog times every one from its own
    // start. The event's previous wait is kDoneEvents waits old: finished long ago unless the
    // job hangs (and then the watchdog fires); it is dropped from the watchdog before reuse.
    void* done = done_[waits_++ % done_.size()];
    synchronize_event(done);
    watchdog_.drop_finished();
    record_event(done, stream_);
    stream_wait_event(current_stream(device_), done);
    // The host does not wait here: the watchdog polls the event from its own thread.
    watchdog_.arm(pending_, [device = device_, done] {
      set_device(device);  // no context on device 0 for the watchdog's thread
      const cudaError_t status = cudaEventQuery(static_cast<cudaEvent_t>(done));
      return status != cudaErrorNotReady;  // an error is the training thread's to report
    });
    pending_.clear();
  }

  void broadcast_impl(Tensor& x, int root) override {
    after_current_stream();
    enqueue([&] {
      return ncclBroadcast(x.raw_data(), x.raw_data(), static_cast<std::size_t>(x.numel()),
                           ncclFloat, root, comm_, stream_);
    });
    record_stream(device_, x.raw_data(), stream_);
    pending_ =
        fmt::format("broadcast #{} ({} floats from rank {})", ++collectives_, x.numel(), root);
  }

  void all_reduce_host_impl(std::span<double> values, CollectiveOp op) override {
    set_device(device_);
    const std::size_t bytes = values.size() * sizeof(double);
    if (bytes > host_scratch_bytes_) {  // grows once to the largest request; steps reuse it
      if (host_scratch_ != nullptr) KILN_CUDA_CHECK(cudaFree(host_scratch_));
      host_scratch_ = nullptr;
      KILN_CUDA_CHECK(cudaMalloc(&host_scratch_, bytes));
      host_scratch_bytes_ = bytes;
    }
    CollectiveWatchdog::Scope watched(
        watchdog_, fmt::format("all-reduce #{} of {} host values", ++collectives_, values.size()));
    copy_bytes_async(host_scratch_, values.data(), bytes, stream_);
    enqueue([&] {
      return ncclAllReduce(host_scratch_, host_scratch_, values.size(), ncclDouble, nccl_op(op),
                           comm_, stream_);
    });
    copy_bytes_async(values.data(), host_scratch_, bytes, stream_);
    synchronize_stream(stream_);
    // An aborted collective's kernels just stop: the stream completes with partial sums.
    check_not_aborted();
  }

  void barrier_impl() override {
    double token = 0.0;
    all_reduce_host_impl(std::span<double>(&token, 1), CollectiveOp::sum);
  }

 private:
  // The communication stream starts after what the caller queued so far (the bucket's gradients).
  void after_current_stream() {
    set_device(device_);
    record_event(ready_, current_stream(device_));
    stream_wait_event(stream_, ready_);
  }

  template <typename Call> void enqueue(Call&& call) {
    std::shared_lock lock(group_->mutex);
    check_not_aborted_locked();
    KILN_NCCL_CHECK(call());
  }

  void check_not_aborted() {
    std::shared_lock lock(group_->mutex);
    check_not_aborted_locked();
  }
  void check_not_aborted_locked() const {
    KILN_CHECK(!group_->aborted,
               "{}: the NCCL communicators were aborted after an error on another "
               "rank (see its message above)",
               describe());
  }

  ncclComm_t comm_;
  int device_;
  std::shared_ptr<NcclGroup> group_;
  cudaStream_t stream_;
  void* ready_;  // on the current stream: the inputs are ready
  // On stream_, one per wait_all in turn: every collective before that wait has finished. More
  // than the steps a host runs ahead of its GPU (it reads the loss every 50).
  std::array<void*, 64> done_{};
  std::size_t waits_ = 0;
  CollectiveWatchdog watchdog_;
  std::string pending_;  // the last collective not yet waited for, for the watchdog's message
  std::size_t collectives_ = 0;
  void* host_scratch_ = nullptr;
  std::size_t host_scratch_bytes_ = 0;
};

}  // namespace

std::vector<std::unique_ptr<Communicator>> make_nccl_communicators(std::span<const int> devices,
                                                                   CommunicatorOptions options) {
  for (int d : devices) check_device(d);
  auto group = std::make_shared<NcclGroup>();
  group->comms.resize(devices.size());
  const int n = static_cast<int>(devices.size());
  KILN_NCCL_CHECK(ncclCommInitAll(group->comms.data(), n, devices.data()));
  std::vector<std::unique_ptr<Communicator>> ranks;
  for (int r = 0; r < n; ++r)
    ranks.push_back(std::make_unique<NcclCommunicator>(group->comms[static_cast<std::size_t>(r)], r,
                                                       n, devices[static_cast<std::size_t>(r)],
                                                       group, options));
  return ranks;
}

std::unique_ptr<Communicator> make_nccl_communicator(int device, MpiCommunicator& bootstrap,
                                                     CommunicatorOptions options) {
  check_device(device);
  ncclUniqueId id{};
  if (bootstrap.rank() == 0) KILN_NCCL_CHECK(ncclGetUniqueId(&id));
  bootstrap.broadcast_bytes(&id, sizeof id, 0);
  set_device(device);
  auto group = std::make_shared<NcclGroup>();
  group->comms.resize(1);
  KILN_NCCL_CHECK(ncclCommInitRank(&group->comms[0], bootstrap.world_size(), id, bootstrap.rank()));
  return std::make_unique<NcclCommunicator>(group->comms[0], bootstrap.rank(),
                                            bootstrap.world_size(), device, group, options);
}

}  // namespace kiln::cuda
