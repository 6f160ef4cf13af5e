// ArticleDataset: deterministic from (seed, index), balanced, and learnable: a softmax regression
// trained with kiln's ops for one epoch through the loader beats chance by far.
#include <gtest/gtest.h>

#include <cstring>

#include "kiln/core/ops.h"
#include "kiln/core/parallel.h"
#include "kiln/data/article_dataset.h"
#include "kiln/data/data_loader.h"

using kiln::ArticleDataset;
using kiln::ArticleOptions;
using kiln::Tensor;

TEST(ArticleDataset, DefaultsAreTheArticles) {
  const ArticleDataset data;
  EXPECT_EQ(data.size(), 160000);
  EXPECT_EQ(data.sample_shape(), (kiln::Shape{784}));
  EXPECT_EQ(data.num_classes(), 10);
  EXPECT_NE(data.describe().find("article set (160000 x (784,), 10 classes"), std::string::npos)
      << data.describe();
}

TEST(ArticleDataset, SamplesDependOnlyOnSeedAndIndex) {
  const ArticleDataset a(ArticleOptions{.size = 1000, .features = 33, .seed = 4});
  const ArticleDataset b(ArticleOptions{.size = 1000, .features = 33, .seed = 4});
  const ArticleDataset other(ArticleOptions{.size = 1000, .features = 33, .seed = 5});
  std::vector<float> xa(33), xb(33), xo(33);
  std::int32_t ya, yb, yo;
  for (std::int64_t i : {0, 1, 7, 999}) {
    a.get(i, xa.data(), &ya);
    b.get(i, xb.data(), &yb);
    a.get(i, xo.data(), &yo);
    EXPECT_EQ(std::memcmp(xa.data(), xb.data(), 33 * sizeof(float)), 0);
    EXPECT_EQ(xa, xo) << "asking twice gives the same sample";
    EXPECT_EQ(ya, yb);
    EXPECT_EQ(ya, a.label(i));
    other.get(i, xo.data(), &yo);
    EXPECT_NE(xa, xo);
  }
  float x;
  std::int32_t y;
  EXPECT_THROW(a.get(1000, &x, &y), kiln::Error);
  EXPECT_THROW(a.get(-1, &x, &y), kiln::Error);
}

TEST(ArticleDataset, ClassesAreBalancedAndNoiseIsCentredOnThePrototype) {
  const ArticleDataset data(ArticleOptions{.size = 20000, .features = 7, .seed = 1});
  std::vector<int> counts(10, 0);
  double mean_diff = 0.0, var = 0.0;
  std::vector<float> x(7);
  std::int32_t y;
  for (std::int64_t i = 0; i < data.size(); ++i) {
    data.get(i, x.data(), &y);
    ++counts[static_cast<std::size_t>(y)];
    for (int f = 0; f < 7; ++f) {
      const double d = x[f] - data.prototype(y)[f];
      mean_diff += d;
      var += d * d;
    }
  }
  for (int c : counts) EXPECT_NEAR(c, 2000, 250);  // about 5 sigma of a binomial
  const double n = 20000.0 * 7.0;
  EXPECT_NEAR(mean_diff / n, 0.0, 0.05);
  EXPECT_NEAR(std::sqrt(var / n), 2.5, 0.05);
}

TEST(ArticleDataset, NearestPrototypeIsRightAboutNineTimesInTen) {
  const ArticleDataset data;
  std::vector<float> x(784);
  std::int32_t y;
  int right = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    data.get(i, x.data(), &y);
    int best = -1;
    double best_d = 1e30;
    for (int c = 0; c < 10; ++c) {
      double d = 0.0;
      for (int f = 0; f < 784; ++f)
        d += (x[f] - data.prototype(c)[f]) * (x[f] - data.prototype(c)[f]);
      if (d < best_d) best_d = d, best = c;
    }
    right += best == y;
  }
  EXPECT_GT(right, n * 0.8);
  EXPECT_LT(right, n * 0.98) << "not trivially separable";
}

// A softmax regression (W: (10, 784), b: (10)) trained by SGD over one epoch of 16,000 samples.
TEST(ArticleDataset, ALinearModelBeatsChanceWithinOneEpoch) {
  // GEMMs this small gain nothing from the thread pool, whose waiting threads would compete with
  // the loader's workers for the cores.
  const int threads = kiln::num_threads();
  kiln::set_num_threads(1);
  const std::int64_t batch = 64, classes = 10, features = 784;
  auto train = std::make_shared<ArticleDataset>(ArticleOptions{.size = 16000, .seed = 3});
  kiln::DataLoader loader(
      train,
      kiln::DataLoaderOptions{.batch_size = batch, .seed = 1, .drop_last = true, .num_workers = 2});
  Tensor w = Tensor::zeros({classes, features}), b = Tensor::zeros({classes});
  Tensor dw = Tensor::empty(w.shape()), db = Tensor::empty(b.shape());
  Tensor logits = Tensor::empty({batch, classes}), probs = Tensor::empty(logits.shape());
  Tensor dlogits = Tensor::empty(logits.shape()), losses = Tensor::empty({batch});
  const float lr = 2e-4f;
  for (const kiln::Batch& bt : loader) {
    const Tensor x = bt.x.view({batch, features});
    kiln::gemm(x, false, w, true, logits);  // (B, F) @ (C, F)ᵀ -> (B, C)
    kiln::bias_add(logits, b);
    kiln::softmax_cross_entropy_forward(logits, bt.y, probs, losses);
    kiln::softmax_cross_entropy_backward(probs, bt.y, dlogits, 1.0f / static_cast<float>(batch));
    kiln::gemm(dlogits, true, x, false, dw);  // (B, C)ᵀ @ (B, F) -> (C, F)
    kiln::fill(db, 0.0f);
    kiln::bias_grad(dlogits, db);
    kiln::axpy(-lr, dw, w);
    kiln::axpy(-lr, db, b);
  }
  // Held-out samples: indices past the training range of the same seed share its prototypes.
  const ArticleDataset all(ArticleOptions{.size = 18000, .seed = 3});
  const std::int64_t n = 2000;
  std::vector<float> xs(static_cast<std::size_t>(n * features));
  std::vector<std::int32_t> ys(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) all.get(16000 + i, xs.data() + i * features, ys.data() + i);
  const Tensor x = Tensor::from_vector(xs, {n, features});
  Tensor out = Tensor::empty({n, classes}), predicted = Tensor::empty({n}, kiln::DType::i32);
  kiln::gemm(x, false, w, true, out);
  kiln::bias_add(out, b);
  kiln::argmax(out, 1, predicted);
  const auto p = predicted.to_vector<std::int32_t>();
  int right = 0;
  for (std::int64_t i = 0; i < n; ++i)
    right += p[static_cast<std::size_t>(i)] == ys[static_cast<std::size_t>(i)];
  EXPECT_GT(right, n * 6 / 10) << "accuracy " << static_cast<double>(right) / n
                               << ", chance is 0.1";
  kiln::set_num_threads(threads);
}
