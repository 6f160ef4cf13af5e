// Dataset: a numbered collection of (features, target) samples, each written into memory the
// caller provides, so the loader's workers fill batch slots in place. A target is a class label
// (int32, the default) or float values of a fixed shape (regression: has_class_labels() false).
// get() is const and must be safe to call from several threads at once: the loader's workers
// call it concurrently.
#pragma once

#include <cstdint>
#include <string>

#include "kiln/core/shape.h"
#include "kiln/data/target.h"

namespace kiln {

class Dataset {
 public:
  virtual ~Dataset() = default;

  virtual std::int64_t size() const = 0;
  // The shape of one sample's features, e.g. (784), (1, 28, 28) or (3, H, W).
  virtual Shape sample_shape() const = 0;
  // Labels are in [0, num_classes()); 0 for a data set of float targets.
  virtual std::int32_t num_classes() const = 0;
  // True: each target is target_shape().numel() int32 class labels (one, or one per position of
  // a sequence). False: target_shape().numel() float32 values.
  virtual bool has_class_labels() const { return true; }
  // The shape of one sample's target: of a float target, e.g. (1) or (3); () for one class
  // label, (T) for a sequence's labels (token windows).
  virtual Shape target_shape() const { return Shape{}; }
  // Writes sample `index` (in [0, size())): sample_shape().numel() floats to x_out, its target to
  // y_out. Throws kiln::Error naming the file and index when the sample cannot be read.
  virtual void get(std::int64_t index, float* x_out, TargetOut y_out) const = 0;
  // Sample `index` as seen in `epoch`. Only data sets with per-sample randomness (random
  // transforms, keyed on (seed, epoch, index)) depend on the epoch; the loader calls this one.
  virtual void get_for_epoch(std::int64_t index, std::int64_t epoch, float* x_out,
                             TargetOut y_out) const {
    (void)epoch;
    get(index, x_out, y_out);
  }
  // One line for logs and error messages:
  // "Fashion-MNIST train (60000 x (1, 28, 28)) from /usr/share/datasets/fashion-mnist".
  virtual std::string describe() const = 0;
};

// The width of a model's output for `dataset`: num_classes() for class labels, else the number
// of values in one target. Throws kiln::Error past 2^31 - 1.
std::int32_t output_width(const Dataset& dataset);

// "class labels (10 classes)" or "float targets of shape (1)", for messages.
std::string describe_targets(const Dataset& dataset);

// Throws kiln::Error unless 0 <= index < dataset.size(); for get() implementations.
void check_sample_index(const Dataset& dataset, std::int64_t index);

// Throws kiln::Error naming `source` when `bytes` of it, to be held in memory, pass half of the
// host's memory: a damaged header, a decompression bomb or a file too large to load, caught
// before the allocation rather than by the out-of-memory killer.
void check_fits_in_memory(std::uint64_t bytes, const std::string& source);

// The number of classes a data set without a stated count infers from its largest label
// (max_label + 1). Throws kiln::Error naming `source` past a million classes: such labels are
// not class indices, and the model's last layer would not fit in memory.
std::int32_t classes_from_max_label(std::int64_t max_label, const std::string& source);

}  // namespace kiln
