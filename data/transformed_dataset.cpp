// Applying a transform pipeline to each sample as it is loaded.
#include "kiln/data/transformed_dataset.h"

#include "kiln/core/error.h"

namespace kiln {

TransformedDataset::TransformedDataset(std::shared_ptr<const Dataset> base,
                                       std::vector<std::shared_ptr<const Transform>> transforms,
                                       std::uint64_t seed)
    : base_(std::move(base)), transforms_(std::move(transforms)), seed_(seed) {
  KILN_CHECK(base_ != nullptr, "a TransformedDataset needs a base data set, found none");
  shape_ = base_->sample_shape();
  for (const auto& t : transforms_) {
    KILN_CHECK(t != nullptr, "a TransformedDataset was given an empty transform");
    t->check(shape_);
  }
}

void TransformedDataset::get(std::int64_t index, float* x_out, TargetOut y_out) const {
  get_for_epoch(index, 0, x_out, y_out);
}

void TransformedDataset::get_for_epoch(std::int64_t index, std::int64_t epoch, float* x_out,
                                       TargetOut y_out) const {
  base_->get_for_epoch(index, epoch, x_out, y_out);
  for (std::size_t k = 0; k < transforms_.size(); ++k) {
    RandomStream rng(seed_, RandomPurpose::transform, static_cast<std::uint64_t>(epoch),
                     static_cast<std::uint64_t>(index), static_cast<std::uint32_t>(k));
    transforms_[k]->apply(x_out, shape_, rng);
  }
}

std::string TransformedDataset::describe() const {
  std::string out = base_->describe();
  for (const auto& t : transforms_) out += " | " + t->describe();
  return out;
}

}  // namespace kiln
