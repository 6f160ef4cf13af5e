// TokenWindowDataset: windows of a token sequence for next-token prediction. Sample i is
// x = tokens[s, s + T) as float32 ids (exact below 2^24) and y = tokens[s + 1, s + T + 1) as
// int32 class labels (target_shape (T)), over the positions [begin, end) of the sequence (a
// split by position: the training part, or the held-out tail).
#pragma once

#include <cstdint>
#include <memory>

#include "kiln/data/dataset.h"
#include "kiln/data/token_file.h"

namespace kiln {

// How the start s of sample i is chosen:
//   random   s is drawn uniformly from every start that fits, from RandomStream(seed,
//            token_window, epoch, i): it depends on (seed, epoch, i) alone, so the windows are
//            the same with any number of loader workers (like the random transforms). An epoch
//            holds (end - begin - 1) / T windows, one pass's worth of tokens. A sampler's
//            shuffle of every start would cost 8 bytes per token per epoch; this costs nothing.
//   strided  s = begin + i * T: the non-overlapping windows in order, the same every epoch (for
//            evaluation, whose loss then compares between evaluations).
enum class WindowOrder { random, strided };

struct TokenWindowOptions {
  std::int64_t context = 0;  // T, at least 1
  std::int64_t begin = 0;    // the split's positions in the sequence: [begin, end)
  std::int64_t end = -1;     // -1: the sequence's end
  WindowOrder order = WindowOrder::random;
  std::uint64_t seed = 0;  // random: the windows' stream
};

class TokenWindowDataset : public Dataset {
 public:
  // Throws kiln::Error when the split is shorter than one window and its target (T + 1 tokens).
  TokenWindowDataset(std::shared_ptr<const TokenSequence> tokens, TokenWindowOptions options);

  std::int64_t size() const override { return windows_; }
  Shape sample_shape() const override { return Shape{options_.context}; }
  std::int32_t num_classes() const override;
  Shape target_shape() const override { return Shape{options_.context}; }
  void get(std::int64_t index, float* x_out, TargetOut y_out) const override;
  void get_for_epoch(std::int64_t index, std::int64_t epoch, float* x_out,
                     TargetOut y_out) const override;
  std::string describe() const override;

  // The first token of window `index` in `epoch`.
  std::int64_t window_start(std::int64_t index, std::int64_t epoch) const;
  const TokenSequence& tokens() const { return *tokens_; }

 private:
  std::shared_ptr<const TokenSequence> tokens_;
  TokenWindowOptions options_;
  std::int64_t windows_ = 0;
};

}  // namespace kiln
