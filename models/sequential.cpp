// Sequential chaining and its summary table.
#include "kiln/models/sequential.h"

namespace kiln {

Sequential::Sequential(std::vector<std::shared_ptr<Module>> modules) {
  for (auto& m : modules) add(std::move(m));
}

Sequential& Sequential::add(std::shared_ptr<Module> module) {
  KILN_CHECK(module != nullptr, "Sequential::add with a null module");
  KILN_CHECK(!successor_absorbed_,
             "Sequential::add({}): this Sequential's last layer already computes the module that "
             "follows it in its parent; add every layer before placing the Sequential in another",
             module->describe());
  module->to(device());
  module->train(is_training());
  register_module(fmt::format("layers.{}", modules_.size()), module,
                  modules_.empty() ? ChildInput::parent_input : ChildInput::computed);
  absorbed_.push_back(!modules_.empty() && modules_.back()->absorb(*module));
  modules_.push_back(std::move(module));
  return *this;
}

bool Sequential::absorb(const Module& next) {
  if (modules_.empty() || !modules_.back()->absorb(next)) return false;
  successor_absorbed_ = true;
  return true;
}

std::string Sequential::describe() const {
  return fmt::format("Sequential({} layers)", modules_.size());
}

Shape Sequential::output_shape(const Shape& input) const {
  Shape shape = input;
  for (const auto& m : modules_) shape = m->output_shape(shape);
  return shape;
}

Tensor Sequential::forward_impl(const Tensor& x) {
  Tensor h = x;
  for (std::size_t i = 0; i < modules_.size(); ++i)
    if (!absorbed_[i]) h = modules_[i]->forward(h);
  return h;
}

Tensor Sequential::backward_impl(const Tensor& dy) {
  // Without an input gradient to return, the layers before the first with parameters need no
  // backward at all, and that one needs no input gradient.
  std::size_t first = 0;
  if (!input_grad_wanted())
    while (first + 1 < modules_.size() && !modules_[first]->has_parameters()) ++first;
  while (first > 0 && absorbed_[first])
    --first;  // an absorbed module runs in its absorber's backward
  for (std::size_t i = 0; i < modules_.size(); ++i)
    modules_[i]->set_input_grad_wanted(input_grad_wanted() || i > first);
  Tensor g = dy;
  for (std::size_t i = modules_.size(); i-- > first;) {
    if (absorbed_[i]) continue;  // the module before it takes g as it is
    g = modules_[i]->backward(g);
    if (i + 1 < modules_.size() && absorbed_[i + 1]) modules_[i + 1]->skip_backward();  // done too
  }
  for (std::size_t i = first; i-- > 0;) modules_[i]->skip_backward();
  return input_grad_wanted() ? g : Tensor();
}

std::string Sequential::summary(const Shape& input) const {
  std::string table =
      fmt::format("{:<6} {:<28} {:<20} {:>12}\n", "#", "layer", "output shape", "parameters");
  table += std::string(69, '-') + "\n";
  Shape shape = input;
  (void)batch_output_shape(*this, input, "Sequential::summary");  // (batch, ...), checked
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
