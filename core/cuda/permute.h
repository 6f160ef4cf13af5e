// The launch of core/cuda/permute.cu on raw device pointers, queued on `stream`; checked, never
// synchronising the host. core/cuda/permute.cpp registers it. size and stride: per output axis,
// y's size and x's stride of the axis it reads (op::Permute), rank <= 6.
#pragma once

#include "kiln/core/cuda/backend.h"

namespace kiln::cuda {

struct PermuteGeometry {
  int rank;
  Index size[6];
  Index stride[6];
};

void permute(const PermuteGeometry& g, Index count, const float* x, float* y, cudaStream_t stream);

}  // namespace kiln::cuda
