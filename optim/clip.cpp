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
  const Device device = parameters.empty() || parameters[0] == nullptr
                            ? Device::cpu()
                            : parameters[0]->grad.device();
  Tensor total = Tensor::empty(Shape{1}, DType::f32, device);
  clip_grad_norm(parameters, max_norm, total);
  return total;
}

void clip_grad_norm(const std::vector<Parameter*>& parameters, float max_norm, Tensor& norm) {
  KILN_CHECK(std::isfinite(max_norm) && max_norm > 0.0f,
             "clip_grad_norm: max_norm must be a finite value > 0, found {}", max_norm);
  const std::vector<Tensor*> grads = gradients(parameters, "clip_grad_norm");
  // One (1) tensor holds the squared norm, then (overwritten after the scaling) the norm.
  const std::vector<const Tensor*> read(grads.begin(), grads.end());
  multi_sum_squares(read, norm);
  clip_by_global_norm(grads, norm, max_norm, &norm);
}

void clip_grad_value(const std::vector<Parameter*>& parameters, float clip) {
  KILN_CHECK(std::isfinite(clip) && clip > 0.0f,
             "clip_grad_value: clip must be a finite value > 0, found {}", clip);
  clamp_(gradients(parameters, "clip_grad_value"), -clip, clip);
}

}  // namespace kiln
