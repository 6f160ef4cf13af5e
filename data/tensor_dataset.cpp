// TensorDataset (data/tensor_dataset.h): one copy to host vectors, checked once.
#include "kiln/data/tensor_dataset.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "kiln/core/error.h"

namespace kiln {

namespace {

Shape tail_of(const Shape& shape) {
  return Shape(std::vector<std::int64_t>(shape.dims().begin() + 1, shape.dims().end()));
}

}  // namespace

TensorDataset::TensorDataset(const Tensor& features, const Tensor& targets,
                             std::int32_t num_classes) {
  KILN_CHECK(features.defined() && targets.defined(),
             "TensorDataset needs features and targets, found an undefined tensor");
  KILN_CHECK(features.dtype() == DType::f32, "TensorDataset's features must be float32, found {}",
             dtype_name(features.dtype()));
  KILN_CHECK(
      features.shape().rank() >= 1 && targets.shape().rank() >= 1 && targets.shape().rank() <= 2,
      "TensorDataset takes features (N, ...) and targets (N) or (N, K), found {} and {}",
      features.shape().str(), targets.shape().str());
  sample_shape_ = tail_of(features.shape());
  features_ = features.to_vector<float>();
  if (targets.dtype() == DType::i32) {
    KILN_CHECK(targets.shape().rank() == 1, "TensorDataset's class labels must be (N), found {}",
               targets.shape().str());
    labels_ = targets.to_vector<std::int32_t>();
    target_shape_ = Shape{};
  } else {
    KILN_CHECK(targets.dtype() == DType::f32,
               "TensorDataset's targets must be int32 class labels or float32 values, found {}",
               dtype_name(targets.dtype()));
    targets_ = targets.to_vector<float>();
    target_shape_ = targets.shape().rank() == 1 ? Shape{1} : tail_of(targets.shape());
  }
  size_ = features.shape().dims().front();
  KILN_CHECK(targets.shape().dims().front() == size_,
             "TensorDataset has {} samples of features but {} targets", size_,
             targets.shape().dims().front());
  check(num_classes);
}

TensorDataset::TensorDataset(std::vector<float> features, Shape sample_shape,
                             std::vector<std::int32_t> labels, std::int32_t num_classes)
    : features_(std::move(features)), labels_(std::move(labels)),
      sample_shape_(std::move(sample_shape)), target_shape_(Shape{}),
      size_(static_cast<std::int64_t>(labels_.size())) {
  check(num_classes);
}

TensorDataset::TensorDataset(std::vector<float> features, Shape sample_shape,
                             std::vector<float> targets, Shape target_shape)
    : features_(std::move(features)), targets_(std::move(targets)),
      sample_shape_(std::move(sample_shape)), target_shape_(std::move(target_shape)) {
  KILN_CHECK(
      target_shape_.rank() >= 1 && target_shape_.numel() >= 1,
      "TensorDataset's float targets need a shape of at least one value per sample, found {}",
      target_shape_.str());
  size_ = static_cast<std::int64_t>(targets_.size()) / target_shape_.numel();
  KILN_CHECK(static_cast<std::int64_t>(targets_.size()) == size_ * target_shape_.numel(),
             "TensorDataset has {} target values, not a whole number of targets of shape {}",
             targets_.size(), target_shape_.str());
  check(0);
}

void TensorDataset::check(std::int32_t num_classes) {
  KILN_CHECK(size_ >= 1, "TensorDataset needs at least one sample, found none");
  const std::int64_t per_sample = sample_shape_.numel();
  KILN_CHECK(per_sample >= 1 && static_cast<std::int64_t>(features_.size()) == size_ * per_sample,
             "TensorDataset has {} feature values for {} samples of shape {} (expected {})",
             features_.size(), size_, sample_shape_.str(), size_ * per_sample);
  for (std::size_t i = 0; i < features_.size(); ++i)
    KILN_CHECK(std::isfinite(features_[i]), "TensorDataset: sample {} has a {} feature value",
               static_cast<std::int64_t>(i) / per_sample, features_[i]);
  for (std::size_t i = 0; i < targets_.size(); ++i)
    KILN_CHECK(std::isfinite(targets_[i]), "TensorDataset: sample {} has a {} target value",
               static_cast<std::int64_t>(i) / target_shape_.numel(), targets_[i]);
  if (!has_class_labels()) return;
  KILN_CHECK(num_classes >= 0,
             "TensorDataset's class count must be >= 0 (0: from the labels), found {}",
             num_classes);
  std::int32_t largest = 0;
  for (std::size_t i = 0; i < labels_.size(); ++i) {
    KILN_CHECK(labels_[i] >= 0 && (num_classes == 0 || labels_[i] < num_classes),
               "TensorDataset: labels must be in [0, {}): found {} at sample {}",
               num_classes == 0 ? std::string("classes") : std::to_string(num_classes), labels_[i],
               i);
    largest = std::max(largest, labels_[i]);
  }
  num_classes_ = num_classes > 0 ? num_classes : classes_from_max_label(largest, "TensorDataset");
}

void TensorDataset::get(std::int64_t index, float* x_out, TargetOut y_out) const {
  check_sample_index(*this, index);
  const std::int64_t n = sample_shape_.numel();
  std::memcpy(x_out, features_.data() + index * n, static_cast<std::size_t>(n) * sizeof(float));
  if (has_class_labels()) {
    *y_out.label() = labels_[static_cast<std::size_t>(index)];
    return;
  }
  const std::int64_t k = target_shape_.numel();
  std::memcpy(y_out.values(), targets_.data() + index * k,
              static_cast<std::size_t>(k) * sizeof(float));
}

std::string TensorDataset::describe() const {
  return fmt::format("TensorDataset ({} x {}, {})", size_, sample_shape_.str(),
                     describe_targets(*this));
}

}  // namespace kiln
