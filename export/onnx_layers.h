// The exporter's walk over a model: each module kiln has, as ONNX nodes of opset 17 (kOnnxOpset).
// A module is known by its concrete type (dynamic_cast), and its weights are read through
// parameters() and buffers(), so layers know nothing of ONNX. Internal to export/.
#pragma once

#include <string>

#include "kiln/export/onnx_graph.h"
#include "kiln/layers/module.h"

namespace kiln {

// Adds the nodes computing `module` (at `path` in the model: "layers.3", "" for the root) on the
// value `input` and returns the name of its output value. Throws kiln::Error naming the path and
// type of a module that has no ONNX form.
std::string export_module(OnnxGraph& graph, const Module& module, const std::string& path,
                          const std::string& input);

}  // namespace kiln
