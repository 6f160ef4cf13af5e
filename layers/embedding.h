// Embedding(num, dim): a lookup table, as PyTorch's nn.Embedding. x: (...) float32 holding integer
// ids in [0, num) (a token batch's x) -> y: (..., dim), y[i] = weight[x[i]]; weight (num, dim)
// starts N(0, 1) as PyTorch's. Backward scatter-adds dy into the weight's gradient; the ids have
// no gradient (the output is constant between integers), so the input gradient is zero.
#pragma once

#include "kiln/core/random.h"
#include "kiln/layers/module.h"

namespace kiln {

class Embedding : public Module {
 public:
  Embedding(std::int64_t num, std::int64_t dim, Generator& gen);

  std::string describe() const override;
  Shape output_shape(const Shape& input) const override;  // (...) -> (..., dim)
  Parameter& weight() { return *weight_; }
  const Parameter& weight() const { return *weight_; }
  std::int64_t num() const { return num_; }
  std::int64_t dim() const { return dim_; }

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;

 private:
  std::int64_t num_, dim_;
  Parameter* weight_;
  Tensor ids_;  // the input of the last forward
  Tensor y_, dx_;
};

}  // namespace kiln
