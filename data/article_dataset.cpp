// The article set: prototypes drawn once from the seed, samples drawn per index. Each sample has
// its own Philox stream keyed on (seed, index): its first draw is the label, the following ones
// its noise, so any worker can make any sample and the result never depends on who asked.
#include "kiln/data/article_dataset.h"

#include "kiln/core/error.h"
#include "kiln/data/random_stream.h"

namespace kiln {

ArticleDataset::ArticleDataset(ArticleOptions options) : options_(options) {
  KILN_CHECK(options.size >= 0, "the article set needs a non-negative size, found {}",
             options.size);
  KILN_CHECK(options.features >= 1, "the article set needs at least one feature, found {}",
             options.features);
  KILN_CHECK(options.classes >= 2, "the article set needs at least two classes, found {}",
             options.classes);
  KILN_CHECK(options.noise >= 0.0f, "the article set's noise must be non-negative, found {}",
             options.noise);
  prototypes_.resize(static_cast<std::size_t>(options.classes * options.features));
  for (std::int32_t c = 0; c < options.classes; ++c) {
    RandomStream rng(options.seed, RandomPurpose::article_prototype, 0,
                     static_cast<std::uint64_t>(c));
    float* row = prototypes_.data() +
                 static_cast<std::size_t>(c) * static_cast<std::size_t>(options.features);
    for (std::int64_t f = 0; f < options.features; ++f) row[f] = rng.next_unit();
  }
}

std::int32_t ArticleDataset::label(std::int64_t index) const {
  RandomStream rng(options_.seed, RandomPurpose::article_sample, 0,
                   static_cast<std::uint64_t>(index));
  return static_cast<std::int32_t>(rng.next_below(static_cast<std::uint64_t>(options_.classes)));
}

void ArticleDataset::get(std::int64_t index, float* x_out, TargetOut y_out) const {
  check_sample_index(*this, index);
  RandomStream rng(options_.seed, RandomPurpose::article_sample, 0,
                   static_cast<std::uint64_t>(index));
  const auto label =
      static_cast<std::int32_t>(rng.next_below(static_cast<std::uint64_t>(options_.classes)));
  const float* proto = prototype(label);
  for (std::int64_t f = 0; f < options_.features; ++f)
    x_out[f] = proto[f] + options_.noise * rng.next_normal();
  *y_out.label() = label;
}

const float* ArticleDataset::prototype(std::int32_t c) const {
  KILN_CHECK(c >= 0 && c < options_.classes, "class {} is out of range [0, {})", c,
             options_.classes);
  return prototypes_.data() +
         static_cast<std::size_t>(c) * static_cast<std::size_t>(options_.features);
}

std::string ArticleDataset::describe() const {
  return fmt::format("article set ({} x {}, {} classes, seed {}, noise {}) generated on the fly",
                     options_.size, sample_shape().str(), options_.classes, options_.seed,
                     options_.noise);
}

}  // namespace kiln
