// Gpt: embeddings, blocks, ln_f and the tied head; nanoGPT's initialisation. The position
// embedding of positions 0 .. T-1 is wpe's first T rows, added to every sequence of the batch as
// a bias over (B, T width) (bias_add), and its gradient is their column sums (bias_grad): wpe's
// own forward (a lookup of 0 .. T-1) never runs, so its backward is reported as skipped.
#include "kiln/models/gpt.h"

#include <cmath>
#include <limits>

#include "kiln/core/memory_budget.h"
#include "kiln/core/ops.h"
#include "kiln/models/memory_estimate.h"

namespace kiln {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// All layers' parameters, counted from the config, must fit in the host's memory (the model is
// built there): a GPT of 2^63 layers is refused at once, not after gigabytes of blocks.
void check_parameters_fit(const GptConfig& c) {
  const std::int64_t count = gpt_parameter_count(c);
  const long double bytes = static_cast<long double>(count) * 4;
  const std::uint64_t available = available_memory(Device::cpu());
  KILN_CHECK(available == 0 || bytes <= static_cast<long double>(available),
             "Gpt({} layers, {} heads, width {}, context {}, vocabulary {}): its {}{} parameters "
             "take {:.1f} GiB, more than the {:.1f} GiB of host memory available; use fewer "
             "layers or a smaller width",
             c.layers, c.heads, c.width, c.context, c.vocabulary,
             count == std::numeric_limits<std::int64_t>::max() ? "more than " : "", count,
             static_cast<double>(bytes / 1073741824.0L),
             static_cast<double>(available) / 1073741824.0);
}

void throw_if_stopped(const std::atomic<bool>* stop, const char* what, std::int64_t done,
                      std::int64_t all) {
  if (stop != nullptr && stop->load())
    throw Interrupted(fmt::format("stopped while building {}: {} of {} built", what, done, all),
                      "the model's build");
}

}  // namespace

Gpt::Gpt(const GptConfig& c, Generator& gen, const std::atomic<bool>* stop) : config_(c) {
  KILN_CHECK(c.vocabulary != 0,
             "GptConfig::vocabulary is unset: give the data's token count (Vocabulary::size of "
             "its token file: 256 for bytes, the distinct characters of a chars text)");
  KILN_CHECK(c.layers > 0 && c.heads > 0 && c.width > 0 && c.context > 0 && c.vocabulary > 0,
             "Gpt needs positive layers, heads, width, context and vocabulary, found {}, {}, {}, "
             "{} and {}",
             c.layers, c.heads, c.width, c.context, c.vocabulary);
  KILN_CHECK(c.width % c.heads == 0,
             "Gpt: the width {} must be a multiple of the head count {} (each head takes width / "
             "heads features)",
             c.width, c.heads);
  check_parameters_fit(c);  // before any layer is built
  wte_ = std::make_shared<Embedding>(c.embedding_rows(), c.width, gen);
  wpe_ = std::make_shared<Embedding>(c.context, c.width, gen);
  drop_ = std::make_shared<Dropout>(c.dropout, c.dropout_seed);
  register_module("transformer.wte", wte_, ChildInput::parent_input);
  register_module("transformer.wpe", wpe_);
  register_module("transformer.drop", drop_);
  for (std::int64_t i = 0; i < c.layers; ++i) {
    blocks_.push_back(std::make_shared<GptBlock>(
        c.width, c.heads, c.dropout, gen, c.dropout_seed + 1 + 3 * static_cast<std::uint64_t>(i)));
    register_module(fmt::format("transformer.h.{}", i), blocks_.back());
    throw_if_stopped(stop, "a GPT's blocks", i + 1, c.layers);
  }
  // One set of backward buffers for all the blocks (PyTorch frees each gradient once used;
  // kiln's buffers stay for the next step).
  share_block_gradients(blocks_);
  ln_f_ = std::make_shared<LayerNorm>(c.width);
  register_module("transformer.ln_f", ln_f_);
  lm_head_ = std::make_shared<TiedLinear>(wte_->weight(), c.vocabulary);
  register_module("lm_head", lm_head_);
  // nanoGPT's _init_weights, then its scaled c_proj weights.
  const float proj_std = 0.02f / std::sqrt(2.0f * static_cast<float>(c.layers));
  for (Parameter* p : parameters()) {
    if (ends_with(p->name, "c_proj.weight"))
      normal_(p->value, 0.0f, proj_std, gen);
    else if (p->value.rank() == 2)
      normal_(p->value, 0.0f, 0.02f, gen);
    else if (ends_with(p->name, ".bias"))
      fill(p->value, 0.0f);
  }
  if (c.embedding_rows() > c.vocabulary) {
    Tensor padded_rows = wte_->weight().value.slice(c.vocabulary, c.embedding_rows());
    fill(padded_rows, 0.0f);
  }
}

std::string Gpt::describe() const {
  return fmt::format("GPT({} layers, {} heads, width {}, context {}, vocabulary {}{})",
                     config_.layers, config_.heads, config_.width, config_.context,
                     config_.vocabulary,
                     config_.pad_vocabulary ? fmt::format(" padded to {}", config_.embedding_rows())
                                            : std::string());
}

Shape Gpt::output_shape(const Shape& input) const {
  KILN_CHECK(input.rank() == 2 && input[1] >= 1 && input[1] <= config_.context,
             "{}: expected token ids of shape (batch, time) with 1 <= time <= {}, found {}",
             describe(), config_.context, input.str());
  return Shape{input[0], input[1], config_.vocabulary};
}

Tensor Gpt::forward_impl(const Tensor& x) {
  const std::int64_t b = x.size(0), t = x.size(1), c = config_.width;
  batch_ = b, time_ = t;
  // The position rows are added into wte's output buffer: wte's backward does not read it, and
  // nothing else does before wte's next forward.
  Tensor h = wte_->forward(x);
  Tensor rows = h.view({b, t * c});
  bias_add(rows, wpe_->weight().value.slice(0, t).view({t * c}));
  Tensor y = drop_->forward(h);
  for (auto& block : blocks_) y = block->forward(y);
  const Tensor& normed = ln_f_->forward(y);
  return lm_head_->forward(normed.view({b * t, c})).view({b, t, config_.vocabulary});
}

Tensor Gpt::backward_impl(const Tensor& dy) {
  const std::int64_t b = batch_, t = time_, c = config_.width;
  Tensor d = lm_head_->backward(dy.view({b * t, config_.vocabulary})).view({b, t, c});
  d = ln_f_->backward(d);
  for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) d = (*it)->backward(d);
  d = drop_->backward(d);
  Tensor position_grad = wpe_->weight().grad.slice(0, t).view({t * c});
  bias_grad(d.view({b, t * c}), position_grad);
  wpe_->skip_backward();
  return wte_->backward(d);
}

}  // namespace kiln
