// The NCCL communicators' bodies, behind the seam in distributed/nccl_communicator.cpp. CUDA builds
// only.
#pragma once

#include "kiln/distributed/nccl_communicator.h"

namespace kiln::cuda {

std::vector<std::unique_ptr<Communicator>> make_nccl_communicators(std::span<const int> devices,
                                                                   CommunicatorOptions options);
std::unique_ptr<Communicator> make_nccl_communicator(int device, MpiCommunicator& bootstrap,
                                                     CommunicatorOptions options);

}  // namespace kiln::cuda
