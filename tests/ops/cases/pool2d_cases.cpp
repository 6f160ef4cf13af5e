// Cases of max and average pooling, forward and backward, with overlapping and padded windows at
// odd sizes and NaN/inf sentinels; backward overwrites NaN garbage in dx ("="). Each backend's
// backward follows its own forward (the CPU routes max-pool gradients by its argmax, cuDNN by
// comparing x with y). Finite differences check both backward ops.
#include <limits>

#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"
#include "tests/support/gradient_check.h"

namespace kiln::ops_testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

struct Geometry {
  Shape x;
  Pool2dOptions o;
  std::string str() const {
    return x.str() + " kernel " + std::to_string(o.kernel) + " stride " + std::to_string(o.stride) +
           " padding " + std::to_string(o.padding);
  }
};
const Geometry kGeometries[] = {{Shape{2, 3, 7, 7}, {.kernel = 3, .stride = 2, .padding = 1}},
                                {Shape{5, 6, 28, 28}, {.kernel = 2, .stride = 2, .padding = 0}},
                                {Shape{1, 1, 9, 5}, {.kernel = 3, .stride = 1, .padding = 1}},
                                {Shape{33, 4, 8, 8}, {.kernel = 4, .stride = 3, .padding = 2}},
                                {Shape{3, 2, 1, 1}, {.kernel = 1, .stride = 1, .padding = 0}},
                                {Shape{0, 2, 4, 4}, {.kernel = 2, .stride = 2, .padding = 0}}};

std::vector<OpCase> cases() {
  std::vector<OpCase> out;
  std::uint32_t seed = 3300;
  auto add = [&](const Geometry& g, bool sentinels) {
    const std::uint32_t s = seed;
    seed += 2;
    const Shape ys = pool2d_output_shape(g.x, g.o);
    const auto x_of = [=] { return sentinels ? with_sentinels(input(g.x, s)) : input(g.x, s); };
    const std::string what = g.str() + (sentinels ? " NaN/inf" : "");
    out.push_back({"max_pool2d_forward", "Pool2d", what,
                   [=](Device d) -> Outputs {
                     Tensor y = Tensor::empty(ys, DType::f32, d),
                            argmax = Tensor::empty(ys, DType::i32, d);
                     max_pool2d_forward(x_of().to(d), y, argmax, g.o);
                     return {{"y", y}};  // argmax is the CPU's alone: cuDNN leaves it untouched
                   },
                   kExact});  // a maximum is exact
    // Overlapping windows add several dy into one element: sums in either order.
    out.push_back({"max_pool2d_backward",
                   "Pool2d",
                   what,
                   [=](Device d) -> Outputs {
                     const Tensor x = x_of().to(d);
                     Tensor y = Tensor::empty(ys, DType::f32, d),
                            argmax = Tensor::empty(ys, DType::i32, d);
                     max_pool2d_forward(x, y, argmax, g.o);
                     Tensor dx = Tensor::full(g.x, kNaN, d);
                     max_pool2d_backward(x, y, argmax, input(ys, s + 1).to(d), dx, g.o);
                     return {{"dx", dx}};
                   },
                   {1e-5f, 1e-6f}});
    out.push_back({"avg_pool2d_forward",
                   "Pool2d",
                   what,
                   [=](Device d) -> Outputs {
                     Tensor y = Tensor::empty(ys, DType::f32, d);
                     avg_pool2d_forward(x_of().to(d), y, g.o);
                     return {{"y", y}};
                   },
                   {1e-5f, 1e-6f}});
    out.push_back({"avg_pool2d_backward",
                   "Pool2d",
                   what,
                   [=](Device d) -> Outputs {
                     const Tensor x = x_of().to(d);
                     Tensor y = Tensor::empty(ys, DType::f32, d);
                     avg_pool2d_forward(x, y, g.o);
                     Tensor dx = Tensor::full(g.x, kNaN, d);
                     avg_pool2d_backward(x, y, input(ys, s + 1).to(d), dx, g.o);
                     return {{"dx", dx}};
                   },
                   {1e-5f, 1e-6f}});
  };
  for (const Geometry& g : kGeometries) add(g, false);
  add(kGeometries[0], true);
  return out;
}

std::vector<GradientCase> gradients() {
  const Geometry g{Shape{2, 2, 5, 6}, {.kernel = 3, .stride = 2, .padding = 1}};
  const Shape ys = pool2d_output_shape(g.x, g.o);
  const auto make = [=](bool max) -> GradientCase {
    return {max ? "max_pool2d_backward" : "avg_pool2d_backward", g.str(), [=] {
              Tensor x = input(g.x, 3600);
              const Tensor probe = input(ys, 3601);
              Tensor y = Tensor::empty(ys), argmax = Tensor::empty(ys, DType::i32);
              const auto forward = [&] {
                if (max)
                  max_pool2d_forward(x, y, argmax, g.o);
                else
                  avg_pool2d_forward(x, y, g.o);
              };
              forward();
              Tensor dx = Tensor::empty(g.x);
              if (max)
                max_pool2d_backward(x, y, argmax, probe, dx, g.o);
              else
                avg_pool2d_backward(x, y, probe, dx, g.o);
              return testing::gradient_matches_finite_differences(
                  [&] {
                    forward();
                    return weighted_sum(y, probe);
                  },
                  x, dx, "x");
            }};
  };
  return {make(true), make(false)};
}

const AddCases kCases(cases());
const AddCases kGradients(gradients());

}  // namespace
}  // namespace kiln::ops_testing
