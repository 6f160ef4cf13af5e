// Cases of the sequence-model ops: embedding, batched_gemm, causal_softmax, causal_attention and
// permute, each at odd sizes with NaN/inf sentinels, "=" over NaN and "+=" over random values
// checked, and finite differences for the backwards of embedding, causal_softmax and
// causal_attention. What each op's cases cover is written above its list.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <tuple>

#include <fmt/ranges.h>

#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"
#include "tests/support/gradient_check.h"

namespace kiln::ops_testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Ids uniform in [0, num) from a std::mt19937, as float32 or int32.
Tensor ids(const Shape& shape, std::int64_t num, std::uint32_t seed, DType dtype) {
  std::mt19937 engine(seed);
  std::uniform_int_distribution<std::int32_t> dist(0, static_cast<std::int32_t>(num - 1));
  std::vector<std::int32_t> v(static_cast<std::size_t>(shape.numel()));
  for (auto& x : v) x = dist(engine);
  if (dtype == DType::i32) return Tensor::from_vector(v, shape);
  return Tensor::from_vector(std::vector<float>(v.begin(), v.end()), shape);
}

Shape with_dim(const Shape& shape, std::int64_t dim) {
  std::vector<std::int64_t> dims = shape.dims();
  dims.push_back(dim);
  return Shape(std::move(dims));
}

// Ids in [0, num) as skewed as a text's bytes (Zipf: id k drawn in proportion to 1 / (k + 1), so
// id 0 is about a sixth of them): backward's longest chains of adds.
Tensor skewed_ids(const Shape& shape, std::int64_t num, std::uint32_t seed) {
  std::vector<double> weights(static_cast<std::size_t>(num));
  for (std::size_t k = 0; k < weights.size(); ++k) weights[k] = 1.0 / static_cast<double>(k + 1);
  std::mt19937 engine(seed);
  std::discrete_distribution<std::int32_t> dist(weights.begin(), weights.end());
  std::vector<std::int32_t> v(static_cast<std::size_t>(shape.numel()));
  for (auto& x : v) x = dist(engine);
  return Tensor::from_vector(v, shape);
}

struct EmbeddingShape {
  Shape ids;
  std::int64_t num, dim;
};

// Embedding: float32 and int32 ids at odd sizes (one id, ids repeated many times so that
// backward's sums collide, an empty batch, a 3-D id tensor), y overwritten over NaN, dweight
// accumulated into random values, bit for bit; GPT-sized ones (16k tokens of 384 features: byte
// ids as skewed as text's, and a GPT-2-sized vocabulary).
std::vector<OpCase> embedding_cases() {
  std::vector<OpCase> out;
  std::uint32_t seed = 9100;
  for (const EmbeddingShape& e :
       {EmbeddingShape{Shape{1}, 1, 1}, EmbeddingShape{Shape{2, 7}, 5, 33},
        EmbeddingShape{Shape{12, 33}, 65, 7}, EmbeddingShape{Shape{0, 4}, 3, 9},
        EmbeddingShape{Shape{3, 4, 5}, 1000, 16}, EmbeddingShape{Shape{8, 1000}, 2, 3}}) {
    for (DType dtype : {DType::f32, DType::i32}) {
      const std::uint32_t s = seed;
      seed += 3;
      const std::string name = e.ids.str() + " of " + std::to_string(e.num) + "x" +
                               std::to_string(e.dim) +
                               (dtype == DType::i32 ? " int32" : " float32");
      const Shape y_shape = with_dim(e.ids, e.dim);
      out.push_back({"embedding_forward", "Sequence", name,
                     [=](Device d) -> Outputs {
                       Tensor y = Tensor::full(y_shape, kNaN, d);
                       embedding_forward(ids(e.ids, e.num, s, dtype).to(d),
                                         input({e.num, e.dim}, s + 1).to(d), y);
                       return {{"y", y}};
                     },
                     kExact});
      // Summed in the ids' order on every backend: the same bits.
      out.push_back({"embedding_backward", "Sequence", name,
                     [=](Device d) -> Outputs {
                       Tensor dw = input({e.num, e.dim}, s + 1).to(d);
                       embedding_backward(ids(e.ids, e.num, s, dtype).to(d),
                                          input(y_shape, s + 2).to(d), dw);
                       return {{"dweight", dw}};
                     },
                     kExact});
    }
  }
  // GPT-sized, past the L2 cache: 16k int32 ids (32 windows of 512) of 384 features.
  struct GptShape {
    std::int64_t num;
    bool skewed;
  };
  for (const GptShape& g : {GptShape{256, true}, GptShape{50257, false}}) {
    const std::uint32_t s = seed;
    seed += 3;
    const Shape id_shape{32, 512};
    const Shape y_shape = with_dim(id_shape, 384);
    const auto make_ids = [=] {
      return g.skewed ? skewed_ids(id_shape, g.num, s) : ids(id_shape, g.num, s, DType::i32);
    };
    const std::string name = id_shape.str() + " of " + std::to_string(g.num) + "x384 int32" +
                             (g.skewed ? " skewed as text" : "");
    OpCase forward{"embedding_forward", "Sequence", name,
                   [=](Device d) -> Outputs {
                     Tensor y = Tensor::full(y_shape, kNaN, d);
                     embedding_forward(make_ids().to(d), input({g.num, 384}, s + 1).to(d), y);
                     return {{"y", y}};
                   },
                   kExact};
    OpCase backward{"embedding_backward", "Sequence", name,
                    [=](Device d) -> Outputs {
                      Tensor dw = input({g.num, 384}, s + 1).to(d);
                      embedding_backward(make_ids().to(d), input(y_shape, s + 2).to(d), dw);
                      return {{"dweight", dw}};
                    },
                    kExact};
    forward.large = backward.large = true;
    out.push_back(std::move(forward));
    out.push_back(std::move(backward));
  }
  return out;
}

struct BatchDims {
  std::int64_t batch, m, n, k;
};

Tolerance product_tol(std::int64_t k, float fraction, float rtol) {
  return {rtol, fraction * std::sqrt(static_cast<float>(std::max<std::int64_t>(k, 1)))};
}

// batched_gemm: every transpose pair at odd sizes, "=" over NaN and "+=", an empty batch and an
// empty inner size, TF32/bf16.
std::vector<OpCase> batched_gemm_cases() {
  std::vector<OpCase> out;
  std::uint32_t seed = 9300;
  for (const BatchDims& d :
       {BatchDims{1, 1, 1, 1}, BatchDims{3, 7, 33, 5}, BatchDims{48, 64, 64, 32},
        BatchDims{5, 33, 7, 100}, BatchDims{0, 4, 4, 4}, BatchDims{2, 3, 5, 0}})
    for (int t = 0; t < 4; ++t) {
      const bool ta = (t & 1) != 0, tb = (t & 2) != 0;
      for (const auto [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{0.125f, 1.0f}}) {
        const std::uint32_t s = seed;
        seed += 3;
        OpCase c{
            "batched_gemm", "Sequence",
            fmt::format("{}x{}x{}x{}{}{} alpha {} beta {}", d.batch, d.m, d.n, d.k, ta ? " aT" : "",
                        tb ? " bT" : "", alpha, beta),
            [=](Device dev) -> Outputs {
              const Tensor a = input(ta ? Shape{d.batch, d.k, d.m} : Shape{d.batch, d.m, d.k}, s);
              const Tensor b =
                  input(tb ? Shape{d.batch, d.n, d.k} : Shape{d.batch, d.k, d.n}, s + 1);
              Tensor c = (beta == 0.0f ? Tensor::full({d.batch, d.m, d.n}, kNaN)
                                       : input({d.batch, d.m, d.n}, s + 2))
                             .to(dev);
              batched_gemm(a.to(dev), ta, b.to(dev), tb, c, alpha, beta);
              return {{"out", c}};
            }};
        c.fp32 = product_tol(d.k, 1e-4f, 1e-4f);
        c.cpu = product_tol(d.k, 1e-5f, 1e-5f);
        c.reduced = {{MatmulPrecision::tf32, product_tol(d.k, 1e-2f, 1e-2f)},
                     {MatmulPrecision::bf16, product_tol(d.k, 5e-2f, 5e-2f)}};
        out.push_back(std::move(c));
      }
    }
  return out;
}

Tensor causal_softmax_on_cpu(const Tensor& x, float scale) {
  Tensor y = Tensor::empty(x.shape());
  causal_softmax_forward(x, y, scale);
  return y;
}

// causal_softmax: odd T (1, 7, 33, 100) and batches, NaN/inf sentinels, in place; backward "="
// over NaN and in place.
std::vector<OpCase> causal_softmax_cases() {
  std::vector<OpCase> out;
  std::uint32_t seed = 9500;
  for (const Shape& shape :
       {Shape{1, 1}, Shape{7, 7}, Shape{3, 33, 33}, Shape{2, 4, 100, 100}, Shape{0, 5, 5}})
    for (bool sentinels : {false, true}) {
      if (sentinels && shape.numel() < 3) continue;
      const std::uint32_t s = seed;
      seed += 3;
      const float scale = 0.35f;
      const std::string name = shape.str() + (sentinels ? " NaN/inf" : "");
      out.push_back({"causal_softmax_forward", "Sequence", name,
                     [=](Device d) -> Outputs {
                       Tensor x = input(shape, s, -4.0f, 4.0f);
                       if (sentinels) x = with_sentinels(x);
                       Tensor y = Tensor::full(shape, kNaN, d);
                       causal_softmax_forward(x.to(d), y, scale);
                       return {{"y", y}};
                     },
                     kReduction});
      if (sentinels) continue;
      out.push_back({"causal_softmax_forward", "Sequence", name + " in place",
                     [=](Device d) -> Outputs {
                       Tensor x = input(shape, s, -4.0f, 4.0f).to(d);
                       causal_softmax_forward(x, x, scale);
                       return {{"y", x}};
                     },
                     kReduction});
      for (bool in_place : {false, true})
        out.push_back({"causal_softmax_backward", "Sequence", name + (in_place ? " in place" : ""),
                       [=](Device d) -> Outputs {
                         const Tensor y =
                             causal_softmax_on_cpu(input(shape, s, -4.0f, 4.0f), scale);
                         Tensor dy = input(shape, s + 1).to(d);
                         Tensor dx = in_place ? dy : Tensor::full(shape, kNaN, d);
                         causal_softmax_backward(y.to(d), dy, dx, scale);
                         return {{"dx", dx}};
                       },
                       kReduction});
    }
  return out;
}

// causal_attention: heads of odd sizes, one and several query blocks (T of 1, 7, 33, 100, 130
// against the CPU kernel's 64-row blocks), an empty batch; NaN/inf sentinels in q; "=" outputs
// over NaN. Backward from the CPU forward's y and lse. On a GPU the head sizes that are multiples
// of 8 (8, 16, 64) also run at bf16 on cuDNN's fused kernel, the rest on kiln's: a tolerance
// of bf16's rounding of q, k, v and P (about 2^-9 each) over sums of up to 130 terms, and its
// backward is not repeatable bit for bit (cuDNN accumulates dQ in any order).
std::vector<OpCase> causal_attention_cases() {
  constexpr Tolerance kBf16Forward{5e-2f, 5e-2f}, kBf16Backward{5e-2f, 1e-1f};
  std::vector<OpCase> out;
  std::uint32_t seed = 9800;
  for (const Shape& shape : {Shape{1, 1, 1}, Shape{2, 7, 3}, Shape{3, 33, 8}, Shape{2, 100, 16},
                             Shape{1, 130, 5}, Shape{0, 5, 4}, Shape{2, 70, 64}})
    for (bool sentinels : {false, true}) {
      if (sentinels && shape.numel() < 3) continue;
      const std::uint32_t s = seed;
      seed += 4;
      const float scale = 1.0f / std::sqrt(static_cast<float>(shape[2]));
      const Shape rows{shape[0], shape[1]};
      const std::string name = shape.str() + (sentinels ? " NaN/inf" : "");
      out.push_back({"causal_attention_forward", "Sequence", name,
                     [=](Device d) -> Outputs {
                       Tensor q = input(shape, s, -2.0f, 2.0f);
                       if (sentinels) q = with_sentinels(q);
                       Tensor y = Tensor::full(shape, kNaN, d), lse = Tensor::full(rows, kNaN, d);
                       causal_attention_forward(q.to(d), input(shape, s + 1, -2.0f, 2.0f).to(d),
                                                input(shape, s + 2).to(d), y, lse, scale);
                       return {{"y", y}, {"lse", lse}};
                     },
                     kReduction});
      if (sentinels) continue;
      out.back().reduced = {{MatmulPrecision::bf16, kBf16Forward}};
      out.push_back({"causal_attention_backward", "Sequence", name,
                     [=](Device d) -> Outputs {
                       const Tensor q = input(shape, s, -2.0f, 2.0f),
                                    k = input(shape, s + 1, -2.0f, 2.0f), v = input(shape, s + 2);
                       Tensor y = Tensor::empty(shape), lse = Tensor::empty(rows);
                       causal_attention_forward(q, k, v, y, lse, scale);
                       Tensor dq = Tensor::full(shape, kNaN, d), dk = Tensor::full(shape, kNaN, d),
                              dv = Tensor::full(shape, kNaN, d);
                       causal_attention_backward(q.to(d), k.to(d), v.to(d), y.to(d), lse.to(d),
                                                 input(shape, s + 3).to(d), dq, dk, dv, scale);
                       return {{"dq", dq}, {"dk", dk}, {"dv", dv}};
                     },
                     kReduction});
      out.back().reduced = {{MatmulPrecision::bf16, kBf16Backward}};
      out.back().repeatable = !cudnn_attention_takes_head_size(shape[2]);
    }
  return out;
}

// permute: attention's head split and merge at odd sizes, a move of the last axis, rank 1, an
// empty axis, NaN/inf carried.
std::vector<OpCase> permute_cases() {
  struct Case {
    Shape shape;
    std::vector<int> perm;
  };
  std::vector<OpCase> out;
  std::uint32_t seed = 9700;
  for (const Case& c :
       {Case{Shape{2, 7, 3, 4, 5}, {2, 0, 3, 1, 4}}, Case{Shape{3, 2, 4, 5, 3}, {1, 3, 0, 2, 4}},
        Case{Shape{2, 3, 33, 8}, {0, 2, 1, 3}}, Case{Shape{5, 7, 33}, {2, 0, 1}},
        Case{Shape{1000}, {0}}, Case{Shape{3, 0, 4}, {1, 2, 0}},
        Case{Shape{2, 3, 4, 5, 6, 7}, {5, 3, 1, 0, 2, 4}}})
    for (bool sentinels : {false, true}) {
      if (sentinels && c.shape.numel() == 0) continue;
      const std::uint32_t s = seed++;
      const Shape y_shape = permuted_shape(c.shape, c.perm);
      out.push_back({"permute", "Sequence",
                     c.shape.str() + " by " + fmt::format("{}", fmt::join(c.perm, ",")) +
                         (sentinels ? " NaN/inf" : ""),
                     [=](Device d) -> Outputs {
                       Tensor x = input(c.shape, s);
                       if (sentinels) x = with_sentinels(x);
                       Tensor y = Tensor::full(y_shape, kNaN, d);
                       permute(x.to(d), c.perm, y);
                       return {{"y", y}};
                     },
                     kExact});
    }
  return out;
}

std::vector<GradientCase> gradients() {
  return {{"embedding_backward", "(3, 5) of 4x6",
           [] {
             const Tensor x = ids({3, 5}, 4, 9190, DType::f32);
             Tensor w = input({4, 6}, 9191);
             const Tensor probe = input({3, 5, 6}, 9192);
             Tensor y = Tensor::empty({3, 5, 6}), dw = Tensor::zeros({4, 6});
             embedding_backward(x, probe, dw);
             const auto loss = [&] {
               embedding_forward(x, w, y);
               return weighted_sum(y, probe);
             };
             return testing::gradient_matches_finite_differences(loss, w, dw, "weight");
           }},
          {"causal_attention_backward", "(2, 5, 3)",
           [] {
             Tensor q = input({2, 5, 3}, 9890, -1.0f, 1.0f),
                    k = input({2, 5, 3}, 9891, -1.0f, 1.0f), v = input({2, 5, 3}, 9892);
             const Tensor probe = input({2, 5, 3}, 9893);
             Tensor y = Tensor::empty({2, 5, 3}), lse = Tensor::empty({2, 5});
             causal_attention_forward(q, k, v, y, lse, 0.6f);
             Tensor dq = Tensor::empty({2, 5, 3}), dk = Tensor::empty({2, 5, 3}),
                    dv = Tensor::empty({2, 5, 3});
             causal_attention_backward(q, k, v, y, lse, probe, dq, dk, dv, 0.6f);
             const auto loss = [&] {
               Tensor out = Tensor::empty({2, 5, 3}), unused = Tensor::empty({2, 5});
               causal_attention_forward(q, k, v, out, unused, 0.6f);
               return weighted_sum(out, probe);
             };
             for (auto [x, dx, name] :
                  {std::tuple{&q, &dq, "q"}, std::tuple{&k, &dk, "k"}, std::tuple{&v, &dv, "v"}}) {
               auto result = testing::gradient_matches_finite_differences(loss, *x, *dx, name);
               if (!result) return result;
             }
             return ::testing::AssertionSuccess();
           }},
          {"causal_softmax_backward", "(2, 6, 6)", [] {
             Tensor x = input({2, 6, 6}, 9590, -2.0f, 2.0f);
             const Tensor probe = input({2, 6, 6}, 9591);
             const Tensor y = causal_softmax_on_cpu(x, 0.7f);
             Tensor dx = Tensor::empty({2, 6, 6});
             causal_softmax_backward(y, probe, dx, 0.7f);
             const auto loss = [&] { return weighted_sum(causal_softmax_on_cpu(x, 0.7f), probe); };
             return testing::gradient_matches_finite_differences(loss, x, dx, "x");
           }}};
}

const AddCases kCases(embedding_cases());
const AddCases kBatchedGemmCases(batched_gemm_cases());
const AddCases kCausalSoftmaxCases(causal_softmax_cases());
const AddCases kCausalAttentionCases(causal_attention_cases());
const AddCases kPermuteCases(permute_cases());
const AddCases kGradients(gradients());

}  // namespace
}  // namespace kiln::ops_testing
