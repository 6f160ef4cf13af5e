// Hugging Face's GPT-2 weights (transformers' GPT2LMHeadModel or GPT2Model, model.safetensors as
// save_pretrained writes it) under kiln's GPT names: what load_weights reads a GPT-2 file through.
#pragma once

#include <map>
#include <string>

#include "kiln/core/tensor.h"

namespace kiln {

// True when `tensors` are laid out as Hugging Face's GPT-2: a block's attn.c_attn.weight of shape
// (width, 3 width), as its Conv1D stores a matrix (in, out), where kiln's and nanoGPT's Linear
// store (3 width, width).
bool is_hugging_face_gpt2(const std::map<std::string, Tensor>& tensors);

// The file's tensors under kiln's names ("transformer." in front when the file has none): the
// Conv1D matrices (attn.c_attn, attn.c_proj, mlp.c_fc, mlp.c_proj) transposed to (out, in); the
// causal-mask buffers (attn.bias, attn.masked_bias) left out; lm_head.weight left out when it is
// wte (tied, as GPT-2's is), else a kiln::Error naming `file`, since kiln's head is tied; and
// wte's rows padded with zeros when `model_wte_rows` is its row count rounded up to a multiple of
// 128 (a vocabulary padded as llm.c pads it, GptConfig::pad_vocabulary).
std::map<std::string, Tensor> from_hugging_face_gpt2(const std::string& file,
                                                     std::map<std::string, Tensor> tensors,
                                                     std::int64_t model_wte_rows);

}  // namespace kiln
