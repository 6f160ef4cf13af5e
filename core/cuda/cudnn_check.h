// KILN_CUDNN_CHECK: cuDNN statuses through the generic library check.
#pragma once

#include <cudnn.h>

#include "kiln/core/cuda/check.h"

namespace kiln::detail {
inline const char* cudnn_status_name(cudnnStatus_t status) { return cudnnGetErrorString(status); }
// cuDNN 9 keeps the reason for the last failure on this thread (which descriptor, which value).
inline const char* cudnn_status_description(cudnnStatus_t) {
  thread_local char message[1024];
  message[0] = '\0';
  cudnnGetLastErrorString(message, sizeof(message));
  return message[0] != '\0' ? message : "cuDNN gave no further detail";
}
}  // namespace kiln::detail

#define KILN_CUDNN_CHECK(call)                                                               \
  KILN_LIBRARY_CHECK("cuDNN", call, CUDNN_STATUS_SUCCESS, ::kiln::detail::cudnn_status_name, \
                     ::kiln::detail::cudnn_status_description)
