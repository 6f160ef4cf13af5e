// GPU parity of max and average pooling (cuDNN) against the CPU, forward and backward, with
// overlapping and padded windows at odd sizes; backward overwrites NaN garbage in dx.
#include <gtest/gtest.h>

#include <limits>

#include "kiln/core/ops.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kElementwiseRtol;
using testing::kGpu;
using testing::on_gpu;
using testing::random_tensor;

struct Case {
  Shape x;
  Pool2dOptions o;
};
const Case kCases[] = {{Shape{2, 3, 7, 7}, {.kernel = 3, .stride = 2, .padding = 1}},
                       {Shape{5, 6, 28, 28}, {.kernel = 2, .stride = 2, .padding = 0}},
                       {Shape{1, 1, 9, 5}, {.kernel = 3, .stride = 1, .padding = 1}},
                       {Shape{33, 4, 8, 8}, {.kernel = 4, .stride = 3, .padding = 2}},
                       {Shape{3, 2, 1, 1}, {.kernel = 1, .stride = 1, .padding = 0}}};

TEST(Pool2dParity, MaxPoolForwardAndBackwardMatchCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 3300;
  for (const Case& c : kCases) {
    SCOPED_TRACE(::testing::Message() << c.x.str() << " kernel " << c.o.kernel << " stride "
                                      << c.o.stride << " padding " << c.o.padding);
    const Tensor x = random_tensor(c.x, seed++);
    const Shape ys = pool2d_output_shape(c.x, c.o);
    Tensor y = Tensor::empty(ys), argmax = Tensor::empty(ys, DType::i32);
    max_pool2d_forward(x, y, argmax, c.o);
    const Tensor x_gpu = on_gpu(x);
    Tensor y_gpu = Tensor::empty(ys, DType::f32, kGpu),
           argmax_gpu = Tensor::empty(ys, DType::i32, kGpu);
    max_pool2d_forward(x_gpu, y_gpu, argmax_gpu, c.o);
    EXPECT_TRUE(all_close(y_gpu, y, 0.0f, 0.0f)) << "y";  // a maximum is exact

    const Tensor dy = random_tensor(ys, seed++);
    Tensor dx = Tensor::empty(c.x);
    max_pool2d_backward(x, y, argmax, dy, dx, c.o);
    Tensor dx_gpu = Tensor::full(c.x, std::numeric_limits<float>::quiet_NaN(), kGpu);
    max_pool2d_backward(x_gpu, y_gpu, argmax_gpu, on_gpu(dy), dx_gpu, c.o);
    // Overlapping windows add several dy into one element: sums in either order.
    EXPECT_TRUE(all_close(dx_gpu, dx, kElementwiseRtol, 1e-6f)) << "dx";
  }
}

TEST(Pool2dParity, AvgPoolForwardAndBackwardMatchCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 3400;
  for (const Case& c : kCases) {
    SCOPED_TRACE(::testing::Message() << c.x.str() << " kernel " << c.o.kernel << " stride "
                                      << c.o.stride << " padding " << c.o.padding);
    const Tensor x = random_tensor(c.x, seed++);
    const Shape ys = pool2d_output_shape(c.x, c.o);
    Tensor y = Tensor::empty(ys);
    avg_pool2d_forward(x, y, c.o);
    const Tensor x_gpu = on_gpu(x);
    Tensor y_gpu = Tensor::empty(ys, DType::f32, kGpu);
    avg_pool2d_forward(x_gpu, y_gpu, c.o);
    EXPECT_TRUE(all_close(y_gpu, y, 1e-5f, 1e-6f)) << "y";

    const Tensor dy = random_tensor(ys, seed++);
    Tensor dx = Tensor::empty(c.x);
    avg_pool2d_backward(x, y, dy, dx, c.o);
    Tensor dx_gpu = Tensor::full(c.x, std::numeric_limits<float>::quiet_NaN(), kGpu);
    avg_pool2d_backward(x_gpu, y_gpu, on_gpu(dy), dx_gpu, c.o);
    EXPECT_TRUE(all_close(dx_gpu, dx, 1e-5f, 1e-6f)) << "dx";
  }
}

}  // namespace
}  // namespace kiln
