// TiedLinear: y = x Wᵀ with W a Parameter another module owns and registers (weight tying: a
// language model's output head reads its token embedding, W: (vocabulary, width)). It registers
// no parameter of its own, so parameters() and checkpoints list the shared matrix once, under
// its owner's name; its backward adds into the same gradient the owner's backward adds into, so
// the two uses' gradients sum. No bias. It may read only the matrix's first rows (a vocabulary
// padded as llm.c pads it: the padded rows are never an output).
#pragma once

#include "kiln/layers/module.h"

namespace kiln {

class TiedLinear : public Module {
 public:
  // `weight` (rows, in) must outlive this module (the owner is registered in the same model);
  // the outputs are its first `out` rows' products, all of its rows when out is 0.
  explicit TiedLinear(Parameter& weight, std::int64_t out = 0);

  std::string describe() const override;
  Shape output_shape(const Shape& input) const override;  // (N, in) -> (N, out)
  // The rows of the shared matrix it multiplies by, (out, in): a view.
  Tensor rows() const { return weight_.value.slice(0, out_); }

 protected:
  Tensor forward_impl(const Tensor& x) override;    // x: (N, in) -> y: (N, out)
  Tensor backward_impl(const Tensor& dy) override;  // dy: (N, out) -> dx: (N, in)

 private:
  Parameter& weight_;
  std::int64_t out_;
  Tensor x_, y_, dx_, no_bias_, unused_dpre_;
};

}  // namespace kiln
