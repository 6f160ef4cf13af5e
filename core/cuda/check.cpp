// The one thrower behind KILN_CUDA_CHECK, KILN_CUBLAS_CHECK, KILN_CUDNN_CHECK, KILN_NCCL_CHECK.
#include "kiln/core/cuda/check.h"

#include "kiln/core/error.h"
#include "kiln/core/log.h"

namespace kiln::detail {

void throw_library_error(const char* library, int status, const char* status_name,
                         const char* description, const char* call, const char* file, int line) {
  const bool out_of_memory =
      std::string_view(library) == "CUDA" && status == cudaErrorMemoryAllocation;
  throw_error(
      file, line,
      fmt::format("{} call failed with {} ({}): {}{}", library, status_name, status, description,
                  out_of_memory ? "; the GPU is out of memory, try a smaller batch" : "") +
          fmt::format(" [in {}]", call));
}

void log_library_error(const char* library, int status, const char* status_name,
                       const char* call) noexcept {
  try {
    log::error("{} call failed with {} ({}) [in {}]", library, status_name, status, call);
  } catch (...) {  // logging itself failed: nothing more to do in a destructor
  }
}

}  // namespace kiln::detail
