// Small data sets for the loader tests: one whose samples spell out their index, one that fails
// at a chosen index, and one that is slow on purpose.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "kiln/core/error.h"
#include "kiln/data/dataset.h"

namespace kiln::testing {

// Sample i: features (i * 10 + k for k < 4) shaped (1, 2, 2), label i % classes.
class IndexDataset : public Dataset {
 public:
  explicit IndexDataset(std::int64_t n, std::int32_t classes = 10) : n_(n), classes_(classes) {}
  std::int64_t size() const override { return n_; }
  Shape sample_shape() const override { return Shape{1, 2, 2}; }
  std::int32_t num_classes() const override { return classes_; }
  void get(std::int64_t index, float* x, TargetOut y) const override {
    check_sample_index(*this, index);
    for (int k = 0; k < 4; ++k) x[k] = static_cast<float>(index * 10 + k);
    *y.label() = static_cast<std::int32_t>(index % classes_);
  }
  std::string describe() const override { return "index set (" + std::to_string(n_) + ")"; }

 private:
  std::int64_t n_;
  std::int32_t classes_;
};

// An IndexDataset whose sample `bad` throws, or (label_out_of_range) gets label num_classes.
class FailingDataset : public IndexDataset {
 public:
  FailingDataset(std::int64_t n, std::int64_t bad, bool label_out_of_range = false)
      : IndexDataset(n), bad_(bad), label_out_of_range_(label_out_of_range) {}
  void get(std::int64_t index, float* x, TargetOut y) const override {
    IndexDataset::get(index, x, y);
    if (index != bad_) return;
    if (label_out_of_range_) {
      *y.label() = num_classes();
      return;
    }
    KILN_THROW("cannot decode record {} of /data/broken.bin", index);
  }
  std::string describe() const override { return "failing set from /data/broken.bin"; }

 private:
  std::int64_t bad_;
  bool label_out_of_range_;
};

// An IndexDataset that takes `delay` per sample.
class SlowDataset : public IndexDataset {
 public:
  SlowDataset(std::int64_t n, std::chrono::microseconds delay) : IndexDataset(n), delay_(delay) {}
  void get(std::int64_t index, float* x, TargetOut y) const override {
    std::this_thread::sleep_for(delay_);
    IndexDataset::get(index, x, y);
  }

 private:
  std::chrono::microseconds delay_;
};

// Sample i: features as IndexDataset, float targets (i + 0.5, -i) of shape (2): regression.
class RegressionDataset : public IndexDataset {
 public:
  explicit RegressionDataset(std::int64_t n) : IndexDataset(n) {}
  std::int32_t num_classes() const override { return 0; }
  bool has_class_labels() const override { return false; }
  Shape target_shape() const override { return Shape{2}; }
  void get(std::int64_t index, float* x, TargetOut y) const override {
    std::int32_t unused;
    IndexDataset::get(index, x, &unused);
    y.values()[0] = static_cast<float>(index) + 0.5f;
    y.values()[1] = -static_cast<float>(index);
  }
  std::string describe() const override { return "regression set"; }
};

}  // namespace kiln::testing
