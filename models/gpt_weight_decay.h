// The weight-decay groups of a GPT recipe, as AdamOptions::decays takes them: the matrices of the
// linear layers (each block's c_attn, attn.c_proj, c_fc and mlp.c_proj weights) decay; biases,
// LayerNorm gains and shifts (all rank 1) and both embedding tables do not.
#pragma once

#include <functional>

#include "kiln/models/gpt.h"

namespace kiln {

// The groups follow issue 23 ("no weight decay on biases, norms and embeddings"). nanoGPT's
// configure_optimizers differs there: it decays every tensor of rank >= 2, so wte (also its
// tied head) and wpe too; scripts/compare-pytorch.py --model gpt builds kiln's groups in PyTorch.
// True for the parameters of `model` that take weight decay; `model` must outlive the result.
std::function<bool(const Parameter&)> gpt_weight_decay_groups(const Gpt& model);

}  // namespace kiln
