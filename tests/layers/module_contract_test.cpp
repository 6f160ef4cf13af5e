// Module's public forward and backward check what a user's implementation returned (as
// tiny-cuda-nn's public methods check around *_impl): a wrong output or input-gradient shape is
// refused naming the module that returned it, not the layer that received it.
#include <gtest/gtest.h>

#include "kiln/core/ops.h"
#include "kiln/layers/linear.h"
#include "kiln/models/sequential.h"
#include "tests/support/error_testing.h"

namespace {

using kiln::Shape;
using kiln::Tensor;

// Declares (N, width) -> (N, width), but can be told to return other shapes.
class Malformed : public kiln::Module {
 public:
  Malformed(std::int64_t width, Shape forward_returns, Shape backward_returns)
      : width_(width), forward_returns_(std::move(forward_returns)),
        backward_returns_(std::move(backward_returns)) {}
  std::string describe() const override { return "Malformed(user layer)"; }
  Shape output_shape(const Shape& input) const override { return input; }

 protected:
  Tensor forward_impl(const Tensor& x) override {
    return forward_returns_.rank() == 0 ? x : Tensor::zeros(forward_returns_);
  }
  Tensor backward_impl(const Tensor& dy) override {
    return backward_returns_.rank() == 0 ? dy : Tensor::zeros(backward_returns_);
  }

 private:
  std::int64_t width_;
  Shape forward_returns_, backward_returns_;
};

TEST(ModuleContract, AForwardReturningAnUndeclaredShapeIsBlamedOnItsModule) {
  kiln::Generator gen(3);
  kiln::Sequential net;
  net.emplace<kiln::Linear>(5, 4, gen)
      .emplace<Malformed>(4, Shape{7, 6}, Shape{})
      .emplace<kiln::Linear>(4, 6, gen);
  const Tensor x = Tensor::full({7, 5}, 0.5f);
  const std::string m = kiln::testing::error_message([&] { net.forward(x); });
  EXPECT_NE(m.find("Malformed(user layer): forward returned Tensor(float32, (7, 6), cpu) but its "
                   "output_shape "
                   "declares (7, 4)"),
            std::string::npos)
      << m;
  EXPECT_EQ(m.find("Linear(4 -> 6)"), std::string::npos) << m;
}

TEST(ModuleContract, ABackwardReturningAGradientOfAnotherShapeIsBlamedOnItsModule) {
  kiln::Generator gen(3);
  kiln::Sequential net;
  net.emplace<kiln::Linear>(5, 4, gen)
      .emplace<Malformed>(4, Shape{}, Shape{7, 3})
      .emplace<kiln::Linear>(4, 6, gen);
  const Tensor x = Tensor::full({7, 5}, 0.5f);
  const Tensor& y = net.forward(x);
  const Tensor dy = Tensor::full(y.shape(), 1.0f);
  const std::string m = kiln::testing::error_message([&] { net.backward(dy); });
  EXPECT_NE(m.find("Malformed(user layer): backward returned Tensor(float32, (7, 3), cpu) as the "
                   "input gradient, "
                   "but the last input had shape (7, 4)"),
            std::string::npos)
      << m;
  EXPECT_EQ(m.find("Linear(5 -> 4)"), std::string::npos) << m;
}

TEST(ModuleContract, AWellFormedModuleRunsUnchecked) {
  kiln::Generator gen(3);
  kiln::Sequential net;
  net.emplace<kiln::Linear>(5, 4, gen)
      .emplace<Malformed>(4, Shape{}, Shape{})
      .emplace<kiln::Linear>(4, 6, gen);
  const Tensor x = Tensor::full({7, 5}, 0.5f);
  const Tensor& y = net.forward(x);
  EXPECT_EQ(y.shape(), (Shape{7, 6}));
  const Tensor dx = net.backward(Tensor::full(y.shape(), 1.0f));
  EXPECT_EQ(dx.shape(), (Shape{7, 5}));
}

}  // namespace
