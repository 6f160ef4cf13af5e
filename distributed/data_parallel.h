// The pieces the training loop needs to run as one replica of a data-parallel job: identical
// starting weights, metrics summed over ranks, a stop request honoured by every rank at the same
// step. With a single-process communicator each is a no-op or the identity. Elsewhere: injected
// faults (apps/train/fault_injection.h), each rank's test shard (data/subset_dataset.h), the check
// that every rank runs with the same train flags (apps/train/train_checks.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kiln/distributed/communicator.h"
#include "kiln/layers/metrics.h"
#include "kiln/layers/module.h"

namespace kiln {

// Every rank's parameters and float buffers become rank 0's.
void broadcast_from_rank0(Module& model, Communicator& comm);
// Only the buffers (BatchNorm's running statistics, which each rank updates from its own share
// of the batch), as PyTorch's DDP does with broadcast_buffers: before evaluating, so every rank
// evaluates the model rank 0 saves.
void broadcast_buffers_from_rank0(Module& model, Communicator& comm);

// Loss and accuracy over the samples of every rank (each weighted by its sample count).
RunningMetrics::Values sum_over_ranks(const RunningMetrics::Values& local, Communicator& comm);

// True on every rank when any rank asked to stop.
bool any_rank_stopping(bool stopping_here, Communicator& comm);

}  // namespace kiln
