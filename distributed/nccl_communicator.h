// NCCL communicators: all-reduce of GPU tensors on a stream of their own, so gradient buckets
// travel while backward still computes. Two ways to make them: one process driving several GPUs
// (ncclCommInitAll, one thread per GPU), or one process per GPU under mpirun (rank 0 makes the
// ncclUniqueId and MPI broadcasts it). A build without CUDA throws "built without CUDA".
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "kiln/distributed/communicator.h"

namespace kiln {

class MpiCommunicator;

// Rank i works on cuda:devices[i]; hand each communicator to the thread that drives its GPU.
// The communicators of one call share their fate: abort() on one aborts them all.
std::vector<std::unique_ptr<Communicator>> make_nccl_communicators(
    std::span<const int> devices, CommunicatorOptions options = {});

// This process's rank (bootstrap.rank()) on cuda:device, among bootstrap.world_size() processes.
std::unique_ptr<Communicator> make_nccl_communicator(int device, MpiCommunicator& bootstrap,
                                                     CommunicatorOptions options = {});

}  // namespace kiln
