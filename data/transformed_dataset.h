// TransformedDataset: a Dataset seen through a pipeline of Transforms. Transform k of sample i in
// epoch e draws from RandomStream(seed, transform + k, e, i), so the result depends on nothing
// but (seed, epoch, index): the loader gives the same bits with any number of workers.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kiln/data/dataset.h"
#include "kiln/data/transforms.h"

namespace kiln {

class TransformedDataset : public Dataset {
 public:
  // Throws kiln::Error if a transform cannot handle the base's sample shape.
  TransformedDataset(std::shared_ptr<const Dataset> base,
                     std::vector<std::shared_ptr<const Transform>> transforms,
                     std::uint64_t seed = 0);

  std::int64_t size() const override { return base_->size(); }
  Shape sample_shape() const override { return shape_; }
  std::int32_t num_classes() const override { return base_->num_classes(); }
  bool has_class_labels() const override { return base_->has_class_labels(); }
  Shape target_shape() const override { return base_->target_shape(); }
  // As in epoch 0.
  void get(std::int64_t index, float* x_out, TargetOut y_out) const override;
  void get_for_epoch(std::int64_t index, std::int64_t epoch, float* x_out,
                     TargetOut y_out) const override;
  std::string describe() const override;  // the base's, then " | " and each transform

  const Dataset& base() const { return *base_; }

 private:
  std::shared_ptr<const Dataset> base_;
  std::vector<std::shared_ptr<const Transform>> transforms_;
  std::uint64_t seed_;
  Shape shape_;
};

}  // namespace kiln
