// What every Module offers whatever its depth: forward's reused result and predict's owned one,
// the gradient-ready hook, and the CUDA-graph question.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "kiln/layers/activations.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/gradient_ready_hook.h"
#include "kiln/layers/linear.h"
#include "kiln/models/residual.h"
#include "kiln/models/sequential.h"
#include "tests/support/tensor_testing.h"

using kiln::Module;
using kiln::Residual;
using kiln::Sequential;
using kiln::Tensor;

namespace {
// ReLU, Linear+ReLU (fused) in a nested Sequential, a Residual whose body holds another fused pair,
// then a Linear: every kind of skipped, fused and nested layer.
std::shared_ptr<Sequential> nested_net(kiln::Generator& gen) {
  auto inner = std::make_shared<Sequential>();
  inner->emplace<kiln::ReLU>().emplace<kiln::Linear>(5, 6, gen).emplace<kiln::ReLU>();
  auto body = std::make_shared<Sequential>();
  body->emplace<kiln::Linear>(6, 4, gen).emplace<kiln::ReLU>().emplace<kiln::Linear>(4, 6, gen);
  auto net = std::make_shared<Sequential>();
  net->add(inner).emplace<Residual>(body).emplace<kiln::Linear>(6, 3, gen);
  return net;
}

// Every element of every tensor a module holds or made, to test that a result aliases none.
std::vector<Tensor> held_tensors(Module& m, const Tensor& output) {
  std::vector<Tensor> all{output};
  for (kiln::Parameter* p : m.parameters()) all.insert(all.end(), {p->value, p->grad});
  for (kiln::Buffer* b : m.buffers()) all.push_back(b->value);
  return all;
}
}  // namespace

TEST(Module, ForwardResultIsTheReusedBufferUntilTheNextCall) {
  kiln::Generator gen(1);
  kiln::Linear layer(4, 3, gen);
  const Tensor a = kiln::testing::random_tensor({2, 4}, 2),
               b = kiln::testing::random_tensor({2, 4}, 3);
  kiln::Generator twin_gen(1);
  kiln::Linear twin(4, 3, twin_gen);
  const std::vector<float> b_out = twin.forward(b).to_vector<float>();
  const Tensor& first = layer.forward(a);
  const std::vector<float> a_out = first.to_vector<float>();
  layer.forward(b);
  EXPECT_EQ(first.to_vector<float>(), b_out) << "forward's result is documented to be overwritten";
  EXPECT_NE(a_out, b_out);
}

TEST(Module, PredictReturnsATensorTheCallerOwns) {
  kiln::Generator gen(4);
  const auto net = nested_net(gen);
  const Tensor a = kiln::testing::random_tensor({3, 5}, 5),
               b = kiln::testing::random_tensor({3, 5}, 6);
  const Tensor ya = net->predict(a);
  const std::vector<float> ya_values = ya.to_vector<float>();
  const Tensor yb = net->predict(b);
  EXPECT_EQ(ya.to_vector<float>(), ya_values) << "a later predict changed an earlier result";
  EXPECT_NE(yb.to_vector<float>(), ya_values);
  net->eval();
  EXPECT_EQ(net->forward(a).to_vector<float>(), ya_values);  // what an eval forward computes
  for (const Tensor& t : held_tensors(*net, net->forward(a))) {
    EXPECT_FALSE(ya.shares_storage_with(t));
    EXPECT_FALSE(yb.shares_storage_with(t));
  }
  // An identity in eval returns its input from forward; predict still gives a tensor of its own.
  kiln::Dropout dropout(0.5f);
  const Tensor y = dropout.predict(a);
  EXPECT_FALSE(y.shares_storage_with(a));
  EXPECT_EQ(y.to_vector<float>(), a.to_vector<float>());
}

TEST(Module, PredictRestoresEachModulesModeEvenWhenForwardThrows) {
  kiln::Generator gen(7);
  const auto net = nested_net(gen);
  (*net)[2].eval();  // a mixed tree: the last Linear frozen
  net->predict(kiln::testing::random_tensor({2, 5}, 8));
  EXPECT_TRUE(net->is_training());
  EXPECT_TRUE((*net)[1].is_training());
  EXPECT_FALSE((*net)[2].is_training());
  EXPECT_THROW(net->predict(kiln::testing::random_tensor({2, 4}, 9)), kiln::Error);  // wrong width
  EXPECT_TRUE(net->is_training());
  EXPECT_TRUE((*net)[0].is_training());
  EXPECT_FALSE((*net)[2].is_training());
  // The caches are an eval forward's: a backward needs a training forward first.
  try {
    net->backward(Tensor::zeros({2, 3}));
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("backward called before forward"), std::string::npos)
        << e.what();
  }
}

// Each parameter reported once per backward, at any depth, fused, skipped or in a Residual, and
// only when its gradient is final: it does not change for the rest of the backward.
TEST(Module, GradientReadyHookReportsEveryParameterOnceWithItsFinalGradient) {
  for (const bool input_grad : {true, false}) {
    SCOPED_TRACE(input_grad ? "with an input gradient" : "without an input gradient");
    kiln::Generator gen(10);
    const auto net = nested_net(gen);
    net->set_input_grad_wanted(input_grad);
    std::map<const kiln::Parameter*, int> reports;
    std::map<const kiln::Parameter*, std::vector<float>> at_report;
    std::vector<std::string> layers;
    kiln::set_gradient_ready_hook(*net, [&](Module& layer) {
      layers.push_back(layer.describe());
      for (kiln::Parameter* p : layer.parameters()) {
        ++reports[p];
        at_report[p] = p->grad.to_vector<float>();
      }
    });
    for (int step = 0; step < 2; ++step) {
      reports.clear();
      layers.clear();
      net->zero_grad();
      net->forward(kiln::testing::random_tensor({4, 5}, 11 + step));
      net->backward(kiln::testing::random_tensor({4, 3}, 13 + step));
      EXPECT_EQ(layers.size(), 7u) << "every layer, parameters or not, once";
      EXPECT_EQ(reports.size(), net->parameters().size());
      for (kiln::Parameter* p : net->parameters()) {
        EXPECT_EQ(reports[p], 1) << p->name;
        EXPECT_EQ(at_report[p], p->grad.to_vector<float>())
            << p->name << " changed after its report";
      }
    }
  }
}

TEST(Module, GradientReadyHookReachesChildrenAddedLaterAndCanBeRemoved) {
  kiln::Generator gen(15);
  Sequential net;
  int reports = 0;
  kiln::set_gradient_ready_hook(net, [&](Module&) { ++reports; });
  auto inner = std::make_shared<Sequential>();
  inner->emplace<kiln::Linear>(3, 2, gen);
  net.add(inner).emplace<kiln::Tanh>();
  net.forward(kiln::testing::random_tensor({2, 3}, 16));
  net.backward(kiln::testing::random_tensor({2, 2}, 17));
  EXPECT_EQ(reports, 2);
  kiln::set_gradient_ready_hook(net, nullptr);
  net.forward(kiln::testing::random_tensor({2, 3}, 16));
  net.backward(kiln::testing::random_tensor({2, 2}, 17));
  EXPECT_EQ(reports, 2);
}

namespace {
// A module with a parameter of its own besides a child: its parameters() repeat the child's.
struct OwnParameterAndChild : Module {
  OwnParameterAndChild() {
    register_parameter("scale", Tensor::full({1}, 2.0f));
    register_module("child", std::make_shared<kiln::ReLU>());
  }
  std::string describe() const override { return "OwnParameterAndChild"; }
  kiln::Shape output_shape(const kiln::Shape& input) const override { return input; }
  Tensor forward_impl(const Tensor& x) override { return x; }
  Tensor backward_impl(const Tensor& dy) override { return dy; }
};
}  // namespace

TEST(Module, GradientReadyHookRefusesAModuleWhoseParametersWouldBeReportedTwice) {
  OwnParameterAndChild m;
  try {
    kiln::set_gradient_ready_hook(m, [](Module&) {});
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "OwnParameterAndChild: a gradient-ready hook reports modules without "
                  "children"),
              std::string::npos)
        << e.what();
  }
}

TEST(Module, GraphCaptureBlockerFindsADropoutAtAnyDepth) {
  kiln::Generator gen(18);
  const auto net = nested_net(gen);
  EXPECT_EQ(net->graph_capture_blocker(), "");
  auto deep = std::make_shared<Sequential>();
  deep->emplace<kiln::Tanh>().emplace<kiln::Dropout>(0.25f);
  net->emplace<Residual>(deep);
  EXPECT_EQ(net->graph_capture_blocker(), "Dropout(p=0.25): its mask must change every step");
}

namespace {
// A module of one's own, as a user writes it: two Linear children in a chain, the first stated
// to be fed the chain's input, and nothing in its backward about input gradients.
class Chain : public Module {
 public:
  explicit Chain(kiln::Generator& gen,
                 kiln::ChildInput first_input = kiln::ChildInput::parent_input)
      : first_(std::make_shared<kiln::Linear>(5, 4, gen)),
        second_(std::make_shared<kiln::Linear>(4, 3, gen)) {
    register_module("first", first_, first_input);
    register_module("second", second_);
  }
  std::string describe() const override { return "Chain"; }
  kiln::Shape output_shape(const kiln::Shape& input) const override {
    return second_->output_shape(first_->output_shape(input));
  }
  const kiln::Linear& first() const { return *first_; }
  const kiln::Linear& second() const { return *second_; }

 protected:
  Tensor forward_impl(const Tensor& x) override { return second_->forward(first_->forward(x)); }
  Tensor backward_impl(const Tensor& dy) override {
    return first_->backward(second_->backward(dy));
  }

 private:
  std::shared_ptr<kiln::Linear> first_, second_;
};
}  // namespace

// The child fed the data skips its input gradient; the child fed the first one's output gives
// its own; and the parameter gradients are those of a run that computes every input gradient.
TEST(Module, RegisteredChildrenTakeTheInputGradientWishFromTheirParent) {
  std::map<bool, std::vector<std::vector<float>>> grads;
  for (const bool wanted : {true, false}) {
    kiln::Generator gen(21);
    Chain net(gen);
    net.set_input_grad_wanted(wanted);
    net.zero_grad();
    net.forward(kiln::testing::random_tensor({7, 5}, 22));
    EXPECT_EQ(net.first().input_grad_wanted(), wanted);
    EXPECT_TRUE(net.second().input_grad_wanted());
    const Tensor dx = net.backward(kiln::testing::random_tensor({7, 3}, 23));
    EXPECT_EQ(dx.defined(), wanted);
    for (const kiln::Parameter* p : net.parameters())
      grads[wanted].push_back(p->grad.to_vector<float>());
  }
  EXPECT_EQ(grads[true], grads[false]);
}

// A child registered without saying what it is fed counts as fed a computed value: it gives its
// input gradient whatever its parent wants, even when it is fed the parent's own input.
TEST(Module, ChildrenNotStatedToTakeTheParentsInputGiveTheirInputGradient) {
  kiln::Generator gen(21);
  Chain net(gen, kiln::ChildInput::computed);
  net.set_input_grad_wanted(false);
  net.forward(kiln::testing::random_tensor({7, 5}, 22));
  EXPECT_TRUE(net.first().input_grad_wanted());
  EXPECT_TRUE(net.second().input_grad_wanted());
  EXPECT_TRUE(net.backward(kiln::testing::random_tensor({7, 3}, 23)).defined());  // computed
}
