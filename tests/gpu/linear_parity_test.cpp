// GPU parity of kiln::linear_forward (cuBLASLt with the BIAS / RELU_BIAS / RELU epilogues, or the
// BIAS epilogue and kiln's ReLU kernel) against the CPU: with and without bias and ReLU at odd and
// article sizes, an empty inner dimension, sliced operands (unaligned pointers, another cached
// plan), a second bias through the same cached plan, NaN through either ReLU, and TF32 / bf16.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "kiln/core/ops.h"
#include "kiln/core/precision.h"
#include "kiln/core/relu_epilogue.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kGpu;
using testing::kReductionRtol;
using testing::on_gpu;
using testing::random_tensor;

float linear_atol(std::int64_t in) {
  return 1e-4f * std::sqrt(static_cast<float>(std::max<std::int64_t>(in, 1)));
}

// Sets the ReLU epilogue for one scope and restores the process's choice after.
class ReluEpilogueScope {
 public:
  explicit ReluEpilogueScope(ReluEpilogue e) : before_(relu_epilogue()) { set_relu_epilogue(e); }
  ~ReluEpilogueScope() { set_relu_epilogue(before_); }
  ReluEpilogueScope(const ReluEpilogueScope&) = delete;
  ReluEpilogueScope& operator=(const ReluEpilogueScope&) = delete;

 private:
  ReluEpilogue before_;
};

// Whether cuBLASLt has a kernel for a shape is its choice: no fallback is allowed at the article's
// own shapes (batch 256 and 1024, width 1024, rows 16-byte aligned), where it would cost every
// training step; every other shape reports which path it took ("kiln-report:" lines, which
// scripts/gpu-check.sh gathers into its summary).
// Whether the linear_forward calls since `before` fell back to GEMM + kernels; says which path
// ran on stdout for the record (the parity checks pass either way).
bool fell_back(std::int64_t before, const std::string& what) {
  const bool fell = linear_forward_fallbacks() != before;
  std::cout << "kiln-report: linear " << what
            << (fell ? ": cuBLASLt had no algorithm, GEMM + kernels ran" : ": one cuBLASLt matmul")
            << "\n";
  return fell;
}

// y on both devices for the same inputs; y on the GPU starts as NaN (the epilogue must overwrite).
void expect_parity(const Tensor& x, const Tensor& w, const Tensor& bias, bool relu, float rtol,
                   float atol) {
  Tensor expected = Tensor::zeros(Shape{x.size(0), w.size(0)});
  linear_forward(x, w, bias, expected, relu);
  Tensor actual = Tensor::full(expected.shape(), std::numeric_limits<float>::quiet_NaN(), kGpu);
  linear_forward(on_gpu(x), on_gpu(w), bias.defined() ? on_gpu(bias) : Tensor(), actual, relu);
  EXPECT_TRUE(all_close(actual, expected, rtol, atol));
}

TEST(LinearParity, MatchesCpuWithAndWithoutBiasAndRelu) {
  KILN_REQUIRE_GPU();
  struct Dims {
    std::int64_t n, in, out;
    bool must_fuse;  // the article's shapes: a fallback there costs every training step
  };
  const Dims dims[] = {{1, 1, 1, false},        {7, 33, 5, false},        {256, 784, 1024, true},
                       {256, 1024, 1024, true}, {1024, 1024, 1024, true}, {64, 1024, 10, false},
                       {3, 0, 4, false}};
  std::uint32_t seed = 200;
  for (ReluEpilogue epilogue : {ReluEpilogue::fused, ReluEpilogue::separate}) {
    const ReluEpilogueScope scope(epilogue);
    for (const Dims& d : dims)
      for (bool with_bias : {false, true})
        for (bool relu : {false, true}) {
          const std::string what =
              "(" + std::to_string(d.n) + ", " + std::to_string(d.in) + ") -> " +
              std::to_string(d.out) + (with_bias ? " with bias" : "") +
              (relu ? std::string(", ReLU ") + relu_epilogue_name(epilogue) : "");
          SCOPED_TRACE(what);
          const Tensor x = random_tensor(Shape{d.n, d.in}, seed++),
                       w = random_tensor(Shape{d.out, d.in}, seed++);
          const Tensor bias = with_bias ? random_tensor(Shape{d.out}, seed++) : Tensor();
          const std::int64_t before = linear_forward_fallbacks();
          expect_parity(x, w, bias, relu, kReductionRtol, linear_atol(d.in));
          // The empty product (in == 0) takes the GEMM path by design, counted as no fallback.
          const bool fell = d.in > 0 && fell_back(before, what);
          if (d.must_fuse) EXPECT_FALSE(fell) << "one cuBLASLt matmul expected, GEMM + kernels ran";
        }
  }
}

TEST(LinearParity, SlicedOperandsAndASecondBiasThroughTheSamePlan) {
  KILN_REQUIRE_GPU();
  // Rows [3, 10) of a (13, 33) input start 99 floats in: not 16-byte aligned.
  const Tensor x = random_tensor(Shape{13, 33}, 211), w = random_tensor(Shape{5, 33}, 212);
  const Tensor bias = random_tensor(Shape{5}, 213);
  Tensor expected = Tensor::zeros(Shape{7, 5});
  linear_forward(x.slice(3, 10), w, bias, expected, true);
  Tensor actual = Tensor::zeros(Shape{7, 5}, DType::f32, kGpu);
  const Tensor x_gpu = on_gpu(x), w_gpu = on_gpu(w), bias_gpu = on_gpu(bias);
  linear_forward(x_gpu.slice(3, 10), w_gpu, bias_gpu, actual, true);
  EXPECT_TRUE(all_close(actual, expected, kReductionRtol, linear_atol(33)));

  // Same shapes and alignment, another bias tensor, alive beside the first (so at another
  // address): the cached plan must take the new pointer.
  const Tensor other_bias = random_tensor(Shape{5}, 214);
  const Tensor other_bias_gpu = on_gpu(other_bias);
  ASSERT_NE(other_bias_gpu.raw_data(), bias_gpu.raw_data());
  linear_forward(x.slice(3, 10), w, other_bias, expected, true);
  linear_forward(x_gpu.slice(3, 10), w_gpu, other_bias_gpu, actual, true);
  EXPECT_TRUE(all_close(actual, expected, kReductionRtol, linear_atol(33)));

  // And again with every operand and row 16-byte aligned, so through cuBLASLt itself (no
  // fallback): two biases alive at once, one plan.
  const std::int64_t fallbacks = linear_forward_fallbacks();
  const Tensor xa = random_tensor(Shape{8, 32}, 215), wa = random_tensor(Shape{8, 32}, 216);
  const Tensor xa_gpu = on_gpu(xa), wa_gpu = on_gpu(wa);
  const Tensor biases[] = {random_tensor(Shape{8}, 217), random_tensor(Shape{8}, 218)};
  const Tensor biases_gpu[] = {on_gpu(biases[0]), on_gpu(biases[1])};
  Tensor expected_a = Tensor::zeros(Shape{8, 8}),
         actual_a = Tensor::zeros(Shape{8, 8}, DType::f32, kGpu);
  for (int i = 0; i < 2; ++i) {
    linear_forward(xa, wa, biases[i], expected_a, true);
    linear_forward(xa_gpu, wa_gpu, biases_gpu[i], actual_a, true);
    EXPECT_TRUE(all_close(actual_a, expected_a, kReductionRtol, linear_atol(32))) << "bias " << i;
  }
  fell_back(fallbacks, "(8, 32) -> 8 with bias, ReLU, every operand 16-byte aligned");
}

// A NaN in x makes its row of y NaN on the CPU, ReLU or not (the CPU's ReLU lets NaN through, so
// a diverged model shows in the loss). The GPU's default, separate ReLU (kiln's kernel) must do
// the same; the opt-in fused one (cuBLASLt's epilogue) is reported, keeps or clamps, not failed:
// cuBLASLt documents no NaN rule, and only a GPU run can tell.
TEST(LinearParity, NanInTheInputStaysNanThroughTheRelu) {
  KILN_REQUIRE_GPU();
  Tensor x = random_tensor(Shape{16, 32}, 231);
  std::vector<float> values = x.to_vector<float>();
  values[5 * 32 + 7] = std::numeric_limits<float>::quiet_NaN();  // row 5
  x = Tensor::from_vector(values, Shape{16, 32});
  const Tensor w = random_tensor(Shape{8, 32}, 232), bias = random_tensor(Shape{8}, 233);
  Tensor expected = Tensor::zeros(Shape{16, 8});
  linear_forward(x, w, bias, expected, true);
  const std::vector<float> cpu = expected.to_vector<float>();
  for (std::size_t i = 0; i < cpu.size(); ++i)
    ASSERT_EQ(std::isnan(cpu[i]), i / 8 == 5) << "CPU element " << i;

  for (ReluEpilogue epilogue : {ReluEpilogue::fused, ReluEpilogue::separate}) {
    SCOPED_TRACE(relu_epilogue_name(epilogue));
    const ReluEpilogueScope scope(epilogue);
    for (bool with_bias : {true, false}) {  // RELU_BIAS and RELU
      Tensor actual = Tensor::zeros(Shape{16, 8}, DType::f32, kGpu);
      const std::int64_t before = linear_forward_fallbacks();
      linear_forward(on_gpu(x), on_gpu(w), with_bias ? on_gpu(bias) : Tensor(), actual, true);
      const bool fell = fell_back(before, "(16, 32) -> 8, NaN in x");
      const std::vector<float> gpu = actual.to_vector<float>();
      int kept = 0, clamped = 0;
      for (std::size_t i = 0; i < gpu.size(); ++i) {
        if (i / 8 != 5) {
          EXPECT_FALSE(std::isnan(gpu[i])) << "GPU element " << i;
          continue;
        }
        if (std::isnan(gpu[i]))
          ++kept;
        else
          ++clamped;
      }
      std::cout << "kiln-report: ReLU " << relu_epilogue_name(epilogue)
                << (with_bias ? " (RELU_BIAS)" : " (RELU)") << (fell ? " via the fallback" : "")
                << ": "
                << (clamped == 0 ? "keeps NaN, as the CPU"
                                 : "CLAMPS NaN (" + std::to_string(clamped) + " of 8)")
                << "\n";
      if (epilogue == ReluEpilogue::separate)
        EXPECT_EQ(clamped, 0) << "kiln's own ReLU turned NaN into a number";
      EXPECT_EQ(kept + clamped, 8);
    }
  }
}

TEST(LinearParity, ReducedPrecisionStaysCloseToTheCpu) {
  KILN_REQUIRE_GPU();
  const Tensor x = random_tensor(Shape{256, 1024}, 221), w = random_tensor(Shape{1024, 1024}, 222);
  const Tensor bias = random_tensor(Shape{1024}, 223);
  const float scale = std::sqrt(1024.0f);
  for (auto [precision, tolerance] :
       {std::pair{MatmulPrecision::tf32, 1e-2f}, std::pair{MatmulPrecision::bf16, 5e-2f}}) {
    SCOPED_TRACE(matmul_precision_name(precision));
    set_matmul_precision(precision);
    // Whether FAST_TF32 / FAST_16BF have a RELU_BIAS kernel is cuBLASLt's choice: reported only.
    const std::int64_t fallbacks = linear_forward_fallbacks();
    expect_parity(x, w, bias, true, tolerance, tolerance * scale);
    fell_back(fallbacks, std::string("(256, 1024) -> 1024 with bias, ReLU, ") +
                             matmul_precision_name(precision));
    set_matmul_precision(MatmulPrecision::fp32);
  }
}

}  // namespace
}  // namespace kiln
