// Dataset: a numbered collection of (features, label) samples, each written into memory the
// caller provides, so the loader's workers fill batch slots in place. get() is const and must be
// safe to call from several threads at once: the loader's workers call it concurrently.
#pragma once

#include <cstdint>
#include <string>

#include "kiln/core/shape.h"

namespace kiln {

class Dataset {
 public:
  virtual ~Dataset() = default;

  virtual std::int64_t size() const = 0;
  // The shape of one sample's features, e.g. (784), (1, 28, 28) or (3, H, W).
  virtual Shape sample_shape() const = 0;
  // Labels are in [0, num_classes()).
  virtual std::int32_t num_classes() const = 0;
  // Writes sample `index` (in [0, size())): sample_shape().numel() floats to x_out, its label to
  // *y_out. Throws kiln::Error naming the file and index when the sample cannot be read.
  virtual void get(std::int64_t index, float* x_out, std::int32_t* y_out) const = 0;
  // Sample `index` as seen in `epoch`. Only data sets with per-sample randomness (random
  // transforms, keyed on (seed, epoch, index)) depend on the epoch; the loader calls this one.
  virtual void get_for_epoch(std::int64_t index, std::int64_t epoch, float* x_out,
                             std::int32_t* y_out) const {
    (void)epoch;
    get(index, x_out, y_out);
  }
  // One line for logs and error messages:
  // "Fashion-MNIST train (60000 x (1, 28, 28)) from /usr/share/datasets/fashion-mnist".
  virtual std::string describe() const = 0;
};

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
