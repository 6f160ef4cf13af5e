// Sampler: the order in which one rank visits a data set in one epoch. The order depends only on
// (seed, epoch): a Fisher-Yates shuffle driven by Philox (data/random_stream.h), never by
// std::shuffle, whose results differ between standard libraries. Sharding over ranks follows
// PyTorch's DistributedSampler, so every rank gets the same number of indices.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kiln/data/keyed_permutation.h"

namespace kiln {

// 2^20 indices: their Fisher-Yates order takes 8 MB and about 20 ms per epoch, small beside any
// model, and every data set kiln ships or tests on (Fashion-MNIST's 60,000, the article set's
// 160,000, a text of a few MB cut into windows) stays below it, so their order is Fisher-Yates's.
// Past it the order would grow with the data: 1.6 GB and seconds per epoch for the 200 M windows
// of a 3 GiB text.
inline constexpr std::int64_t kShuffleInMemoryUpTo = std::int64_t{1} << 20;

struct SamplerOptions {
  bool shuffle = true;
  std::uint64_t seed = 0;
  int rank = 0;
  int world_size = 1;
  // With several ranks and a size that does not divide: true drops the tail of the epoch's order
  // (each index at most once, a few not at all); false pads the order by repeating its start
  // (each index at least once, a few twice). With one rank nothing is dropped or padded.
  bool drop_last = false;
  // Data sets of at most this many indices are shuffled in memory (Fisher-Yates); larger ones
  // by the keyed permutation, computed per position (data/keyed_permutation.h), so that their
  // order costs no memory and no time to draw.
  std::int64_t shuffle_in_memory_up_to = kShuffleInMemoryUpTo;
};

// One rank's indices for one epoch, read by position; cheap to read from any position (resuming
// inside an epoch skips nothing). Holds at most shuffle_in_memory_up_to indices.
class EpochOrder {
 public:
  EpochOrder() = default;
  std::int64_t size() const { return size_; }
  // The index this rank visits at position k in [0, size()).
  std::int64_t operator[](std::int64_t k) const {
    const std::int64_t position = (rank_ + k * world_) % n_;  // past n: the padding wraps
    if (!shuffled_) return position;
    if (!global_.empty()) return global_[static_cast<std::size_t>(position)];
    return (*permutation_)[position];
  }

 private:
  friend class Sampler;
  std::int64_t n_ = 1, size_ = 0, rank_ = 0, world_ = 1;
  bool shuffled_ = false;
  std::vector<std::int64_t> global_;  // the epoch's shuffled order, when kept in memory
  std::optional<KeyedPermutation> permutation_;
};

class Sampler {
 public:
  Sampler(std::int64_t dataset_size, SamplerOptions options = {});

  std::int64_t dataset_size() const { return dataset_size_; }
  // Indices this rank visits per epoch (equal on every rank).
  std::int64_t size() const { return per_rank_; }
  const SamplerOptions& options() const { return options_; }
  // True when an epoch's order is the keyed permutation rather than a shuffle in memory.
  bool computes_order() const {
    return options_.shuffle && dataset_size_ > options_.shuffle_in_memory_up_to;
  }

  // This rank's order for `epoch`: positions rank, rank + world_size, ... of the epoch's (padded
  // or trimmed) global order.
  EpochOrder order(std::int64_t epoch) const;
  // The same, written out: `out` is resized and overwritten (size() entries).
  void indices(std::int64_t epoch, std::vector<std::int64_t>& out) const;
  std::vector<std::int64_t> indices(std::int64_t epoch) const;

 private:
  std::int64_t dataset_size_;
  SamplerOptions options_;
  std::int64_t per_rank_;
};

// The global order of epoch `epoch`: 0..n-1 shuffled by Fisher-Yates under (seed, epoch).
void shuffled_order(std::int64_t n, std::uint64_t seed, std::int64_t epoch,
                    std::vector<std::int64_t>& out);

}  // namespace kiln
