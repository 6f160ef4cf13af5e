// GPU parity of every activation, forward and backward, against the CPU at odd sizes, and
// backward in place (dx aliasing dy). Backward gets the CPU's y on both devices, so each
// direction is compared on identical inputs.
#include <gtest/gtest.h>

#include "kiln/core/ops.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kElementwiseRtol;
using testing::kGpu;
using testing::on_gpu;
using testing::random_tensor;

// Values near a derivative's zero (GELU's at x = -0.75) cancel; 1e-6 absolute covers that.
constexpr float kAtol = 1e-6f;
constexpr std::int64_t kSizes[] = {1, 7, 33, 1000, 4099};

struct Case {
  Activation f;
  float alpha;
  const char* name;
};
constexpr Case kCases[] = {{Activation::relu, 0.01f, "relu"},
                           {Activation::leaky_relu, 0.01f, "leaky_relu 0.01"},
                           {Activation::leaky_relu, 0.2f, "leaky_relu 0.2"},
                           {Activation::sigmoid, 0.01f, "sigmoid"},
                           {Activation::tanh, 0.01f, "tanh"},
                           {Activation::gelu, 0.01f, "gelu"}};

TEST(ActivationParity, ForwardMatchesCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 200;
  for (const Case& c : kCases)
    for (std::int64_t n : kSizes) {
      SCOPED_TRACE(::testing::Message() << c.name << " n " << n);
      // [-6, 6): the saturated tails of sigmoid/tanh and GELU's erfc tail as well as the middle.
      const Tensor x = random_tensor(Shape{n}, seed++, -6.0f, 6.0f);
      Tensor expected = Tensor::empty(Shape{n});
      activation_forward(c.f, x, expected, c.alpha);
      Tensor actual = Tensor::empty(Shape{n}, DType::f32, kGpu);
      activation_forward(c.f, on_gpu(x), actual, c.alpha);
      EXPECT_TRUE(all_close(actual, expected, kElementwiseRtol, kAtol));
    }
}

TEST(ActivationParity, BackwardMatchesCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 300;
  for (const Case& c : kCases)
    for (std::int64_t n : kSizes) {
      SCOPED_TRACE(::testing::Message() << c.name << " n " << n);
      const Tensor x = random_tensor(Shape{n}, seed++, -6.0f, 6.0f);
      const Tensor dy = random_tensor(Shape{n}, seed++);
      Tensor y = Tensor::empty(Shape{n});
      activation_forward(c.f, x, y, c.alpha);
      Tensor expected = Tensor::empty(Shape{n});
      activation_backward(c.f, x, y, dy, expected, c.alpha);

      const Tensor x_gpu = on_gpu(x), y_gpu = on_gpu(y), dy_gpu = on_gpu(dy);
      Tensor actual = Tensor::empty(Shape{n}, DType::f32, kGpu);
      activation_backward(c.f, x_gpu, y_gpu, dy_gpu, actual, c.alpha);
      EXPECT_TRUE(all_close(actual, expected, kElementwiseRtol, kAtol));

      Tensor in_place = on_gpu(dy);  // dx aliases dy
      activation_backward(c.f, x_gpu, y_gpu, in_place, in_place, c.alpha);
      EXPECT_TRUE(all_close(in_place, expected, kElementwiseRtol, kAtol));
    }
}

TEST(ActivationParity, WorksOnSlicesOfDeviceTensors) {
  KILN_REQUIRE_GPU();
  const Tensor x = random_tensor(Shape{9, 33}, 400, -3.0f, 3.0f);
  Tensor expected = Tensor::empty(Shape{5, 33});
  activation_forward(Activation::gelu, x.slice(3, 8), expected);
  Tensor y = Tensor::zeros(Shape{9, 33}, DType::f32, kGpu);
  Tensor y_rows = y.slice(3, 8);
  activation_forward(Activation::gelu, on_gpu(x).slice(3, 8), y_rows);
  EXPECT_TRUE(all_close(y_rows, expected, kElementwiseRtol, kAtol));
  EXPECT_TRUE(all_close(y.slice(0, 3), Tensor::zeros(Shape{3, 33}), 0.0f, 0.0f));
  EXPECT_TRUE(all_close(y.slice(8, 9), Tensor::zeros(Shape{1, 33}), 0.0f, 0.0f));
}

}  // namespace
}  // namespace kiln
