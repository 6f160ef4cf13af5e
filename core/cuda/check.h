// Checks for every CUDA runtime and cuBLAS call: a failing status becomes a kiln::Error naming
// the library, the status, the call and where it was made. One generic thrower serves all the
// libraries (cuDNN: cudnn_check.h, NCCL: nccl_check.h), so .cu files need no formatting code.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace kiln::detail {
[[noreturn]] void throw_library_error(const char* library, int status, const char* status_name,
                                      const char* description, const char* call, const char* file,
                                      int line);
// For destructors, which only log: logs the failed call at error level.
void log_library_error(const char* library, int status, const char* status_name,
                       const char* call) noexcept;
}  // namespace kiln::detail

#define KILN_LIBRARY_CHECK(library, call, ok, name_of, description_of)                         \
  do {                                                                                         \
    const auto kiln_status_ = (call);                                                          \
    if (kiln_status_ != (ok)) [[unlikely]]                                                     \
      ::kiln::detail::throw_library_error(library, static_cast<int>(kiln_status_),             \
                                          name_of(kiln_status_), description_of(kiln_status_), \
                                          #call, __FILE__, __LINE__);                          \
  } while (0)

// A failing runtime call also leaves its error as the thread's last error: it is cleared before
// the throw, so that the next launch check (cudaGetLastError) does not blame a later kernel for
// it. A sticky error (a broken context) stays whatever is done.
#define KILN_CUDA_CHECK(call)                                                               \
  do {                                                                                      \
    const cudaError_t kiln_cuda_status_ = (call);                                           \
    if (kiln_cuda_status_ != cudaSuccess) [[unlikely]] {                                    \
      (void)cudaGetLastError();                                                             \
      ::kiln::detail::throw_library_error(                                                  \
          "CUDA", static_cast<int>(kiln_cuda_status_), cudaGetErrorName(kiln_cuda_status_), \
          cudaGetErrorString(kiln_cuda_status_), #call, __FILE__, __LINE__);                \
    }                                                                                       \
  } while (0)
#define KILN_CUBLAS_CHECK(call)                                                  \
  KILN_LIBRARY_CHECK("cuBLAS", call, CUBLAS_STATUS_SUCCESS, cublasGetStatusName, \
                     cublasGetStatusString)
// In destructors: logs a failing status instead of throwing.
#define KILN_CUBLAS_LOG(call)                                                      \
  do {                                                                             \
    const auto kiln_status_ = (call);                                              \
    if (kiln_status_ != CUBLAS_STATUS_SUCCESS)                                     \
      ::kiln::detail::log_library_error("cuBLAS", static_cast<int>(kiln_status_),  \
                                        cublasGetStatusName(kiln_status_), #call); \
  } while (0)
// After every kernel launch: reports a bad launch configuration at the launch site.
#define KILN_CUDA_CHECK_LAUNCH() KILN_CUDA_CHECK(cudaGetLastError())
