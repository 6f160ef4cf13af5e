// NpyDataset: features from a NumPy .npy array of shape (N, ...) in float32, float64 or uint8,
// with integer labels from a second .npy file of shape (N) or from one column of a 2-D features
// array. Everything is converted to float32 and held in memory at construction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/data/dataset.h"

namespace kiln {

struct NpyOptions {
  // A .npy of N integer labels; or, when empty, label_column below.
  std::string labels_path;
  // The column of a 2-D (N, F) features array that holds the labels (removed from the
  // features); negative counts from the end.
  int label_column = -1;
  // Labels must be in [0, num_classes); 0 means the largest label + 1.
  std::int32_t num_classes = 0;
  // uint8 features are multiplied by this: pixels to [0, 1] by default.
  float uint8_scale = 1.0f / 255.0f;
};

class NpyDataset : public Dataset {
 public:
  // Throws kiln::Error naming the file: unsupported dtype or shape, fortran order, counts that
  // differ, labels that are not integers in range (naming the index).
  explicit NpyDataset(const std::string& features_path, NpyOptions options = {});

  std::int64_t size() const override { return static_cast<std::int64_t>(labels_.size()); }
  Shape sample_shape() const override { return shape_; }
  std::int32_t num_classes() const override { return num_classes_; }
  void get(std::int64_t index, float* x_out, std::int32_t* y_out) const override;
  std::string describe() const override;

 private:
  std::string path_;
  Shape shape_;
  std::int64_t features_ = 0;
  std::int32_t num_classes_ = 0;
  std::vector<float> values_;  // (N, features)
  std::vector<std::int32_t> labels_;
};

}  // namespace kiln
