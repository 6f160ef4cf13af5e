// Hostile input, round 4, in the module tree: one module in two places (weight sharing, legal in
// PyTorch, where autograd keeps one graph node per call) would run on one set of forward caches
// here and give wrong gradients, so it is refused as it is registered; a child that was never
// registered, whose parameters no parameters() list holds, is named as it runs, pointing to
// register_module; the optimizer's check says the same.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/layers/activations.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/layers/linear.h"
#include "kiln/models/sequential.h"
#include "kiln/optim/sgd.h"
#include "kiln/training/fit_checks.h"
#include "tests/support/error_testing.h"

namespace {

using kiln::testing::error_message;
using ::testing::HasSubstr;

// A user's module that forgot register_module for `inner_` (or registered it, as asked).
class Wrapper : public kiln::Module {
 public:
  Wrapper(kiln::Generator& gen, bool registered)
      : inner_(std::make_shared<kiln::Linear>(3, 2, gen)) {
    if (registered) register_module("inner", inner_);
  }
  std::string describe() const override { return "Wrapper"; }
  kiln::Shape output_shape(const kiln::Shape& input) const override {
    return inner_->output_shape(input);
  }
  kiln::Linear& inner() { return *inner_; }

 protected:
  kiln::Tensor forward_impl(const kiln::Tensor& x) override { return inner_->forward(x); }
  kiln::Tensor backward_impl(const kiln::Tensor& dy) override { return inner_->backward(dy); }

 private:
  std::shared_ptr<kiln::Linear> inner_;
};

// Runs its grandchild (a child of its child) directly: registered below it, so allowed.
class ReachesDown : public kiln::Module {
 public:
  explicit ReachesDown(kiln::Generator& gen) : body_(std::make_shared<kiln::Sequential>()) {
    body_->emplace<kiln::Linear>(3, 3, gen);
    register_module("body", body_);
  }
  std::string describe() const override { return "ReachesDown"; }
  kiln::Shape output_shape(const kiln::Shape& input) const override { return input; }

 protected:
  kiln::Tensor forward_impl(const kiln::Tensor& x) override { return (*body_)[0].forward(x); }
  kiln::Tensor backward_impl(const kiln::Tensor& dy) override { return (*body_)[0].backward(dy); }

 private:
  std::shared_ptr<kiln::Sequential> body_;
};

// Runs a module that another module registered.
class Borrower : public kiln::Module {
 public:
  explicit Borrower(kiln::Module& borrowed) : borrowed_(borrowed) {}
  std::string describe() const override { return "Borrower"; }
  kiln::Shape output_shape(const kiln::Shape& input) const override {
    return borrowed_.output_shape(input);
  }

 protected:
  kiln::Tensor forward_impl(const kiln::Tensor& x) override { return borrowed_.forward(x); }
  kiln::Tensor backward_impl(const kiln::Tensor& dy) override { return borrowed_.backward(dy); }

 private:
  kiln::Module& borrowed_;
};

}  // namespace

TEST(ModuleRegistration, OneModuleAddedTwiceToASequentialIsRefused) {
  kiln::Generator gen(1);
  const auto shared = std::make_shared<kiln::Linear>(4, 4, gen);
  kiln::Sequential net;
  net.add(shared).emplace<kiln::ReLU>();
  const std::string message = error_message([&] { net.add(shared); });
  EXPECT_THAT(message, HasSubstr("Linear(4 -> 4) is registered already"));
  EXPECT_THAT(message, HasSubstr("its gradients would be wrong"));
  EXPECT_EQ(net.size(), 2u);
  EXPECT_EQ(net.parameters().size(), 2u);
}

TEST(ModuleRegistration, OneModuleInTwoContainersIsRefused) {
  kiln::Generator gen(2);
  const auto shared = std::make_shared<kiln::Linear>(5, 5, gen);
  kiln::Sequential first, second;
  first.add(shared);
  EXPECT_THAT(error_message([&] { second.add(shared); }),
              HasSubstr("registered already, in Sequential"));
  // A container inside itself.
  auto outer = std::make_shared<kiln::Sequential>();
  EXPECT_THAT(error_message([&] { outer->add(outer); }),
              HasSubstr("registered already, in itself"));
}

TEST(ModuleRegistration, AModuleWhoseContainerIsGoneMayJoinAnother) {
  kiln::Generator gen(3);
  const auto layer = std::make_shared<kiln::Linear>(2, 3, gen);
  { kiln::Sequential(std::vector<std::shared_ptr<kiln::Module>>{layer}); }
  kiln::Sequential net;
  net.add(layer);
  EXPECT_EQ(net.parameters().size(), 2u);
}

TEST(ModuleRegistration, AnUnregisteredChildIsNamedAsItRunsPointingToRegisterModule) {
  kiln::Generator gen(4);
  Wrapper forgot(gen, false);
  EXPECT_EQ(forgot.parameters().size(), 0u) << "what the user's model lost";
  const kiln::Tensor x = kiln::Tensor::from_vector(std::vector<float>{0.1f, -0.2f, 0.3f}, {1, 3});
  const std::string message = error_message([&] { (void)forgot.forward(x); });
  EXPECT_THAT(message, HasSubstr("Linear(3 -> 2) runs inside the forward of Wrapper but is not "
                                 "registered below it (nor anywhere)"));
  EXPECT_THAT(message, HasSubstr("register_module(\"name\", child)"));
  EXPECT_THAT(error_message([&] { (void)forgot.predict(x); }), HasSubstr("not registered"));
  // The optimizer built over its parameters says the same.
  kiln::Sgd optimizer(forgot.inner().parameters(), 0.1f);
  EXPECT_THAT(error_message([&] { kiln::check_optimizer_updates_model(forgot, optimizer); }),
              HasSubstr("that module was not registered (register it in the model's constructor"));

  Wrapper registered(gen, true);
  EXPECT_EQ(registered.forward(x).shape(), (kiln::Shape{1, 2}));
  ReachesDown reaches(gen);
  EXPECT_EQ(reaches.forward(x).shape(), (kiln::Shape{1, 3}));
  // A module registered in another tree, run inside this one's forward, is refused too.
  Borrower borrower(registered.inner());
  EXPECT_THAT(error_message([&] { (void)borrower.forward(x); }),
              HasSubstr("(it belongs to another module)"));
}
