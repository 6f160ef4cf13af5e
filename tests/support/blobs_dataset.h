// BlobsDataset: a small, easily learnt classification set for training tests — three classes
// around three centres in 8 dimensions, with a fixed pseudo-random spread per sample.
#pragma once

#include <cstdint>
#include <string>

#include "kiln/data/dataset.h"

namespace kiln::testing {

// Three classes around three centres in 8 dimensions, with a fixed pseudo-random spread.
class BlobsDataset : public Dataset {
 public:
  explicit BlobsDataset(std::int64_t n) : n_(n) {}
  std::int64_t size() const override { return n_; }
  Shape sample_shape() const override { return Shape{8}; }
  std::int32_t num_classes() const override { return 3; }
  void get(std::int64_t index, float* x, TargetOut y) const override {
    check_sample_index(*this, index);
    const auto c = static_cast<std::int32_t>(index % 3);
    std::uint64_t h = static_cast<std::uint64_t>(index) * 0x9e3779b97f4a7c15ull + 1;
    for (int k = 0; k < 8; ++k) {
      h ^= h >> 31;
      h *= 0xbf58476d1ce4e5b9ull;
      const float noise = static_cast<float>(h >> 40) / static_cast<float>(1ull << 24) - 0.5f;
      x[k] = (k % 3 == c ? 1.5f : 0.0f) + noise;
    }
    *y.label() = c;
  }
  std::string describe() const override { return "blobs (" + std::to_string(n_) + ")"; }

 private:
  std::int64_t n_;
};

}  // namespace kiln::testing
