// Sampler: the order in which one rank visits a data set in one epoch. The order depends only on
// (seed, epoch): a Fisher-Yates shuffle driven by Philox (data/random_stream.h), never by
// std::shuffle, whose results differ between standard libraries. Sharding over ranks follows
// PyTorch's DistributedSampler, so every rank gets the same number of indices.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln {

struct SamplerOptions {
  bool shuffle = true;
  std::uint64_t seed = 0;
  int rank = 0;
  int world_size = 1;
  // With several ranks and a size that does not divide: true drops the tail of the epoch's order
  // (each index at most once, a few not at all); false pads the order by repeating its start
  // (each index at least once, a few twice). With one rank nothing is dropped or padded.
  bool drop_last = false;
};

class Sampler {
 public:
  Sampler(std::int64_t dataset_size, SamplerOptions options = {});

  std::int64_t dataset_size() const { return dataset_size_; }
  // Indices this rank visits per epoch (equal on every rank).
  std::int64_t size() const { return per_rank_; }
  const SamplerOptions& options() const { return options_; }

  // This rank's indices for `epoch`, in visiting order: positions rank, rank + world_size, ...
  // of the epoch's (padded or trimmed) global order. `out` is resized and overwritten.
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
