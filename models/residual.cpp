// Residual over the elementwise add op: no device code, so it runs wherever its body does.
#include "kiln/models/residual.h"

#include "kiln/core/ops.h"

namespace kiln {

Residual::Residual(std::shared_ptr<Module> body, const std::optional<Shape>& input)
    : body_(std::move(body)) {
  KILN_CHECK(body_ != nullptr, "Residual needs a body module, found a null one");
  body_->to(device());
  body_->train(is_training());
  register_module("body", body_, ChildInput::parent_input);
  if (input) output_shape(*input);
}

std::string Residual::describe() const { return fmt::format("Residual({})", body_->describe()); }

Shape Residual::output_shape(const Shape& input) const {
  const Shape out = body_->output_shape(input);
  KILN_CHECK(
      out == input,
      "{}: the body maps an input of shape {} to an output of shape {}, but a residual "
      "connection adds the two, so they must be the same; give the body an output of shape {}",
      describe(), input.str(), out.str(), input.str());
  return input;
}

Tensor Residual::forward_impl(const Tensor& x) {
  const Tensor& fx = body_->forward(x);
  Tensor& y = reuse(y_, x.shape());
  binary(BinaryOp::add, x, fx, y);
  return y;
}

Tensor Residual::backward_impl(const Tensor& dy) {
  if (!input_grad_wanted() && !body_->has_parameters()) {  // nothing to compute, as in Sequential
    body_->skip_backward();
    return Tensor();
  }
  body_->set_input_grad_wanted(input_grad_wanted());
  const Tensor dfx = body_->backward(dy);
  if (!input_grad_wanted()) return Tensor();
  Tensor& dx = reuse(dx_, dy.shape());
  binary(BinaryOp::add, dy, dfx, dx);
  return dx;
}

}  // namespace kiln
