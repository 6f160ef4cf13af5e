// kiln::Trainer as one rank of a data-parallel job (mpirun -np 2, label mpi), through the library
// API: a model of the test's own with a residual block nested in a Sequential, each rank loading
// its shard of every batch, ends with the weights this process reaches alone at the global batch.
#include <gtest/gtest.h>

#include "kiln/distributed/mpi_communicator.h"
#include "kiln/layers/activations.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/layers/linear.h"
#include "kiln/models/residual.h"
#include "kiln/models/sequential.h"
#include "kiln/optim/sgd.h"
#include "kiln/training/trainer.h"
#include "tests/support/blobs_dataset.h"
#include "tests/support/tensor_testing.h"

namespace {

constexpr std::int64_t kGlobalBatch = 48;

std::shared_ptr<kiln::Sequential> residual_model() {
  kiln::Generator gen(21);
  auto body = std::make_shared<kiln::Sequential>();
  body->emplace<kiln::Linear>(16, 16, gen).emplace<kiln::ReLU>();
  auto net = std::make_shared<kiln::Sequential>();
  net->emplace<kiln::Linear>(8, 16, gen).emplace<kiln::ReLU>();
  net->emplace<kiln::Residual>(body).emplace<kiln::Linear>(16, 3, gen);
  return net;
}

// Trains two epochs as this rank of `comm` (or alone when null); returns the final weights and
// the last epoch's report.
std::pair<std::vector<kiln::Tensor>, kiln::EpochReport> train(kiln::Communicator* comm) {
  const int world = comm ? comm->world_size() : 1;
  const std::shared_ptr<kiln::Sequential> net = residual_model();
  kiln::Sgd optimizer(net->parameters(), 0.1f, {.momentum = 0.9f});
  kiln::CrossEntropyLoss loss;
  kiln::DataLoaderOptions lo{.batch_size = kGlobalBatch / world, .shuffle = true, .seed = 9};
  lo.rank = comm ? comm->rank() : 0;
  lo.world_size = world;
  kiln::DataLoader train(std::make_shared<kiln::testing::BlobsDataset>(480), lo);
  kiln::Trainer trainer(*net, optimizer, loss, {.comm = comm});
  const kiln::FitResult result = trainer.fit(train, 2);
  std::vector<kiln::Tensor> weights;
  for (const kiln::Parameter* p : net->parameters()) weights.push_back(p->value.clone());
  return {weights, result.epochs.back()};
}

}  // namespace

TEST(TrainerApiDataParallel, RanksOfAUserModelEndWithTheWeightsOfOneProcessAtTheGlobalBatch) {
  const auto [alone, alone_report] = train(nullptr);
  kiln::MpiCommunicator comm({.timeout_s = 120});
  ASSERT_GE(comm.world_size(), 2);
  const auto [together, report] = train(&comm);
  EXPECT_EQ(report.samples, alone_report.samples) << "the global batch is split, not multiplied";
  EXPECT_NEAR(report.train_loss, alone_report.train_loss, 1e-4);
  EXPECT_GT(report.stages[kiln::Stage::allreduce], 0.0);
  ASSERT_EQ(alone.size(), together.size());
  for (std::size_t i = 0; i < alone.size(); ++i)
    EXPECT_TRUE(kiln::testing::all_close(together[i], alone[i], 1e-4f, 1e-5f)) << "parameter " << i;
}
