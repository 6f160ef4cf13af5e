// Cases of the random fills: uniform_ bit-identical on every backend, normal_ within a few ulps
// of the devices' logf/cosf, at odd sizes and counter offsets past 2^32 (the generator reserving
// its counters), successive draws from one generator, and the Kaiming and Xavier initialisers
// (which draw through them) from one seed.
#include "kiln/core/ops.h"
#include "kiln/core/random.h"
#include "tests/ops/cases/harness.h"

namespace kiln::ops_testing {
namespace {

constexpr std::int64_t kSizes[] = {0, 1, 7, 33, 1000, 4099, 70000};
constexpr std::uint64_t kOffsets[] = {0, 12345, (std::uint64_t{1} << 32) - 5,
                                      (std::uint64_t{7} << 40) + 3};
// |z| < 5.7 for u1 >= 2^-24; logf/cosf differ by a few ulps between the devices: about 1e-6
// in z, times the standard deviation.
constexpr Tolerance kNormal{1e-6f, 1e-5f};

// n draws at (seed, offset), and how many counters the generator reserved.
template <typename Draw>
Outputs draw(Device d, std::int64_t n, std::uint64_t seed, std::uint64_t offset, Draw fill) {
  Generator gen(seed);
  gen.set_state(seed, offset);
  Tensor x = Tensor::empty({n}, DType::f32, d);
  fill(x, gen);
  const auto reserved = static_cast<float>(gen.offset() - offset);
  return {{"x", x},
          {"counters reserved", Tensor::from_vector(std::vector<float>{reserved}, Shape{1})}};
}

std::vector<OpCase> cases() {
  std::vector<OpCase> out;
  for (std::int64_t n : kSizes)
    for (std::uint64_t offset : kOffsets) {
      const std::string what = "n=" + std::to_string(n) + " offset " + std::to_string(offset);
      for (const auto& [low, high] : {std::pair{0.0f, 1.0f}, std::pair{-0.37f, 2.9f}})
        out.push_back({"uniform_", "Random",
                       what + " [" + std::to_string(low) + ", " + std::to_string(high) + ")",
                       [=](Device d) {
                         return draw(d, n, 42, offset,
                                     [=](Tensor& x, Generator& g) { uniform_(x, low, high, g); });
                       },
                       kExact});
      out.push_back({"normal_", "Random", what + " mean 0.5 std 2",
                     [=](Device d) {
                       return draw(d, n, 7, offset,
                                   [](Tensor& x, Generator& g) { normal_(x, 0.5f, 2.0f, g); });
                     },
                     kNormal});
    }
  out.push_back({"uniform_", "Random", "successive draws from one generator",
                 [](Device d) -> Outputs {
                   Generator gen(99);
                   Outputs o;
                   for (std::int64_t n : {7, 1000, 33}) {
                     Tensor x = Tensor::empty({n}, DType::f32, d);
                     uniform_(x, -1.0f, 1.0f, gen);
                     o.push_back({"draw of " + std::to_string(n), x});
                   }
                   return o;
                 },
                 kExact});
  for (const Shape& shape : {Shape{33, 7}, Shape{1000, 784}, Shape{16, 3, 5, 5}}) {
    out.push_back({"uniform_", "Random", "kaiming_uniform_ and xavier_uniform_ " + shape.str(),
                   [shape](Device d) -> Outputs {
                     Generator gen(2024);
                     Tensor a = Tensor::empty(shape, DType::f32, d),
                            b = Tensor::empty(shape, DType::f32, d);
                     Tensor c = Tensor::empty(shape, DType::f32, d);
                     kaiming_uniform_(a, gen);
                     kaiming_uniform_(b, gen, 0.01f, FanMode::fan_out);
                     xavier_uniform_(c, gen);
                     return {{"kaiming", a}, {"kaiming fan_out", b}, {"xavier", c}};
                   },
                   kExact});
    // Normal draws: stddev <= 1 here, so a few ulps of z stay well under 1e-5.
    out.push_back({"normal_", "Random", "kaiming_normal_ and xavier_normal_ " + shape.str(),
                   [shape](Device d) -> Outputs {
                     Generator gen(2025);
                     Tensor a = Tensor::empty(shape, DType::f32, d),
                            b = Tensor::empty(shape, DType::f32, d);
                     kaiming_normal_(a, gen);
                     xavier_normal_(b, gen, 2.0f);
                     return {{"kaiming", a}, {"xavier gain 2", b}};
                   },
                   kNormal});
  }
  return out;
}

const AddCases kCases(cases());

}  // namespace
}  // namespace kiln::ops_testing
