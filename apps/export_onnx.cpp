// kiln-export-onnx: writes the model of a train checkpoint as an ONNX file (opset 17, dynamic
// batch; export/onnx_export.h). The model is rebuilt from the spec the checkpoint's run record
// holds (RunDescription::model, checkpoint/run_fingerprint.h), its weights loaded as for inference,
// then exported. A model built in code records no spec: export it from that code with
// kiln::export_onnx.
#include <CLI/CLI.hpp>

#include "apps/support/number_flags.h"

#include <cstdio>
#include <string>

#include <kiln/checkpoint/checkpoint.h>
#include <kiln/core/error.h>
#include <kiln/core/excerpt.h>
#include <kiln/core/output_file.h>
#include <kiln/export/onnx_export.h>
#include <kiln/io/safetensors.h>
#include <kiln/spec/model_spec.h>

namespace {

struct Options {
  std::string checkpoint;
  std::string out;
};

// The spec the checkpoint's run was built from: its typed run record, or for checkpoints written
// before that record (kiln-checkpoint-2), the spec state.json kept beside it.
std::string recorded_spec(const kiln::SavedCheckpoint& saved, const std::string& dir) {
  const std::string& spec =
      saved.state.run.model.empty() ? saved.state.model : saved.state.run.model;
  KILN_CHECK(!spec.empty(),
             "the checkpoint in '{}' records no model spec (its model was built in code, not from "
             "one such as lenet5 or mlp:784-128-10); export it from that code with "
             "kiln::export_onnx(model, input shape, path) (kiln/export/onnx_export.h)",
             dir);
  return spec;
}

// The model of `spec` as the checkpoint's weights shape it. One sample's shape follows from the
// spec (an MLP's first width, the image presets' 1x28x28); the class count is an MLP's last width,
// or for the image presets the width of the last parameter the checkpoint holds.
// The first dimension of the checkpoint's tensor `name`, which a `spec` model holds.
std::int32_t rows_of(const kiln::SavedCheckpoint& saved, const std::string& name,
                     const std::string& spec) {
  const std::string weights = saved.folder + "/model.safetensors";
  const kiln::SafetensorsFile file = kiln::load_safetensors(weights);
  const auto found = file.tensors.find(name);
  KILN_CHECK(found != file.tensors.end() && found->second.rank() >= 1,
             "'{}' holds no tensor '{}', which a '{}' model holds: the checkpoint is not of "
             "the model its state.json names",
             weights, name, spec);
  return static_cast<std::int32_t>(found->second.size(0));
}

kiln::Model rebuild_model(const std::string& spec, const kiln::SavedCheckpoint& saved) {
  kiln::Generator gen(0);  // the weights come from the checkpoint
  if (spec == "lenet5" || spec == "cnn") {
    const kiln::Shape sample{1, 28, 28};
    const std::string last = kiln::build_model(spec, sample, 1, gen).net->parameters().back()->name;
    return kiln::build_model(spec, sample, rows_of(saved, last, spec), gen);
  }
  if (kiln::is_gpt_spec(spec)) {
    // The vocabulary is the spec's, or else the token embedding's rows; the input, a window of
    // the whole context.
    const kiln::GptConfig c = kiln::gpt_config(spec);
    const std::int64_t vocabulary =
        c.vocabulary > 0 ? c.vocabulary : rows_of(saved, "transformer.wte.weight", spec);
    return kiln::build_model(spec, kiln::Shape{c.context}, static_cast<std::int32_t>(vocabulary),
                             gen);
  }
  KILN_CHECK(
      spec == "article" || spec.rfind("mlp:", 0) == 0,
      "the checkpoint's model '{}' is one kiln-export-onnx cannot rebuild (it knows article, "
      "lenet5, cnn, mlp:..., gpt:... and gpt2); export it from code with kiln::export_onnx",
      kiln::excerpt(spec));
  const std::vector<std::int64_t> widths = kiln::mlp_widths(spec);
  return kiln::build_model(spec, kiln::Shape{widths.front()},
                           static_cast<std::int32_t>(widths.back()), gen);
}

void export_checkpoint(const Options& o) {
  const auto saved = kiln::read_checkpoint(o.checkpoint);
  KILN_CHECK(saved.has_value(), "'{}' holds no checkpoint (train --checkpoint DIR writes one)",
             o.checkpoint);
  kiln::check_output_is_no_input(o.out, "--out", {saved->folder + "/model.safetensors"});
  const std::string spec = recorded_spec(*saved, o.checkpoint);
  kiln::Model model = rebuild_model(spec, *saved);
  kiln::load_checkpoint_weights(o.checkpoint, *model.net);
  std::vector<std::int64_t> one{1};  // an example batch: the graph's batch is dynamic
  one.insert(one.end(), model.input_shape.dims().begin(), model.input_shape.dims().end());
  kiln::export_onnx(*model.net, kiln::Shape(std::move(one)), o.out);
  std::string input = "batch";
  for (const std::int64_t d : model.input_shape.dims()) input += ", " + std::to_string(d);
  std::printf("%s (%s, %lld parameters) -> %s: ONNX opset %d, input (%s)\n", spec.c_str(),
              model.net->describe().c_str(), static_cast<long long>(model.net->parameter_count()),
              o.out.c_str(), kiln::kOnnxOpset, input.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Export the model of a train checkpoint as an ONNX file (opset 17, dynamic batch)"};
  app.add_option("--checkpoint", o.checkpoint, "checkpoint folder written by train --checkpoint")
      ->required();
  app.add_option("--out", o.out, "the ONNX file to write (e.g. model.onnx)")->required();
  if (const auto status = kiln::parse_command_line(app, argc, argv, "kiln-export-onnx"))
    return *status;
  try {
    export_checkpoint(o);
    return 0;
  } catch (const std::exception& e) {  // kiln::Error, and std::filesystem's from the folder
    std::fprintf(stderr, "kiln-export-onnx: %s\n", e.what());
    return 1;
  }
}
