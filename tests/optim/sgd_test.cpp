// Sgd against a double-precision loop of torch.optim.SGD's equations, written out here, over
// several steps of a fixed problem: plain, momentum, dampening, Nesterov, weight decay. Also the
// option checks, the lazily allocated buffers and the state names.
#include <gtest/gtest.h>

#include "kiln/optim/sgd.h"
#include "tests/optim/optim_testing.h"
#include "tests/support/error_testing.h"

namespace kiln {
namespace {

using testing::FixedProblem;

constexpr std::int64_t kSgdSizes[] = {1, 7, 33, 1000};
constexpr int kSgdSteps = 6;

// torch.optim.SGD for one parameter in double; the hyper-parameters are the float values the
// optimizer sees, widened.
void reference_step(const SgdOptions& o, float lr_f, int step, const std::vector<float>& grad,
                    std::vector<double>& p, std::vector<double>& buf) {
  const double lr = lr_f, momentum = o.momentum, dampening = o.dampening, wd = o.weight_decay;
  for (std::size_t i = 0; i < p.size(); ++i) {
    double g = grad[i] + wd * p[i];
    if (momentum != 0.0) {
      buf[i] = step == 0 ? g : momentum * buf[i] + (1.0 - dampening) * g;
      g = o.nesterov ? g + momentum * buf[i] : buf[i];
    }
    p[i] -= lr * g;
  }
}

void expect_matches_reference(const SgdOptions& options, float lr) {
  FixedProblem problem({std::begin(kSgdSizes), std::end(kSgdSizes)});
  std::vector<std::vector<double>> p, buf;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    p.push_back(problem.values(i));
    buf.emplace_back(p.back().size(), 0.0);
  }
  Sgd sgd(problem.parameters(), lr, options);
  for (int step = 0; step < kSgdSteps; ++step) {
    problem.set_gradients(step);
    sgd.step();
    for (std::size_t i = 0; i < problem.size(); ++i) {
      SCOPED_TRACE(::testing::Message() << "step " << step << " parameter " << i);
      reference_step(options, lr, step, problem.gradient(i, step), p[i], buf[i]);
      EXPECT_TRUE(testing::all_close(problem.value(i).to_vector<float>(), testing::to_float(p[i]),
                                     1e-5f, 1e-6f));
    }
  }
  EXPECT_EQ(sgd.steps(), kSgdSteps);
}

TEST(Sgd, PlainStepsFollowPyTorchEquations) { expect_matches_reference({}, 0.1f); }

TEST(Sgd, MomentumFollowsPyTorchEquations) { expect_matches_reference({0.9f}, 0.05f); }

TEST(Sgd, DampeningScalesAllButTheFirstGradient) { expect_matches_reference({0.9f, 0.3f}, 0.05f); }

TEST(Sgd, NesterovFollowsPyTorchEquations) {
  expect_matches_reference({0.8f, 0.0f, 0.0f, true}, 0.05f);
}

TEST(Sgd, WeightDecayAddsToTheGradient) {
  expect_matches_reference({0.0f, 0.0f, 0.01f}, 0.1f);
  expect_matches_reference({0.9f, 0.1f, 0.05f}, 0.05f);
  expect_matches_reference({0.9f, 0.0f, 0.05f, true}, 0.05f);
}

TEST(Sgd, FollowsAChangedLearningRate) {
  FixedProblem problem({33});
  Sgd sgd(problem.parameters(), 0.1f);
  auto p = problem.values(0);
  for (int step = 0; step < 3; ++step) {
    const float lr = 0.1f / static_cast<float>(step + 1);
    sgd.set_lr(lr);
    problem.set_gradients(step);
    sgd.step();
    const auto g = problem.gradient(0, step);
    for (std::size_t i = 0; i < p.size(); ++i) p[i] -= double{lr} * g[i];
  }
  EXPECT_TRUE(
      testing::all_close(problem.value(0).to_vector<float>(), testing::to_float(p), 1e-5f, 1e-6f));
}

TEST(Sgd, AllocatesMomentumBuffersOnceAtTheFirstStep) {
  FixedProblem problem({7, 33});
  Sgd sgd(problem.parameters(), 0.1f, {0.9f});
  EXPECT_TRUE(sgd.state().empty());  // as PyTorch: no state before the first step
  problem.set_gradients(0);
  sgd.step();
  const auto state = sgd.state();
  ASSERT_EQ(state.size(), 2u);
  ASSERT_TRUE(state.count("p0.momentum_buffer") && state.count("p1.momentum_buffer"));
  // After the first step the buffer is the first gradient.
  EXPECT_EQ(state.at("p1.momentum_buffer").to_vector<float>(), problem.gradient(1, 0));
  const void* first = state.at("p0.momentum_buffer").raw_data();
  problem.set_gradients(1);
  sgd.step();
  EXPECT_EQ(sgd.state().at("p0.momentum_buffer").raw_data(), first);
}

TEST(Sgd, WithoutMomentumHoldsNoState) {
  FixedProblem problem({7});
  Sgd sgd(problem.parameters(), 0.1f);
  sgd.step();
  EXPECT_TRUE(sgd.state().empty());
}

TEST(Sgd, RejectsInvalidOptionsAsPyTorchDoes) {
  FixedProblem problem({7});
  EXPECT_THROW(Sgd(problem.parameters(), 0.1f, {0.0f, 0.0f, 0.0f, true}), Error);  // no momentum
  EXPECT_THROW(Sgd(problem.parameters(), 0.1f, {0.9f, 0.1f, 0.0f, true}), Error);  // dampening
  EXPECT_THROW(Sgd(problem.parameters(), -0.1f), Error);
  EXPECT_THROW(Sgd(problem.parameters(), 0.1f, {-0.5f}), Error);
  EXPECT_THROW(Sgd(problem.parameters(), 0.1f, {0.0f, 0.0f, -1.0f}), Error);
  EXPECT_THROW(Sgd({}, 0.1f), Error);
}

TEST(Sgd, RejectsOneTensorListedUnderTwoNames) {
  const Tensor shared = Tensor::zeros(Shape{4});
  Parameter a{"encoder.weight", shared, Tensor::zeros(Shape{4})};
  Parameter b{"decoder.weight", shared, Tensor::zeros(Shape{4})};  // tied weights
  const std::string message = testing::error_message([&] {
    Sgd(std::vector<Parameter*>{&a, &b}, 0.1f);
  });
  EXPECT_NE(message.find("parameter 'decoder.weight' is the tensor of an earlier parameter"),
            std::string::npos)
      << message;
}

TEST(Sgd, DescribesItsHyperParameters) {
  FixedProblem problem({7});
  EXPECT_EQ(Sgd(problem.parameters(), 0.5f, {0.9f, 0.0f, 0.0f, true}).describe(),
            "SGD(lr=0.5, momentum=0.9, dampening=0, weight_decay=0, nesterov)");
}

}  // namespace
}  // namespace kiln
