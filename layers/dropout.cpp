// Dropout over the dropout ops. At p = 0 every mask value is exactly 1, so training forward and
// backward are the identity too and pass their tensor through: no mask is drawn or stored (GPT
// presets run every dropout at p = 0). The generator still advances, so its state (which
// checkpoints save) is the one a drawn mask would leave.
#include "kiln/layers/dropout.h"

#include "kiln/core/ops.h"

namespace kiln {

Dropout::Dropout(float p, std::uint64_t seed) : p_(p), gen_(seed) {
  KILN_CHECK(p_ >= 0.0f && p_ <= 1.0f, "Dropout: p must be in [0, 1], found {}", p_);
  register_generator("mask", gen_);
}

std::string Dropout::describe() const { return fmt::format("Dropout(p={})", p_); }

std::string Dropout::graph_capture_blocker() const {
  return fmt::format("{}: its mask must change every step", describe());
}

Tensor Dropout::forward_impl(const Tensor& x) {
  has_mask_ = is_training();
  if (!is_training()) return x;
  const std::uint64_t offset = gen_.advance(static_cast<std::uint64_t>(x.numel()));
  if (p_ == 0.0f) return x;
  Tensor& y = reuse(y_, x.shape());
  dropout_forward(x, y, reuse(mask_, x.shape()), p_, gen_.seed(), offset);
  return y;
}

Tensor Dropout::backward_impl(const Tensor& dy) {
  KILN_CHECK(has_mask_, "{}: backward needs a forward made in training mode", describe());
  if (p_ == 0.0f) return dy;
  Tensor& dx = reuse_gradient(0, dy.shape());
  dropout_backward(dy, mask_, dx);
  return dx;
}

}  // namespace kiln
