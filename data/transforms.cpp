// The transforms. RandomCrop shifts in place, row by row with memmove, visiting rows in the
// direction that reads each source row before it is overwritten: no scratch buffer per sample.
#include "kiln/data/transforms.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>

#include "kiln/core/error.h"

namespace kiln {

namespace {
// Channels and plane size of a sample: (C, H, W) -> C planes of H * W; (H, W) -> 1 plane;
// (F) -> 1 plane of F.
struct Planes {
  std::int64_t count, height, width;
};
Planes planes_of(const Shape& shape) {
  const int r = shape.rank();
  if (r <= 1) return {1, 1, shape.numel()};
  return {shape.product(0, r - 2), shape[r - 2], shape[r - 1]};
}
}  // namespace

Normalize::Normalize(std::vector<float> mean, std::vector<float> stddev) : mean_(std::move(mean)) {
  KILN_CHECK(!mean_.empty() && mean_.size() == stddev.size(),
             "Normalize needs as many means as standard deviations (at least one), found {} and {}",
             mean_.size(), stddev.size());
  for (float s : stddev) {
    KILN_CHECK(s > 0.0f, "Normalize needs positive standard deviations, found {}", s);
    inv_std_.push_back(1.0f / s);
  }
}

void Normalize::check(const Shape& shape) const {
  const std::int64_t channels = shape.rank() == 3 ? shape[0] : 1;
  KILN_CHECK(mean_.size() == 1 || static_cast<std::int64_t>(mean_.size()) == channels,
             "Normalize has {} means for samples of shape {} with {} channel(s)", mean_.size(),
             shape.str(), channels);
}

void Normalize::apply(float* x, const Shape& shape, RandomStream&) const {
  const std::int64_t channels = mean_.size() == 1 ? 1 : shape[0];
  const std::int64_t per_channel = shape.numel() / channels;
  for (std::int64_t c = 0; c < channels; ++c) {
    const float m = mean_[static_cast<std::size_t>(c)], s = inv_std_[static_cast<std::size_t>(c)];
    float* p = x + c * per_channel;
    for (std::int64_t k = 0; k < per_channel; ++k) p[k] = (p[k] - m) * s;
  }
}

std::string Normalize::describe() const {
  std::vector<float> stddev;
  for (float s : inv_std_) stddev.push_back(1.0f / s);
  return fmt::format("Normalize(mean {}, std {})", mean_, stddev);
}

RandomHorizontalFlip::RandomHorizontalFlip(float p) : p_(p) {
  KILN_CHECK(p >= 0.0f && p <= 1.0f, "RandomHorizontalFlip needs a probability in [0, 1], found {}",
             p);
}

void RandomHorizontalFlip::check(const Shape& shape) const {
  KILN_CHECK(shape.rank() >= 2, "RandomHorizontalFlip needs (H, W) or (C, H, W) samples, found {}",
             shape.str());
}

void RandomHorizontalFlip::apply(float* x, const Shape& shape, RandomStream& rng) const {
  if (rng.next_unit() >= p_) return;
  const Planes p = planes_of(shape);
  for (std::int64_t row = 0; row < p.count * p.height; ++row)
    std::reverse(x + row * p.width, x + (row + 1) * p.width);
}

std::string RandomHorizontalFlip::describe() const {
  return fmt::format("RandomHorizontalFlip(p {})", p_);
}

RandomCrop::RandomCrop(int padding, float fill) : padding_(padding), fill_(fill) {
  KILN_CHECK(padding >= 0, "RandomCrop needs a non-negative padding, found {}", padding);
}

void RandomCrop::check(const Shape& shape) const {
  KILN_CHECK(shape.rank() >= 2, "RandomCrop needs (H, W) or (C, H, W) samples, found {}",
             shape.str());
}

void RandomCrop::apply(float* x, const Shape& shape, RandomStream& rng) const {
  const std::uint64_t choices = 2 * static_cast<std::uint64_t>(padding_) + 1;
  // Output pixel (r, c) is input pixel (r + dy, c + dx), or `fill` where that falls outside.
  const auto dy = static_cast<std::int64_t>(rng.next_below(choices)) - padding_;
  const auto dx = static_cast<std::int64_t>(rng.next_below(choices)) - padding_;
  if (dy == 0 && dx == 0) return;
  const Planes p = planes_of(shape);
  const std::int64_t h = p.height, w = p.width;
  const std::int64_t kept = std::max<std::int64_t>(0, w - std::abs(dx));
  for (std::int64_t c = 0; c < p.count; ++c) {
    float* plane = x + c * h * w;
    for (std::int64_t k = 0; k < h; ++k) {
      const std::int64_t r = dy >= 0 ? k : h - 1 - k;  // read row r + dy before it is written
      float* out = plane + r * w;
      const std::int64_t src = r + dy;
      if (src < 0 || src >= h || kept == 0) {
        std::fill(out, out + w, fill_);
        continue;
      }
      const float* in = plane + src * w;
      std::memmove(out + std::max<std::int64_t>(0, -dx), in + std::max<std::int64_t>(0, dx),
                   static_cast<std::size_t>(kept) * sizeof(float));
      if (dx > 0) std::fill(out + kept, out + w, fill_);
      if (dx < 0) std::fill(out, out - dx, fill_);
    }
  }
}

std::string RandomCrop::describe() const {
  return fmt::format("RandomCrop(padding {}, fill {})", padding_, fill_);
}

}  // namespace kiln
