// The oneDNN CPU path against the reference path (OpenBLAS/Eigen GEMM, im2col convolution) on
// fresh random inputs at odd sizes: GEMM in every transpose with alpha and beta, Linear's fused
// bias and ReLU, convolutions forward and backward; fp32 within 1e-5 relative, bf16 products
// (inputs rounded to bf16 on both paths) within the difference of fp32 accumulation orders.
// Skipped, with the reason, in a build without oneDNN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kiln/core/cpu/bf16.h"
#include "kiln/core/cpu_compute.h"
#include "kiln/core/ops.h"
#include "kiln/core/precision.h"
#include "tests/support/tensor_testing.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::random_tensor;

#define KILN_REQUIRE_ONEDNN()                                                                   \
  do {                                                                                          \
    if (!::kiln::onednn_built()) GTEST_SKIP() << "kiln was built without oneDNN (KILN_ONEDNN)"; \
  } while (0)

// Runs f with the CPU path `compute` and the matmul precision `precision`, then restores both.
template <typename F>
void run_with(CpuCompute compute, MatmulPrecision precision, F&& f) {
  const CpuCompute old_compute = cpu_compute();
  const MatmulPrecision old_precision = matmul_precision();
  set_cpu_compute(compute);
  set_matmul_precision(precision);
  try {
    f();
  } catch (...) {
    set_cpu_compute(old_compute);
    set_matmul_precision(old_precision);
    throw;
  }
  set_cpu_compute(old_compute);
  set_matmul_precision(old_precision);
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// A tensor of `shape` filled from `source` (a copy, so both paths start from the same bits).
Tensor copy_of(const Tensor& source) {
  Tensor out = Tensor::empty(source.shape());
  copy(source, out);
  return out;
}

struct GemmCase {
  std::int64_t m, n, k;
  bool ta, tb;
  float alpha, beta;
};

TEST(OnednnParity, GemmMatchesReferenceInEveryTransposeWithAlphaAndBeta) {
  KILN_REQUIRE_ONEDNN();
  const GemmCase cases[] = {{1, 1, 1, false, false, 1.0f, 0.0f},   {7, 33, 5, false, true, 1.0f, 1.0f},
                            {33, 7, 129, true, false, 0.5f, 0.0f}, {64, 65, 300, true, true, 1.0f, 1.0f},
                            {1000, 10, 33, false, true, 2.0f, 0.25f}, {256, 1024, 784, false, true, 1.0f, 0.0f}};
  std::uint32_t seed = 11;
  for (const MatmulPrecision precision : {MatmulPrecision::fp32, MatmulPrecision::bf16})
    for (const GemmCase& c : cases) {
      SCOPED_TRACE(::testing::Message() << c.m << "x" << c.n << "x" << c.k << " ta " << c.ta << " tb "
                                        << c.tb << " alpha " << c.alpha << " beta " << c.beta << " "
                                        << matmul_precision_name(precision));
      const Tensor a = random_tensor(c.ta ? Shape{c.k, c.m} : Shape{c.m, c.k}, seed++);
      const Tensor b = random_tensor(c.tb ? Shape{c.n, c.k} : Shape{c.k, c.n}, seed++);
      // beta == 0 must not read the output: NaN there must not reach the result.
      const Tensor start = c.beta == 0.0f ? Tensor::full(Shape{c.m, c.n}, kNaN) : random_tensor(Shape{c.m, c.n}, seed++);
      Tensor reference = copy_of(start), fast = copy_of(start);
      run_with(CpuCompute::reference, precision, [&] { gemm(a, c.ta, b, c.tb, reference, c.alpha, c.beta); });
      run_with(CpuCompute::onednn, precision, [&] { gemm(a, c.ta, b, c.tb, fast, c.alpha, c.beta); });
      const float atol = 1e-5f * std::sqrt(static_cast<float>(c.k));
      EXPECT_TRUE(all_close(fast, reference, 1e-5f, atol));
    }
}

TEST(OnednnParity, LinearForwardFusesBiasAndReluLikeTheReference) {
  KILN_REQUIRE_ONEDNN();
  struct Dims {
    std::int64_t n, in, out;
  };
  const Dims dims[] = {{1, 1, 1}, {7, 33, 5}, {64, 300, 129}, {3, 0, 4}, {256, 1024, 1024}};
  std::uint32_t seed = 101;
  for (const MatmulPrecision precision : {MatmulPrecision::fp32, MatmulPrecision::bf16})
    for (const Dims& d : dims)
      for (bool with_bias : {false, true})
        for (bool relu : {false, true}) {
          SCOPED_TRACE(::testing::Message() << "n " << d.n << " in " << d.in << " out " << d.out << " bias "
                                            << with_bias << " relu " << relu << " "
                                            << matmul_precision_name(precision));
          const Tensor x = random_tensor(Shape{d.n, d.in}, seed++);
          const Tensor w = random_tensor(Shape{d.out, d.in}, seed++);
          const Tensor bias = with_bias ? random_tensor(Shape{d.out}, seed++) : Tensor();
          Tensor reference = Tensor::full(Shape{d.n, d.out}, kNaN), fast = Tensor::full(Shape{d.n, d.out}, kNaN);
          run_with(CpuCompute::reference, precision, [&] { linear_forward(x, w, bias, reference, relu); });
          run_with(CpuCompute::onednn, precision, [&] { linear_forward(x, w, bias, fast, relu); });
          const float atol = 1e-5f * std::sqrt(static_cast<float>(d.in + 1));
          EXPECT_TRUE(all_close(fast, reference, 1e-5f, atol));
        }
}

TEST(OnednnParity, FusedReluKeepsNaNAsTheReferenceDoes) {
  KILN_REQUIRE_ONEDNN();
  Tensor x = random_tensor(Shape{5, 17}, 7);
  std::vector<float> values = x.to_vector<float>();
  values[3 * 17 + 4] = kNaN;  // row 3 of y is NaN in every column
  x = Tensor::from_vector(values, Shape{5, 17});
  const Tensor w = random_tensor(Shape{9, 17}, 8), bias = random_tensor(Shape{9}, 9);
  Tensor y = Tensor::empty(Shape{5, 9});
  run_with(CpuCompute::onednn, MatmulPrecision::fp32, [&] { linear_forward(x, w, bias, y, true); });
  const std::vector<float> out = y.to_vector<float>();
  for (std::int64_t o = 0; o < 9; ++o) EXPECT_TRUE(std::isnan(out[3 * 9 + o])) << "column " << o;
  for (std::int64_t o = 0; o < 9; ++o) EXPECT_FALSE(std::isnan(out[2 * 9 + o])) << "column " << o;
}

TEST(OnednnParity, Bf16ProductsStayWithinBf16RoundingOfFp32) {
  KILN_REQUIRE_ONEDNN();
  const Tensor x = random_tensor(Shape{64, 784}, 21), w = random_tensor(Shape{300, 784}, 22);
  Tensor fp32 = Tensor::empty(Shape{64, 300}), bf16 = Tensor::empty(Shape{64, 300});
  run_with(CpuCompute::onednn, MatmulPrecision::fp32, [&] { linear_forward(x, w, Tensor(), fp32); });
  run_with(CpuCompute::onednn, MatmulPrecision::bf16, [&] { linear_forward(x, w, Tensor(), bf16); });
  // Each rounded input is within 2^-9 of its value, so each product within about 2^-8 of x·w:
  // |bf16 - fp32| <= 2^-8 · sum |x||w| (plus fp32 rounding of the sums) for every element.
  auto absolute = [](const Tensor& t) {
    std::vector<float> v = t.to_vector<float>();
    for (float& e : v) e = std::fabs(e);
    return Tensor::from_vector(v, t.shape());
  };
  Tensor bound = Tensor::empty(Shape{64, 300});
  run_with(CpuCompute::reference, MatmulPrecision::fp32, [&] { linear_forward(absolute(x), absolute(w), Tensor(), bound); });
  const std::vector<float> a = bf16.to_vector<float>(), e = fp32.to_vector<float>(), b = bound.to_vector<float>();
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_LE(std::fabs(a[i] - e[i]), 0x1p-8f * b[i] + 1e-4f) << "element " << i;
  EXPECT_FALSE(all_close(bf16, fp32, 1e-6f, 1e-6f)) << "bf16 mode must round the inputs";
}

// Linear's backward: the fused ReLU mask and bias sums with both products, with and without
// ReLU, bias, dx and (under bf16) the weight's bf16 copy, against the reference's separate ops.
TEST(OnednnParity, LinearBackwardMatchesTheReferenceOps) {
  KILN_REQUIRE_ONEDNN();
  struct Dims {
    std::int64_t n, in, out;
  };
  const Dims dims[] = {{1, 1, 1}, {7, 33, 5}, {64, 300, 129}, {256, 1024, 1024}};
  std::uint32_t seed = 501;
  for (const MatmulPrecision precision : {MatmulPrecision::fp32, MatmulPrecision::bf16})
    for (const Dims& d : dims)
      for (int variant = 0; variant < 8; ++variant) {
        const bool relu = variant & 1, with_bias = variant & 2, with_copy = variant & 4;
        SCOPED_TRACE(::testing::Message() << "n " << d.n << " in " << d.in << " out " << d.out << " relu "
                                          << relu << " bias " << with_bias << " copy " << with_copy << " "
                                          << matmul_precision_name(precision));
        const Tensor dy = random_tensor(Shape{d.n, d.out}, seed++), x = random_tensor(Shape{d.n, d.in}, seed++);
        const Tensor w = random_tensor(Shape{d.out, d.in}, seed++), y = random_tensor(Shape{d.n, d.out}, seed++);
        const Tensor dw0 = random_tensor(Shape{d.out, d.in}, seed++), db0 = random_tensor(Shape{d.out}, seed++);
        Tensor copy_bf16;
        if (with_copy) {
          copy_bf16 = Tensor::empty(w.shape(), DType::bf16);
          write_bf16_copy(w, copy_bf16);
        }
        struct Result {
          Tensor dw, db, dx;
        };
        auto run = [&](CpuCompute compute) {
          Result r{copy_of(dw0), with_bias ? copy_of(db0) : Tensor(), Tensor::full(x.shape(), kNaN)};
          Tensor dpre = Tensor::empty(dy.shape());
          run_with(compute, precision, [&] {
            linear_backward(dy, x, w, relu ? y : Tensor(), r.dw, r.db, &r.dx, dpre,
                            compute == CpuCompute::onednn ? copy_bf16 : Tensor());
          });
          return r;
        };
        const Result reference = run(CpuCompute::reference), fast = run(CpuCompute::onednn);
        const float atol = 1e-5f * std::sqrt(static_cast<float>(d.n + d.out));
        EXPECT_TRUE(all_close(fast.dw, reference.dw, 1e-5f, atol)) << "weight gradient";
        EXPECT_TRUE(all_close(fast.dx, reference.dx, 1e-5f, atol)) << "input gradient";
        if (with_bias) EXPECT_TRUE(all_close(fast.db, reference.db, 1e-5f, atol)) << "bias gradient";
      }
}

struct ConvCase {
  Shape x, w;
  Conv2dOptions options;
};

// Forward, backward data and backward filter ("+=" onto random gradients) on both paths.
TEST(OnednnParity, ConvolutionsMatchTheIm2colReferenceForwardAndBackward) {
  KILN_REQUIRE_ONEDNN();
  const ConvCase cases[] = {
      {Shape{1, 1, 7, 7}, Shape{1, 1, 3, 3}, {}},
      {Shape{7, 1, 28, 28}, Shape{6, 1, 5, 5}, {.stride = 1, .padding = 2}},  // LeNet-5's first
      {Shape{5, 6, 14, 14}, Shape{16, 6, 5, 5}, {}},                           // and second
      {Shape{3, 5, 9, 11}, Shape{33, 5, 3, 3}, {.stride = 2, .padding = 1}},
      {Shape{2, 3, 6, 6}, Shape{4, 3, 2, 2}, {.stride = 3, .padding = 0}},  // rows left unread
  };
  std::uint32_t seed = 301;
  for (const MatmulPrecision precision : {MatmulPrecision::fp32, MatmulPrecision::bf16})
    for (const ConvCase& c : cases)
      for (bool with_bias : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "x " << c.x.str() << " w " << c.w.str() << " stride "
                                          << c.options.stride << " pad " << c.options.padding << " bias "
                                          << with_bias << " " << matmul_precision_name(precision));
        const Shape y_shape = conv2d_output_shape(c.x, c.w, c.options);
        const Tensor x = random_tensor(c.x, seed++), w = random_tensor(c.w, seed++);
        const Tensor bias = with_bias ? random_tensor(Shape{c.w[0]}, seed++) : Tensor();
        const Tensor dy = random_tensor(y_shape, seed++);
        const Tensor dw0 = random_tensor(c.w, seed++), db0 = random_tensor(Shape{c.w[0]}, seed++);
        struct Result {
          Tensor y, dx, dw, db;
        };
        auto run = [&](CpuCompute compute) {
          Result r{Tensor::full(y_shape, kNaN), Tensor::full(c.x, kNaN), copy_of(dw0), copy_of(db0)};
          Tensor no_bias;
          run_with(compute, precision, [&] {
            conv2d_forward(x, w, bias, r.y, c.options);
            conv2d_backward_data(dy, w, r.dx, c.options);
            conv2d_backward_filter(x, dy, r.dw, with_bias ? r.db : no_bias, c.options);
          });
          return r;
        };
        const Result reference = run(CpuCompute::reference), fast = run(CpuCompute::onednn);
        const float atol = 1e-5f * std::sqrt(static_cast<float>(c.w.numel() + y_shape.numel()));
        EXPECT_TRUE(all_close(fast.y, reference.y, 1e-5f, atol)) << "forward";
        EXPECT_TRUE(all_close(fast.dx, reference.dx, 1e-5f, atol)) << "backward data";
        EXPECT_TRUE(all_close(fast.dw, reference.dw, 1e-5f, atol)) << "backward filter";
        EXPECT_TRUE(all_close(fast.db, reference.db, 1e-5f, atol)) << "bias gradient";
      }
}

TEST(Bf16Rounding, RoundsToNearestEvenAndKeepsNaNAndInfinity) {
  EXPECT_EQ(cpu::round_to_bf16(1.0f), 1.0f);
  EXPECT_EQ(cpu::round_to_bf16(1.0f + 0x1p-8f), 1.0f);                 // a tie: to even
  EXPECT_EQ(cpu::round_to_bf16(1.0f + 0x1p-7f + 0x1p-8f), 1.0f + 0x1p-6f);  // a tie: to even
  EXPECT_EQ(cpu::round_to_bf16(1.0f + 0x1p-8f + 0x1p-12f), 1.0f + 0x1p-7f);
  EXPECT_EQ(cpu::round_to_bf16(-3.0f), -3.0f);
  EXPECT_TRUE(std::isnan(cpu::round_to_bf16(kNaN)));
  EXPECT_EQ(cpu::round_to_bf16(std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
}

TEST(CpuCompute, ParsesItsNamesAndRefusesOthers) {
  EXPECT_EQ(parse_cpu_compute("onednn"), CpuCompute::onednn);
  EXPECT_EQ(parse_cpu_compute("reference"), CpuCompute::reference);
  EXPECT_THROW(parse_cpu_compute("mkl"), Error);
  if (!onednn_built()) EXPECT_THROW(set_cpu_compute(CpuCompute::onednn), Error);
}

}  // namespace
}  // namespace kiln
