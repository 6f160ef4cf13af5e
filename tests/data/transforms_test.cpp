// Transforms: reference values, a naive pad-then-crop reference for RandomCrop, and randomness
// that depends only on (seed, epoch, index), through the loader with any number of workers.
#include <gtest/gtest.h>

#include <cstring>

#include "kiln/core/error.h"
#include "kiln/data/article_dataset.h"
#include "kiln/data/data_loader.h"
#include "kiln/data/transformed_dataset.h"
#include "tests/data/test_datasets.h"
#include "tests/support/tensor_testing.h"

using kiln::RandomStream;
using kiln::Shape;

namespace {
RandomStream stream(std::uint64_t index) {
  return RandomStream(7, kiln::RandomPurpose::transform, 0, index);
}

// Pads each (H, W) plane with `fill`, then takes the H x W window at (top, left) of the padded
// plane.
std::vector<float> pad_then_crop(const std::vector<float>& x, const Shape& shape, int pad,
                                 float fill, std::int64_t top, std::int64_t left) {
  const std::int64_t c = shape[0], h = shape[1], w = shape[2], ph = h + 2 * pad, pw = w + 2 * pad;
  std::vector<float> padded(static_cast<std::size_t>(c * ph * pw), fill), out(x.size());
  for (std::int64_t k = 0; k < c; ++k)
    for (std::int64_t r = 0; r < h; ++r)
      for (std::int64_t q = 0; q < w; ++q)
        padded[((k * ph) + r + pad) * pw + q + pad] = x[(k * h + r) * w + q];
  for (std::int64_t k = 0; k < c; ++k)
    for (std::int64_t r = 0; r < h; ++r)
      for (std::int64_t q = 0; q < w; ++q)
        out[(k * h + r) * w + q] = padded[((k * ph) + r + top) * pw + q + left];
  return out;
}
}  // namespace

TEST(Transform, NormalizeUsesOneMeanAndStdPerChannel) {
  const kiln::Normalize norm({1.0f, -2.0f}, {2.0f, 0.5f});
  const Shape shape{2, 1, 3};
  norm.check(shape);
  std::vector<float> x{1, 3, 5, -2, -1, 0};
  RandomStream rng = stream(0);
  norm.apply(x.data(), shape, rng);
  EXPECT_EQ(x, (std::vector<float>{0, 1, 2, 0, 2, 4}));
  EXPECT_THROW(norm.check(Shape{3, 2, 2}), kiln::Error);
  EXPECT_THROW(kiln::Normalize({0.5f}, {0.0f}), kiln::Error);
  const kiln::Normalize one({0.5f}, {0.25f});
  std::vector<float> flat{0.5f, 1.0f};
  one.apply(flat.data(), Shape{2}, rng);
  EXPECT_EQ(flat, (std::vector<float>{0.0f, 2.0f}));
}

TEST(Transform, HorizontalFlipMirrorsTheWidthOfEveryRow) {
  const Shape shape{2, 2, 3};
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  RandomStream rng = stream(0);
  kiln::RandomHorizontalFlip(1.0f).apply(x.data(), shape, rng);
  EXPECT_EQ(x, (std::vector<float>{3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10}));
  kiln::RandomHorizontalFlip(0.0f).apply(x.data(), shape, rng);
  EXPECT_EQ(x[0], 3.0f);
  EXPECT_THROW(kiln::RandomHorizontalFlip().check(Shape{784}), kiln::Error);
  int flipped = 0;
  for (std::uint64_t i = 0; i < 4000; ++i) {
    std::vector<float> y{1, 2};
    RandomStream r = stream(i);
    kiln::RandomHorizontalFlip(0.5f).apply(y.data(), Shape{1, 2}, r);
    flipped += y[0] == 2.0f;
  }
  EXPECT_NEAR(flipped, 2000, 160);  // 5 sigma
}

TEST(Transform, RandomCropMatchesPaddingThenCropping) {
  for (const Shape& shape : {Shape{3, 5, 7}, Shape{1, 28, 28}, Shape{2, 1, 4}})
    for (int pad : {0, 1, 4, 10}) {
      const kiln::RandomCrop crop(pad, -1.5f);
      crop.check(shape);
      for (std::uint64_t i = 0; i < 50; ++i) {
        const auto x = kiln::testing::random_values(shape.numel(), static_cast<std::uint32_t>(i));
        std::vector<float> got = x;
        RandomStream rng = stream(i), same = stream(i);
        crop.apply(got.data(), shape, rng);
        const auto choices = static_cast<std::uint64_t>(2 * pad + 1);
        const auto top = static_cast<std::int64_t>(same.next_below(choices));
        const auto left = static_cast<std::int64_t>(same.next_below(choices));
        EXPECT_EQ(got, pad_then_crop(x, shape, pad, -1.5f, top, left))
            << shape.str() << " padding " << pad << " offset (" << top << ", " << left << ")";
      }
    }
  EXPECT_THROW(kiln::RandomCrop(-1), kiln::Error);
  EXPECT_THROW(kiln::RandomCrop(2).check(Shape{10}), kiln::Error);
}

TEST(TransformedDataset, RandomnessDependsOnlyOnSeedEpochAndIndex) {
  auto base =
      std::make_shared<kiln::ArticleDataset>(kiln::ArticleOptions{.size = 100, .features = 64});
  // View the flat article samples as (1, 8, 8) images through a tiny adapter.
  struct AsImage : kiln::testing::IndexDataset {
    explicit AsImage(std::shared_ptr<const kiln::Dataset> d)
        : IndexDataset(d->size()), d_(std::move(d)) {}
    Shape sample_shape() const override { return Shape{1, 8, 8}; }
    void get(std::int64_t i, float* x, kiln::TargetOut y) const override { d_->get(i, x, y); }
    std::shared_ptr<const kiln::Dataset> d_;
  };
  std::vector<std::shared_ptr<const kiln::Transform>> pipeline{
      std::make_shared<kiln::RandomCrop>(2), std::make_shared<kiln::RandomHorizontalFlip>(),
      std::make_shared<kiln::Normalize>(std::vector<float>{0.5f}, std::vector<float>{2.5f})};
  auto data =
      std::make_shared<kiln::TransformedDataset>(std::make_shared<AsImage>(base), pipeline, 9);
  EXPECT_NE(data->describe().find(
                "| RandomCrop(padding 2, fill 0) | RandomHorizontalFlip(p 0.5) | Normalize"),
            std::string::npos)
      << data->describe();
  std::vector<float> a(64), b(64);
  std::int32_t ya, yb;
  int differs = 0;
  for (std::int64_t i = 0; i < 20; ++i) {
    data->get_for_epoch(i, 3, a.data(), &ya);
    data->get_for_epoch(i, 3, b.data(), &yb);
    EXPECT_EQ(a, b);
    data->get_for_epoch(i, 4, b.data(), &yb);
    differs += a != b;
  }
  EXPECT_GE(differs, 15) << "most samples are transformed differently in another epoch";

  std::vector<std::vector<float>> reference;
  for (int workers : {0, 1, 4, 8}) {
    kiln::DataLoader loader(
        data, kiln::DataLoaderOptions{.batch_size = 9, .seed = 2, .num_workers = workers});
    loader.set_epoch(6);
    std::vector<float> all;
    for (const kiln::Batch& batch : loader) {
      const auto x = batch.x.to_vector<float>();
      all.insert(all.end(), x.begin(), x.end());
    }
    if (workers == 0)
      reference.push_back(all);
    else
      EXPECT_EQ(std::memcmp(all.data(), reference[0].data(), all.size() * sizeof(float)), 0)
          << workers;
  }
}

TEST(TransformedDataset, RejectsATransformThatDoesNotFitTheSamples) {
  auto flat = std::make_shared<kiln::ArticleDataset>(kiln::ArticleOptions{.size = 10});
  EXPECT_THROW(kiln::TransformedDataset(flat, {std::make_shared<kiln::RandomHorizontalFlip>()}),
               kiln::Error);
}
