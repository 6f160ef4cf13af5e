// GPU parity of the Philox draws: uniform_ bit-identical to the CPU, normal_ within a few ulps
// of the devices' logf/cosf, for odd sizes and counter offsets past 2^32; the Kaiming and Xavier
// initialisers give the same weights on both devices from the same seed.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kiln/core/random.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kGpu;

constexpr std::int64_t kSizes[] = {1, 7, 33, 1000, 4099, 100003};
// Offsets into the counter space, including one whose low word wraps within the draw.
constexpr std::uint64_t kOffsets[] = {0, 12345, (std::uint64_t{1} << 32) - 5,
                                      (std::uint64_t{7} << 40) + 3};

// Draws n values on `device` from a generator at (seed, offset).
template <typename Fill>
std::vector<float> draw(Device device, std::int64_t n, std::uint64_t seed, std::uint64_t offset,
                        Fill fill) {
  Generator gen(seed);
  gen.set_state(seed, offset);
  Tensor x = Tensor::empty(Shape{n}, DType::f32, device);
  fill(x, gen);
  EXPECT_EQ(gen.offset(), offset + static_cast<std::uint64_t>(n)) << "counters reserved";
  return x.to_vector<float>();
}

TEST(RandomParity, UniformIsBitIdenticalToCpu) {
  KILN_REQUIRE_GPU();
  for (std::int64_t n : kSizes)
    for (std::uint64_t offset : kOffsets)
      for (const auto& [low, high] : {std::pair{0.0f, 1.0f}, std::pair{-0.37f, 2.9f}}) {
        SCOPED_TRACE(::testing::Message()
                     << "n " << n << " offset " << offset << " [" << low << ", " << high << ")");
        auto fill = [low = low, high = high](Tensor& x, Generator& gen) {
          uniform_(x, low, high, gen);
        };
        const std::vector<float> cpu = draw(Device::cpu(), n, 42, offset, fill);
        const std::vector<float> gpu = draw(kGpu, n, 42, offset, fill);
        EXPECT_TRUE(all_close(gpu, cpu, 0.0f, 0.0f));
      }
}

TEST(RandomParity, NormalMatchesCpuWithinUlps) {
  KILN_REQUIRE_GPU();
  for (std::int64_t n : kSizes)
    for (std::uint64_t offset : kOffsets) {
      SCOPED_TRACE(::testing::Message() << "n " << n << " offset " << offset);
      auto fill = [](Tensor& x, Generator& gen) { normal_(x, 0.5f, 2.0f, gen); };
      const std::vector<float> cpu = draw(Device::cpu(), n, 7, offset, fill);
      const std::vector<float> gpu = draw(kGpu, n, 7, offset, fill);
      // |z| < 5.7 for u1 >= 2^-24; logf/cosf differ by a few ulps between the devices:
      // about 1e-6 in z, times stddev 2.
      EXPECT_TRUE(all_close(gpu, cpu, 1e-6f, 1e-5f));
    }
}

TEST(RandomParity, SuccessiveDrawsFromOneGeneratorMatchCpu) {
  KILN_REQUIRE_GPU();
  Generator cpu_gen(99), gpu_gen(99);
  for (std::int64_t n : {7, 1000, 33}) {
    Tensor cpu = Tensor::empty(Shape{n}), gpu = Tensor::empty(Shape{n}, DType::f32, kGpu);
    uniform_(cpu, -1.0f, 1.0f, cpu_gen);
    uniform_(gpu, -1.0f, 1.0f, gpu_gen);
    EXPECT_TRUE(all_close(gpu, cpu, 0.0f, 0.0f)) << "n " << n;
  }
  EXPECT_EQ(cpu_gen.offset(), gpu_gen.offset());
}

TEST(RandomParity, KaimingAndXavierGiveTheSameWeightsOnBothDevices) {
  KILN_REQUIRE_GPU();
  const Shape shapes[] = {Shape{33, 7}, Shape{1000, 784}, Shape{16, 3, 5, 5}};
  for (const Shape& shape : shapes) {
    SCOPED_TRACE(shape.str());
    Generator cpu_gen(2024), gpu_gen(2024);
    Tensor cpu = Tensor::empty(shape), gpu = Tensor::empty(shape, DType::f32, kGpu);

    kaiming_uniform_(cpu, cpu_gen);
    kaiming_uniform_(gpu, gpu_gen);
    EXPECT_TRUE(all_close(gpu, cpu, 0.0f, 0.0f)) << "kaiming_uniform_";

    kaiming_uniform_(cpu, cpu_gen, 0.01f, FanMode::fan_out);
    kaiming_uniform_(gpu, gpu_gen, 0.01f, FanMode::fan_out);
    EXPECT_TRUE(all_close(gpu, cpu, 0.0f, 0.0f)) << "kaiming_uniform_ fan_out";

    xavier_uniform_(cpu, cpu_gen);
    xavier_uniform_(gpu, gpu_gen);
    EXPECT_TRUE(all_close(gpu, cpu, 0.0f, 0.0f)) << "xavier_uniform_";

    // Normal draws: stddev <= 1 here, so a few ulps of z stay well under 1e-5.
    kaiming_normal_(cpu, cpu_gen);
    kaiming_normal_(gpu, gpu_gen);
    EXPECT_TRUE(all_close(gpu, cpu, 1e-6f, 1e-5f)) << "kaiming_normal_";

    xavier_normal_(cpu, cpu_gen, 2.0f);
    xavier_normal_(gpu, gpu_gen, 2.0f);
    EXPECT_TRUE(all_close(gpu, cpu, 1e-6f, 1e-5f)) << "xavier_normal_";
  }
}

}  // namespace
}  // namespace kiln
