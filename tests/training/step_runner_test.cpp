// The graphed step's optimizer extension: an optimizer of one's own derives from Optimizer alone,
// with nothing for CUDA graphs to implement; it trains eagerly, and a graphed step refuses it
// naming TrainerOptions::cuda_graph and what to do.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "kiln/distributed/communicator.h"
#include "kiln/layers/linear.h"
#include "kiln/layers/mse_loss.h"
#include "kiln/optim/lr_schedule.h"
#include "kiln/training/step_runner.h"
#include "tests/support/error_testing.h"
#include "tests/support/tensor_testing.h"

namespace kiln {
namespace {

// p -= lr * g on the host, nothing else.
class PlainSgd final : public Optimizer {
 public:
  using Optimizer::Optimizer;
  std::map<std::string, Tensor> state() const override { return {}; }
  void load_state(const std::map<std::string, Tensor>&, std::int64_t) override {}
  std::string describe() const override { return "PlainSgd"; }

 protected:
  void update() override {
    for (std::size_t i = 0; i < values_.size(); ++i) {
      float* p = values_[i]->data<float>();
      const float* g = grads_[i]->data<float>();
      for (std::int64_t k = 0; k < values_[i]->numel(); ++k) p[k] -= lr_ * g[k];
    }
  }
};

TEST(StepRunner, AnOptimizerOfOnesOwnTrainsEagerlyAndAGraphedStepRefusesIt) {
  Generator gen(21);
  Linear model(5, 3, gen);
  PlainSgd optimizer(model.parameters(), 0.1f);
  EXPECT_EQ(as_recordable(optimizer), nullptr);
  MSELoss loss;
  const auto comm = make_single_process_communicator(Device::cpu());
  const Batch batch{testing::random_tensor({7, 5}, 22), testing::random_tensor({7, 3}, 23)};
  const auto schedule = constant_lr(0.1f);

  StepRunner eager(model, optimizer, loss, *comm, Device::cpu(), {});
  const std::vector<float> before = model.weight().value.to_vector<float>();
  eager.step(batch, *schedule, 0, 1);
  EXPECT_EQ(optimizer.steps(), 1);
  EXPECT_NE(model.weight().value.to_vector<float>(), before) << "the eager step updated nothing";

  StepRunner graphed(model, optimizer, loss, *comm, Device::cpu(), {.cuda_graph = true});
  const std::string message = testing::error_message([&] { graphed.step(batch, *schedule, 1, 1); });
  EXPECT_NE(message.find("TrainerOptions::cuda_graph records the optimizer's update, and PlainSgd "
                         "is not a RecordableOptimizer"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace kiln
