// The exporter's walk over a model: each module type as ONNX nodes of opset 17 (kOnnxOpset).
// A module type registers how it is written (RegisterOnnxExport, a static object beside the
// function that writes it, as kernels register in core/op_table.h), and its weights are read
// through parameters() and buffers(), so layers know nothing of ONNX and a new layer edits no
// central list. Internal to export/.
#pragma once

#include <functional>
#include <string>
#include <typeindex>
#include <typeinfo>

#include "kiln/export/onnx_graph.h"
#include "kiln/layers/module.h"

namespace kiln {

// Adds the nodes computing `module` (at `path` in the model: "layers.3", "" for the root) on the
// value `input` and returns the name of its output value. Throws kiln::Error naming the path and
// type of a module whose type registered no export.
std::string export_module(OnnxGraph& graph, const Module& module, const std::string& path,
                          const std::string& input);

// Writes one module, as export_module does.
using OnnxExporter = std::function<std::string(OnnxGraph&, const Module&, const std::string& path,
                                               const std::string& input)>;

namespace detail {
void register_onnx_export(std::type_index type, std::string name, OnnxExporter write);
}  // namespace detail

// A static object of this type registers `write` for modules whose type is exactly Layer (a type
// derived from it registers its own: it may compute something else), named `name` in the message
// about a module without an export. `write` takes (OnnxGraph&, const Layer&, path, input).
template <typename Layer> struct RegisterOnnxExport {
  template <typename Write> RegisterOnnxExport(const char* name, Write write) {
    detail::register_onnx_export(std::type_index(typeid(Layer)), name,
                                 [write](OnnxGraph& graph, const Module& module,
                                         const std::string& path, const std::string& input) {
                                   return write(graph, static_cast<const Layer&>(module), path,
                                                input);  // its exact type
                                 });
  }
};

}  // namespace kiln
