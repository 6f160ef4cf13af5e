// Gradient clipping, as torch.nn.utils.clip_grad_norm_ and clip_grad_value_. Both work on the
// parameters' gradients in place through fused multi-tensor ops and never synchronise the host.
#pragma once

#include <vector>

#include "kiln/core/tensor.h"
#include "kiln/layers/module.h"

namespace kiln {

// total = sqrt(sum of g^2 over every gradient); every gradient *= min(1, max_norm / (total +
// 1e-6)). Returns total as a (1) tensor on the gradients' device (read it with item() only when
// needed: that waits for the GPU). A non-finite total makes the gradients NaN, as in PyTorch.
Tensor clip_grad_norm(const std::vector<Parameter*>& parameters, float max_norm);

// clip_grad_norm for a training loop: the gradients' lists and the (1) norm tensor are made once,
// so that a step allocates nothing, host or device (and a CUDA graph can record the clipping).
// The parameters must outlive it.
class GradNormClipper {
 public:
  GradNormClipper(const std::vector<Parameter*>& parameters, float max_norm);
  // Clips the gradients as clip_grad_norm does; returns the norm before clipping, which the next
  // call overwrites.
  const Tensor& clip();

 private:
  float max_norm_;
  std::vector<Tensor*> grads_;
  std::vector<const Tensor*> read_;  // the same gradients, as multi_sum_squares takes them
  Tensor norm_;
};

// Every gradient element clamped to [-clip, clip].
void clip_grad_value(const std::vector<Parameter*>& parameters, float clip);

}  // namespace kiln
