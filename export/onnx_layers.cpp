// Each layer kiln has as ONNX nodes (opset 17). Weight layouts are kiln's, which are PyTorch's and
// ONNX's: Linear W (out, in) is Gemm's B with transB = 1, Conv2d W (out, in, k, k) is Conv's W.
// Ops newer than opset 17 are written as their decomposition: GELU (Gelu is opset 20) as
// x * 0.5 * (1 + erf(x / sqrt(2))), the exact form kiln computes.
#include "kiln/export/onnx_layers.h"

#include <cxxabi.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <typeinfo>
#include <unordered_map>

#include "kiln/core/error.h"
#include "kiln/layers/activations.h"
#include "kiln/layers/batch_norm.h"
#include "kiln/layers/batch_norm2d.h"
#include "kiln/layers/causal_self_attention.h"
#include "kiln/layers/conv2d.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/embedding.h"
#include "kiln/layers/flatten.h"
#include "kiln/layers/layer_norm.h"
#include "kiln/layers/linear.h"
#include "kiln/layers/pool2d.h"
#include "kiln/models/gpt.h"
#include "kiln/models/gpt_block.h"
#include "kiln/models/residual.h"
#include "kiln/models/sequential.h"

namespace kiln {

namespace {

struct RegisteredExport {
  std::string name;  // "Linear", for the message about a module no exporter is registered for
  OnnxExporter write;
};
// Filled at load time by the RegisterOnnxExport objects, here and in any other file of export/.
std::unordered_map<std::type_index, RegisteredExport>& onnx_exporters() {
  static std::unordered_map<std::type_index, RegisteredExport> exporters;
  return exporters;
}

std::string child_path(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}

// "kiln::Embedding": the C++ type, for the message about a module the exporter does not know.
std::string type_name(const Module& module) {
  const char* mangled = typeid(module).name();
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && demangled ? demangled.get() : mangled;
}

std::string where(const std::string& path) {
  return path.empty() ? "the root of the model" : "'" + path + "'";
}

// The module's own parameter or buffer `name` ("weight", "running_mean"), or null. A module's
// parameters carry the path its parents registered it under ("layers.0.weight"): the name that
// parameters() of the whole model gives and its safetensors files hold, which the initializer
// keeps.
template <typename Entry>
const Entry* own(const std::vector<const Entry*>& entries, const std::string& name) {
  for (const Entry* e : entries)
    if (e->name == name || e->name.ends_with("." + name)) return e;
  return nullptr;
}

// The initializer of the module's parameter or buffer `name`; "" when it has none of that name
// (a Linear without bias).
std::string weight(OnnxGraph& graph, const Module& module, const std::string& name) {
  if (const Parameter* p = own(module.parameters(), name))
    return graph.add_initializer(p->name, p->value);
  if (const Buffer* b = own(module.buffers(), name))
    return graph.add_initializer(b->name, b->value);
  return "";
}

std::string required_weight(OnnxGraph& graph, const Module& module, const std::string& path,
                            const std::string& name) {
  std::string value = weight(graph, module, name);
  KILN_CHECK(!value.empty(), "ONNX export: {} at {} has no '{}', which its ONNX form needs",
             module.describe(), where(path), name);
  return value;
}

std::string activation(OnnxGraph& graph, Activation kind, float alpha, const std::string& path,
                       const std::string& x) {
  switch (kind) {
    case Activation::relu: return OnnxGraph::output(graph.add_node("Relu", {x}, path));
    case Activation::leaky_relu: {
      onnx::NodeProto& node = graph.add_node("LeakyRelu", {x}, path);
      set_attribute(node, "alpha", alpha);
      return OnnxGraph::output(node);
    }
    case Activation::sigmoid: return OnnxGraph::output(graph.add_node("Sigmoid", {x}, path));
    case Activation::tanh: return OnnxGraph::output(graph.add_node("Tanh", {x}, path));
    case Activation::gelu: {
      const std::string scaled = OnnxGraph::output(
          graph.add_node("Mul", {x, graph.scalar(static_cast<float>(M_SQRT1_2))}, path));
      const std::string erf = OnnxGraph::output(graph.add_node("Erf", {scaled}, path));
      const std::string one_plus =
          OnnxGraph::output(graph.add_node("Add", {erf, graph.scalar(1.0f)}, path));
      const std::string cdf =
          OnnxGraph::output(graph.add_node("Mul", {one_plus, graph.scalar(0.5f)}, path));
      return OnnxGraph::output(graph.add_node("Mul", {x, cdf}, path));
    }
    case Activation::gelu_tanh: {
      // x * sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3): kiln's own form of 0.5 x (1 + tanh u)
      const std::string square = OnnxGraph::output(graph.add_node("Mul", {x, x}, path));
      const std::string cube = OnnxGraph::output(graph.add_node("Mul", {square, x}, path));
      const std::string cubic =
          OnnxGraph::output(graph.add_node("Mul", {cube, graph.scalar(0.044715f)}, path));
      const std::string inner = OnnxGraph::output(graph.add_node("Add", {x, cubic}, path));
      const std::string two_u = OnnxGraph::output(graph.add_node(
          "Mul", {inner, graph.scalar(static_cast<float>(2.0 * M_SQRT2 / std::sqrt(M_PI)))}, path));
      const std::string gate = OnnxGraph::output(graph.add_node("Sigmoid", {two_u}, path));
      return OnnxGraph::output(graph.add_node("Mul", {x, gate}, path));
    }
  }
  KILN_THROW("ONNX export: activation {} at {} has no ONNX form in kiln's exporter yet",
             static_cast<int>(kind), where(path));
}

std::string linear(OnnxGraph& graph, const Linear& layer, const std::string& path,
                   const std::string& x) {
  std::vector<std::string> inputs{x, required_weight(graph, layer, path, "weight")};
  if (std::string bias = weight(graph, layer, "bias"); !bias.empty()) inputs.push_back(bias);
  onnx::NodeProto& gemm = graph.add_node("Gemm", inputs, path);
  set_attribute(gemm, "transB", std::int64_t{1});  // y = x Wᵀ + b with W (out, in)
  const std::string y = OnnxGraph::output(gemm);
  return layer.activation() ? activation(graph, *layer.activation(), 0.0f, path, y) : y;
}

std::string conv2d(OnnxGraph& graph, const Conv2d& layer, const std::string& path,
                   const std::string& x) {
  std::vector<std::string> inputs{x, required_weight(graph, layer, path, "weight")};
  if (std::string bias = weight(graph, layer, "bias"); !bias.empty()) inputs.push_back(bias);
  const std::int64_t k = own(layer.parameters(), "weight")->value.shape()[2];  // (out, in, k, k)
  const Conv2dOptions& o = layer.options();
  onnx::NodeProto& conv = graph.add_node("Conv", inputs, path);
  set_attribute(conv, "kernel_shape", std::vector<std::int64_t>{k, k});
  set_attribute(conv, "strides", std::vector<std::int64_t>{o.stride, o.stride});
  set_attribute(conv, "pads",
                std::vector<std::int64_t>{o.padding, o.padding, o.padding, o.padding});
  return OnnxGraph::output(conv);
}

std::string pool2d(OnnxGraph& graph, const Pool2dLayer& layer, bool max, const std::string& path,
                   const std::string& x) {
  const Pool2dOptions& o = layer.options();
  onnx::NodeProto& pool = graph.add_node(max ? "MaxPool" : "AveragePool", {x}, path);
  set_attribute(pool, "kernel_shape", std::vector<std::int64_t>{o.kernel, o.kernel});
  set_attribute(pool, "strides", std::vector<std::int64_t>{o.stride, o.stride});
  set_attribute(pool, "pads",
                std::vector<std::int64_t>{o.padding, o.padding, o.padding, o.padding});
  set_attribute(pool, "ceil_mode", std::int64_t{0});  // PyTorch's floor mode, as kiln's
  if (!max)
    set_attribute(pool, "count_include_pad", std::int64_t{1});  // kiln counts padding as zeros
  return OnnxGraph::output(pool);
}

// BatchNorm1d and BatchNorm2d alike: ONNX's BatchNormalization takes (N, C, ...), and in
// inference form (training_mode 0, the default) normalises with the running statistics.
std::string batch_norm(OnnxGraph& graph, const BatchNorm1d& layer, const std::string& path,
                       const std::string& x) {
  onnx::NodeProto& bn = graph.add_node("BatchNormalization",
                                       {x, required_weight(graph, layer, path, "weight"),
                                        required_weight(graph, layer, path, "bias"),
                                        required_weight(graph, layer, path, "running_mean"),
                                        required_weight(graph, layer, path, "running_var")},
                                       path);
  set_attribute(bn, "epsilon", layer.eps());
  return OnnxGraph::output(bn);
}

std::string layer_norm(OnnxGraph& graph, const LayerNorm& layer, const std::string& path,
                       const std::string& x) {
  onnx::NodeProto& ln = graph.add_node("LayerNormalization",
                                       {x, required_weight(graph, layer, path, "weight"),
                                        required_weight(graph, layer, path, "bias")},
                                       path);
  set_attribute(ln, "axis", std::int64_t{-1});
  set_attribute(ln, "epsilon", layer.eps());
  return OnnxGraph::output(ln);
}

// The sequence layers. Their values are (batch, positions, width): matrix products are MatMul
// with the weight transposed (Gemm takes matrices only), and the number of positions is read
// from the input, so only the batch and the positions a model was given stay free.

std::string transposed(OnnxGraph& graph, const std::string& matrix, const std::string& path) {
  onnx::NodeProto& t = graph.add_node("Transpose", {matrix}, path);
  set_attribute(t, "perm", std::vector<std::int64_t>{1, 0});
  return OnnxGraph::output(t);
}

// y = x Wᵀ + b over the last axis of x, any rank.
std::string linear_on_last_axis(OnnxGraph& graph, const Linear& layer, const std::string& path,
                                const std::string& x) {
  const std::string w = transposed(graph, required_weight(graph, layer, path, "weight"), path);
  std::string y = OnnxGraph::output(graph.add_node("MatMul", {x, w}, path));
  if (std::string bias = weight(graph, layer, "bias"); !bias.empty())
    y = OnnxGraph::output(graph.add_node("Add", {y, bias}, path));
  return layer.activation() ? activation(graph, *layer.activation(), 0.0f, path, y) : y;
}

// Embedding: Gather of the rows named by the ids. The graph's own input it reads as int64 ids (and
// marks so); float32 ids computed inside the graph are cast to int64 first.
std::string embedding(OnnxGraph& graph, const std::string& table, const std::string& path,
                      const std::string& ids) {
  std::string indices = ids;
  if (ids == OnnxGraph::kInput) {
    graph.mark_input_as_ids();
  } else {
    onnx::NodeProto& cast = graph.add_node("Cast", {ids}, path);
    set_attribute(cast, "to", std::int64_t{onnx::TensorProto::INT64});
    indices = OnnxGraph::output(cast);
  }
  onnx::NodeProto& gather = graph.add_node("Gather", {table, indices}, path);
  set_attribute(gather, "axis", std::int64_t{0});
  return OnnxGraph::output(gather);
}

// (1) holding dimension `axis` of value x.
std::string dimension(OnnxGraph& graph, const std::string& x, std::int64_t axis,
                      const std::string& path) {
  onnx::NodeProto& shape = graph.add_node("Shape", {x}, path);
  set_attribute(shape, "start", axis);
  set_attribute(shape, "end", axis + 1);
  return OnnxGraph::output(shape);
}

// Columns [begin, end) of the last axis of x.
std::string last_axis_slice(OnnxGraph& graph, const std::string& x, std::int64_t begin,
                            std::int64_t end, const std::string& path) {
  const std::string starts = graph.int64_constant({begin}, {1});
  const std::string ends = graph.int64_constant({end}, {1});
  const std::string axes = graph.int64_constant({-1}, {1});
  return OnnxGraph::output(graph.add_node("Slice", {x, starts, ends, axes}, path));
}

std::string transpose(OnnxGraph& graph, const std::string& x, std::vector<std::int64_t> perm,
                      const std::string& path) {
  onnx::NodeProto& t = graph.add_node("Transpose", {x}, path);
  set_attribute(t, "perm", perm);
  return OnnxGraph::output(t);
}

std::string reshape(OnnxGraph& graph, const std::string& x, const std::string& shape,
                    const std::string& path) {
  return OnnxGraph::output(graph.add_node("Reshape", {x, shape}, path));
}

// Added to the (T, T) scores: 0 where position t may attend (s <= t), -1e30 above the diagonal,
// which softmax turns into exact zeros as kiln's masked softmax does. Built from the input's T.
std::string causal_mask(OnnxGraph& graph, const std::string& x, const std::string& path) {
  const std::string t = dimension(graph, x, 1, path);
  onnx::NodeProto& square = graph.add_node("Concat", {t, t}, path);
  set_attribute(square, "axis", std::int64_t{0});
  const std::string ones = OnnxGraph::output(
      graph.add_node("Expand", {graph.scalar(1.0f), OnnxGraph::output(square)}, path));
  onnx::NodeProto& lower = graph.add_node("Trilu", {ones}, path);
  set_attribute(lower, "upper", std::int64_t{0});
  const std::string above = OnnxGraph::output(
      graph.add_node("Sub", {graph.scalar(1.0f), OnnxGraph::output(lower)}, path));
  return OnnxGraph::output(graph.add_node("Mul", {above, graph.scalar(-1e30f)}, path));
}

std::string causal_self_attention(OnnxGraph& graph, const CausalSelfAttention& attn,
                                  const std::string& path, const std::string& x) {
  const std::int64_t width = own(attn.parameters(), "c_proj.weight")->value.size(0);
  const std::int64_t heads = attn.heads(), head_size = width / heads;
  const std::string qkv = linear_on_last_axis(graph, attn.c_attn(), child_path(path, "c_attn"), x);
  // (B, T, width) -> (B, T, heads, head size); 0 keeps the input's dimension.
  const std::string split_heads = graph.int64_constant({0, 0, heads, head_size}, {4});
  const auto head_values = [&](int part, std::vector<std::int64_t> perm) {
    const std::string columns = last_axis_slice(graph, qkv, part * width, (part + 1) * width, path);
    return transpose(graph, reshape(graph, columns, split_heads, path), std::move(perm), path);
  };
  const std::string q = head_values(0, {0, 2, 1, 3});  // (B, H, T, D)
  const std::string k = head_values(1, {0, 2, 3, 1});  // (B, H, D, T)
  const std::string v = head_values(2, {0, 2, 1, 3});  // (B, H, T, D)
  const std::string scores = OnnxGraph::output(
      graph.add_node("Mul",
                     {OnnxGraph::output(graph.add_node("MatMul", {q, k}, path)),
                      graph.scalar(1.0f / std::sqrt(static_cast<float>(head_size)))},
                     path));
  const std::string masked =
      OnnxGraph::output(graph.add_node("Add", {scores, causal_mask(graph, x, path)}, path));
  onnx::NodeProto& softmax = graph.add_node("Softmax", {masked}, path);
  set_attribute(softmax, "axis", std::int64_t{-1});
  const std::string y =
      OnnxGraph::output(graph.add_node("MatMul", {OnnxGraph::output(softmax), v}, path));
  const std::string merge = graph.int64_constant({0, 0, width}, {3});
  const std::string merged = reshape(graph, transpose(graph, y, {0, 2, 1, 3}, path), merge, path);
  // The attention and residual dropouts are identities in eval mode.
  return linear_on_last_axis(graph, attn.c_proj(), child_path(path, "c_proj"), merged);
}

std::string gpt_block(OnnxGraph& graph, const GptBlock& block, const std::string& path,
                      const std::string& x) {
  const std::string attended =
      causal_self_attention(graph, block.attn(), child_path(path, "attn"),
                            layer_norm(graph, block.ln_1(), child_path(path, "ln_1"), x));
  const std::string h = OnnxGraph::output(graph.add_node("Add", {x, attended}, path));
  const GptMlp& mlp = block.mlp();
  const std::string mlp_path = child_path(path, "mlp");
  const std::string hidden =
      linear_on_last_axis(graph, mlp.c_fc(), child_path(mlp_path, "c_fc"),
                          layer_norm(graph, block.ln_2(), child_path(path, "ln_2"), h));
  const std::string gelu =
      activation(graph, mlp.gelu().kind(), mlp.gelu().alpha(), mlp_path, hidden);
  const std::string out =
      linear_on_last_axis(graph, mlp.c_proj(), child_path(mlp_path, "c_proj"), gelu);
  return OnnxGraph::output(graph.add_node("Add", {h, out}, path));
}

// x: (B, T) float32 ids -> logits (B, T, vocabulary), the head reading wte's matrix (tied).
std::string gpt(OnnxGraph& graph, const Gpt& model, const std::string& path,
                const std::string& ids) {
  const std::string wte_path = child_path(path, "transformer.wte");
  const std::string wte = required_weight(graph, model.wte(), wte_path, "weight");
  const std::string tokens = embedding(graph, wte, wte_path, ids);
  // Rows [0, T) of wpe, added to every sequence of the batch.
  const std::string wpe_path = child_path(path, "transformer.wpe");
  const std::string wpe = required_weight(graph, model.wpe(), wpe_path, "weight");
  const std::string zero = graph.int64_constant({0}, {1});
  const std::string positions = OnnxGraph::output(
      graph.add_node("Slice", {wpe, zero, dimension(graph, ids, 1, wpe_path), zero}, wpe_path));
  std::string h = OnnxGraph::output(graph.add_node("Add", {tokens, positions}, path));
  for (std::size_t i = 0; i < model.blocks().size(); ++i)
    h = gpt_block(graph, *model.blocks()[i], child_path(path, fmt::format("transformer.h.{}", i)),
                  h);
  h = layer_norm(graph, model.ln_f(), child_path(path, "transformer.ln_f"), h);
  const std::string head_path = child_path(path, "lm_head");
  std::string head = wte;  // a padded vocabulary's rows are never predicted: the first V rows
  const GptConfig& c = model.config();
  if (c.embedding_rows() > c.vocabulary)
    head = OnnxGraph::output(graph.add_node(
        "Slice", {wte, zero, graph.int64_constant({c.vocabulary}, {1}), zero}, head_path));
  return OnnxGraph::output(
      graph.add_node("MatMul", {h, transposed(graph, head, head_path)}, head_path));
}

// Each module type kiln has, beside the function that writes it.
const RegisterOnnxExport<Sequential> kSequential("Sequential", [](OnnxGraph& graph,
                                                                  const Sequential& seq,
                                                                  const std::string& path,
                                                                  std::string x) {
  for (std::size_t i = 0; i < seq.size(); ++i)
    x = export_module(graph, seq[i], child_path(path, fmt::format("layers.{}", i)), x);
  return x;
});
const RegisterOnnxExport<Residual> kResidual("Residual", [](OnnxGraph& graph,
                                                            const Residual& residual,
                                                            const std::string& path,
                                                            const std::string& x) {
  const std::string body = export_module(graph, residual.body(), child_path(path, "body"), x);
  return OnnxGraph::output(graph.add_node("Add", {x, body}, path));
});
template <typename Layer>
std::string activation_layer(OnnxGraph& graph, const Layer& a, const std::string& path,
                             const std::string& x) {
  return activation(graph, a.kind(), a.alpha(), path, x);
}
const RegisterOnnxExport<ActivationLayer> kActivationLayer("ActivationLayer",
                                                           activation_layer<ActivationLayer>);
const RegisterOnnxExport<ReLU> kRelu("ReLU", activation_layer<ReLU>);
const RegisterOnnxExport<LeakyReLU> kLeakyRelu("LeakyReLU", activation_layer<LeakyReLU>);
const RegisterOnnxExport<Sigmoid> kSigmoid("Sigmoid", activation_layer<Sigmoid>);
const RegisterOnnxExport<Tanh> kTanh("Tanh", activation_layer<Tanh>);
const RegisterOnnxExport<GELU> kGelu("GELU", activation_layer<GELU>);
const RegisterOnnxExport<Linear> kLinear("Linear", linear);
const RegisterOnnxExport<Conv2d> kConv2d("Conv2d", conv2d);
const RegisterOnnxExport<MaxPool2d> kMaxPool2d("MaxPool2d",
                                               [](OnnxGraph& graph, const MaxPool2d& p,
                                                  const std::string& path, const std::string& x) {
                                                 return pool2d(graph, p, true, path, x);
                                               });
const RegisterOnnxExport<AvgPool2d> kAvgPool2d("AvgPool2d",
                                               [](OnnxGraph& graph, const AvgPool2d& p,
                                                  const std::string& path, const std::string& x) {
                                                 return pool2d(graph, p, false, path, x);
                                               });
const RegisterOnnxExport<BatchNorm1d> kBatchNorm1d("BatchNorm1d", batch_norm);
const RegisterOnnxExport<BatchNorm2d> kBatchNorm2d("BatchNorm2d", batch_norm);
const RegisterOnnxExport<LayerNorm> kLayerNorm("LayerNorm", layer_norm);
const RegisterOnnxExport<Dropout> kDropout(  // the identity in eval mode
    "Dropout", [](OnnxGraph& graph, const Dropout&, const std::string& path, const std::string& x) {
      return OnnxGraph::output(graph.add_node("Identity", {x}, path));
    });
const RegisterOnnxExport<Flatten> kFlatten("Flatten", [](OnnxGraph& graph, const Flatten&,
                                                         const std::string& path,
                                                         const std::string& x) {
  onnx::NodeProto& flatten = graph.add_node("Flatten", {x}, path);
  set_attribute(flatten, "axis", std::int64_t{1});  // (N, d1, d2, ...) -> (N, d1 * d2 * ...)
  return OnnxGraph::output(flatten);
});
const RegisterOnnxExport<Embedding> kEmbedding("Embedding", [](OnnxGraph& graph, const Embedding& e,
                                                               const std::string& path,
                                                               const std::string& ids) {
  return embedding(graph, required_weight(graph, e, path, "weight"), path, ids);
});
const RegisterOnnxExport<CausalSelfAttention> kCausalSelfAttention("CausalSelfAttention",
                                                                   causal_self_attention);
const RegisterOnnxExport<GptBlock> kGptBlock("GptBlock", gpt_block);
const RegisterOnnxExport<Gpt> kGpt("Gpt", gpt);

}  // namespace

namespace detail {

void register_onnx_export(std::type_index type, std::string name, OnnxExporter write) {
  onnx_exporters().insert_or_assign(type, RegisteredExport{std::move(name), std::move(write)});
}

}  // namespace detail

std::string export_module(OnnxGraph& graph, const Module& module, const std::string& path,
                          const std::string& input) {
  const auto& exporters = onnx_exporters();
  if (const auto found = exporters.find(std::type_index(typeid(module))); found != exporters.end())
    return found->second.write(graph, module, path, input);
  std::vector<std::string> known;
  for (const auto& [type, registered] : exporters) known.push_back(registered.name);
  std::sort(known.begin(), known.end());
  const std::string last = known.empty() ? "nothing" : known.back();
  if (!known.empty()) known.pop_back();
  KILN_THROW(
      "ONNX export: the module at {} is {} ({}), which kiln's ONNX exporter cannot write; it "
      "knows {}{}{} (each type registers its export: RegisterOnnxExport in export/onnx_layers.h)",
      where(path), module.describe(), type_name(module), fmt::join(known, ", "),
      known.empty() ? "" : " and ", last);
}

}  // namespace kiln
