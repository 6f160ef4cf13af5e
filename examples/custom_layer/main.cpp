// custom_layer: a gated linear unit written as a user would write a layer kiln lacks,
//   y = (x A^T + a) * sigmoid(x G^T + g),
// from two Linear children and kiln's ops, so it runs on either device, with its own backward. The
// example exits 1 unless kiln::check_gradients passes it and catches a copy whose backward is
// wrong.
#include <cstdio>
#include <memory>

#include <kiln/kiln.h>

namespace {

class GatedLinear : public kiln::Module {
 public:
  GatedLinear(std::int64_t in, std::int64_t out, kiln::Generator& gen,
              bool forget_gate_derivative = false)
      : value_(std::make_shared<kiln::Linear>(in, out, gen)),
        gate_(std::make_shared<kiln::Linear>(in, out, gen)), broken_(forget_gate_derivative) {
    register_module("value", value_, kiln::ChildInput::parent_input);  // both are fed x
    register_module("gate", gate_, kiln::ChildInput::parent_input);
  }
  std::string describe() const override { return "GatedLinear"; }
  kiln::Shape output_shape(const kiln::Shape& input) const override {
    return value_->output_shape(input);
  }

 protected:
  kiln::Tensor forward_impl(const kiln::Tensor& x) override {
    const kiln::Tensor& a = value_->forward(x);  // valid until value_'s next call
    const kiln::Tensor& g = gate_->forward(x);
    kiln::Tensor& s = reuse(sigmoid_, g.shape());
    kiln::activation_forward(kiln::Activation::sigmoid, g, s);
    kiln::Tensor& y = reuse(y_, a.shape());
    kiln::binary(kiln::BinaryOp::mul, a, s, y);
    a_ = a;
    g_ = g;
    return y;
  }

  kiln::Tensor backward_impl(const kiln::Tensor& dy) override {
    kiln::Tensor& da = reuse(da_, dy.shape());
    kiln::binary(kiln::BinaryOp::mul, dy, sigmoid_, da);  // dy * s
    kiln::Tensor& dg = reuse(dg_, dy.shape());
    kiln::binary(kiln::BinaryOp::mul, dy, a_, dg);  // dy * a ...
    if (!broken_)
      kiln::activation_backward(kiln::Activation::sigmoid, g_, sigmoid_, dg, dg);  // ... * s'(g)
    const kiln::Tensor dx_value = value_->backward(da);
    const kiln::Tensor dx_gate = gate_->backward(dg);
    if (!input_grad_wanted()) return {};
    kiln::Tensor& dx = reuse(dx_, dx_value.shape());
    kiln::binary(kiln::BinaryOp::add, dx_value, dx_gate, dx);
    return dx;
  }

 private:
  std::shared_ptr<kiln::Linear> value_, gate_;
  bool broken_;
  kiln::Tensor a_, g_, sigmoid_, y_, da_, dg_, dx_;
};

}  // namespace

// kiln::check_gradients compares the backward with central differences for the input and all
// four parameters. A copy whose backward forgets the sigmoid's derivative must fail the same
// check.
int main(int, char** argv) {
  kiln::prefer_passive_openmp_waiting(argv);  // first: spinning OpenMP threads slow a shared CPU
  try {
    kiln::Generator gen(11);
    kiln::Tensor x = kiln::Tensor::empty({6, 5});
    kiln::normal_(x, 0.0f, 1.0f, gen);

    GatedLinear layer(5, 4, gen);
    std::printf("custom_layer: %s, %lld parameters\n", layer.describe().c_str(),
                static_cast<long long>(layer.parameter_count()));
    const kiln::GradientCheckResult right = kiln::check_gradients(layer, x);
    std::printf("custom_layer: its backward against central differences: %s\n",
                right.ok ? "match" : "MISMATCH");
    if (!right.ok) {
      std::fprintf(stderr, "%s\n", right.report.c_str());
      return 1;
    }

    GatedLinear wrong(5, 4, gen, /*forget_gate_derivative=*/true);
    const kiln::GradientCheckResult caught = kiln::check_gradients(wrong, x);
    std::printf("custom_layer: a backward without the sigmoid's derivative: %s\n",
                caught.ok ? "passed (the check is blind!)" : "caught");
    if (caught.ok) return 1;
    std::printf("%s\n", caught.report.c_str());
    std::printf("custom_layer: ok\n");
    return 0;
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "custom_layer: %s\n", e.what());
    return 1;
  }
}
