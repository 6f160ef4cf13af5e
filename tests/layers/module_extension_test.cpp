// The two extension interfaces through which features attach to modules and parameters without a
// place in their bases: a ModuleExtension joins every module below the one it is attached to (also
// inside a user's module, and children registered later) and hears each backward, done or
// skipped; a ParameterExtension is one object per type and parameter, told when the value is
// moved or loaded.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kiln/core/ops.h"
#include "kiln/layers/activations.h"
#include "kiln/layers/linear.h"
#include "kiln/models/sequential.h"
#include "tests/support/tensor_testing.h"

namespace {

using kiln::Module;
using kiln::Tensor;

struct Recorder final : kiln::ModuleExtension {
  std::vector<std::string> joined_modules, done;
  void joined(const Module& module) override { joined_modules.push_back(module.describe()); }
  void backward_done(Module& module) override { done.push_back(module.describe()); }
};

// A user's module with a child, written without any extension in mind.
class Doubled : public Module {
 public:
  explicit Doubled(kiln::Generator& gen) : inner_(std::make_shared<kiln::Linear>(3, 3, gen)) {
    register_module("inner", inner_);
  }
  std::string describe() const override { return "Doubled"; }
  kiln::Shape output_shape(const kiln::Shape& input) const override { return input; }

 protected:
  Tensor forward_impl(const Tensor& x) override { return inner_->forward(x); }
  Tensor backward_impl(const Tensor& dy) override { return inner_->backward(dy); }

 private:
  std::shared_ptr<kiln::Linear> inner_;
};

TEST(ModuleExtension, JoinsEveryModuleBelowAndHearsEachBackwardDoneOrSkipped) {
  kiln::Generator gen(5);
  kiln::Sequential net;
  net.emplace<kiln::Tanh>().add(std::make_shared<Doubled>(gen));
  const auto recorder = std::make_shared<Recorder>();
  net.attach_extension(recorder);
  EXPECT_EQ(recorder->joined_modules, (std::vector<std::string>{"Sequential(2 layers)", "Tanh",
                                                                "Doubled", "Linear(3 -> 3)"}));
  recorder->joined_modules.clear();
  net.emplace<kiln::Linear>(3, 2, gen);  // registered later: it joins, and its parent again
  ASSERT_EQ(recorder->joined_modules.size(), 2u);
  EXPECT_EQ(recorder->joined_modules[0].rfind("Sequential(", 0), 0u) << recorder->joined_modules[0];
  EXPECT_EQ(recorder->joined_modules[1], "Linear(3 -> 2)");

  net.set_input_grad_wanted(false);  // the leading Tanh's backward is skipped
  net.forward(kiln::testing::random_tensor({2, 3}, 6));
  net.backward(kiln::testing::random_tensor({2, 2}, 7));
  EXPECT_EQ(recorder->done, (std::vector<std::string>{"Linear(3 -> 2)", "Linear(3 -> 3)", "Doubled",
                                                      "Tanh", "Sequential(3 layers)"}));

  net.detach_extensions([&](const kiln::ModuleExtension& e) { return &e == recorder.get(); });
  recorder->done.clear();
  net.forward(kiln::testing::random_tensor({2, 3}, 6));
  net.backward(kiln::testing::random_tensor({2, 2}, 7));
  EXPECT_TRUE(recorder->done.empty()) << "detached from every module";
}

struct ChangeCounter final : kiln::ParameterExtension {
  int changes = 0;
  void value_changed() override { ++changes; }
};

TEST(ParameterExtension, IsOneObjectPerParameterToldWhenTheValueIsMovedOrLoaded) {
  kiln::Generator gen(8);
  kiln::Linear layer(4, 2, gen);
  kiln::Parameter& weight = layer.weight();
  ChangeCounter& counter = weight.extensions.get<ChangeCounter>();
  EXPECT_EQ(&weight.extensions.get<ChangeCounter>(), &counter) << "made once, then found";
  layer.forward(kiln::testing::random_tensor({3, 4}, 9));
  EXPECT_EQ(counter.changes, 0) << "a forward writes no value";
  layer.to(kiln::Device::cpu());
  EXPECT_EQ(counter.changes, 1);
  kiln::parameter_values_changed(layer);  // what loading and broadcasting call
  EXPECT_EQ(counter.changes, 2);
}

}  // namespace
