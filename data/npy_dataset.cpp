// Loading an .npy data set: features converted to float32 once, labels checked once, so get()
// is a copy.
#include "kiln/data/npy_dataset.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"
#include "kiln/data/npy_file.h"

namespace kiln {

namespace {
std::string shape_text(const std::vector<std::int64_t>& shape) {
  return fmt::format("({})", fmt::join(shape, ", "));
}
}  // namespace

NpyDataset::NpyDataset(const std::string& features_path, NpyOptions options)
    : path_(features_path) {
  const NpyArray x = read_npy(features_path);
  KILN_CHECK(x.descr == "<f4" || x.descr == "<f8" || x.descr == "|u1" || x.descr == "<u1",
             "{}: features of dtype {} are not supported: use float32 ('<f4'), float64 ('<f8') "
             "or uint8 ('|u1')",
             features_path, excerpt(x.descr));
  KILN_CHECK(!x.shape.empty(), "{}: features of shape () hold no samples: expected (N, ...)",
             features_path);
  for (std::size_t d = 0; d < x.shape.size(); ++d)
    KILN_CHECK(x.shape[d] >= 1,
               "{}: features of shape {} hold no data (dimension {} is 0): expected at least one "
               "sample of at least one value",
               features_path, shape_text(x.shape), d);
  const std::int64_t n = x.shape[0];
  std::vector<std::int64_t> sample(x.shape.begin() + 1, x.shape.end());
  if (sample.empty()) sample.push_back(1);  // (N): one feature per sample
  std::int64_t row = 1;
  for (std::int64_t d : sample) row *= d;

  std::vector<double> labels(static_cast<std::size_t>(n));
  std::string label_source;
  std::int64_t label_col = -1;
  if (!options.labels_path.empty()) {
    const NpyArray y = read_npy(options.labels_path);
    if (y.descr == "<f4" || y.descr == "<f8") {  // float targets: regression
      read_float_targets(y, n, features_path, options);
      label_source = options.labels_path;
    } else {
      KILN_CHECK(npy_is_integer(y.descr),
                 "{}: labels of dtype {} are not supported: use an integer type (class labels) "
                 "or float32 / float64 (regression targets)",
                 options.labels_path, excerpt(y.descr));
      KILN_CHECK(y.shape.size() == 1 || (y.shape.size() == 2 && y.shape[1] == 1),
                 "{}: labels of shape {} are not supported: expected (N) or (N, 1)",
                 options.labels_path, shape_text(y.shape));
      KILN_CHECK(y.shape[0] == n, "{} holds {} samples but {} holds {} labels", features_path, n,
                 options.labels_path, y.shape[0]);
      for (std::int64_t i = 0; i < n; ++i) labels[static_cast<std::size_t>(i)] = y.at(i);
      label_source = options.labels_path;
    }
  } else {
    KILN_CHECK(x.shape.size() == 2,
               "{}: features of shape {} need a labels file (NpyOptions::labels_path); a label "
               "column works only in a 2-D (N, F) array",
               features_path, shape_text(x.shape));
    const std::int64_t cols = x.shape[1];
    label_col = options.label_column < 0 ? cols + options.label_column : options.label_column;
    KILN_CHECK(cols >= 2 && label_col >= 0 && label_col < cols,
               "{}: label column {} is out of range for shape {}", features_path,
               options.label_column, shape_text(x.shape));
    for (std::int64_t i = 0; i < n; ++i)
      labels[static_cast<std::size_t>(i)] = x.at(i * cols + label_col);
    sample = {cols - 1};
    row = cols - 1;
    label_source = fmt::format("{} (column {})", features_path, label_col);
  }

  check_fits_in_memory(static_cast<std::uint64_t>(n * row) * sizeof(float),
                       features_path + " (as float32)");
  const float scale = x.descr[1] == 'u' ? options.uint8_scale : 1.0f;
  values_.reserve(static_cast<std::size_t>(n * row));
  const std::int64_t stride = label_col >= 0 ? row + 1 : row;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < stride; ++k) {
      if (k == label_col) continue;
      const float v = static_cast<float>(x.at(i * stride + k)) * scale;
      // Checked once here: a NaN would otherwise surface steps later as a NaN loss.
      KILN_CHECK(std::isfinite(v),
                 "{}: feature {} of sample {} is {}: kiln trains on finite numbers only; fix or "
                 "drop that sample",
                 features_path, label_col >= 0 && k > label_col ? k - 1 : k, i, v);
      values_.push_back(v);
    }

  shape_ = Shape(sample);
  features_ = row;
  rows_ = n;
  if (!has_class_labels()) return;
  std::int64_t max_label = -1;
  labels_.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = labels[static_cast<std::size_t>(i)];
    KILN_CHECK(v >= 0 && v == std::floor(v) && v < 2147483648.0,
               "{}: label {} at index {} is not a non-negative integer", label_source, v, i);
    KILN_CHECK(options.num_classes == 0 || v < options.num_classes,
               "{}: labels must be in [0, {}): found {} at index {}", label_source,
               options.num_classes, v, i);
    labels_[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(v);
    max_label = std::max<std::int64_t>(max_label, labels_[static_cast<std::size_t>(i)]);
  }
  num_classes_ = options.num_classes > 0 ? options.num_classes
                                         : classes_from_max_label(max_label, label_source);
}

void NpyDataset::get(std::int64_t index, float* x_out, TargetOut y_out) const {
  check_sample_index(*this, index);
  const float* row = values_.data() + static_cast<std::size_t>(index * features_);
  std::copy(row, row + features_, x_out);
  if (has_class_labels()) {
    *y_out.label() = labels_[static_cast<std::size_t>(index)];
    return;
  }
  const std::int64_t k = target_shape_.numel();
  const float* target = targets_.data() + static_cast<std::size_t>(index * k);
  std::copy(target, target + k, y_out.values());
}

void NpyDataset::read_float_targets(const NpyArray& y, std::int64_t n,
                                    const std::string& features_path, const NpyOptions& options) {
  KILN_CHECK(y.shape.size() == 1 || (y.shape.size() == 2 && y.shape[1] >= 1),
             "{}: float targets of shape {} are not supported: expected (N) or (N, K)",
             options.labels_path, shape_text(y.shape));
  KILN_CHECK(y.shape[0] == n, "{} holds {} samples but {} holds {} targets", features_path, n,
             options.labels_path, y.shape[0]);
  KILN_CHECK(options.num_classes == 0,
             "{}: float targets (regression) have no classes, but {} were asked for",
             options.labels_path, options.num_classes);
  target_shape_ = Shape{y.shape.size() == 2 ? y.shape[1] : 1};
  targets_.resize(static_cast<std::size_t>(y.numel()));
  for (std::int64_t i = 0; i < y.numel(); ++i) {
    const auto v = static_cast<float>(y.at(i));
    KILN_CHECK(std::isfinite(v), "{}: target {} of sample {} is {}: targets must be finite",
               options.labels_path, i % target_shape_.numel(), i / target_shape_.numel(), v);
    targets_[static_cast<std::size_t>(i)] = v;
  }
}

std::string NpyDataset::describe() const {
  if (!has_class_labels())
    return fmt::format("NumPy {} ({} x {}, float targets {})", path_, size(), shape_.str(),
                       target_shape_.str());
  return fmt::format("NumPy {} ({} x {}, {} classes)", path_, size(), shape_.str(), num_classes_);
}

}  // namespace kiln
