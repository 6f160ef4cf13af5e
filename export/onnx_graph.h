// OnnxGraph: what the exporter's layer walk adds to an ONNX graph (onnx::GraphProto of Debian's
// libonnx), in kiln's terms: a node with its inputs and attributes, an initializer from a kiln
// tensor, a shared scalar constant. Value names come from the module's path in the model
// ("layers.3/Gemm"), so a graph viewer reads like the model's summary. Internal to export/.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

class OnnxGraph {
 public:
  explicit OnnxGraph(onnx::GraphProto& graph) : graph_(graph) {}

  // Adds a node `op` reading `inputs`, named after `path`, and returns it (for attributes); its
  // one output is output(node).
  onnx::NodeProto& add_node(const std::string& op, const std::vector<std::string>& inputs,
                            const std::string& path);
  static const std::string& output(const onnx::NodeProto& node) { return node.output(0); }

  // `value` (float32, any device) as the initializer `name`; returns the name.
  const std::string& add_initializer(const std::string& name, const Tensor& value);
  // A float32 scalar initializer, one per value however many nodes read it; returns its name.
  std::string scalar(float value);
  // An int64 constant of shape `dims` that is not a weight of the model (a shape, slice bounds),
  // one per value however many nodes read it; returns its name ("constant.N").
  std::string int64_constant(const std::vector<std::int64_t>& values,
                             const std::vector<std::int64_t>& dims);

  // The names of the initializers added with add_initializer (not the scalars).
  const std::vector<std::string>& weight_names() const { return weight_names_; }

  // The graph's input. An Embedding that reads it directly marks it token ids: it is then
  // declared int64, as ONNX GPTs take input_ids, instead of kiln's float32 ids.
  static constexpr const char* kInput = "input";
  void mark_input_as_ids() { input_is_ids_ = true; }
  bool input_is_ids() const { return input_is_ids_; }

 private:
  onnx::GraphProto& graph_;
  std::map<std::string, int> nodes_per_path_;  // to number a path's second node and later
  std::map<float, std::string> scalars_;
  std::map<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>, std::string> constants_;
  std::vector<std::string> weight_names_;
  bool input_is_ids_ = false;
};

void set_attribute(onnx::NodeProto& node, const std::string& name, std::int64_t value);
void set_attribute(onnx::NodeProto& node, const std::string& name, float value);
void set_attribute(onnx::NodeProto& node, const std::string& name,
                   const std::vector<std::int64_t>& values);

}  // namespace kiln
