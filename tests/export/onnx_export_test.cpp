// The ONNX exporter: its files pass libonnx's checker and state opset 17 with a dynamic batch, and
// ONNX Runtime computes from them what Module::predict does (within 1e-5) on the article MLP,
// LeNet-5, the cnn preset, a Residual model that holds every other layer kiln has and a GPT. A
// module the exporter does not know, and an input the model does not take, are one clear error.
#include "kiln/export/onnx_export.h"

#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>

#include "kiln/kiln.h"
#include "kiln/models/memory_estimate.h"
#include "kiln/spec/model_spec.h"
#include "tests/export/onnx_testing.h"
#include "tests/support/error_testing.h"

namespace {

// (1, sample...): export_onnx takes a batch first, as every shape argument of kiln's API.
kiln::Shape one_sample(const kiln::Shape& sample) {
  std::vector<std::int64_t> dims{1};
  dims.insert(dims.end(), sample.dims().begin(), sample.dims().end());
  return kiln::Shape(std::move(dims));
}

using kiln::testing::error_message;

struct ExportCase {
  std::string name;
  std::function<std::shared_ptr<kiln::Module>(kiln::Generator&)> build;
  kiln::Shape sample;
  std::int64_t ids = 0;  // > 0: inputs are token ids in [0, ids) (float32), not normal values
  friend void PrintTo(const ExportCase& c, std::ostream* out) { *out << c.name; }
};

// Norm layers start as identities (weight 1, bias 0, running mean 0 and variance 1); other values
// make their ONNX forms compute something.
void vary_norm_weights(kiln::Module& model, kiln::Generator& gen) {
  for (kiln::Buffer* b : model.buffers()) {
    const bool variance = b->name.ends_with("running_var");
    kiln::uniform_(b->value, variance ? 0.5f : -0.5f, variance ? 1.5f : 0.5f, gen);
  }
  for (kiln::Parameter* p : model.parameters())
    if (p->value.rank() == 1)
      kiln::uniform_(p->value, 0.5f, 1.5f, gen);  // biases too: any values do
}

// Every layer kiln has beyond the presets': Residual (of a Sequential, twice), Conv2d without bias,
// BatchNorm2d, LeakyReLU, AvgPool2d with padding, Flatten, a Linear with its own ReLU and one
// without bias, LayerNorm, GELU (exact and tanh), Tanh, BatchNorm1d, Sigmoid, Dropout. For (1, 14,
// 14) samples.
std::shared_ptr<kiln::Module> residual_model(kiln::Generator& gen) {
  auto conv_block = std::make_shared<kiln::Sequential>();
  conv_block
      ->emplace<kiln::Conv2d>(4, 4, 3, gen, kiln::Conv2dOptions{.stride = 1, .padding = 1}, false)
      .emplace<kiln::BatchNorm2d>(4)
      .emplace<kiln::LeakyReLU>(0.2f);
  auto dense_block = std::make_shared<kiln::Sequential>();
  dense_block->emplace<kiln::Linear>(16, 16, gen, false)
      .emplace<kiln::GELU>()
      .emplace<kiln::Linear>(16, 16, gen)
      .emplace<kiln::GELU>(kiln::GeluApproximate::tanh)
      .emplace<kiln::Tanh>();
  auto net = std::make_shared<kiln::Sequential>();
  net->emplace<kiln::Conv2d>(1, 4, 3, gen, kiln::Conv2dOptions{.stride = 1, .padding = 1})
      .emplace<kiln::BatchNorm2d>(4)
      .emplace<kiln::Residual>(conv_block)
      .emplace<kiln::AvgPool2d>(3, 2, 1)
      .emplace<kiln::Flatten>()
      .emplace<kiln::Linear>(4 * 7 * 7, 16, gen,
                             kiln::LinearOptions{.activation = kiln::Activation::relu})
      .emplace<kiln::LayerNorm>(16)
      .emplace<kiln::Residual>(dense_block)
      .emplace<kiln::BatchNorm1d>(16)
      .emplace<kiln::Sigmoid>()
      .emplace<kiln::Dropout>(0.3f)
      .emplace<kiln::Linear>(16, 3, gen);
  return net;
}

const std::vector<ExportCase>& export_cases() {
  static const std::vector<ExportCase> cases{
      {"ArticleMlp", [](kiln::Generator& gen) { return kiln::mlp(kiln::article_widths(), gen); },
       kiln::Shape{784}},
      {"LeNet5", [](kiln::Generator& gen) { return kiln::lenet5(10, gen); },
       kiln::Shape{1, 28, 28}},
      {"Cnn", [](kiln::Generator& gen) { return kiln::cnn(10, gen); }, kiln::Shape{1, 28, 28}},
      {"ResidualWithEveryLayer", residual_model, kiln::Shape{1, 14, 14}},
      // Embedding, position rows, causal attention, GELU tanh, LayerNorm and the tied head; 6 of
      // its 8 positions, so the positions too are read from the input.
      {"Gpt",
       [](kiln::Generator& gen) {
         return kiln::build_model("gpt:2-2-16-8", kiln::Shape{8}, 11, gen).net;
       },
       kiln::Shape{6}, 11},
  };
  return cases;
}

class OnnxExport : public ::testing::TestWithParam<ExportCase> {
 protected:
  void SetUp() override {
    kiln::Generator gen(7);
    model_ = GetParam().build(gen);
    vary_norm_weights(*model_, gen);
    path_ = ::testing::TempDir() + "kiln_onnx_" + GetParam().name + "_" + std::to_string(getpid()) +
            ".onnx";
    kiln::export_onnx(*model_, one_sample(GetParam().sample), path_);
  }
  void TearDown() override {
    const std::string stem = path_.substr(0, path_.rfind('.'));
    for (const char* suffix : {".onnx", "_input.npy", "_expected.npy", "_onnxruntime.txt"})
      std::filesystem::remove(stem + suffix);
  }
  onnx::ModelProto read_model() const {
    std::ifstream in(path_, std::ios::binary);
    onnx::ModelProto model;
    EXPECT_TRUE(model.ParseFromIstream(&in)) << path_;
    return model;
  }

  std::shared_ptr<kiln::Module> model_;
  std::string path_;
};

TEST_P(OnnxExport, WritesAFileTheOnnxCheckerAccepts) {
  EXPECT_NO_THROW(onnx::checker::check_model(path_));
  EXPECT_NO_THROW(onnx::checker::check_model(read_model()));
}

TEST_P(OnnxExport, StatesOpset17ADynamicBatchAndTheModelsWeightNames) {
  const onnx::ModelProto model = read_model();
  ASSERT_EQ(model.opset_import_size(), 1);
  EXPECT_EQ(model.opset_import(0).domain(), "");
  EXPECT_EQ(model.opset_import(0).version(), 17);
  EXPECT_EQ(kiln::kOnnxOpset, 17);
  for (const onnx::ValueInfoProto& value : {model.graph().input(0), model.graph().output(0)}) {
    const onnx::TensorShapeProto& shape = value.type().tensor_type().shape();
    ASSERT_GE(shape.dim_size(), 2) << value.name();
    EXPECT_EQ(shape.dim(0).dim_param(), "batch") << value.name();
    EXPECT_FALSE(shape.dim(0).has_dim_value()) << value.name();
  }
  // Token ids are int64, as ONNX GPTs take input_ids; other inputs float32.
  EXPECT_EQ(model.graph().input(0).type().tensor_type().elem_type(),
            GetParam().ids > 0 ? onnx::TensorProto::INT64 : onnx::TensorProto::FLOAT);
  EXPECT_EQ(model.graph().output(0).type().tensor_type().elem_type(), onnx::TensorProto::FLOAT);
  const onnx::TensorShapeProto& input = model.graph().input(0).type().tensor_type().shape();
  ASSERT_EQ(input.dim_size(), GetParam().sample.rank() + 1);
  for (int i = 0; i < GetParam().sample.rank(); ++i)
    EXPECT_EQ(input.dim(i + 1).dim_value(), GetParam().sample[i]);
  std::set<std::string> initializers;
  for (const onnx::TensorProto& t : model.graph().initializer())
    if (!t.name().starts_with("scalar.") && !t.name().starts_with("constant."))
      initializers.insert(t.name());
  std::set<std::string> weights;
  for (const kiln::Parameter* p : std::as_const(*model_).parameters()) weights.insert(p->name);
  for (const kiln::Buffer* b : std::as_const(*model_).buffers()) weights.insert(b->name);
  EXPECT_EQ(initializers, weights);
}

TEST_P(OnnxExport, RunsInOnnxRuntimeAsModulePredictDoes) {
  if (kiln::testing::test_python().empty()) GTEST_SKIP() << kiln::testing::kNoPython;
  kiln::Generator gen(11);
  std::vector<std::int64_t> dims{5};
  dims.insert(dims.end(), GetParam().sample.dims().begin(), GetParam().sample.dims().end());
  kiln::Tensor x = kiln::Tensor::empty(kiln::Shape(dims));
  kiln::normal_(x, 0.0f, 1.0f, gen);
  if (GetParam().ids > 0) {
    kiln::uniform_(x, 0.0f, static_cast<float>(GetParam().ids), gen);
    float* id = x.data<float>();
    for (std::int64_t i = 0; i < x.numel(); ++i) id[i] = std::floor(id[i]);
  }
  const kiln::Tensor expected = model_->predict(x);
  const auto run = kiln::testing::run_onnx_runtime(path_, x, expected, 1e-5);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("batch of 1: max relative difference"), std::string::npos)
      << run.output;
  if (run.exit_code == 0) std::cout << run.output;  // a failure prints it above
}

INSTANTIATE_TEST_SUITE_P(Models, OnnxExport, ::testing::ValuesIn(export_cases()),
                         [](const auto& info) { return info.param.name; });

// A layer of a user's own, which kiln's exporter cannot know.
struct Doubling : kiln::Module {
  std::string describe() const override { return "Doubling"; }
  kiln::Shape output_shape(const kiln::Shape& input) const override { return input; }
  kiln::Tensor forward_impl(const kiln::Tensor& x) override { return x; }
  kiln::Tensor backward_impl(const kiln::Tensor& dy) override { return dy; }
};

TEST(OnnxExportErrors, AModuleWithoutAnOnnxFormIsNamedByPathAndType) {
  kiln::Generator gen(1);
  auto body = std::make_shared<kiln::Sequential>();
  body->emplace<kiln::Linear>(4, 4, gen).emplace<Doubling>();
  kiln::Sequential net;
  net.emplace<kiln::Linear>(3, 4, gen).emplace<kiln::Residual>(body).emplace<kiln::Linear>(4, 2,
                                                                                           gen);
  const std::string path = ::testing::TempDir() + "kiln_onnx_unknown.onnx";
  std::filesystem::remove(path);
  const std::string message = error_message([&] {
    kiln::export_onnx(net, kiln::Shape{1, 3}, path);
  });
  EXPECT_NE(message.find("'layers.1.body.layers.1' is Doubling ((anonymous namespace)::Doubling)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("cannot write"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(path)) << "nothing is written";
  Doubling alone;
  EXPECT_NE(error_message([&] {
              kiln::export_onnx(alone, kiln::Shape{1, 3}, path);
            }).find("the module at the root of the model is Doubling"),
            std::string::npos);
}

TEST(OnnxExportErrors, AnInputTheModelDoesNotTakeIsTheModelsOwnError) {
  kiln::Generator gen(1);
  const auto net = kiln::mlp({6, 4, 2}, gen);
  const std::string message = error_message([&] {
    kiln::export_onnx(*net, kiln::Shape{1, 5}, ::testing::TempDir() + "kiln_onnx_bad_input.onnx");
  });
  EXPECT_NE(message.find("Linear(6 -> 4): expected an input of shape (batch, 6), found (1, 5)"),
            std::string::npos)
      << message;
}

// One convention for the batch axis: export_onnx, Sequential::summary and
// estimate_training_memory all take (batch, sample...), and each names a shape given without
// its batch axis as such, with the shape to give.
TEST(BatchAxis, EveryShapeArgumentTakesTheBatchFirstAndNamesAShapeWithoutIt) {
  kiln::Generator gen(3);
  const auto net = kiln::mlp({2, 5, 3}, gen);
  const std::string path = ::testing::TempDir() + "kiln_onnx_batch_axis.onnx";
  kiln::export_onnx(*net, kiln::Shape{1, 2}, path);  // PyTorch's torch.onnx.export convention
  EXPECT_TRUE(std::filesystem::exists(path));
  std::filesystem::remove(path);
  EXPECT_NE(net->summary({7, 2}).find("(7, 3)"), std::string::npos);
  EXPECT_GT(kiln::estimate_training_memory(*net, {7, 2}, 0).activations, 0);
  const std::string exported =
      error_message([&] { kiln::export_onnx(*net, kiln::Shape{2}, path); });
  EXPECT_NE(exported.find("export_onnx: the shape (2,) has no batch axis"), std::string::npos)
      << exported;
  EXPECT_NE(exported.find("give (1, 2)"), std::string::npos) << exported;
  EXPECT_FALSE(std::filesystem::exists(path));
  const std::string summary = error_message([&] { (void)net->summary({2}); });
  EXPECT_NE(summary.find("Sequential::summary: the shape (2,) has no batch axis"),
            std::string::npos)
      << summary;
  const std::string estimate =
      error_message([&] { (void)kiln::estimate_training_memory(*net, {2}, 0); });
  EXPECT_NE(estimate.find("estimate_training_memory: the shape (2,) has no batch axis"),
            std::string::npos)
      << estimate;
  // A shape that is wrong with or without a batch axis keeps the model's own message.
  const std::string wrong = error_message([&] { (void)net->summary({1, 9}); });
  EXPECT_NE(wrong.find("expected an input of shape (batch, 2), found (1, 9)"), std::string::npos)
      << wrong;
}

TEST(OnnxExportErrors, AnOutputPathThatIsALinkIsRefused) {
  kiln::Generator gen(1);
  const auto net = kiln::mlp({6, 2}, gen);
  const std::string target = ::testing::TempDir() + "kiln_onnx_link_target";
  const std::string link = ::testing::TempDir() + "kiln_onnx_link.onnx";
  std::filesystem::remove(link);
  std::ofstream(target) << "keep";
  std::filesystem::create_symlink(target, link);
  const std::string message = error_message([&] {
    kiln::export_onnx(*net, kiln::Shape{1, 6}, link);
  });
  EXPECT_NE(message.find("the ONNX file '" + link + "'"), std::string::npos) << message;
  std::ifstream in(target);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "keep");
  std::filesystem::remove(link);
  std::filesystem::remove(target);
}

}  // namespace
