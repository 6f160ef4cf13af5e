// Cases of bias_add and bias_grad at odd (rows, cols), 2-D and 3-D y, zero rows: bias_grad
// accumulates (+=, called twice) into a dbias that starts non-zero. Finite differences check
// bias_grad as the gradient of bias_add.
#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"
#include "tests/support/gradient_check.h"

namespace kiln::ops_testing {
namespace {

const Shape kShapes[] = {Shape{1, 1},    Shape{7, 33},   Shape{1000, 7}, Shape{33, 1000},
                         Shape{4099, 3}, Shape{2, 3, 7}, Shape{0, 5},    Shape{5, 4099}};

std::vector<OpCase> cases() {
  std::vector<OpCase> out;
  std::uint32_t seed = 1500;
  auto add_shape = [&](const Shape& shape, bool large) {
    const std::uint32_t s = seed;
    seed += 2;
    const Shape bias_shape{shape[shape.rank() - 1]};
    OpCase add{"bias_add",
               "Bias",
               shape.str(),
               [=](Device d) -> Outputs {
                 Tensor y = input(shape, s).to(d);
                 bias_add(y, input(bias_shape, s + 1).to(d));
                 return {{"y", y}};
               },
               {1e-5f, 0.0f}};
    // Column sums run in double on both devices; 1e-6 absolute for sums that cancel to ~0.
    OpCase grad{"bias_grad",
                "Bias",
                shape.str() + " +=, twice",
                [=](Device d) -> Outputs {
                  const Tensor dy = input(shape, s).to(d);
                  Tensor dbias = input(bias_shape, s + 1, 1.0f, 2.0f).to(d);
                  bias_grad(dy, dbias);
                  bias_grad(dy, dbias);
                  return {{"dbias", dbias}};
                },
                {1e-4f, 1e-6f}};
    add.large = grad.large = large;
    out.push_back(std::move(add));
    out.push_back(std::move(grad));
  };
  for (const Shape& shape : kShapes) add_shape(shape, false);
  add_shape(Shape{70000, 1}, false);
  add_shape(Shape{4096, 1024}, true);
  return out;
}

std::vector<GradientCase> gradients() {
  return {{"bias_grad", "(9, 5)", [] {
             const Tensor y0 = input({9, 5}, 1700), w = input({9, 5}, 1701);
             Tensor bias = input({5}, 1702), dbias = Tensor::zeros({5});
             bias_grad(w, dbias);
             return testing::gradient_matches_finite_differences(
                 [&] {
                   Tensor y = y0.clone();
                   bias_add(y, bias);
                   return weighted_sum(y, w);
                 },
                 bias, dbias, "bias");
           }}};
}

const AddCases kCases(cases());
const AddCases kGradients(gradients());

}  // namespace
}  // namespace kiln::ops_testing
