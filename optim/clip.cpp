// clip_grad_norm and clip_grad_value over the multi-tensor ops: multi_sum_squares then
// clip_by_global_norm (which reads the norm on the device), and clamp_.
#include "kiln/optim/clip.h"

#include <cmath>

#include "kiln/core/ops.h"

namespace kiln {

namespace {
std::vector<Tensor*> gradients(const std::vector<Parameter*>& parameters, const char* op) {
  std::vector<Tensor*> grads;
  grads.reserve(parameters.size());
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    KILN_CHECK(parameters[i] != nullptr, "{}: parameter {} is null", op, i);
    grads.push_back(&parameters[i]->grad);
  }
  return grads;
}
}  // namespace

Tensor clip_grad_norm(const std::vector<Parameter*>& parameters, float max_norm) {
  GradNormClipper clipper(parameters, max_norm);
  return clipper.clip();
}

GradNormClipper::GradNormClipper(const std::vector<Parameter*>& parameters, float max_norm)
    : max_norm_(max_norm), grads_(gradients(parameters, "clip_grad_norm")),
      read_(grads_.begin(), grads_.end()) {
  KILN_CHECK(std::isfinite(max_norm) && max_norm > 0.0f,
             "clip_grad_norm: max_norm must be a finite value > 0, found {}", max_norm);
  const Device device = grads_.empty() ? Device::cpu() : grads_[0]->device();
  norm_ = Tensor::empty(Shape{1}, DType::f32, device);
}

const Tensor& GradNormClipper::clip() {
  // One (1) tensor holds the squared norm, then (overwritten after the scaling) the norm.
  multi_sum_squares(read_, norm_);
  clip_by_global_norm(grads_, norm_, max_norm_, &norm_);
  return norm_;
}

void clip_grad_value(const std::vector<Parameter*>& parameters, float clip) {
  KILN_CHECK(std::isfinite(clip) && clip > 0.0f,
             "clip_grad_value: clip must be a finite value > 0, found {}", clip);
  clamp_(gradients(parameters, "clip_grad_value"), -clip, clip);
}

}  // namespace kiln
