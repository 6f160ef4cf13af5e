// Checks shared by the Dataset implementations, and TargetOut's checked accessors.
#include "kiln/data/dataset.h"

#include "kiln/core/error.h"
#include "kiln/core/host_memory.h"

namespace kiln {

std::int32_t* TargetOut::label() const {
  KILN_CHECK(label_ != nullptr,
             "a data set of class labels was asked for float targets: its labels are int32");
  return label_;
}

float* TargetOut::values() const {
  KILN_CHECK(values_ != nullptr,
             "a data set of float targets was asked for a class label: its targets are float32");
  return values_;
}

std::int32_t output_width(const Dataset& dataset) {
  if (dataset.has_class_labels()) return dataset.num_classes();
  const std::int64_t values = dataset.target_shape().numel();
  KILN_CHECK(values <= 2147483647, "{}: a target of {} values is more than a model can output",
             dataset.describe(), values);
  return static_cast<std::int32_t>(values);
}

std::string describe_targets(const Dataset& dataset) {
  return dataset.has_class_labels()
             ? fmt::format("class labels ({} classes)", dataset.num_classes())
             : fmt::format("float targets of shape {}", dataset.target_shape().str());
}

void check_sample_index(const Dataset& dataset, std::int64_t index) {
  KILN_CHECK(index >= 0 && index < dataset.size(), "sample index {} is out of range [0, {}) of {}",
             index, dataset.size(), dataset.describe());
}

void check_fits_in_memory(std::uint64_t bytes, const std::string& source) {
  const std::uint64_t half = host_memory_bytes() / 2;
  KILN_CHECK(half == 0 || bytes <= half,
             "{} needs {:.1f} GiB in memory, more than half of this machine's {:.1f} GiB: a "
             "damaged header, or a data set to split into smaller files",
             source, static_cast<double>(bytes) / 1073741824.0,
             static_cast<double>(2 * half) / 1073741824.0);
}

std::int32_t classes_from_max_label(std::int64_t max_label, const std::string& source) {
  constexpr std::int64_t kMaxClasses = 1'000'000;
  KILN_CHECK(max_label < kMaxClasses,
             "{}: the largest label is {}, which would make {} classes (at most {} are inferred): "
             "labels must be class indices 0, 1, 2, ...",
             source, max_label, max_label + 1, kMaxClasses);
  return static_cast<std::int32_t>(max_label + 1);
}

}  // namespace kiln
