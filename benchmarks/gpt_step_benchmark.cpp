// kiln_gpt_step_benchmark: a GPT's whole training step (forward, backward, clipping, AdamW) beside
// oneDNN's own matmul rate at its products, the ratio any machine can check: tokens/s, FLOP/s
// (nanoGPT's 6N + 12·L·W·T per token), peak memory above the floor, the products' time alone
// (dnnl::matmul), and the attention fused against unfused.
//   kiln_gpt_step_benchmark 6-6-384-256 8 [fp32|bf16] [steps]
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include <kiln/core/error.h>
#include <kiln/core/ops.h>
#include <kiln/core/precision.h>
#include <kiln/core/random.h>
#include <kiln/layers/sequence_cross_entropy_loss.h>
#include <kiln/models/gpt.h>
#include <kiln/models/gpt_weight_decay.h>
#include <kiln/optim/adam.h>
#include <kiln/optim/clip.h>

#include "median_time.h"

namespace {

using kiln::bench::median_ms;
using kiln::bench::time_ms;

// The median of a phase's times, the warm-up's (the first) left out.
double median_of_runs(std::vector<double> ms) {
  ms.erase(ms.begin());
  return kiln::bench::median(std::move(ms));
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // kilobytes on Linux
}

// One product of the step: `count` of them per step, each a batch of (m, k)·(k, n), in the
// forward or in the backward.
struct Product {
  const char* what;
  std::int64_t batch, m, k, n, count;
  bool trans_a, trans_b;
  bool forward = false;
};

// The step's products for B·T rows: per block c_attn, attn.c_proj, c_fc and mlp.c_proj (forward,
// the input's gradient, the weight's gradient) and attention's six batched products per head;
// the tied head's three once.
std::vector<Product> step_products(const kiln::GptConfig& c, std::int64_t b) {
  const std::int64_t t = c.context, w = c.width, rows = b * t, d = w / c.heads, l = c.layers;
  std::vector<Product> p;
  const auto linear = [&](const char* what, std::int64_t in, std::int64_t out, std::int64_t n) {
    p.push_back({what, 1, rows, in, out, n, false, true, true});  // y = x Wᵀ
    p.push_back({what, 1, rows, out, in, n, false, false});       // dx = dy W
    p.push_back({what, 1, out, rows, in, n, true, false});        // dW = dyᵀ x
  };
  linear("c_attn", w, 3 * w, l);
  linear("attn.c_proj", w, w, l);
  linear("mlp.c_fc", w, 4 * w, l);
  linear("mlp.c_proj", 4 * w, w, l);
  linear("lm_head", w, c.vocabulary, 1);
  const std::int64_t heads = b * c.heads;
  p.push_back({"attention", heads, t, d, t, l, false, true, true});   // S = q kᵀ
  p.push_back({"attention", heads, t, t, d, l, false, false, true});  // y = P v
  p.push_back({"attention", heads, t, t, d, l, true, false});         // dv = Pᵀ dy
  p.push_back({"attention", heads, t, d, t, l, false, true});         // dP = dy vᵀ
  p.push_back({"attention", heads, t, t, d, l, false, false});        // dq = dS k
  p.push_back({"attention", heads, t, t, d, l, true, false});         // dk = dSᵀ q
  return p;
}

// dnnl::matmul's time for one product (bf16 sources with an f32 result, or all f32).
double onednn_ms(const Product& p, bool bf16, int repetitions) {
  using dnnl::memory;
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  static dnnl::stream stream(engine);
  const memory::data_type in = bf16 ? memory::data_type::bf16 : memory::data_type::f32;
  const memory::desc a({p.batch, p.m, p.k}, in,
                       p.trans_a ? memory::format_tag::acb : memory::format_tag::abc);
  const memory::desc b({p.batch, p.k, p.n}, in,
                       p.trans_b ? memory::format_tag::acb : memory::format_tag::abc);
  const memory::desc c({p.batch, p.m, p.n}, memory::data_type::f32, memory::format_tag::abc);
  // oneDNN 2.6 (Debian 12): an op descriptor, then its primitive descriptor.
  const dnnl::matmul matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, c), engine));
  memory ma(a, engine), mb(b, engine), mc(c, engine);
  for (memory* m : {&ma, &mb})  // small values: no denormals, no infinities
    std::fill_n(static_cast<unsigned char*>(m->get_data_handle()), m->get_desc().get_size(),
                static_cast<unsigned char>(0x3c));
  return median_ms(repetitions, [&] {
    matmul.execute(stream, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
    stream.wait();
  });
}

// The attention's forward and backward at the step's heads (B·H, T, D), fused
// (causal_attention, what the CPU runs) and unfused (batched_gemm, causal_softmax, batched_gemm
// and their backwards, what it ran before and the GPU runs), timed in turn A B A B.
void compare_attention(const kiln::GptConfig& c, std::int64_t b, int repetitions) {
  const std::int64_t n = b * c.heads, t = c.context, d = c.width / c.heads;
  kiln::Generator gen(2);
  std::vector<kiln::Tensor> qkv;
  for (int i = 0; i < 4; ++i) {
    qkv.push_back(kiln::Tensor::empty({n, t, d}));
    kiln::normal_(qkv.back(), 0.0f, 1.0f, gen);
  }
  const kiln::Tensor &q = qkv[0], &k = qkv[1], &v = qkv[2], &dy = qkv[3];
  kiln::Tensor y = kiln::Tensor::empty({n, t, d}), lse = kiln::Tensor::empty({n, t});
  kiln::Tensor dq = kiln::Tensor::empty({n, t, d}), dk = kiln::Tensor::empty({n, t, d}),
               dv = kiln::Tensor::empty({n, t, d});
  kiln::Tensor p = kiln::Tensor::empty({n, t, t}), dp = kiln::Tensor::empty({n, t, t});
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const auto fused = [&] {
    kiln::causal_attention_forward(q, k, v, y, lse, scale);
    kiln::causal_attention_backward(q, k, v, y, lse, dy, dq, dk, dv, scale);
  };
  const auto unfused = [&] {
    kiln::batched_gemm(q, false, k, true, p);
    kiln::causal_softmax_forward(p, p, scale);
    kiln::batched_gemm(p, false, v, false, y);
    kiln::batched_gemm(p, true, dy, false, dv);
    kiln::batched_gemm(dy, false, v, true, dp);
    kiln::causal_softmax_backward(p, dp, dp, scale);
    kiln::batched_gemm(dp, false, k, false, dq);
    kiln::batched_gemm(dp, true, q, false, dk);
  };
  fused();  // warm-up of both
  unfused();
  std::vector<double> a, u;
  for (int i = 0; i < repetitions; ++i) {
    a.push_back(time_ms(fused));
    u.push_back(time_ms(unfused));
  }
  std::sort(a.begin(), a.end());
  std::sort(u.begin(), u.end());
  std::printf(
      "attention of one block, forward and backward (%ld heads of %ld x %ld): fused %.2f ms, "
      "unfused %.2f ms (median of %d each, in turn); the unfused keeps %.1f MB of T x T "
      "matrices per block\n",
      n, t, d, a[a.size() / 2], u[u.size() / 2], repetitions,
      2.0 * static_cast<double>(n * t * t) * 4 / 1e6);
}

}  // namespace

int main(int argc, char** argv) try {
  KILN_CHECK(argc >= 3,
             "usage: kiln_gpt_step_benchmark LAYERS-HEADS-WIDTH-CONTEXT BATCH [fp32|bf16] [STEPS]");
  const double floor_mb = peak_rss_mb();
  kiln::GptConfig c;
  c.vocabulary = 65;  // Shakespeare's characters, as nanoGPT's shakespeare_char
  KILN_CHECK(
      std::sscanf(argv[1], "%ld-%ld-%ld-%ld", &c.layers, &c.heads, &c.width, &c.context) == 4,
      "expected LAYERS-HEADS-WIDTH-CONTEXT such as 6-6-384-256, found {}", argv[1]);
  const std::int64_t b = std::atol(argv[2]), t = c.context;
  const bool bf16 = argc > 3 && std::string(argv[3]) == "bf16";
  const int steps = argc > 4 ? std::atoi(argv[4]) : 10;
  if (bf16) kiln::set_matmul_precision(kiln::MatmulPrecision::bf16);

  kiln::Generator gen(1);
  kiln::Gpt model(c, gen);
  model.set_input_grad_wanted(false);
  std::vector<std::int32_t> id_values(static_cast<std::size_t>(b * t));
  for (std::size_t i = 0; i < id_values.size(); ++i)
    id_values[i] = static_cast<std::int32_t>((i * 7919) % c.vocabulary);
  const std::vector<float> id_floats(id_values.begin(), id_values.end());
  const kiln::Tensor ids = kiln::Tensor::from_vector(id_floats, {b, t});
  const kiln::Tensor labels = kiln::Tensor::from_vector(id_values, {b, t});
  kiln::SequenceCrossEntropyLoss loss;
  kiln::AdamOptions adamw;
  adamw.weight_decay = 0.1f, adamw.decoupled = true;
  adamw.decays = kiln::gpt_weight_decay_groups(model);
  kiln::Adam optimizer(model.parameters(), 1e-3f, adamw);
  kiln::GradNormClipper clipper(model.parameters(), 1.0f);
  // Each phase timed in every step, for where the step's time goes beside the products.
  std::vector<double> forward_ms, backward_ms, clip_ms, adamw_ms;
  const double step_ms = median_ms(steps, [&] {
    forward_ms.push_back(time_ms([&] {
      model.zero_grad();
      loss.forward(model.forward(ids), labels);
    }));
    backward_ms.push_back(time_ms([&] { model.backward(loss.backward()); }));
    clip_ms.push_back(time_ms([&] { clipper.clip(); }));
    adamw_ms.push_back(time_ms([&] { optimizer.step(); }));
  });
  const double peak_mb = peak_rss_mb();

  // nanoGPT's estimate_mfu: N without the position table, 6N + 12·L·W·T FLOPs per token.
  std::int64_t n = 0;
  for (const kiln::Parameter* p : model.parameters()) n += p->value.numel();
  n -= model.wpe().weight().value.numel();
  const double tokens = static_cast<double>(b * t);
  const double flops_per_token =
      6.0 * static_cast<double>(n) + 12.0 * static_cast<double>(c.layers * c.width * t);
  const double step_gflops = flops_per_token * tokens / step_ms / 1e6;

  double products_ms = 0, products_flops = 0, forward_products_ms = 0;
  std::printf("| product (%s) | batch x m x k x n | per step | oneDNN ms | GFLOP/s |\n",
              bf16 ? "bf16" : "fp32");
  std::printf("|---|---|---|---|---|\n");
  for (const Product& p : step_products(c, b)) {
    const double ms = onednn_ms(p, bf16, 5);
    const double flops = 2.0 * static_cast<double>(p.batch * p.m * p.k * p.n);
    products_ms += ms * static_cast<double>(p.count);
    if (p.forward) forward_products_ms += ms * static_cast<double>(p.count);
    products_flops += flops * static_cast<double>(p.count);
    std::printf("| %s | %ld x %ld x %ld x %ld | %ld | %.3f | %.1f |\n", p.what, p.batch, p.m, p.k,
                p.n, p.count, ms, flops / ms / 1e6);
  }
  std::printf(
      "\ngpt:%s batch %ld, %s: step %.2f ms, %.0f tokens/s, %.1f GFLOP/s (nanoGPT's count); "
      "peak memory %.0f MB above a floor of %.0f MB\n",
      argv[1], b, bf16 ? "bf16" : "fp32", step_ms, 1000.0 * tokens / step_ms, step_gflops,
      peak_mb - floor_mb, floor_mb);
  std::printf(
      "oneDNN alone at the step's products: %.2f ms, %.1f GFLOP/s; the step runs at %.1f %% of "
      "that limit (products' time / step time)\n",
      products_ms, products_flops / products_ms / 1e6, 100.0 * products_ms / step_ms);
  const double forward = median_of_runs(forward_ms), backward = median_of_runs(backward_ms);
  std::printf(
      "phases (median ms): forward + loss %.2f (its products alone %.2f), backward %.2f (%.2f), "
      "clipping %.2f, AdamW %.2f\n",
      forward, forward_products_ms, backward, products_ms - forward_products_ms,
      median_of_runs(clip_ms), median_of_runs(adamw_ms));
  compare_attention(c, b, 11);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "kiln_gpt_step_benchmark: %s\n", e.what());
  return 1;
}
