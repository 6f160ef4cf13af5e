// Cases of conv2d: forward with and without bias, backward_data overwriting NaN ("="),
// backward_filter accumulating ("+=") into random gradients, at odd sizes: strided, padded, 1x1,
// rectangular, LeNet-5's layers, a geometry oneDNN cannot express (rows left unread), an empty
// batch. Finite differences check both backward ops.
#include <cmath>
#include <limits>

#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"
#include "tests/support/gradient_check.h"

namespace kiln::ops_testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

struct Geometry {
  std::int64_t n, c, h, w, oc, kh, kw, stride, pad;
  Shape x() const { return {n, c, h, w}; }
  Shape weight() const { return {oc, c, kh, kw}; }
  Conv2dOptions options() const { return {.stride = stride, .padding = pad}; }
  std::string str() const {
    return x().str() + " w " + weight().str() + " stride " + std::to_string(stride) + " pad " +
           std::to_string(pad);
  }
};
constexpr Geometry kGeometries[] = {
    {2, 3, 7, 7, 4, 3, 3, 2, 1},    {1, 1, 28, 28, 6, 5, 5, 1, 2},  // LeNet-5's first layer
    {5, 6, 14, 14, 16, 5, 5, 1, 0},                                 // and its second
    {3, 2, 9, 5, 7, 1, 1, 1, 0},    {33, 3, 8, 8, 8, 3, 3, 1, 1},
    {2, 4, 11, 6, 3, 4, 4, 3, 2},   {1, 1, 7, 7, 1, 3, 3, 1, 0},
    {3, 5, 9, 11, 33, 3, 3, 2, 1},  {2, 3, 6, 6, 4, 2, 2, 3, 0},  // rows left unread
    {0, 3, 5, 5, 2, 3, 3, 1, 1}};

// Each output sums `terms` products of values in [-1, 1); the floor scales with sqrt of that.
void set_tolerances(OpCase& c, std::int64_t terms, std::int64_t cpu_terms) {
  c.fp32 = {1e-4f, 1e-4f * std::sqrt(static_cast<float>(std::max<std::int64_t>(terms, 1)))};
  c.cpu =
      Tolerance{1e-5f, 1e-5f * std::sqrt(static_cast<float>(std::max<std::int64_t>(cpu_terms, 1)))};
  c.reduced = {{MatmulPrecision::bf16, c.fp32}};  // the GPU's convolutions stay fp32
}

std::vector<OpCase> cases() {
  std::vector<OpCase> out;
  std::uint32_t seed = 3000;
  for (const Geometry& g : kGeometries) {
    const std::uint32_t s = seed;
    seed += 6;
    const Shape ys = conv2d_output_shape(g.x(), g.weight(), g.options());
    const std::int64_t cpu_terms = g.weight().numel() + ys.numel();
    for (bool with_bias : {true, false}) {
      OpCase f{"conv2d_forward", "Conv2d", g.str() + (with_bias ? " bias" : ""),
               [=](Device d) -> Outputs {
                 const Tensor b = with_bias ? input({g.oc}, s + 2).to(d) : Tensor();
                 Tensor y = Tensor::full(ys, kNaN, d);
                 conv2d_forward(input(g.x(), s).to(d), input(g.weight(), s + 1).to(d), b, y,
                                g.options());
                 return {{"y", y}};
               }};
      set_tolerances(f, g.c * g.kh * g.kw, cpu_terms);
      out.push_back(std::move(f));
    }
    OpCase data{"conv2d_backward_data", "Conv2d", g.str(), [=](Device d) -> Outputs {
                  Tensor dx = Tensor::full(g.x(), kNaN, d);  // "=": overwritten
                  conv2d_backward_data(input(ys, s + 3).to(d), input(g.weight(), s + 1).to(d), dx,
                                       g.options());
                  return {{"dx", dx}};
                }};
    set_tolerances(data, g.oc * g.kh * g.kw, cpu_terms);
    out.push_back(std::move(data));
    for (bool with_bias : {true, false}) {
      OpCase filter{"conv2d_backward_filter", "Conv2d", g.str() + (with_bias ? " dbias" : ""),
                    [=](Device d) -> Outputs {
                      Tensor dw = input(g.weight(), s + 4).to(d);  // "+=" from a random start
                      Tensor db = with_bias ? input({g.oc}, s + 5).to(d) : Tensor();
                      conv2d_backward_filter(input(g.x(), s).to(d), input(ys, s + 3).to(d), dw, db,
                                             g.options());
                      if (!with_bias) return {{"dweight", dw}};
                      return {{"dweight", dw}, {"dbias", db}};
                    }};
      set_tolerances(filter, g.n * ys[2] * ys[3], cpu_terms);
      out.push_back(std::move(filter));
    }
  }
  return out;
}

std::vector<GradientCase> gradients() {
  const Geometry g{2, 2, 5, 6, 3, 3, 2, 2, 1};
  const Shape ys = conv2d_output_shape(g.x(), g.weight(), g.options());
  const auto make = [=](bool data) -> GradientCase {
    return {data ? "conv2d_backward_data" : "conv2d_backward_filter", g.str(), [=] {
              Tensor x = input(g.x(), 3500), w = input(g.weight(), 3501), b = input({g.oc}, 3502);
              const Tensor probe = input(ys, 3503);
              const auto loss = [&] {
                Tensor y = Tensor::empty(ys);
                conv2d_forward(x, w, b, y, g.options());
                return weighted_sum(y, probe);
              };
              if (data) {
                Tensor dx = Tensor::empty(g.x());
                conv2d_backward_data(probe, w, dx, g.options());
                return testing::gradient_matches_finite_differences(loss, x, dx, "x");
              }
              Tensor dw = Tensor::zeros(g.weight()), db = Tensor::zeros({g.oc});
              conv2d_backward_filter(x, probe, dw, db, g.options());
              ::testing::AssertionResult r =
                  testing::gradient_matches_finite_differences(loss, w, dw, "weight");
              if (!r) return r;
              return testing::gradient_matches_finite_differences(loss, b, db, "bias");
            }};
  };
  return {make(true), make(false)};
}

const AddCases kCases(cases());
const AddCases kGradients(gradients());

}  // namespace
}  // namespace kiln::ops_testing
