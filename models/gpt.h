// GPT, nanoGPT's model: token and learned position embeddings (wte, wpe), dropout, `layers`
// blocks of [x + attn(ln_1(x)), then x + mlp(ln_2(x))] with mlp = c_proj(GELU-tanh(c_fc(x)))
// and dropout, a final LayerNorm ln_f, and an output head tied to wte (layers/tied_linear.h).
// x: (B, T) float32 token ids, T <= context -> logits (B, T, vocabulary). Its parameters and
// initialisation are nanoGPT's, so a kiln safetensors file loads into nanoGPT's GPT and back.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "kiln/core/random.h"
#include "kiln/layers/causal_self_attention.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/embedding.h"
#include "kiln/layers/layer_norm.h"
#include "kiln/layers/tied_linear.h"
#include "kiln/models/gpt_block.h"

namespace kiln {

struct GptConfig {
  std::int64_t layers = 4, heads = 4, width = 128, context = 64;
  // The data's token count (Vocabulary::size: 256 for bytes, the characters of a chars text):
  // no default, as a wrong one trains and fails only when the output is decoded. 0: unset, which
  // Gpt refuses.
  std::int64_t vocabulary = 0;
  float dropout = 0.0f;
  std::uint64_t dropout_seed = 0;  // the dropouts' masks: seed + 2 per block, as counted inside
  // llm.c's padding: wte gets embedding_rows() rows, the vocabulary rounded up to a multiple of
  // 128 (GPT-2's 50257 to 50304) for the products' sake. The padded rows start at zero and stay
  // there: no id reaches them and the tied head reads only the first `vocabulary` rows, so no
  // padded token is ever predicted.
  bool pad_vocabulary = false;

  std::int64_t embedding_rows() const {
    return pad_vocabulary ? padded_vocabulary(vocabulary) : vocabulary;
  }
  // `vocabulary` rounded up to a multiple of 128, as llm.c pads it.
  static std::int64_t padded_vocabulary(std::int64_t vocabulary) {
    return (vocabulary + 127) / 128 * 128;
  }
};

// Parameters are named as nanoGPT's state_dict ("transformer.wte.weight",
// "transformer.h.0.attn.c_attn.weight", ...), with the tied matrix once, as
// "transformer.wte.weight"; every matrix is stored (out, in) as PyTorch's. Initialised as nanoGPT
// does: N(0, 0.02) for weights and embeddings, N(0, 0.02 / sqrt(2 layers)) for each c_proj weight,
// zero biases, LayerNorms at weight 1 and bias 0.
class Gpt : public Module {
 public:
  // `stop` (may be null) is polled after each block: when set, construction ends in
  // kiln::Interrupted (a GPT of a million blocks takes minutes to build).
  Gpt(const GptConfig& config, Generator& gen, const std::atomic<bool>* stop = nullptr);

  std::string describe() const override;
  Shape output_shape(const Shape& input) const override;  // (B, T) -> (B, T, vocabulary)
  const GptConfig& config() const { return config_; }
  Embedding& wte() { return *wte_; }
  Embedding& wpe() { return *wpe_; }
  const Embedding& wte() const { return *wte_; }
  const Embedding& wpe() const { return *wpe_; }
  const std::vector<std::shared_ptr<GptBlock>>& blocks() const { return blocks_; }
  LayerNorm& ln_f() { return *ln_f_; }
  const LayerNorm& ln_f() const { return *ln_f_; }
  // The tied head: wte's first `vocabulary` rows (of a padded vocabulary, never the padding).
  const TiedLinear& lm_head() const { return *lm_head_; }

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;

 private:
  GptConfig config_;
  std::shared_ptr<Embedding> wte_, wpe_;
  std::shared_ptr<Dropout> drop_;
  std::vector<std::shared_ptr<GptBlock>> blocks_;
  std::shared_ptr<LayerNorm> ln_f_;
  std::shared_ptr<TiedLinear> lm_head_;
  std::int64_t batch_ = 0, time_ = 0;
};

}  // namespace kiln
