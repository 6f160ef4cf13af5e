// The CUDA seam of the NCCL communicators: the bodies live in
// distributed/cuda/nccl_communicator.cpp.
#include "kiln/distributed/nccl_communicator.h"

#include "kiln/core/device.h"
#include "kiln/core/error.h"
#include "kiln/distributed/mpi_communicator.h"

#if KILN_CUDA
#include "kiln/distributed/cuda/nccl_communicator.h"
#endif

namespace kiln {

namespace {
void check_gpus_usable() {
  KILN_CHECK(cuda_available(),
             "NCCL communicators ({}) need a GPU, but none can be used: {}; use {}",
             Setting::nccl_communicators, cuda_unavailable_reason(), Setting::cpu_device_under_mpi);
}
}  // namespace

std::vector<std::unique_ptr<Communicator>> make_nccl_communicators(std::span<const int> devices,
                                                                   CommunicatorOptions options) {
  KILN_CHECK(!devices.empty(), "NCCL communicators need at least one GPU, found an empty list");
  check_gpus_usable();
#if KILN_CUDA
  return cuda::make_nccl_communicators(devices, options);
#else
  (void)options;
  detail::throw_built_without_cuda(
      fmt::format("NCCL communicators ({})", Setting::nccl_communicators).c_str());
#endif
}

std::unique_ptr<Communicator> make_nccl_communicator(int device, MpiCommunicator& bootstrap,
                                                     CommunicatorOptions options) {
  check_gpus_usable();
#if KILN_CUDA
  return cuda::make_nccl_communicator(device, bootstrap, options);
#else
  (void)device, (void)bootstrap, (void)options;
  detail::throw_built_without_cuda(
      fmt::format("NCCL communicators ({})", Setting::nccl_communicators).c_str());
#endif
}

}  // namespace kiln
