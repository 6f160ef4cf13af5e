// GradientReducer: the mean of every gradient over the ranks of a data-parallel job, taken in
// buckets. Each parameter's grad becomes a view into its bucket's flat buffer (PyTorch DDP's
// gradient_as_bucket_view), so a bucket is one collective and nothing is copied. Every rank must
// build it over the same parameters, so buckets match and start in the same order everywhere.
#pragma once

#include <cstddef>
#include <span>
#include <unordered_map>
#include <vector>

#include "kiln/distributed/communicator.h"
#include "kiln/layers/module.h"

namespace kiln {

// Buckets hold parameters in reverse order — the order backward finishes them — up to
// bucket_bytes each. With a communicator that overlaps compute (NCCL), a bucket starts as soon as
// backward reported all its parameters ready(); the rest start in finish().
class GradientReducer {
 public:
  static constexpr std::size_t kDefaultBucketBytes = std::size_t{25} << 20;  // as PyTorch DDP

  // The parameters must already live on comm.device(); their grads are replaced by views (the
  // values they held are kept).
  GradientReducer(std::vector<Parameter*> parameters, Communicator& comm,
                  std::size_t bucket_bytes = kDefaultBucketBytes);
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  // Backward has finished accumulating these parameters' gradients for this step.
  void ready(std::span<Parameter* const> parameters);
  // Starts every bucket not yet started, in order, and makes the current stream wait for them:
  // afterwards each grad holds its mean over the ranks. Begins the next step's bookkeeping.
  void finish();

  std::size_t bucket_count() const { return buckets_.size(); }
  // The parameter names of each bucket, in bucket order (for tests and logs).
  std::vector<std::vector<std::string>> bucket_names() const;

 private:
  struct Bucket {
    Tensor flat;  // (elements, padded): the grads of `parameters` side by side
    std::vector<Parameter*> parameters;
    std::size_t ready = 0;
  };
  void start_ready_buckets();

  Communicator& comm_;
  std::vector<Bucket> buckets_;
  std::unordered_map<const Parameter*, std::size_t> bucket_of_;
  std::unordered_map<const Parameter*, bool> is_ready_;
  std::size_t next_ = 0;  // the first bucket not started in this step
};

}  // namespace kiln
