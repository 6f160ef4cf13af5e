// The epoch's order (Fisher-Yates under Philox) and its sharding over ranks, as
// torch.utils.data.DistributedSampler does it: pad or trim to a multiple of world_size, then
// rank r takes positions r, r + world_size, ... Small epochs keep their shuffled order in memory,
// large ones read it from the keyed permutation position by position.
#include "kiln/data/sampler.h"

#include <algorithm>
#include <numeric>

#include "kiln/core/error.h"
#include "kiln/data/random_stream.h"

namespace kiln {

void shuffled_order(std::int64_t n, std::uint64_t seed, std::int64_t epoch,
                    std::vector<std::int64_t>& out) {
  out.resize(static_cast<std::size_t>(n));
  std::iota(out.begin(), out.end(), std::int64_t{0});
  RandomStream rng(seed, RandomPurpose::shuffle, static_cast<std::uint64_t>(epoch), 0);
  // Walk down from the end, swapping each position with a uniform one at or before it.
  for (std::int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<std::int64_t>(rng.next_below(static_cast<std::uint64_t>(i) + 1));
    std::swap(out[static_cast<std::size_t>(i)], out[static_cast<std::size_t>(j)]);
  }
}

Sampler::Sampler(std::int64_t dataset_size, SamplerOptions options)
    : dataset_size_(dataset_size), options_(options) {
  KILN_CHECK(dataset_size >= 0, "a sampler needs a non-negative data set size, found {}",
             dataset_size);
  KILN_CHECK(options.world_size >= 1, "world_size must be at least 1, found {}",
             options.world_size);
  KILN_CHECK(options.rank >= 0 && options.rank < options.world_size,
             "rank must be in [0, {}) for world_size {}, found {}", options.world_size,
             options.world_size, options.rank);
  const std::int64_t world = options.world_size;
  per_rank_ = options.drop_last ? dataset_size / world : (dataset_size + world - 1) / world;
}

EpochOrder Sampler::order(std::int64_t epoch) const {
  KILN_CHECK(epoch >= 0, "a sampler's epoch must be non-negative, found {}", epoch);
  EpochOrder order;
  order.n_ = std::max<std::int64_t>(dataset_size_, 1);
  order.size_ = per_rank_;
  order.rank_ = options_.rank;
  order.world_ = options_.world_size;
  order.shuffled_ = options_.shuffle && dataset_size_ > 1;
  if (!order.shuffled_) return order;
  if (computes_order())
    order.permutation_.emplace(dataset_size_, options_.seed, epoch);
  else
    shuffled_order(dataset_size_, options_.seed, epoch, order.global_);
  return order;
}

void Sampler::indices(std::int64_t epoch, std::vector<std::int64_t>& out) const {
  const EpochOrder o = order(epoch);
  out.resize(static_cast<std::size_t>(per_rank_));
  for (std::int64_t k = 0; k < per_rank_; ++k) out[static_cast<std::size_t>(k)] = o[k];
}

std::vector<std::int64_t> Sampler::indices(std::int64_t epoch) const {
  std::vector<std::int64_t> out;
  indices(epoch, out);
  return out;
}

}  // namespace kiln
