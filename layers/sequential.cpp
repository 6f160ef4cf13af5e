// Sequential chaining and its summary table.
#include "kiln/layers/sequential.h"

#include "kiln/layers/activations.h"
#include "kiln/layers/linear.h"

namespace kiln {

Sequential::Sequential(std::vector<std::shared_ptr<Module>> modules) {
  for (auto& m : modules) add(std::move(m));
}

Sequential& Sequential::add(std::shared_ptr<Module> module) {
  KILN_CHECK(module != nullptr, "Sequential::add with a null module");
  module->to(device());
  module->train(is_training());
  register_module(fmt::format("layers.{}", modules_.size()), module);
  const auto* relu = dynamic_cast<const ActivationLayer*>(module.get());
  if (relu != nullptr && relu->kind() == Activation::relu && !modules_.empty())
    fused_.back() = dynamic_cast<Linear*>(modules_.back().get());
  modules_.push_back(std::move(module));
  fused_.push_back(nullptr);
  return *this;
}

std::string Sequential::describe() const { return fmt::format("Sequential({} layers)", modules_.size()); }

Shape Sequential::output_shape(const Shape& input) const {
  Shape shape = input;
  for (const auto& m : modules_) shape = m->output_shape(shape);
  return shape;
}

Tensor Sequential::forward_impl(const Tensor& x) {
  Tensor h = x;
  for (std::size_t i = 0; i < modules_.size(); ++i) {
    if (Linear* linear = fused_[i]) {
      h = linear->forward_relu(h);
      ++i;  // the ReLU is done
    } else {
      h = modules_[i]->forward(h);
    }
  }
  return h;
}

Tensor Sequential::backward_impl(const Tensor& dy) {
  // Without an input gradient to return, the layers before the first with parameters need no
  // backward at all, and that one needs no input gradient.
  std::size_t first = 0;
  if (!input_grad_wanted())
    while (first + 1 < modules_.size() && !modules_[first]->has_parameters()) ++first;
  for (std::size_t i = 0; i < modules_.size(); ++i) modules_[i]->set_input_grad_wanted(input_grad_wanted() || i > first);
  Tensor g = dy;
  for (std::size_t i = modules_.size(); i-- > first;) {
    if (i > 0 && fused_[i - 1] != nullptr) {  // a fused ReLU: its Linear takes g as it is
      if (backward_hook_) backward_hook_(*modules_[i]);
      continue;
    }
    g = modules_[i]->backward(g);
    if (backward_hook_) backward_hook_(*modules_[i]);
  }
  for (std::size_t i = first; i-- > 0;)
    if (backward_hook_) backward_hook_(*modules_[i]);
  return input_grad_wanted() ? g : Tensor();
}

std::string Sequential::summary(const Shape& input) const {
  std::string table = fmt::format("{:<6} {:<28} {:<20} {:>12}\n", "#", "layer", "output shape", "parameters");
  table += std::string(69, '-') + "\n";
  Shape shape = input;
  for (std::size_t i = 0; i < modules_.size(); ++i) {
    shape = modules_[i]->output_shape(shape);
    table += fmt::format("{:<6} {:<28} {:<20} {:>12}\n", i, modules_[i]->describe(), shape.str(),
                         modules_[i]->parameter_count());
  }
  table += std::string(69, '-') + "\n";
  table += fmt::format("total parameters: {}\n", parameter_count());
  return table;
}

}  // namespace kiln
