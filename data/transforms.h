// Per-sample transforms, applied in place to one sample's features: normalize (mean/std per
// channel), random horizontal flip, random crop with padding. Their random choices come from a
// RandomStream keyed on (seed, epoch, index), so a sample is transformed the same way whichever
// worker loads it, and differently each epoch. All keep the sample's shape.
// Layouts: (C, H, W) images, or (H, W); a flat (F) sample is one channel and cannot be flipped.
#pragma once

#include <string>
#include <vector>

#include "kiln/core/shape.h"
#include "kiln/data/random_stream.h"

namespace kiln {

class Transform {
 public:
  virtual ~Transform() = default;
  // Throws kiln::Error if samples of `shape` cannot be transformed (checked once, up front).
  virtual void check(const Shape& shape) const = 0;
  // Transforms x (shape.numel() floats) in place, drawing any random choice from `rng`.
  virtual void apply(float* x, const Shape& shape, RandomStream& rng) const = 0;
  virtual std::string describe() const = 0;
};

// x = (x - mean[c]) / std[c] per channel c (the first axis of a rank-3 sample), or with one
// mean and std for every feature.
class Normalize : public Transform {
 public:
  Normalize(std::vector<float> mean, std::vector<float> stddev);
  void check(const Shape& shape) const override;
  void apply(float* x, const Shape& shape, RandomStream& rng) const override;
  std::string describe() const override;

 private:
  std::vector<float> mean_, inv_std_;
};

// Mirrors the last axis (width) with probability p.
class RandomHorizontalFlip : public Transform {
 public:
  explicit RandomHorizontalFlip(float p = 0.5f);
  void check(const Shape& shape) const override;
  void apply(float* x, const Shape& shape, RandomStream& rng) const override;
  std::string describe() const override;

 private:
  float p_;
};

// Pads the (H, W) plane by `padding` on every side with `fill`, then crops an H x W window at a
// uniform offset (torchvision's RandomCrop(size = H, padding)): a random shift by up to `padding`
// pixels, the same for every channel.
class RandomCrop : public Transform {
 public:
  explicit RandomCrop(int padding, float fill = 0.0f);
  void check(const Shape& shape) const override;
  void apply(float* x, const Shape& shape, RandomStream& rng) const override;
  std::string describe() const override;

 private:
  int padding_;
  float fill_;
};

}  // namespace kiln
