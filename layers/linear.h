// Linear: y = x Wᵀ + b, W: (out, in), b: (out), initialised as PyTorch's nn.Linear does
// (Kaiming-uniform with a = sqrt(5), i.e. U(-1/sqrt(in), 1/sqrt(in)), for W and for b).
// With a fused ReLU it computes ReLU(x Wᵀ + b) in one op (linear_forward's epilogue): asked for at
// construction, or taken on from a ReLU that follows it in a Sequential (absorb).
#pragma once

#include <optional>

#include "kiln/core/op_kinds.h"
#include "kiln/core/random.h"
#include "kiln/layers/module.h"

namespace kiln {

struct LinearOptions {
  bool bias = true;
  // Applied to the output inside the same op; only ReLU fuses (linear_forward's epilogue).
  std::optional<Activation> activation;
};

class Linear : public Module {
 public:
  Linear(std::int64_t in_features, std::int64_t out_features, Generator& gen, bool bias = true);
  Linear(std::int64_t in_features, std::int64_t out_features, Generator& gen,
         const LinearOptions& options);

  std::string describe() const override;
  Shape output_shape(const Shape& input) const override;  // (N, in) -> (N, out)
  Parameter& weight() { return *weight_; }
  Parameter* bias() { return bias_; }
  // LinearOptions::activation as built (a ReLU or none); a ReLU taken on by absorb stays the
  // next module's.
  std::optional<Activation> activation() const {
    return relu_ ? std::optional(Activation::relu) : std::nullopt;
  }
  // Takes on a ReLU that follows it (when it has no activation yet): its output is then ReLU'd
  // and backward takes the gradient of that output, as the pair's would be.
  bool absorb(const Module& next) override;

 protected:
  Tensor forward_impl(const Tensor& x) override;    // x: (N, in) -> y: (N, out)
  Tensor backward_impl(const Tensor& dy) override;  // dy: (N, out) -> dx: (N, in)

 private:
  std::int64_t in_, out_;
  Parameter* weight_;
  Parameter* bias_ = nullptr;
  Tensor x_;                    // the input of the last forward, for the weight gradient
  Tensor y_;                    // the output (dx and the gradient before a ReLU: reuse_gradient's)
  bool relu_ = false;           // asked for at construction: describe() names it
  bool absorbed_relu_ = false;  // taken on from the next module, which stays in the list
};

}  // namespace kiln
