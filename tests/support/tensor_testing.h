// Helpers shared by the test suites: seeded random tensors, element-by-element comparison that
// prints the worst absolute and relative difference, and the skip for tests that need a GPU.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kiln/core/device.h"
#include "kiln/core/tensor.h"

namespace kiln::testing {

// Uniform values in [low, high) from a std::mt19937 seeded with `seed` (independent of kiln's RNG,
// so a bug there cannot hide in the inputs).
std::vector<float> random_values(std::int64_t n, std::uint32_t seed, float low = -1.0f,
                                 float high = 1.0f);
Tensor random_tensor(const Shape& shape, std::uint32_t seed, float low = -1.0f, float high = 1.0f,
                     Device device = Device::cpu());
// Labels uniform in [0, classes).
Tensor random_labels(std::int64_t n, std::int32_t classes, std::uint32_t seed,
                     Device device = Device::cpu());

// Passes when |actual - expected| <= atol + rtol * |expected| for every element (both read to
// the host); on failure reports the count of bad elements, the first, and the worst abs/rel diff.
::testing::AssertionResult all_close(const Tensor& actual, const Tensor& expected, float rtol,
                                     float atol);
::testing::AssertionResult all_close(const std::vector<float>& actual,
                                     const std::vector<float>& expected, float rtol, float atol);

}  // namespace kiln::testing

// First line of every GPU test: skips, with the reason, where no CUDA device is usable.
#define KILN_REQUIRE_GPU()                                                     \
  do {                                                                         \
    if (!::kiln::cuda_available())                                             \
      GTEST_SKIP() << "no CUDA device: " << ::kiln::cuda_unavailable_reason(); \
  } while (0)
