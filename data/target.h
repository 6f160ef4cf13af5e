// TargetOut: where Dataset::get writes one sample's target — one int32 class label, or
// target_shape().numel() float32 values for regression. It converts implicitly from either
// pointer, so callers write get(i, x, &label) or get(i, x, values.data()) as before; a data set
// asked for the other kind than it yields throws instead of writing the wrong type.
#pragma once

#include <cstdint>

namespace kiln {

class TargetOut {
 public:
  TargetOut(std::int32_t* label) : label_(label) {}  // NOLINT: implicit by design
  TargetOut(float* values) : values_(values) {}      // NOLINT: implicit by design

  bool is_label() const { return label_ != nullptr; }
  // Throws kiln::Error when this points at float values (a regression target).
  std::int32_t* label() const;
  // Throws kiln::Error when this points at a class label.
  float* values() const;
  // The target of sample `i` in a batch whose targets hold `numel` elements each (class labels:
  // one, or one per position of a sequence, as token windows have).
  TargetOut at(std::int64_t i, std::int64_t numel) const {
    return label_ ? TargetOut(label_ + i * numel) : TargetOut(values_ + i * numel);
  }

 private:
  std::int32_t* label_ = nullptr;
  float* values_ = nullptr;
};

}  // namespace kiln
