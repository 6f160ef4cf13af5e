// Dropout: in training, each element is zeroed with probability p and the survivors scaled by
// 1 / (1 - p); in eval, the identity. The mask comes from Philox at (seed, offset + i), the
// offset advancing by the element count each forward, so one seed gives the same masks on the
// CPU and the GPU and a restored generator() state replays them.
#pragma once

#include "kiln/core/random.h"
#include "kiln/layers/module.h"

namespace kiln {

class Dropout : public Module {
 public:
  explicit Dropout(float p = 0.5f, std::uint64_t seed = 0);

  std::string describe() const override;
  Shape output_shape(const Shape& input) const override { return input; }
  float p() const { return p_; }
  // The mask counter: save and restore it (set_state) to replay masks, e.g. from a checkpoint.
  Generator& generator() { return gen_; }
  // A replayed CUDA graph would reuse one mask forever.
  std::string graph_capture_blocker() const override;

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;

 private:
  float p_;
  Generator gen_;
  Tensor y_, mask_;        // (backward's dx is reuse_gradient's slot 0)
  bool has_mask_ = false;  // the last forward was a training one
};

}  // namespace kiln
