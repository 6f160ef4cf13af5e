// cuDNN's fused attention is the path that runs: its graphs get a plan for the GPT shapes kiln
// trains (the harness's bf16 cases would also pass on kiln's fallback kernel, so they alone do not
// prove it), and the layer under bf16 matches the CPU through it.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "kiln/core/precision.h"
#include "kiln/layers/causal_self_attention.h"
#include "tests/gpu/gpu_parity.h"
#if KILN_TEST_BUILT_WITH_CUDA
#include "kiln/core/cuda/cudnn_attention.h"
#endif

namespace kiln {
namespace {

using testing::all_close;
using testing::kGpu;
using testing::on_gpu;
using testing::random_tensor;

TEST(CudnnAttention, HasAPlanForTheGptShapesForwardAndBackward) {
  KILN_REQUIRE_GPU();
#if KILN_TEST_BUILT_WITH_CUDA
  struct Heads {
    std::int64_t n, t, d;
  };
  // gpt:6-6-384-256 and gpt:4-4-128-64 at their batches, gpt2's 12 heads of 64 at 1024, and the
  // harness's odd lengths.
  for (const Heads h : {Heads{48, 256, 64}, Heads{48, 64, 32}, Heads{12, 1024, 64},
                        Heads{2, 70, 64}, Heads{3, 33, 8}, Heads{1, 1, 16}})
    for (const bool backward : {false, true})
      EXPECT_EQ(cuda::cudnn_attention_refusal(h.n, h.t, h.d, backward), "")
          << h.n << " x " << h.t << " x " << h.d << (backward ? " backward" : " forward");
  EXPECT_NE(cuda::cudnn_attention_refusal(2, 16, 12, false), "") << "12 is not a multiple of 8";
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

// The layer on the GPU under bf16 runs the fused op (runs_fused) and stays within bf16's rounding
// of the CPU's unfused products at the same precision, forward and backward.
TEST(CudnnAttention, TheLayerUnderBf16MatchesTheCpu) {
  KILN_REQUIRE_GPU();
  const MatmulPrecision old = matmul_precision();
  set_matmul_precision(MatmulPrecision::bf16);
  ASSERT_TRUE(CausalSelfAttention::runs_fused(kGpu, 40, 32, false));
  Generator g_cpu(12), g_gpu(12);
  CausalSelfAttention cpu(64, 2, 0.0f, g_cpu), gpu(64, 2, 0.0f, g_gpu);
  gpu.to(kGpu);
  cpu.zero_grad();
  gpu.zero_grad();
  const Tensor x = random_tensor({3, 40, 64}, 5200);
  const Tensor y = cpu.forward(x), y_gpu = gpu.forward(on_gpu(x));
  EXPECT_TRUE(all_close(y_gpu, y, 5e-2f, 5e-2f)) << "forward";
  const Tensor dy = random_tensor(y.shape(), 5201);
  EXPECT_TRUE(all_close(gpu.backward(on_gpu(dy)), cpu.backward(dy), 5e-2f, 1e-1f)) << "dx";
  const auto params = cpu.parameters(), params_gpu = gpu.parameters();
  for (std::size_t i = 0; i < params.size(); ++i)
    EXPECT_TRUE(all_close(params_gpu[i]->grad, params[i]->grad, 5e-2f, 1e-1f)) << params[i]->name;
  set_matmul_precision(old);
}

}  // namespace
}  // namespace kiln
