// export_onnx: the model's graph between a dynamic-batch input and output, checked by libonnx's
// checker and strict shape inference before a byte is written, so a file kiln writes is one that
// ONNX tools accept.
#include "kiln/export/onnx_export.h"

#include <fcntl.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <limits>
#include <set>

#include "kiln/core/error.h"
#include "kiln/core/output_file.h"
#include "kiln/export/onnx_layers.h"

namespace kiln {

namespace {

constexpr const char* kBatch = "batch";  // the dynamic dimension's name

// A float32 value (batch, dims...) with a dynamic batch, for the graph's input and output.
void describe_value(onnx::ValueInfoProto& value, const std::string& name, const Shape& sample) {
  value.set_name(name);
  onnx::TypeProto_Tensor& tensor = *value.mutable_type()->mutable_tensor_type();
  tensor.set_elem_type(onnx::TensorProto::FLOAT);
  onnx::TensorShapeProto& shape = *tensor.mutable_shape();
  shape.add_dim()->set_dim_param(kBatch);
  for (const std::int64_t d : sample.dims()) shape.add_dim()->set_dim_value(d);
}

Shape without_batch(const Shape& shape) {
  return Shape(std::vector<std::int64_t>(shape.dims().begin() + 1, shape.dims().end()));
}

// libonnx's messages hold newlines ("\n\n==> Context: ..."); kiln's errors are one line.
std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// The checker, then shape inference that throws on any node it cannot type or whose result
// differs from the declared output (what Python's onnx.checker.check_model(full_check=True) does).
void check(const onnx::ModelProto& model) {
  try {
    onnx::checker::check_model(model);
    onnx::ModelProto inferred = model;
    onnx::shape_inference::InferShapes(
        inferred, onnx::OpSchemaRegistry::Instance(),
        onnx::ShapeInferenceOptions{/*check_type=*/true, /*error_mode=*/1});
  } catch (const std::exception& e) {
    KILN_THROW(
        "ONNX export: the graph kiln built fails ONNX's checker, a bug in kiln's exporter "
        "(export/onnx_layers.cpp) to report: {}",
        one_line(e.what()));
  }
}

// Every parameter and buffer of the model is an initializer under its own name, and nothing else
// is: the walk named them as parameters() and buffers() do.
void check_weight_names(const Module& model, const OnnxGraph& graph) {
  std::set<std::string> expected;
  for (const Parameter* p : model.parameters()) expected.insert(p->name);
  for (const Buffer* b : model.buffers()) expected.insert(b->name);
  const std::set<std::string> written(graph.weight_names().begin(), graph.weight_names().end());
  KILN_CHECK(written == expected && written.size() == graph.weight_names().size(),
             "ONNX export: the graph's {} weights are not the model's {} parameters and buffers by "
             "name, a bug in kiln's exporter (export/onnx_layers.cpp) to report",
             graph.weight_names().size(), expected.size());
}

}  // namespace

void export_onnx(const Module& model, const Shape& batch_input, const std::string& path) {
  // The model's own check of the input, with its message, before anything is built; the batch
  // given is only an example (the graph's batch is dynamic).
  KILN_CHECK(batch_input.rank() >= 1,
             "export_onnx: the input shape {} has no batch axis: give (batch, sample dims...)",
             batch_input.str());
  const Shape output = without_batch(batch_output_shape(model, batch_input, "export_onnx"));
  const Shape input = without_batch(batch_input);

  onnx::ModelProto proto;
  proto.set_ir_version(onnx::IR_VERSION);
  proto.set_producer_name("kiln");
  proto.set_doc_string(model.describe());
  onnx::OperatorSetIdProto& opset = *proto.add_opset_import();
  opset.set_domain("");
  opset.set_version(kOnnxOpset);

  onnx::GraphProto& graph = *proto.mutable_graph();
  graph.set_name("kiln");
  onnx::ValueInfoProto& input_value = *graph.add_input();
  describe_value(input_value, OnnxGraph::kInput, input);
  OnnxGraph builder(graph);
  const std::string result = export_module(builder, model, "", OnnxGraph::kInput);
  if (builder.input_is_ids())
    input_value.mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  // The output gets its public name from an Identity: the last node may be one the walk named
  // ("layers.5/Gemm"), or none at all (a model of only Dropout returns "input" itself).
  onnx::NodeProto& last = *graph.add_node();
  last.set_op_type("Identity");
  last.set_name("output");
  last.add_input(result);
  last.add_output("output");
  describe_value(*graph.add_output(), "output", output);
  check_weight_names(model, builder);
  check(proto);

  KILN_CHECK(proto.ByteSizeLong() <= static_cast<std::size_t>(std::numeric_limits<int>::max()),
             "ONNX export: the model is {} bytes, past protobuf's 2 GiB limit for one file; kiln's "
             "exporter does not write ONNX external data",
             proto.ByteSizeLong());
  const std::string bytes = proto.SerializeAsString();
  OutputFile(path, O_WRONLY | O_CREAT | O_TRUNC, "the ONNX").write_all(bytes);
}

}  // namespace kiln
