// from_hugging_face_gpt2: names, Conv1D transposes, the tied head and llm.c's padded rows
// (checkpoint/hugging_face_gpt2.h).
#include "kiln/checkpoint/hugging_face_gpt2.h"

#include <regex>

#include "kiln/core/error.h"
#include "kiln/core/ops.h"
#include "kiln/models/gpt.h"

namespace kiln {

namespace {

constexpr const char* kPrefix = "transformer.";
const std::regex kConv1d(R"(h\.[0-9]+\.(attn\.c_attn|attn\.c_proj|mlp\.c_fc|mlp\.c_proj)\.weight)");
const std::regex kMaskBuffer(R"(h\.[0-9]+\.attn\.(bias|masked_bias))");

std::string without_prefix(const std::string& name) {
  return name.rfind(kPrefix, 0) == 0 ? name.substr(std::string(kPrefix).size()) : name;
}

Tensor transposed(const Tensor& matrix) {
  Tensor t = Tensor::empty({matrix.size(1), matrix.size(0)});
  permute(matrix, {1, 0}, t);
  return t;
}

bool same_values(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         a.to_vector<float>() == b.to_vector<float>();
}

}  // namespace

bool is_hugging_face_gpt2(const std::map<std::string, Tensor>& tensors) {
  for (const char* name : {"h.0.attn.c_attn.weight", "transformer.h.0.attn.c_attn.weight"}) {
    const auto it = tensors.find(name);
    if (it != tensors.end() && it->second.rank() == 2 &&
        it->second.size(1) == 3 * it->second.size(0))
      return true;
  }
  return false;
}

std::map<std::string, Tensor> from_hugging_face_gpt2(const std::string& file,
                                                     std::map<std::string, Tensor> tensors,
                                                     std::int64_t model_wte_rows) {
  std::map<std::string, Tensor> renamed;
  std::optional<Tensor> head;
  for (auto& [name, tensor] : tensors) {
    const std::string bare = without_prefix(name);
    if (std::regex_match(bare, kMaskBuffer)) continue;
    if (bare == "lm_head.weight") {
      head = tensor;
      continue;
    }
    const bool conv1d = std::regex_match(bare, kConv1d) && tensor.rank() == 2;
    renamed[kPrefix + bare] = conv1d ? transposed(tensor) : tensor;
  }
  const auto wte = renamed.find("transformer.wte.weight");
  if (head) {
    KILN_CHECK(wte != renamed.end() && same_values(*head, wte->second),
               "'{}': its lm_head.weight is not its transformer.wte.weight, but kiln's GPT ties "
               "its output head to the token embedding, as GPT-2 does; this file's untied head "
               "cannot be loaded",
               file);
  }
  if (wte != renamed.end() && wte->second.rank() == 2) {
    const Tensor& rows = wte->second;
    if (model_wte_rows > rows.size(0) &&
        model_wte_rows == GptConfig::padded_vocabulary(rows.size(0))) {
      Tensor padded = Tensor::empty({model_wte_rows, rows.size(1)});
      fill(padded, 0.0f);
      Tensor first = padded.slice(0, rows.size(0));
      copy(rows, first);
      wte->second = padded;
    }
  }
  return renamed;
}

}  // namespace kiln
