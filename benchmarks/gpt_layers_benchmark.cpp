// kiln_gpt_layers_benchmark: where a GPT training step's time goes on the CPU. Times the forward
// and backward of each kind of layer of gpt:LAYERS-HEADS-WIDTH-CONTEXT at a batch (each built on
// its own at the block's shapes), then the whole model's step without the optimizer; one markdown
// row per part: milliseconds (median of the repetitions) and the share of one step.
//   kiln_gpt_layers_benchmark 6-6-384-256 8 [repetitions] [cpu]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include <kiln/core/error.h>
#include <kiln/core/random.h>
#include <kiln/layers/activations.h>
#include <kiln/layers/causal_self_attention.h>
#include <kiln/layers/layer_norm.h>
#include <kiln/layers/linear.h>
#include <kiln/layers/sequence_cross_entropy_loss.h>
#include <kiln/models/gpt.h>
#include <kiln/models/gpt_block.h>

#include "median_time.h"

namespace {

// "cpu" times by the process's CPU time instead of the wall clock: on a machine shared with other
// work, run it with OMP_NUM_THREADS=1 and the shares stay true even while the wall clock does not.
// Otherwise a plain timed program, as kiln_loader_benchmark.
bool cpu_time = false;

double now_ms() {
  if (!cpu_time) return kiln::bench::wall_ms();
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

double median_ms(int repetitions, const std::function<void()>& body) {
  return kiln::bench::median_ms(repetitions, body, now_ms);
}

struct Row {
  std::string part;
  double forward_ms, backward_ms;
  std::int64_t per_step;  // how many of this part one model step runs
};

// Times module's forward on x and its backward of a gradient of ones.
Row time_module(const std::string& part, kiln::Module& module, const kiln::Tensor& x,
                std::int64_t per_step, int repetitions) {
  const kiln::Tensor dy = kiln::Tensor::full(module.output_shape(x.shape()), 0.01f);
  const double f = median_ms(repetitions, [&] { module.forward(x); });
  const double b = median_ms(repetitions, [&] {
    module.forward(x);
    module.backward(dy);
  });
  return {part, f, b - f, per_step};
}

}  // namespace

int main(int argc, char** argv) try {
  KILN_CHECK(argc >= 3,
             "usage: kiln_gpt_layers_benchmark LAYERS-HEADS-WIDTH-CONTEXT BATCH [REPETITIONS]");
  kiln::GptConfig c;
  c.vocabulary = 256;  // bytes
  KILN_CHECK(
      std::sscanf(argv[1], "%ld-%ld-%ld-%ld", &c.layers, &c.heads, &c.width, &c.context) == 4,
      "expected LAYERS-HEADS-WIDTH-CONTEXT such as 4-4-128-64, found {}", argv[1]);
  const std::int64_t b = std::atol(argv[2]), t = c.context, w = c.width;
  const int repetitions = argc > 3 ? std::atoi(argv[3]) : 10;
  cpu_time = argc > 4 && std::string(argv[4]) == "cpu";
  kiln::Generator gen(1);

  kiln::Tensor x = kiln::Tensor::empty({b, t, w});
  kiln::normal_(x, 0.0f, 1.0f, gen);
  kiln::Tensor rows = x.view({b * t, w});
  kiln::Tensor hidden = kiln::Tensor::empty({b * t, 4 * w});
  kiln::normal_(hidden, 0.0f, 1.0f, gen);

  kiln::LayerNorm norm(w);
  kiln::CausalSelfAttention attention(w, c.heads, 0.0f, gen);
  kiln::Linear c_attn(w, 3 * w, gen), c_proj(w, w, gen), c_fc(w, 4 * w, gen),
      mlp_proj(4 * w, w, gen);
  kiln::GELU gelu(kiln::GeluApproximate::tanh);
  kiln::GptMlp mlp(w, 0.0f, gen, 0);
  kiln::GptBlock block(w, c.heads, 0.0f, gen, 0);

  std::vector<Row> table;
  const std::int64_t layers = c.layers;
  table.push_back(time_module("block (all of it)", block, x, layers, repetitions));
  table.push_back(time_module("  layer norm", norm, x, 2 * layers + 1, repetitions));
  table.push_back(time_module("  attention (all of it)", attention, x, layers, repetitions));
  table.push_back(time_module("    c_attn linear", c_attn, rows, layers, repetitions));
  table.push_back(time_module("    c_proj linear", c_proj, rows, layers, repetitions));
  table.push_back(time_module("  mlp (all of it)", mlp, x, layers, repetitions));
  table.push_back(time_module("    c_fc linear", c_fc, rows, layers, repetitions));
  table.push_back(time_module("    gelu", gelu, hidden, layers, repetitions));
  table.push_back(time_module("    c_proj linear (4w)", mlp_proj, hidden, layers, repetitions));

  kiln::Gpt model(c, gen);
  std::vector<std::int32_t> id_values(static_cast<std::size_t>(b * t));
  for (std::size_t i = 0; i < id_values.size(); ++i)
    id_values[i] = static_cast<std::int32_t>((i * 7919) % c.vocabulary);
  kiln::Tensor ids = kiln::Tensor::empty({b, t});
  for (std::size_t i = 0; i < id_values.size(); ++i)
    ids.data<float>()[i] = static_cast<float>(id_values[i]);
  const kiln::Tensor labels = kiln::Tensor::from_vector(id_values, {b, t});
  kiln::SequenceCrossEntropyLoss loss;
  model.set_input_grad_wanted(false);
  const double forward = median_ms(repetitions, [&] { loss.forward(model.forward(ids), labels); });
  const double step = median_ms(repetitions, [&] {
    model.zero_grad();
    loss.forward(model.forward(ids), labels);
    model.backward(loss.backward());
  });

  std::printf(
      "gpt:%s batch %ld: step without optimizer %.2f ms (forward + loss %.2f ms), %.0f "
      "tokens/s\n\n",
      argv[1], b, step, forward, 1000.0 * static_cast<double>(b * t) / step);
  std::printf(
      "| part | forward ms | backward ms | per step | share of step |\n|---|---|---|---|---|\n");
  for (const Row& r : table)
    std::printf("| %s | %.3f | %.3f | %ld | %.1f %% |\n", r.part.c_str(), r.forward_ms,
                r.backward_ms, r.per_step,
                100.0 * (r.forward_ms + r.backward_ms) * static_cast<double>(r.per_step) / step);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "kiln_gpt_layers_benchmark: %s\n", e.what());
  return 1;
}
