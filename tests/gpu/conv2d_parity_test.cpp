// GPU parity of conv2d (cuDNN) against the CPU (im2col + GEMM): forward with and without bias,
// backward_data overwriting NaN garbage, backward_filter accumulating into non-zero gradients,
// at odd sizes (strided, padded, 1x1, rectangular, LeNet's layers), and repeatable bits.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kiln/core/ops.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kGpu;
using testing::kReductionRtol;
using testing::on_gpu;
using testing::random_tensor;

struct Case {
  std::int64_t n, c, h, w, oc, k, stride, pad;
};
constexpr Case kCases[] = {{2, 3, 7, 7, 4, 3, 2, 1},    {1, 1, 28, 28, 6, 5, 1, 2},
                           {5, 6, 14, 14, 16, 5, 1, 0}, {3, 2, 9, 5, 7, 1, 1, 0},
                           {33, 3, 8, 8, 8, 3, 1, 1},   {2, 4, 11, 6, 3, 4, 3, 2}};

// Each output sums c·k² products of values in [-1, 1); the floor scales with sqrt of that.
float conv_atol(const Case& k) { return 1e-4f * std::sqrt(static_cast<float>(k.c * k.k * k.k)); }

TEST(Conv2dParity, ForwardMatchesCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 3000;
  for (const Case& k : kCases)
    for (bool with_bias : {true, false}) {
      SCOPED_TRACE(::testing::Message() << "n " << k.n << " c " << k.c << " " << k.h << "x" << k.w
                                        << " oc " << k.oc << " k " << k.k << " stride " << k.stride
                                        << " pad " << k.pad << " bias " << with_bias);
      const Conv2dOptions o{.stride = k.stride, .padding = k.pad};
      const Tensor x = random_tensor({k.n, k.c, k.h, k.w}, seed++);
      const Tensor w = random_tensor({k.oc, k.c, k.k, k.k}, seed++);
      const Tensor b = with_bias ? random_tensor({k.oc}, seed++) : Tensor();
      const Shape ys = conv2d_output_shape(x.shape(), w.shape(), o);
      Tensor expected = Tensor::empty(ys);
      conv2d_forward(x, w, b, expected, o);
      Tensor actual = Tensor::full(ys, std::numeric_limits<float>::quiet_NaN(), kGpu);
      conv2d_forward(on_gpu(x), on_gpu(w), with_bias ? on_gpu(b) : Tensor(), actual, o);
      EXPECT_TRUE(all_close(actual, expected, kReductionRtol, conv_atol(k)));
    }
}

TEST(Conv2dParity, BackwardMatchesCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 3100;
  for (const Case& k : kCases) {
    SCOPED_TRACE(::testing::Message()
                 << "n " << k.n << " c " << k.c << " " << k.h << "x" << k.w << " oc " << k.oc
                 << " k " << k.k << " stride " << k.stride << " pad " << k.pad);
    const Conv2dOptions o{.stride = k.stride, .padding = k.pad};
    const Shape xs{k.n, k.c, k.h, k.w}, ws{k.oc, k.c, k.k, k.k};
    const Shape ys = conv2d_output_shape(xs, ws, o);
    const Tensor x = random_tensor(xs, seed++), w = random_tensor(ws, seed++);
    const Tensor dy = random_tensor(ys, seed++);
    const Tensor dw0 = random_tensor(ws, seed++), db0 = random_tensor({k.oc}, seed++);

    Tensor dx = Tensor::empty(xs);
    conv2d_backward_data(dy, w, dx, o);
    Tensor dx_gpu = Tensor::full(xs, std::numeric_limits<float>::quiet_NaN(), kGpu);  // "="
    conv2d_backward_data(on_gpu(dy), on_gpu(w), dx_gpu, o);
    const float data_atol = 1e-4f * std::sqrt(static_cast<float>(k.oc * k.k * k.k));
    EXPECT_TRUE(all_close(dx_gpu, dx, kReductionRtol, data_atol)) << "dx";

    Tensor dw = dw0.clone(), db = db0.clone();  // "+=" from the same non-zero start
    conv2d_backward_filter(x, dy, dw, db, o);
    Tensor dw_gpu = on_gpu(dw0), db_gpu = on_gpu(db0);
    conv2d_backward_filter(on_gpu(x), on_gpu(dy), dw_gpu, db_gpu, o);
    const auto terms = static_cast<float>(k.n * ys[2] * ys[3]);
    EXPECT_TRUE(all_close(dw_gpu, dw, kReductionRtol, 1e-4f * std::sqrt(terms))) << "dw";
    EXPECT_TRUE(all_close(db_gpu, db, kReductionRtol, 1e-4f * std::sqrt(terms))) << "db";

    Tensor no_bias;  // the bias gradient is optional
    conv2d_backward_filter(on_gpu(x), on_gpu(dy), dw_gpu, no_bias, o);
  }
}

TEST(Conv2dParity, RepeatedRunsGiveTheSameBits) {
  KILN_REQUIRE_GPU();
  const Conv2dOptions o{.stride = 1, .padding = 1};
  const Tensor x = on_gpu(random_tensor({17, 8, 12, 12}, 3200));
  const Tensor w = on_gpu(random_tensor({16, 8, 3, 3}, 3201));
  const Tensor dy = on_gpu(random_tensor({17, 16, 12, 12}, 3202));
  std::vector<float> first_dw, first_dx;
  for (int run = 0; run < 2; ++run) {
    Tensor dw = Tensor::zeros({16, 8, 3, 3}, DType::f32, kGpu),
           db = Tensor::zeros({16}, DType::f32, kGpu);
    conv2d_backward_filter(x, dy, dw, db, o);
    Tensor dx = Tensor::empty({17, 8, 12, 12}, DType::f32, kGpu);
    conv2d_backward_data(dy, w, dx, o);
    if (run == 0) {
      first_dw = dw.to_vector<float>();
      first_dx = dx.to_vector<float>();
    } else {
      EXPECT_EQ(dw.to_vector<float>(), first_dw);
      EXPECT_EQ(dx.to_vector<float>(), first_dx);
    }
  }
}

}  // namespace
}  // namespace kiln
