// embedding: a table lookup, rows of weight picked by integer ids, and its scatter-add backward
// (checks in core/ops/embedding.cpp; kernels in core/cpu/embedding.cpp and
// core/cuda/embedding.cpp). Ids are int32, or float32 holding integers (a token batch's x).
#pragma once

#include "kiln/core/ops/embedding_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// ids: (...) f32 or i32, weight: (num, dim), y: (..., dim) -> y[i] = weight[ids[i]] ("=").
// On the CPU an id that is not an integer in [0, num) is a kiln::Error naming it and its
// position; on a GPU (where a kernel cannot throw) its row of y is NaN, so the loss shows it.
void embedding_forward(const Tensor& ids, const Tensor& weight, Tensor& y);
// ids as forward, dy: (..., dim), dweight: (num, dim) -> dweight[ids[i]] += dy[i], summed in the
// order of i on both devices (no atomics): the same bits every run, on the CPU and the GPU.
void embedding_backward(const Tensor& ids, const Tensor& dy, Tensor& dweight);

namespace op {

// check() fills the record; on the CPU it also checks every id (the GPU's kernels mark a bad one).
struct EmbeddingForward {
  static constexpr const char* kName = "embedding_forward";
  const Tensor& ids;
  const Tensor& weight;
  Tensor& y;
  rec::EmbeddingForward record{};
  void check();
  Device device() const { return weight.device(); }
};

struct EmbeddingBackward {
  static constexpr const char* kName = "embedding_backward";
  const Tensor& ids;
  const Tensor& dy;
  Tensor& dweight;
  rec::EmbeddingBackward record{};
  void check();
  Device device() const { return dweight.device(); }
};

}  // namespace op
}  // namespace kiln
