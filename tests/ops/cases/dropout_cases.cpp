// Cases of dropout: the same (seed, offset) gives the same mask and output on every backend bit
// for bit, at odd sizes, p in {0, 0.1, 0.5, 1} and offsets past 2^32; the backward multiplies by
// the mask, in place (dx aliasing dy). Finite differences check the backward.
#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"
#include "tests/support/gradient_check.h"

namespace kiln::ops_testing {
namespace {

std::vector<OpCase> cases() {
  std::vector<OpCase> out;
  std::uint32_t seed = 3800;
  for (std::int64_t n : {0, 1, 7, 1000, 40000})
    for (std::uint64_t offset :
         {std::uint64_t{0}, std::uint64_t{12345}, (std::uint64_t{1} << 32) - 3})
      for (float p : {0.0f, 0.1f, 0.5f, 1.0f}) {
        const std::uint32_t s = seed;
        seed += 2;
        const std::string what = "n=" + std::to_string(n) + " offset " + std::to_string(offset) +
                                 " p " + std::to_string(p);
        out.push_back({"dropout_forward", "Dropout", what,
                       [=](Device d) -> Outputs {
                         Tensor y = Tensor::empty({n}, DType::f32, d),
                                mask = Tensor::empty({n}, DType::f32, d);
                         dropout_forward(input({n}, s).to(d), y, mask, p, 99, offset);
                         return {{"y", y}, {"mask", mask}};
                       },
                       kExact});
        out.push_back({"dropout_backward", "Dropout", what + " dx = dy",
                       [=](Device d) -> Outputs {
                         Tensor y = Tensor::empty({n}), mask = Tensor::empty({n});
                         dropout_forward(input({n}, s), y, mask, p, 99, offset);
                         Tensor dx = input({n}, s + 1).to(d);
                         dropout_backward(dx, mask.to(d), dx);
                         return {{"dx", dx}};
                       },
                       kExact});
      }
  return out;
}

std::vector<GradientCase> gradients() {
  return {{"dropout_backward", "n=50 p 0.3", [] {
             Tensor x = input({50}, 3900);
             const Tensor probe = input({50}, 3901);
             Tensor y = Tensor::empty({50}), mask = Tensor::empty({50}), dx = Tensor::empty({50});
             dropout_forward(x, y, mask, 0.3f, 5, 0);
             dropout_backward(probe, mask, dx);
             return testing::gradient_matches_finite_differences(
                 [&] {
                   dropout_forward(x, y, mask, 0.3f, 5, 0);
                   return weighted_sum(y, probe);
                 },
                 x, dx, "x");
           }}};
}

const AddCases kCases(cases());
const AddCases kGradients(gradients());

}  // namespace
}  // namespace kiln::ops_testing
