// Each layer kiln has as ONNX nodes (opset 17). Weight layouts are kiln's, which are PyTorch's and
// ONNX's: Linear W (out, in) is Gemm's B with transB = 1, Conv2d W (out, in, k, k) is Conv's W.
// Ops newer than opset 17 are written as their decomposition: GELU (Gelu is opset 20) as
// x * 0.5 * (1 + erf(x / sqrt(2))), the exact form kiln computes.
#include "kiln/export/onnx_layers.h"

#include <cxxabi.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <typeinfo>

#include "kiln/core/error.h"
#include "kiln/layers/activations.h"
#include "kiln/layers/batch_norm.h"
#include "kiln/layers/conv2d.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/flatten.h"
#include "kiln/layers/layer_norm.h"
#include "kiln/layers/linear.h"
#include "kiln/layers/pool2d.h"
#include "kiln/models/residual.h"
#include "kiln/models/sequential.h"

namespace kiln {

namespace {

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
      const std::string cubic = OnnxGraph::output(
          graph.add_node("Mul", {cube, graph.scalar(0.044715f)}, path));
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

}  // namespace

std::string export_module(OnnxGraph& graph, const Module& module, const std::string& path,
                          const std::string& input) {
  if (const auto* seq = dynamic_cast<const Sequential*>(&module)) {
    std::string x = input;
    for (std::size_t i = 0; i < seq->size(); ++i)
      x = export_module(graph, (*seq)[i], child_path(path, fmt::format("layers.{}", i)), x);
    return x;
  }
  if (const auto* residual = dynamic_cast<const Residual*>(&module)) {
    const std::string body =
        export_module(graph, residual->body(), child_path(path, "body"), input);
    return OnnxGraph::output(graph.add_node("Add", {input, body}, path));
  }
  if (const auto* l = dynamic_cast<const Linear*>(&module)) return linear(graph, *l, path, input);
  if (const auto* a = dynamic_cast<const ActivationLayer*>(&module))
    return activation(graph, a->kind(), a->alpha(), path, input);
  if (const auto* c = dynamic_cast<const Conv2d*>(&module)) return conv2d(graph, *c, path, input);
  if (const auto* p = dynamic_cast<const MaxPool2d*>(&module))
    return pool2d(graph, *p, true, path, input);
  if (const auto* p = dynamic_cast<const AvgPool2d*>(&module))
    return pool2d(graph, *p, false, path, input);
  if (const auto* bn = dynamic_cast<const BatchNorm1d*>(&module))
    return batch_norm(graph, *bn, path, input);
  if (const auto* ln = dynamic_cast<const LayerNorm*>(&module))
    return layer_norm(graph, *ln, path, input);
  if (dynamic_cast<const Dropout*>(&module) != nullptr)  // the identity in eval mode
    return OnnxGraph::output(graph.add_node("Identity", {input}, path));
  if (dynamic_cast<const Flatten*>(&module) != nullptr) {
    onnx::NodeProto& flatten = graph.add_node("Flatten", {input}, path);
    set_attribute(flatten, "axis", std::int64_t{1});  // (N, d1, d2, ...) -> (N, d1 * d2 * ...)
    return OnnxGraph::output(flatten);
  }
  KILN_THROW(
      "ONNX export: the module at {} is {} ({}), which kiln's ONNX exporter cannot write; it "
      "knows Sequential, Residual, Linear, ReLU, LeakyReLU, Sigmoid, Tanh, GELU, Conv2d, "
      "MaxPool2d, "
      "AvgPool2d, BatchNorm1d, BatchNorm2d, LayerNorm, Dropout and Flatten "
      "(export/onnx_layers.cpp)",
      where(path), module.describe(), type_name(module));
}

}  // namespace kiln
