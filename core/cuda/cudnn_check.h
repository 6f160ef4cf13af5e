// KILN_CUDNN_CHECK: cuDNN statuses through the generic library check.
#pragma once

#include <cudnn.h>

#include "kiln/core/cuda/check.h"

namespace kiln::detail {
inline const char* cudnn_status_name(cudnnStatus_t status) { return cudnnGetErrorString(status); }
inline const char* cudnn_status_description(cudnnStatus_t) {
  return "see cudnnGetLastErrorString for details";
}
}  // namespace kiln::detail

#define KILN_CUDNN_CHECK(call)                                                           \
  KILN_LIBRARY_CHECK("cuDNN", call, CUDNN_STATUS_SUCCESS, ::kiln::detail::cudnn_status_name, \
                     ::kiln::detail::cudnn_status_description)
