// Degenerate input refused by the library's Trainer, as the train app refuses it: an empty
// training set, an optimizer over another model's parameters, an infinite learning rate; and the
// memory estimate that refuses a model too big for the machine before anything is allocated.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kiln/core/memory_budget.h"
#include "kiln/data/data_loader.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/layers/linear.h"
#include "kiln/models/memory_estimate.h"
#include "kiln/models/presets.h"
#include "kiln/models/sequential.h"
#include "kiln/optim/adam.h"
#include "kiln/optim/sgd.h"
#include "kiln/spec/model_spec.h"
#include "kiln/training/fit_checks.h"
#include "kiln/training/trainer.h"
#include "tests/support/blobs_dataset.h"
#include "tests/support/error_testing.h"

namespace {

using kiln::testing::BlobsDataset;
using kiln::testing::error_message;

TEST(FitChecks, AnEmptyTrainingSetIsRefusedNotTrainedAtLossZero) {
  kiln::Generator gen(1);
  auto net = kiln::mlp({8, 4, 3}, gen);
  kiln::Sgd sgd(net->parameters(), 0.1f);
  kiln::CrossEntropyLoss loss;
  kiln::Trainer trainer(*net, sgd, loss);
  kiln::DataLoader empty(std::make_shared<BlobsDataset>(0), {.batch_size = 4});
  const std::string m = error_message([&] { trainer.fit(empty, 1); });
  EXPECT_NE(m.find("Trainer::fit: the training loader gives no batch"), std::string::npos) << m;
  EXPECT_NE(m.find("has 0 samples"), std::string::npos) << m;
  kiln::DataLoader short_of_a_batch(std::make_shared<BlobsDataset>(3),
                                    {.batch_size = 4, .drop_last = true});
  EXPECT_NE(error_message([&] { trainer.fit_epoch(short_of_a_batch); }).find("and drop_last"),
            std::string::npos);
}

TEST(FitChecks, AnOptimizerOverAnotherModelsParametersIsRefused) {
  kiln::Generator gen(1);
  auto net = kiln::mlp({8, 4, 3}, gen);
  auto other = kiln::mlp({8, 4, 3}, gen);
  kiln::Sgd foreign(other->parameters(), 0.1f);
  kiln::CrossEntropyLoss loss;
  const std::string m = error_message([&] { kiln::Trainer trainer(*net, foreign, loss); });
  EXPECT_NE(
      m.find(
          "updates parameter 'layers.0.weight', which is not one of the 4 parameters of the model"),
      std::string::npos)
      << m;
  // A subset of the model's own parameters (a frozen layer) is training, not a mistake.
  kiln::Sgd last_layer({net->parameters()[2], net->parameters()[3]}, 0.1f);
  EXPECT_EQ(error_message([&] { kiln::Trainer trainer(*net, last_layer, loss); }), "");
}

TEST(FitChecks, ANonFiniteLearningRateIsRefusedBeforeItReachesTheWeights) {
  kiln::Generator gen(1);
  auto net = kiln::mlp({8, 4, 3}, gen);
  kiln::Sgd sgd(net->parameters(), 0.1f);
  for (const float lr : {std::numeric_limits<float>::infinity(), std::nanf(""), -1.0f})
    EXPECT_NE(
        error_message([&] { sgd.set_lr(lr); }).find("set_lr needs a finite learning rate >= 0"),
        std::string::npos)
        << lr;
  EXPECT_EQ(sgd.lr(), 0.1f);
}

TEST(MemoryEstimate, AnMlpSpecIsCountedAsItsBuiltModelWouldBe) {
  kiln::Generator gen(1);
  const kiln::Shape sample{1, 28, 28};
  const kiln::MemoryEstimate spec =
      kiln::estimate_model_memory("mlp:784-33-7-10", sample, 10, 5, 2);
  kiln::Model built = kiln::build_model("mlp:784-33-7-10", sample, 10, gen);
  const kiln::MemoryEstimate walked = kiln::estimate_training_memory(*built.net, {5, 784}, 2);
  EXPECT_EQ(spec.parameters, built.net->parameter_count() * 4);
  EXPECT_EQ(spec.parameters, walked.parameters);
  EXPECT_EQ(spec.optimizer_state, 2 * spec.parameters);
  EXPECT_EQ(spec.activations, walked.activations);
  EXPECT_EQ(spec.activations, 4 * (5 * 784 + 5 * (4 * 33 + 4 * 7 + 2 * 10)));
}

TEST(MemoryEstimate, AModelTooBigForThisMachineIsRefusedWithTheFiguresWithoutAllocating) {
  const std::uint64_t available = kiln::available_memory(kiln::Device::cpu());
  ASSERT_GT(available, 0u) << "MemAvailable should be readable here";
  // Two square hidden layers whose weights alone (x3 with gradients and momentum) pass it.
  const auto width = static_cast<std::int64_t>(std::sqrt(static_cast<double>(available) / 4.0)) + 1;
  const std::string spec = "mlp:784-" + std::to_string(width) + "-" + std::to_string(width) + "-10";
  const kiln::MemoryStats before = kiln::memory_stats(kiln::Device::cpu());
  const std::string m =
      error_message([&] { kiln::check_model_fits(spec, {784}, 10, 64, 1, kiln::Device::cpu()); });
  EXPECT_NE(m.find("model '" + spec + "' with batches of 64 needs"), std::string::npos) << m;
  EXPECT_NE(m.find("(parameters "), std::string::npos) << m;
  EXPECT_NE(m.find("optimizer state "), std::string::npos) << m;
  EXPECT_NE(m.find("available on cpu"), std::string::npos) << m;
  EXPECT_EQ(kiln::memory_stats(kiln::Device::cpu()).peak_in_use, before.peak_in_use)
      << "nothing was allocated";
  EXPECT_NO_THROW(kiln::check_model_fits("mlp:784-32-10", {784}, 10, 64, 2, kiln::Device::cpu()));
}

TEST(MemoryEstimate, ASizePastInt64NamesTheLayer) {
  const std::string m = error_message(
      [] { kiln::estimate_model_memory("mlp:2-4611686018427387904-3", {2}, 3, 1, 0); });
  EXPECT_NE(m.find("layer 0 (2 -> 4611686018427387904) is larger than an int64 can count"),
            std::string::npos)
      << m;
}

TEST(MemoryEstimate, TheTrainerCountsTheOptimizerStateStillToAllocate) {
  kiln::Generator gen(1);
  auto net = kiln::mlp({8, 4, 3}, gen);
  kiln::Adam adam(net->parameters());
  kiln::Sgd plain(net->parameters(), 0.1f);
  kiln::Sgd momentum(net->parameters(), 0.1f, {.momentum = 0.9f});
  EXPECT_EQ(kiln::optimizer_state_to_allocate(adam), 2);
  EXPECT_EQ(kiln::optimizer_state_to_allocate(plain), 0);
  EXPECT_EQ(kiln::optimizer_state_to_allocate(momentum), 1);
  kiln::DataLoader data(std::make_shared<BlobsDataset>(20), {.batch_size = 4});
  EXPECT_NO_THROW(kiln::check_training_fits_memory(*net, adam, data, {}, kiln::Device::cpu()));
}

// A layer of a user's that declares a (N, 2^40) output: its activations take terabytes.
class Upsampler : public kiln::Module {
 public:
  std::string describe() const override { return "Upsampler"; }
  kiln::Shape output_shape(const kiln::Shape& input) const override {
    return {input[0], std::int64_t{1} << 40};
  }

 protected:
  kiln::Tensor forward_impl(const kiln::Tensor&) override {
    ADD_FAILURE() << "forward ran: the estimate should have refused first";
    return {};
  }
  kiln::Tensor backward_impl(const kiln::Tensor& dy) override { return dy; }
};

TEST(MemoryEstimate, TheTrainerRefusesAModelTooBigBeforeTheFirstStep) {
  kiln::Generator gen(1);
  kiln::Sequential net;
  net.emplace<kiln::Linear>(8, 4, gen).emplace<Upsampler>();
  kiln::Sgd sgd(net.parameters(), 0.1f);
  kiln::CrossEntropyLoss loss;
  kiln::Trainer trainer(net, sgd, loss);
  kiln::DataLoader data(std::make_shared<BlobsDataset>(20), {.batch_size = 4});
  const std::string m = error_message([&] { trainer.fit(data, 1); });
  EXPECT_NE(m.find("the model Sequential(2 layers) needs "), std::string::npos) << m;
  EXPECT_NE(m.find("to train, "), std::string::npos) << m;
  EXPECT_NE(m.find("not yet allocated, more than the"), std::string::npos) << m;
  EXPECT_NE(m.find("DataLoaderOptions::batch_size"), std::string::npos) << m;
  EXPECT_EQ(trainer.state().global_step, 0);
}

TEST(MemoryEstimate, TheCheckRefusesWhatPassesTheAvailableBytes) {
  kiln::MemoryEstimate e{.parameters = 3 << 20,
                         .gradients = 3 << 20,
                         .optimizer_state = 6 << 20,
                         .activations = 1 << 20};
  EXPECT_NO_THROW(
      kiln::check_memory_fits(e, e.total(), 13 << 20, kiln::Device::cpu(), "net", "shrink it"));
  const std::string m = error_message([&] {
    kiln::check_memory_fits(e, e.optimizer_state + e.activations, 5 << 20, kiln::Device::cpu(),
                            "net", "shrink it");
  });
  EXPECT_NE(
      m.find(
          "net needs 13.0 MiB (parameters 3.0 MiB, gradients 3.0 MiB, optimizer state 6.0 MiB, "
          "activations 1.0 MiB) to train, 7.0 MiB of it not yet allocated, more than the 5.0 MiB "
          "available on cpu; shrink it"),
      std::string::npos)
      << m;
}

}  // namespace
