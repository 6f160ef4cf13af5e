// TensorDataset: samples held in memory, from tensors or vectors, as PyTorch's TensorDataset. The
// data are copied once to host memory at construction and checked there (counts that differ,
// labels out of range, NaN or infinite values, naming the sample), so get() only copies.
//
//   kiln::TensorDataset data(features, labels);   // (N, 784) float32, (N) int32
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"
#include "kiln/data/dataset.h"

namespace kiln {

class TensorDataset : public Dataset {
 public:
  // features: (N, ...) float32; targets: (N) int32 class labels, or (N) or (N, K) float32 values.
  // num_classes: labels are in [0, num_classes); 0 means the largest label + 1. On any device.
  TensorDataset(const Tensor& features, const Tensor& targets, std::int32_t num_classes = 0);
  // features: N * sample_shape.numel() floats, sample by sample; labels: one class per sample.
  TensorDataset(std::vector<float> features, Shape sample_shape, std::vector<std::int32_t> labels,
                std::int32_t num_classes = 0);
  // Float targets, target_shape's values per sample (regression).
  TensorDataset(std::vector<float> features, Shape sample_shape, std::vector<float> targets,
                Shape target_shape = Shape{1});

  std::int64_t size() const override { return size_; }
  Shape sample_shape() const override { return sample_shape_; }
  std::int32_t num_classes() const override { return num_classes_; }
  bool has_class_labels() const override { return target_shape_.rank() == 0; }
  Shape target_shape() const override { return target_shape_; }
  void get(std::int64_t index, float* x_out, TargetOut y_out) const override;
  std::string describe() const override;

 private:
  void check(std::int32_t num_classes);

  std::vector<float> features_;
  std::vector<std::int32_t> labels_;  // class labels, or
  std::vector<float> targets_;        // float targets
  Shape sample_shape_;
  Shape target_shape_;  // () for class labels
  std::int64_t size_ = 0;
  std::int32_t num_classes_ = 0;
};

}  // namespace kiln
