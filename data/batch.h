// Batch: what the DataLoader hands the training loop. Its tensors are views of memory the loader
// reuses, valid until the loader's iterator advances; clone() what must live longer.
#pragma once

#include <cstdint>

#include "kiln/core/tensor.h"

namespace kiln {

struct Batch {
  Tensor x;                // (B, sample_shape...) float32, on the loader's device
  Tensor y;                // (B) int32 labels, or (B, target_shape...) float32 targets, on the
                           // loader's device (Dataset::has_class_labels says which)
  std::int64_t index = 0;  // position of the batch in its epoch
};

}  // namespace kiln
