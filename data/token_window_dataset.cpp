#include "kiln/data/token_window_dataset.h"

#include "kiln/core/error.h"
#include "kiln/data/random_stream.h"

namespace kiln {

TokenWindowDataset::TokenWindowDataset(std::shared_ptr<const TokenSequence> tokens,
                                       TokenWindowOptions options)
    : tokens_(std::move(tokens)), options_(options) {
  KILN_CHECK(tokens_ != nullptr, "TokenWindowDataset needs a token sequence");
  if (options_.end < 0) options_.end = tokens_->size();
  KILN_CHECK(options_.context >= 1, "TokenWindowOptions::context must be at least 1, found {}",
             options_.context);
  KILN_CHECK(
      0 <= options_.begin && options_.begin <= options_.end && options_.end <= tokens_->size(),
      "TokenWindowOptions: positions [{}, {}) are not within the {} tokens of {}", options_.begin,
      options_.end, tokens_->size(), tokens_->path());
  const std::int64_t length = options_.end - options_.begin;
  KILN_CHECK(length >= options_.context + 1,
             "{} tokens at positions [{}, {}) of {} are fewer than one window of context {} and "
             "its next token "
             "({}): use more text, a smaller context or a larger split",
             length, options_.begin, options_.end, tokens_->path(), options_.context,
             options_.context + 1);
  windows_ = (length - 1) / options_.context;
}

std::int32_t TokenWindowDataset::num_classes() const {
  return static_cast<std::int32_t>(tokens_->vocabulary().size);
}

std::int64_t TokenWindowDataset::window_start(std::int64_t index, std::int64_t epoch) const {
  if (options_.order == WindowOrder::strided) return options_.begin + index * options_.context;
  const std::int64_t starts = options_.end - options_.begin - options_.context;  // s + T < end
  RandomStream rng(options_.seed, RandomPurpose::token_window, static_cast<std::uint64_t>(epoch),
                   static_cast<std::uint64_t>(index));
  return options_.begin +
         static_cast<std::int64_t>(rng.next_below(static_cast<std::uint64_t>(starts)));
}

void TokenWindowDataset::get(std::int64_t index, float* x_out, TargetOut y_out) const {
  get_for_epoch(index, 0, x_out, y_out);
}

void TokenWindowDataset::get_for_epoch(std::int64_t index, std::int64_t epoch, float* x_out,
                                       TargetOut y_out) const {
  check_sample_index(*this, index);
  std::int32_t* y = y_out.label();
  const std::int64_t s = window_start(index, epoch);
  const TokenSequence& t = *tokens_;
  for (std::int64_t k = 0; k < options_.context; ++k) {
    x_out[k] = static_cast<float>(t[s + k]);
    y[k] = t[s + k + 1];
  }
}

std::string TokenWindowDataset::describe() const {
  return fmt::format("{} windows of {} tokens ({}) of positions [{}, {}) of {}", windows_,
                     options_.context,
                     options_.order == WindowOrder::random ? "random" : "in order", options_.begin,
                     options_.end, tokens_->describe());
}

}  // namespace kiln
