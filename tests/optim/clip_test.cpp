// clip_grad_norm and clip_grad_value against naive loops: the total norm, scaling only above
// max_norm, NaN propagation, clamping; and the multi-tensor ops' own checks and edge cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kiln/optim/clip.h"
#include "tests/optim/optim_testing.h"

namespace kiln {
namespace {

using testing::FixedProblem;

const std::vector<std::int64_t> kClipSizes = {1, 7, 33, 1000, 4099};

double naive_norm(const FixedProblem& problem, std::int64_t step) {
  double sum = 0.0;
  for (std::size_t i = 0; i < problem.size(); ++i)
    for (float g : problem.gradient(i, step)) sum += double{g} * g;
  return std::sqrt(sum);
}

std::vector<float> grad_of(FixedProblem& problem, std::size_t i) {
  return problem.parameters()[i]->grad.to_vector<float>();
}

TEST(Clip, GradNormReturnsTheGlobalNormAndLeavesSmallGradientsAlone) {
  FixedProblem problem(kClipSizes);
  problem.set_gradients(0);
  const double expected = naive_norm(problem, 0);
  const Tensor norm = clip_grad_norm(problem.parameters(), static_cast<float>(expected) * 2.0f);
  EXPECT_EQ(norm.shape(), Shape{1});
  EXPECT_NEAR(norm.item(), expected, 1e-6 * expected);
  for (std::size_t i = 0; i < problem.size(); ++i)
    EXPECT_EQ(grad_of(problem, i), problem.gradient(i, 0)) << "parameter " << i;  // bitwise
}

TEST(Clip, GradNormScalesEveryGradientAboveMaxNorm) {
  FixedProblem problem(kClipSizes);
  problem.set_gradients(1);
  const double total = naive_norm(problem, 1);
  const float max_norm = 0.25f * static_cast<float>(total);
  const Tensor norm = clip_grad_norm(problem.parameters(), max_norm);
  EXPECT_NEAR(norm.item(), total, 1e-6 * total);  // the norm before clipping, as PyTorch
  const double coef = max_norm / (total + 1e-6);
  double clipped = 0.0;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    std::vector<float> expected;
    for (float g : problem.gradient(i, 1)) expected.push_back(static_cast<float>(g * coef));
    const auto actual = grad_of(problem, i);
    EXPECT_TRUE(testing::all_close(actual, expected, 1e-6f, 0.0f)) << "parameter " << i;
    for (float g : actual) clipped += double{g} * g;
  }
  EXPECT_NEAR(std::sqrt(clipped), max_norm, 1e-5 * max_norm);
}

TEST(Clip, GradNormOfANonFiniteGradientPoisonsAllGradients) {
  FixedProblem problem({7, 33});
  problem.set_gradients(0);
  fill(problem.parameters()[1]->grad, std::numeric_limits<float>::infinity());
  const Tensor norm = clip_grad_norm(problem.parameters(), 1.0f);
  EXPECT_TRUE(std::isinf(norm.item()));
  // max_norm / inf = 0: every gradient is scaled to 0, inf * 0 = NaN (as in PyTorch).
  for (float g : grad_of(problem, 0)) EXPECT_EQ(g, 0.0f);
  for (float g : grad_of(problem, 1)) EXPECT_TRUE(std::isnan(g));
}

TEST(Clip, GradValueClampsEveryElement) {
  FixedProblem problem(kClipSizes);
  problem.set_gradients(2);
  problem.parameters()[0]->grad = Tensor::full(Shape{1}, std::nanf(""));
  clip_grad_value(problem.parameters(), 0.3f);
  EXPECT_TRUE(std::isnan(grad_of(problem, 0)[0]));  // NaN passes, as torch.clamp
  for (std::size_t i = 1; i < problem.size(); ++i) {
    std::vector<float> expected;
    for (float g : problem.gradient(i, 2)) expected.push_back(std::min(0.3f, std::max(-0.3f, g)));
    EXPECT_EQ(grad_of(problem, i), expected) << "parameter " << i;
  }
}

TEST(Clip, RejectsNonPositiveLimits) {
  FixedProblem problem({7});
  EXPECT_THROW(clip_grad_norm(problem.parameters(), 0.0f), Error);
  EXPECT_THROW(clip_grad_norm(problem.parameters(), std::nanf("")), Error);
  EXPECT_THROW(clip_grad_value(problem.parameters(), -1.0f), Error);
}

TEST(OptimizerOps, MultiSumSquaresSkipsEmptyTensorsAndSumsNothingToZero) {
  Tensor out = Tensor::full(Shape{1}, 5.0f);
  multi_sum_squares(std::span<const Tensor* const>(), out);
  EXPECT_EQ(out.item(), 0.0f);
  const Tensor a = Tensor::from_vector(std::vector<float>{1.0f, 2.0f}, Shape{2});
  const Tensor empty = Tensor::zeros(Shape{0});
  const Tensor b = Tensor::from_vector(std::vector<float>{3.0f}, Shape{1});
  const Tensor* list[] = {&a, &empty, &b};
  multi_sum_squares(list, out);
  EXPECT_EQ(out.item(), 14.0f);
}

TEST(OptimizerOps, CheckListLengthsShapesAndDevices) {
  Tensor p = Tensor::zeros(Shape{3}), g = Tensor::zeros(Shape{4}), buf = Tensor::zeros(Shape{3});
  Tensor* params[] = {&p};
  const Tensor* grads[] = {&g};
  Tensor* bufs[] = {&buf};
  try {
    sgd_step(params, grads, {}, SgdConfig{0.1f}, false);
    FAIL() << "expected a shape error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("grads[0] has shape (4,) but params[0] has shape (3,)"),
              std::string::npos)
        << e.what();
  }
  const Tensor* no_grads[] = {&p, &p};
  EXPECT_THROW(sgd_step(params, no_grads, {}, SgdConfig{0.1f}, false), Error);  // 2 vs 1
  const Tensor* ok[] = {&p};
  EXPECT_THROW(sgd_step(params, ok, {}, SgdConfig{0.1f, 0.9f}, true), Error);  // no buffers
  EXPECT_THROW(sgd_step(params, ok, bufs, SgdConfig{0.1f}, false), Error);  // buffers, no momentum
  EXPECT_THROW(sgd_step(params, ok, bufs, SgdConfig{0.1f, 0.9f, 0.5f, 0.0f, true}, false), Error);
  EXPECT_THROW(adam_step(params, ok, bufs, bufs, AdamConfig{}, 0), Error);  // step counts from 1
  EXPECT_THROW(clamp_(p, 1.0f, -1.0f), Error);
  Tensor wide = Tensor::zeros(Shape{2});
  EXPECT_THROW(clip_by_global_norm(params, wide, 1.0f), Error);  // norm_sq must be (1)
}

TEST(OptimizerOps, SgdFirstStepNeverReadsTheBuffer) {
  Tensor p = Tensor::from_vector(std::vector<float>{1.0f, -2.0f}, Shape{2});
  const Tensor g = Tensor::from_vector(std::vector<float>{0.5f, 0.25f}, Shape{2});
  Tensor buf = Tensor::full(Shape{2}, std::nanf(""));  // stands for uninitialised memory
  Tensor* params[] = {&p};
  const Tensor* grads[] = {&g};
  Tensor* bufs[] = {&buf};
  sgd_step(params, grads, bufs, SgdConfig{0.1f, 0.9f, 0.5f}, true);
  EXPECT_EQ(buf.to_vector<float>(), (std::vector<float>{0.5f, 0.25f}));
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{1.0f - 0.1f * 0.5f, -2.0f - 0.1f * 0.25f}));
}

}  // namespace
}  // namespace kiln
