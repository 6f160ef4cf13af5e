// Bucket layout, the views into it, and starting buckets strictly in order (every rank must issue
// the same collectives in the same sequence, whatever order its hooks fire in).
#include "kiln/distributed/gradient_reducer.h"

#include <algorithm>

#include "kiln/core/ops.h"

namespace kiln {

namespace {
// Each grad starts on a 256-byte boundary of its bucket, as a fresh allocation would, so
// vectorised kernels see the alignment they expect.
constexpr std::int64_t kAlignElements = 64;
std::int64_t aligned(std::int64_t n) {
  return (n + kAlignElements - 1) / kAlignElements * kAlignElements;
}
}  // namespace

GradientReducer::GradientReducer(std::vector<Parameter*> parameters, Communicator& comm,
                                 std::size_t bucket_bytes)
    : comm_(comm) {
  KILN_CHECK(bucket_bytes > 0, "the gradient bucket size must be positive");
  const auto bucket_elements =
      static_cast<std::int64_t>(std::max<std::size_t>(bucket_bytes / sizeof(float), 1));
  std::vector<std::vector<Parameter*>> groups;
  std::int64_t filled = 0;
  for (auto it = parameters.rbegin(); it != parameters.rend(); ++it) {
    Parameter* p = *it;
    KILN_CHECK(
        p->grad.defined() && p->grad.device() == comm.device(),
        "gradient reducer: parameter '{}' has its gradient on {}, but the communicator ({}) works "
        "on {}; move the model first",
        p->name, p->grad.defined() ? p->grad.device().str() : std::string("no device"),
        comm.describe(), comm.device().str());
    const std::int64_t n = aligned(p->grad.numel());
    if (groups.empty() || (filled > 0 && filled + n > bucket_elements)) {
      groups.emplace_back();
      filled = 0;
    }
    groups.back().push_back(p);
    filled += n;
  }
  for (auto& group : groups) {
    std::int64_t total = 0;
    for (Parameter* p : group) total += aligned(p->grad.numel());
    Bucket bucket{Tensor::zeros(Shape{total}, DType::f32, comm.device()), group, 0};
    std::int64_t offset = 0;
    for (Parameter* p : group) {
      Tensor view = bucket.flat.slice(offset, offset + p->grad.numel()).view(p->grad.shape());
      copy(p->grad, view);
      p->grad = view;
      bucket_of_[p] = buckets_.size();
      is_ready_[p] = false;
      offset += aligned(p->grad.numel());
    }
    buckets_.push_back(std::move(bucket));
  }
}

void GradientReducer::ready(std::span<Parameter* const> parameters) {
  for (Parameter* p : parameters) {
    auto it = bucket_of_.find(p);
    KILN_CHECK(it != bucket_of_.end(), "gradient reducer: parameter '{}' is not one it reduces",
               p->name);
    bool& flag = is_ready_[p];
    if (flag) continue;
    flag = true;
    ++buckets_[it->second].ready;
  }
  // Without overlap there is nothing to gain from starting early: finish() starts them all.
  if (comm_.overlaps_compute()) start_ready_buckets();
}

void GradientReducer::start_ready_buckets() {
  while (next_ < buckets_.size() && buckets_[next_].ready == buckets_[next_].parameters.size()) {
    comm_.all_reduce_async(buckets_[next_].flat, CollectiveOp::mean);
    ++next_;
  }
}

void GradientReducer::finish() {
  for (; next_ < buckets_.size(); ++next_)
    comm_.all_reduce_async(buckets_[next_].flat, CollectiveOp::mean);
  comm_.wait_all();
  next_ = 0;
  for (Bucket& b : buckets_) b.ready = 0;
  for (auto& [p, flag] : is_ready_) flag = false;
}

std::vector<std::vector<std::string>> GradientReducer::bucket_names() const {
  std::vector<std::vector<std::string>> names;
  for (const Bucket& b : buckets_) {
    names.emplace_back();
    for (const Parameter* p : b.parameters) names.back().push_back(p->name);
  }
  return names;
}

}  // namespace kiln
