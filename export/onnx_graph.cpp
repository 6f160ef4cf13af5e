// OnnxGraph's nodes, initializers and attributes over libonnx's protobuf classes.
#include "kiln/export/onnx_graph.h"

#include "kiln/core/error.h"

namespace kiln {

onnx::NodeProto& OnnxGraph::add_node(const std::string& op, const std::vector<std::string>& inputs,
                                     const std::string& path) {
  std::string name = path.empty() ? op : path + "/" + op;
  const int seen = nodes_per_path_[name]++;
  if (seen > 0) name += fmt::format("_{}", seen + 1);
  onnx::NodeProto& node = *graph_.add_node();
  node.set_op_type(op);
  node.set_name(name);
  for (const std::string& input : inputs) node.add_input(input);
  node.add_output(name);
  return node;
}

const std::string& OnnxGraph::add_initializer(const std::string& name, const Tensor& value) {
  KILN_CHECK(value.dtype() == DType::f32, "ONNX export: tensor '{}' is {}, expected float32", name,
             dtype_name(value.dtype()));
  const Tensor host = value.to(Device::cpu());
  onnx::TensorProto& t = *graph_.add_initializer();
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (const std::int64_t d : host.shape().dims()) t.add_dims(d);
  // raw_data is little-endian float32, kiln's layout on every machine it builds for.
  t.set_raw_data(static_cast<const char*>(host.raw_data()), host.nbytes());
  weight_names_.push_back(name);
  return t.name();
}

std::string OnnxGraph::scalar(float value) {
  const auto found = scalars_.find(value);
  if (found != scalars_.end()) return found->second;
  const std::string name = fmt::format("scalar.{}", value);
  onnx::TensorProto& t = *graph_.add_initializer();
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_float_data(value);  // no dims: a scalar, which the elementwise ops broadcast
  scalars_.emplace(value, name);
  return name;
}

std::string OnnxGraph::int64_constant(const std::vector<std::int64_t>& values,
                                      const std::vector<std::int64_t>& dims) {
  const auto key = std::make_pair(values, dims);
  const auto found = constants_.find(key);
  if (found != constants_.end()) return found->second;
  const std::string name = fmt::format("constant.{}", constants_.size());
  onnx::TensorProto& t = *graph_.add_initializer();
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::INT64);
  for (const std::int64_t d : dims) t.add_dims(d);
  for (const std::int64_t v : values) t.add_int64_data(v);
  constants_.emplace(key, name);
  return name;
}

void set_attribute(onnx::NodeProto& node, const std::string& name, std::int64_t value) {
  onnx::AttributeProto& a = *node.add_attribute();
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(value);
}

void set_attribute(onnx::NodeProto& node, const std::string& name, float value) {
  onnx::AttributeProto& a = *node.add_attribute();
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(value);
}

void set_attribute(onnx::NodeProto& node, const std::string& name,
                   const std::vector<std::int64_t>& values) {
  onnx::AttributeProto& a = *node.add_attribute();
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (const std::int64_t v : values) a.add_ints(v);
}

}  // namespace kiln
