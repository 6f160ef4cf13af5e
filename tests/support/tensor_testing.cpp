#include "tests/support/tensor_testing.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

namespace kiln::testing {

std::vector<float> random_values(std::int64_t n, std::uint32_t seed, float low, float high) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> values(static_cast<std::size_t>(n));
  for (auto& v : values) v = dist(engine);
  return values;
}

Tensor random_tensor(const Shape& shape, std::uint32_t seed, float low, float high, Device device) {
  return Tensor::from_vector(random_values(shape.numel(), seed, low, high), shape, device);
}

Tensor random_labels(std::int64_t n, std::int32_t classes, std::uint32_t seed, Device device) {
  std::mt19937 engine(seed);
  std::uniform_int_distribution<std::int32_t> dist(0, classes - 1);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  for (auto& l : labels) l = dist(engine);
  return Tensor::from_vector(labels, Shape{n}, device);
}

::testing::AssertionResult all_close(const std::vector<float>& actual,
                                     const std::vector<float>& expected, float rtol, float atol) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure()
           << "sizes differ: " << actual.size() << " vs " << expected.size();
  std::size_t bad = 0, first_bad = 0;
  double worst_abs = 0.0, worst_rel = 0.0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], e = expected[i];
    const double diff = std::abs(a - e);
    const bool nan_mismatch = std::isnan(a) != std::isnan(e);
    worst_abs = std::max(worst_abs, diff);
    if (e != 0.0) worst_rel = std::max(worst_rel, diff / std::abs(e));
    if (nan_mismatch || diff > atol + rtol * std::abs(e)) {
      if (bad++ == 0) first_bad = i;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << actual.size() << " elements differ (rtol " << rtol << ", atol " << atol
         << "); first at " << first_bad << ": " << actual[first_bad] << " vs expected "
         << expected[first_bad] << "; max abs diff " << worst_abs << ", max rel diff " << worst_rel;
}

::testing::AssertionResult all_close(const Tensor& actual, const Tensor& expected, float rtol,
                                     float atol) {
  if (actual.shape() != expected.shape())
    return ::testing::AssertionFailure()
           << "shapes differ: " << actual.shape().str() << " vs " << expected.shape().str();
  return all_close(actual.to_vector<float>(), expected.to_vector<float>(), rtol, atol);
}

}  // namespace kiln::testing
