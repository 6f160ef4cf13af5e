// The pieces the training loop needs to run as one replica of a data-parallel job: agreeing on
// the options, identical starting weights, a shard of the test split, metrics summed over ranks,
// a stop request honoured by every rank at the same step, and injected faults for testing the
// failure handling. With a single-process communicator each is a no-op or the identity.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kiln/dist/communicator.h"
#include "kiln/data/dataset.h"
#include "kiln/layers/metrics.h"
#include "kiln/layers/module.h"
#include "kiln/training/train_options.h"

namespace kiln {

// Throws on every rank when any rank runs with other training options (a job of mismatched
// commands would issue mismatched collectives and hang).
void check_same_options_on_every_rank(const TrainOptions& options, Communicator& comm);

// Every rank's parameters and float buffers become rank 0's.
void broadcast_from_rank0(Module& model, Communicator& comm);
// Only the buffers (BatchNorm's running statistics, which each rank updates from its own share
// of the batch), as PyTorch's DDP does with broadcast_buffers: before evaluating, so every rank
// evaluates the model rank 0 saves.
void broadcast_buffers_from_rank0(Module& model, Communicator& comm);

// Rank r's contiguous share of `data` (sizes differ by at most one; nothing padded or repeated),
// so that summing over ranks evaluates every sample exactly once.
std::shared_ptr<const Dataset> evaluation_shard(std::shared_ptr<const Dataset> data, int rank,
                                                int world_size);

// Loss and accuracy over the samples of every rank (each weighted by its sample count).
RunningMetrics::Values sum_over_ranks(const RunningMetrics::Values& local, Communicator& comm);

// True on every rank when any rank asked to stop.
bool any_rank_stopping(bool stopping_here, Communicator& comm);

// KILN_INJECT_FAULT="fail:RANK:STEP" makes rank RANK throw at optimizer step STEP (0-based);
// "hang:RANK:STEP" makes it stop answering there. Used by the tests of failure handling.
class FaultInjection {
 public:
  FaultInjection();  // reads the environment
  void at_step(int rank, std::int64_t step) const;

 private:
  std::string kind_;  // "", "fail" or "hang"
  int rank_ = -1;
  std::int64_t step_ = -1;
};

}  // namespace kiln
