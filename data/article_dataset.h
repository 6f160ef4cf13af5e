// ArticleDataset: the synthetic set of the article behind kiln, 160,000 samples of 784 features
// in 10 classes by default. Each sample is generated on the fly in get() from (seed, index), so
// it needs no disk and almost no memory, and costs the loader's workers real CPU time (like
// decoding). A sample is its class prototype plus Gaussian noise: learnable by a linear model.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/data/dataset.h"

namespace kiln {

struct ArticleOptions {
  std::int64_t size = 160000;
  std::int64_t features = 784;
  std::int32_t classes = 10;
  std::uint64_t seed = 0;
  // Standard deviation of the per-feature noise around the prototypes (whose features are uniform
  // in [0, 1)). At 2.5 the nearest prototype is right about 90 % of the time: learnable, not
  // trivial.
  float noise = 2.5f;
};

class ArticleDataset : public Dataset {
 public:
  explicit ArticleDataset(ArticleOptions options = {});

  std::int64_t size() const override { return options_.size; }
  Shape sample_shape() const override { return Shape{options_.features}; }
  std::int32_t num_classes() const override { return options_.classes; }
  void get(std::int64_t index, float* x_out, TargetOut y_out) const override;
  std::string describe() const override;

  const ArticleOptions& options() const { return options_; }
  // Class c's prototype: features() floats.
  const float* prototype(std::int32_t c) const;
  // The label of sample `index` alone, without generating its features.
  std::int32_t label(std::int64_t index) const;

 private:
  ArticleOptions options_;
  std::vector<float> prototypes_;  // (classes, features)
};

}  // namespace kiln
