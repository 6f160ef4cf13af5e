// SubsetDataset: chosen samples of another data set, renumbered from 0 — for
// DataSpecOptions::samples, and for holding out a test split where the source has none.
#pragma once

#include <memory>
#include <vector>

#include "kiln/data/dataset.h"

namespace kiln {

class SubsetDataset : public Dataset {
 public:
  // Samples [begin, begin + count) of `base`; throws kiln::Error unless they all exist.
  SubsetDataset(std::shared_ptr<const Dataset> base, std::int64_t begin, std::int64_t count);
  // The samples of `base` at `indices`, in that order.
  SubsetDataset(std::shared_ptr<const Dataset> base, std::vector<std::int64_t> indices);

  std::int64_t size() const override { return static_cast<std::int64_t>(indices_.size()); }
  Shape sample_shape() const override { return base_->sample_shape(); }
  std::int32_t num_classes() const override { return base_->num_classes(); }
  bool has_class_labels() const override { return base_->has_class_labels(); }
  Shape target_shape() const override { return base_->target_shape(); }
  void get(std::int64_t index, float* x_out, TargetOut y_out) const override;
  void get_for_epoch(std::int64_t index, std::int64_t epoch, float* x_out,
                     TargetOut y_out) const override;
  std::string describe() const override;

 private:
  std::shared_ptr<const Dataset> base_;
  std::vector<std::int64_t> indices_;
  std::string what_;  // "samples [0, 1000)" or "9000 chosen samples", for describe()
};

// Every `n`-th sample (those at n-1, 2n-1, ...) as a test split, and the rest for training: a
// held-out split that samples every class of a file sorted by class.
struct HeldOut {
  std::shared_ptr<const Dataset> train, test;
};
HeldOut hold_out_every(std::shared_ptr<const Dataset> base, std::int64_t n);
// A share in [0, 1) of the samples as a test split, spread evenly: sample i is held out when
// floor((i + 1) * share) > floor(i * share), so a share of 1/n is exactly hold_out_every(n).
// A share of 0 holds nothing out: `test` is null. Throws kiln::Error for a share outside [0, 1)
// or one that leaves no training or no test sample.
HeldOut hold_out_share(std::shared_ptr<const Dataset> base, double share);

// Rank r's contiguous share of `data` out of `world_size` (sizes differ by at most one; nothing
// padded or repeated), so that summing over the ranks of a data-parallel job evaluates every
// sample exactly once.
std::shared_ptr<const Dataset> evaluation_shard(std::shared_ptr<const Dataset> data, int rank,
                                                int world_size);

}  // namespace kiln
