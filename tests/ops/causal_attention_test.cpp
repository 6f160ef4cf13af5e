// The fused causal_attention op against the unfused path it replaces on the CPU (batched_gemm,
// causal_softmax, batched_gemm, and their backwards): outputs and gradients within float
// rounding over one and several query blocks, and the operands it refuses.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/core/error.h"
#include "kiln/core/ops.h"
#include "kiln/core/random.h"
#include "tests/support/tensor_testing.h"

namespace kiln {
namespace {

Tensor random(const Shape& shape, Generator& gen) {
  Tensor t = Tensor::empty(shape);
  normal_(t, 0.0f, 1.0f, gen);
  return t;
}

struct Unfused {
  Tensor y, dq, dk, dv;
};

// The layer's unfused path: P = causal_softmax(q kᵀ, scale), y = P v and its backward.
Unfused unfused(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& dy, float scale) {
  const std::int64_t n = q.size(0), t = q.size(1);
  Tensor p = Tensor::empty({n, t, t}), dp = Tensor::empty({n, t, t});
  Unfused u{Tensor::empty(q.shape()), Tensor::empty(q.shape()), Tensor::empty(q.shape()),
            Tensor::empty(q.shape())};
  batched_gemm(q, false, k, true, p);
  causal_softmax_forward(p, p, scale);
  batched_gemm(p, false, v, false, u.y);
  batched_gemm(p, true, dy, false, u.dv);
  batched_gemm(dy, false, v, true, dp);
  causal_softmax_backward(p, dp, dp, scale);
  batched_gemm(dp, false, k, false, u.dq);
  batched_gemm(dp, true, q, false, u.dk);
  return u;
}

TEST(CausalAttention, MatchesTheUnfusedPathOverOneAndSeveralQueryBlocks) {
  Generator gen(21);
  for (const Shape& shape : {Shape{3, 33, 8}, Shape{2, 130, 16}, Shape{4, 64, 32}}) {
    const Tensor q = random(shape, gen), k = random(shape, gen), v = random(shape, gen),
                 dy = random(shape, gen);
    const float scale = 1.0f / std::sqrt(static_cast<float>(shape[2]));
    const Unfused u = unfused(q, k, v, dy, scale);
    Tensor y = Tensor::empty(shape), lse = Tensor::empty({shape[0], shape[1]});
    causal_attention_forward(q, k, v, y, lse, scale);
    EXPECT_TRUE(testing::all_close(y, u.y, 1e-4f, 1e-5f)) << shape.str();
    Tensor dq = Tensor::empty(shape), dk = Tensor::empty(shape), dv = Tensor::empty(shape);
    causal_attention_backward(q, k, v, y, lse, dy, dq, dk, dv, scale);
    EXPECT_TRUE(testing::all_close(dq, u.dq, 1e-4f, 1e-5f)) << "dq " << shape.str();
    EXPECT_TRUE(testing::all_close(dk, u.dk, 1e-4f, 1e-5f)) << "dk " << shape.str();
    EXPECT_TRUE(testing::all_close(dv, u.dv, 1e-4f, 1e-5f)) << "dv " << shape.str();
  }
}

TEST(CausalAttention, TheFirstPositionAttendsToItselfAloneAndLseIsItsScaledScore) {
  Generator gen(22);
  const Tensor q = random({2, 5, 4}, gen), k = random({2, 5, 4}, gen), v = random({2, 5, 4}, gen);
  Tensor y = Tensor::empty({2, 5, 4}), lse = Tensor::empty({2, 5});
  causal_attention_forward(q, k, v, y, lse, 0.5f);
  const auto qs = q.to_vector<float>(), ks = k.to_vector<float>(), vs = v.to_vector<float>(),
             ys = y.to_vector<float>(), ls = lse.to_vector<float>();
  for (int n = 0; n < 2; ++n) {
    float dot = 0.0f;
    for (int c = 0; c < 4; ++c) dot += qs[n * 20 + c] * ks[n * 20 + c];
    EXPECT_NEAR(ls[n * 5], 0.5f * dot, 1e-5f);
    for (int c = 0; c < 4; ++c) EXPECT_FLOAT_EQ(ys[n * 20 + c], vs[n * 20 + c]);
  }
}

TEST(CausalAttention, RefusesOperandsOfOtherShapesAndOutputsOverItsInputs) {
  Tensor q = Tensor::zeros({2, 5, 4}), y = Tensor::zeros({2, 5, 4}), lse = Tensor::zeros({2, 5});
  Tensor wrong_lse = Tensor::zeros({2, 4}), flat = Tensor::zeros({10, 4});
  EXPECT_THROW(causal_attention_forward(q, q, q, y, wrong_lse, 1.0f), Error);
  EXPECT_THROW(causal_attention_forward(flat, flat, flat, flat, lse, 1.0f), Error);
  EXPECT_THROW(causal_attention_forward(q, q, q, q, lse, 1.0f), Error) << "y over q";
  Tensor dq = Tensor::zeros({2, 5, 4}), dk = Tensor::zeros({2, 5, 4});
  EXPECT_THROW(causal_attention_backward(q, q, q, y, lse, y, dq, dk, dk, 1.0f), Error)
      << "dk and dv in one place";
}

}  // namespace
}  // namespace kiln
