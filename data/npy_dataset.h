// NpyDataset: features from a NumPy .npy array of shape (N, ...) in float32, float64 or uint8,
// with targets from a second .npy file — integer class labels of shape (N) or (N, 1), or float
// targets (float32/float64: regression) of shape (N) or (N, K) — or integer labels from one
// column of a 2-D features array. Everything is converted once and held in memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/data/dataset.h"
#include "kiln/data/npy_file.h"

namespace kiln {

struct NpyOptions {
  // A .npy of N integer labels or float targets; or, when empty, label_column below.
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

  std::int64_t size() const override { return rows_; }
  Shape sample_shape() const override { return shape_; }
  std::int32_t num_classes() const override { return num_classes_; }
  bool has_class_labels() const override { return target_shape_.rank() == 0; }
  Shape target_shape() const override { return target_shape_; }
  void get(std::int64_t index, float* x_out, TargetOut y_out) const override;
  std::string describe() const override;

 private:
  void read_float_targets(const NpyArray& y, std::int64_t n, const std::string& features_path,
                          const NpyOptions& options);

  std::string path_;
  Shape shape_;
  std::int64_t features_ = 0;
  std::int32_t num_classes_ = 0;
  std::vector<float> values_;  // (N, features)
  std::int64_t rows_ = 0;
  Shape target_shape_;                // () for class labels, (1) or (K) for float targets
  std::vector<std::int32_t> labels_;  // class labels, or
  std::vector<float> targets_;        // float targets, (N, K)
};

}  // namespace kiln
