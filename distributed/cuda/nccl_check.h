// KILN_NCCL_CHECK: NCCL results through the generic library check.
#pragma once

#include <nccl.h>

#include "kiln/core/cuda/check.h"

namespace kiln::detail {
inline const char* nccl_result_name(ncclResult_t result) { return ncclGetErrorString(result); }
inline const char* nccl_result_description(ncclResult_t) {
  return "see ncclGetLastError and NCCL_DEBUG=WARN for details";
}
}  // namespace kiln::detail

#define KILN_NCCL_CHECK(call)                                                     \
  KILN_LIBRARY_CHECK("NCCL", call, ncclSuccess, ::kiln::detail::nccl_result_name, \
                     ::kiln::detail::nccl_result_description)
