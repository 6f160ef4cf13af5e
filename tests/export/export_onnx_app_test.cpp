// kiln-export-onnx end to end: a checkpoint that train wrote and one of LeNet-5 with 7 classes
// (the class count read from its weights) export to files ONNX Runtime runs as the checkpoint's
// model predicts; a checkpoint without a spec, a folder without a checkpoint and a broken
// state.json each fail with one line and exit status 1.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "apps/train/train_options.h"
#include "kiln/kiln.h"
#include "kiln/spec/model_spec.h"
#include "kiln/spec/optimizer_spec.h"
#include "tests/apps/app_testing.h"
#include "tests/export/onnx_testing.h"
#include "tests/support/train_testing.h"

namespace {

using kiln::testing::expect_one_line_error;
using kiln::testing::fresh_checkpoint_dir;

kiln::testing::Outcome export_onnx_app(const std::string& args) {
  return kiln::testing::run(KILN_EXPORT_ONNX_BIN, args);
}

// A checkpoint of `model` as a run of `spec` would save it ("" records none, as a model built in
// code does).
void save_as_run_of(const std::string& dir, kiln::Module& model, const std::string& spec) {
  kiln::CheckpointFolder folder(dir, 1);
  const auto optimizer = kiln::make_optimizer("sgd", model.parameters(), 0.1f, {});
  kiln::TrainingState state;
  state.model = spec;
  state.run.model = spec;
  state.batch_size = 4;
  kiln::save_checkpoint(folder, model, *optimizer, state);
}

// ONNX Runtime on the exported file against the checkpoint's model, rebuilt and loaded in-process.
// ids > 0: the inputs are token ids in [0, ids).
void expect_onnx_runtime_matches(const std::string& onnx, const std::string& checkpoint,
                                 kiln::Model model, std::int64_t ids = 0) {
  if (kiln::testing::test_python().empty()) GTEST_SKIP() << kiln::testing::kNoPython;
  kiln::load_checkpoint_weights(checkpoint, *model.net);
  kiln::Generator gen(5);
  std::vector<std::int64_t> dims{3};
  dims.insert(dims.end(), model.input_shape.dims().begin(), model.input_shape.dims().end());
  kiln::Tensor x = kiln::Tensor::empty(kiln::Shape(dims));
  kiln::normal_(x, 0.0f, 1.0f, gen);
  if (ids > 0) {
    kiln::uniform_(x, 0.0f, static_cast<float>(ids), gen);
    float* id = x.data<float>();
    for (std::int64_t i = 0; i < x.numel(); ++i) id[i] = std::floor(id[i]);
  }
  const auto run = kiln::testing::run_onnx_runtime(onnx, x, model.net->predict(x));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  if (run.exit_code == 0) std::cout << run.output;  // a failure prints it above
}

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "kiln_export_app_" + std::to_string(getpid()) + "_" + name;
}

TEST(ExportOnnxApp, ExportsTheModelOfACheckpointTrainWrote) {
  kiln::TrainAppOptions o = kiln::testing::small_article_run("mlp:784-24-10", 256, 64, 1);
  o.checkpoint_dir = fresh_checkpoint_dir("export_onnx_mlp");
  std::ostringstream log;
  kiln::train(o, log);
  const std::string onnx = temp_path("mlp.onnx");
  const auto outcome = export_onnx_app("--checkpoint " + o.checkpoint_dir + " --out " + onnx);
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_NE(outcome.out.find("mlp:784-24-10"), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("ONNX opset 17, input (batch, 784)"), std::string::npos)
      << outcome.out;
  kiln::Generator gen(0);
  expect_onnx_runtime_matches(onnx, o.checkpoint_dir,
                              kiln::build_model(o.model, kiln::Shape{784}, 10, gen));
}

TEST(ExportOnnxApp, ReadsAnImagePresetsClassCountFromItsWeights) {
  kiln::Generator gen(9);
  kiln::Model lenet = kiln::build_model("lenet5", kiln::Shape{1, 28, 28}, 7, gen);
  const std::string dir = fresh_checkpoint_dir("export_onnx_lenet5");
  save_as_run_of(dir, *lenet.net, "lenet5");
  const std::string onnx = temp_path("lenet5.onnx");
  const auto outcome = export_onnx_app("--checkpoint " + dir + " --out " + onnx);
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  kiln::Generator other(1);
  expect_onnx_runtime_matches(onnx, dir,
                              kiln::build_model("lenet5", kiln::Shape{1, 28, 28}, 7, other));
}

TEST(ExportOnnxApp, ReadsAGptsVocabularyFromItsWeightsAndTakesItsWholeContext) {
  kiln::Generator gen(4);
  kiln::Model gpt = kiln::build_model("gpt:1-2-16-8", kiln::Shape{8}, 13, gen);
  const std::string dir = fresh_checkpoint_dir("export_onnx_gpt");
  save_as_run_of(dir, *gpt.net, "gpt:1-2-16-8");
  const std::string onnx = temp_path("gpt.onnx");
  const auto outcome = export_onnx_app("--checkpoint " + dir + " --out " + onnx);
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_NE(outcome.out.find("ONNX opset 17, input (batch, 8)"), std::string::npos) << outcome.out;
  kiln::Generator other(2);
  expect_onnx_runtime_matches(onnx, dir,
                              kiln::build_model("gpt:1-2-16-8", kiln::Shape{8}, 13, other), 13);
}

TEST(ExportOnnxApp, ACheckpointWithoutASpecPointsAtTheLibraryCall) {
  kiln::Generator gen(2);
  kiln::Sequential net;
  net.emplace<kiln::Linear>(5, 3, gen).emplace<kiln::Tanh>();
  const std::string dir = fresh_checkpoint_dir("export_onnx_no_spec");
  save_as_run_of(dir, net, "");
  const std::string onnx = temp_path("none.onnx");
  expect_one_line_error(export_onnx_app("--checkpoint " + dir + " --out " + onnx),
                        "kiln-export-onnx", "records no model spec (its model was built in code");
  EXPECT_NE(export_onnx_app("--checkpoint " + dir + " --out " + onnx)
                .err.find("kiln::export_onnx(model, input shape, path)"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(onnx));
}

TEST(ExportOnnxApp, AFolderWithoutACheckpointOrWithABrokenOneIsOneLine) {
  const std::string empty = fresh_checkpoint_dir("export_onnx_empty");
  std::filesystem::create_directories(empty);
  const std::string onnx = temp_path("bad.onnx");
  expect_one_line_error(export_onnx_app("--checkpoint " + empty + " --out " + onnx),
                        "kiln-export-onnx", "holds no checkpoint");

  kiln::Generator gen(3);
  kiln::Model mlp = kiln::build_model("mlp:5-3", kiln::Shape{5}, 3, gen);
  const std::string broken = fresh_checkpoint_dir("export_onnx_broken");
  save_as_run_of(broken, *mlp.net, "mlp:5-3");
  std::ofstream(broken + "/latest/state.json") << "{\"epoch\": ";
  expect_one_line_error(export_onnx_app("--checkpoint " + broken + " --out " + onnx),
                        "kiln-export-onnx", "state.json");

  const std::string other = fresh_checkpoint_dir("export_onnx_other_model");
  save_as_run_of(other, *mlp.net, "mlp:5-4-3");  // weights of another model than the spec says
  expect_one_line_error(export_onnx_app("--checkpoint " + other + " --out " + onnx),
                        "kiln-export-onnx", "model.safetensors");
  EXPECT_FALSE(std::filesystem::exists(onnx));
}

}  // namespace
