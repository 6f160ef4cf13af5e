#include "kiln/data/subset_dataset.h"

#include <cmath>
#include <numeric>

#include "kiln/core/error.h"

namespace kiln {

SubsetDataset::SubsetDataset(std::shared_ptr<const Dataset> base, std::int64_t begin,
                             std::int64_t count)
    : base_(std::move(base)) {
  KILN_CHECK(base_ != nullptr, "SubsetDataset of no data set");
  KILN_CHECK(begin >= 0 && count >= 0 && begin + count <= base_->size(),
             "samples [{}, {}) are not all in {} ({} samples)", begin, begin + count,
             base_->describe(), base_->size());
  indices_.resize(static_cast<std::size_t>(count));
  std::iota(indices_.begin(), indices_.end(), begin);
  what_ = fmt::format("samples [{}, {})", begin, begin + count);
}

SubsetDataset::SubsetDataset(std::shared_ptr<const Dataset> base, std::vector<std::int64_t> indices)
    : base_(std::move(base)), indices_(std::move(indices)) {
  KILN_CHECK(base_ != nullptr, "SubsetDataset of no data set");
  for (std::int64_t i : indices_)
    KILN_CHECK(i >= 0 && i < base_->size(), "sample {} is not in {} ({} samples)", i,
               base_->describe(), base_->size());
  what_ = fmt::format("{} chosen samples", indices_.size());
}

void SubsetDataset::get(std::int64_t index, float* x_out, TargetOut y_out) const {
  check_sample_index(*this, index);
  base_->get(indices_[static_cast<std::size_t>(index)], x_out, y_out);
}

void SubsetDataset::get_for_epoch(std::int64_t index, std::int64_t epoch, float* x_out,
                                  TargetOut y_out) const {
  check_sample_index(*this, index);
  base_->get_for_epoch(indices_[static_cast<std::size_t>(index)], epoch, x_out, y_out);
}

std::string SubsetDataset::describe() const {
  return fmt::format("{} of {}", what_, base_->describe());
}

HeldOut hold_out_every(std::shared_ptr<const Dataset> base, std::int64_t n) {
  KILN_CHECK(n >= 2, "hold_out_every needs n >= 2, found {}", n);
  KILN_CHECK(base->size() >= n, "{} has {} samples, too few to hold out every {}th for testing",
             base->describe(), base->size(), n);
  std::vector<std::int64_t> train, test;
  for (std::int64_t i = 0; i < base->size(); ++i) ((i + 1) % n == 0 ? test : train).push_back(i);
  return {std::make_shared<SubsetDataset>(base, std::move(train)),
          std::make_shared<SubsetDataset>(base, std::move(test))};
}

}  // namespace kiln

namespace kiln {

HeldOut hold_out_share(std::shared_ptr<const Dataset> base, double share) {
  KILN_CHECK(share >= 0.0 && share < 1.0,
             "the share held out for testing must be in [0, 1) (0: no test split), found {}",
             share);
  if (share == 0.0) return {std::move(base), nullptr};
  std::vector<std::int64_t> train, test;
  for (std::int64_t i = 0; i < base->size(); ++i) {
    const bool held =
        std::floor(static_cast<double>(i + 1) * share) > std::floor(static_cast<double>(i) * share);
    (held ? test : train).push_back(i);
  }
  KILN_CHECK(!test.empty() && !train.empty(),
             "{} has {} samples: holding out a share of {} for testing leaves {} to test and {} "
             "to train; change {} or give {}",
             base->describe(), base->size(), share, test.size(), train.size(), Setting::test_share,
             Setting::test_data);
  return {std::make_shared<SubsetDataset>(base, std::move(train)),
          std::make_shared<SubsetDataset>(base, std::move(test))};
}

std::shared_ptr<const Dataset> evaluation_shard(std::shared_ptr<const Dataset> data, int rank,
                                                int world_size) {
  if (world_size == 1) return data;
  const std::int64_t n = data->size();
  const std::int64_t begin = n * rank / world_size, end = n * (rank + 1) / world_size;
  return std::make_shared<SubsetDataset>(std::move(data), begin, end - begin);
}

}  // namespace kiln
