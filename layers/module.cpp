// Module's checked entry points, predict, parameter registry, device moves, buffer reuse and the
// questions asked of a whole tree (its extensions, CUDA graph capture).
#include "kiln/layers/module.h"

#include <algorithm>

#include "kiln/core/ops.h"

namespace kiln {

namespace {

// The forward whose registered children are running, and its input-gradient wish.
struct ForwardFrame {
  const Module* module;
  bool input_grad_wanted;
};
thread_local const ForwardFrame* current_frame = nullptr;

// Entered for the length of one forward_impl, also when it throws.
class EnteredFrame {
 public:
  explicit EnteredFrame(const ForwardFrame& frame) : outer_(current_frame) {
    current_frame = &frame;
  }
  ~EnteredFrame() { current_frame = outer_; }
  EnteredFrame(const EnteredFrame&) = delete;
  EnteredFrame& operator=(const EnteredFrame&) = delete;

 private:
  const ForwardFrame* outer_;
};

}  // namespace

Shape batch_output_shape(const Module& model, const Shape& batch_input, const std::string& caller) {
  try {
    return model.output_shape(batch_input);
  } catch (const Error&) {
    std::vector<std::int64_t> dims{1};
    dims.insert(dims.end(), batch_input.dims().begin(), batch_input.dims().end());
    bool fits_with_batch = false;
    try {
      (void)model.output_shape(Shape(dims));
      fits_with_batch = true;
    } catch (const Error&) {
    }
    if (!fits_with_batch) throw;  // the model's own message
    KILN_THROW(
        "{}: the shape {} has no batch axis: it takes (batch, sample dims...), as every shape "
        "argument of kiln's API does; give {} for one sample of {} to {}",
        caller, batch_input.str(), Shape(dims).str(), batch_input.str(), model.describe());
  }
}

Module::~Module() {
  for (auto& [name, child] : children_)  // a child that outlives this module is free again
    if (child->parent_ == this) child->parent_ = nullptr;
}

// A module with parameters run inside another's forward must be registered below it: else its
// parameters are in no parameters() list, so no optimizer, to(), checkpoint or gradient check
// sees them and the model trains without them, silently.
void Module::check_registered_below(const Module& caller) const {
  if (!has_parameters()) return;
  for (const Module* up = parent_; up != nullptr; up = up->parent_)
    if (up == &caller) return;
  KILN_THROW(
      "{} runs inside the forward of {} but is not registered below it{}: its {} parameters are "
      "left out of {}'s parameters(), so no optimizer, to(), checkpoint or gradient check sees "
      "them; register it in the parent's constructor with register_module(\"name\", child)",
      describe(), caller.describe(),
      parent_ == nullptr ? " (nor anywhere)" : " (it belongs to another module)", parameter_count(),
      caller.describe());
}

const Tensor& Module::forward(const Tensor& x) {
  KILN_CHECK(x.defined() && x.dtype() == DType::f32, "{}: forward needs a float32 input, found {}",
             describe(), x.defined() ? x.str() : std::string("an undefined tensor"));
  if (current_frame != nullptr && current_frame->module != parent_)
    check_registered_below(*current_frame->module);
  KILN_CHECK(x.device() == device_,
             "{}: the input is on {} but the module is on {}; call .to({}) on one of them",
             describe(), x.device().str(), device_.str(), device_.str());
  last_output_shape_ = output_shape(x.shape());  // checks the input shape
  // A registered child fed its parent's input wants what the parent wants; fed anything computed
  // inside the parent, it must give its gradient (as its parent stated in register_module).
  if (current_frame != nullptr && current_frame->module == parent_)
    input_grad_wanted_ = fed_ == ChildInput::computed || current_frame->input_grad_wanted;
  const ForwardFrame frame{this, input_grad_wanted_};
  const EnteredFrame entered(frame);
  output_ = forward_impl(x);
  // What the implementation returned is checked here, naming it, rather than by the next layer.
  KILN_CHECK(
      output_.defined() && output_.shape() == last_output_shape_ && output_.device() == device_,
      "{}: forward returned {} but its output_shape declares {} on {} for an input of shape {}; "
      "its forward_impl and output_shape must agree",
      describe(), output_.defined() ? output_.str() : std::string("an undefined tensor"),
      last_output_shape_.str(), device_.str(), x.shape().str());
  last_input_shape_ = x.shape();
  has_forward_ = true;
  return output_;
}

Tensor Module::predict(const Tensor& x) {
  std::vector<bool> modes;
  collect_modes(modes);
  auto restore = [&] {
    std::size_t next = 0;
    restore_modes(modes, next);
  };
  try {
    eval();
    Tensor y = forward(x).clone();  // the output buffer (or x, for an identity) stays the module's
    restore();
    return y;
  } catch (...) {
    restore();
    throw;
  }
}

void Module::collect_modes(std::vector<bool>& modes) const {
  modes.push_back(training_);
  for (const auto& [name, child] : children_) child->collect_modes(modes);
}

void Module::restore_modes(const std::vector<bool>& modes, std::size_t& next) {
  training_ = modes.at(next++);
  has_forward_ = false;  // the caches are an eval forward's: backward needs a training one
  for (auto& [name, child] : children_) child->restore_modes(modes, next);
  on_train_changed();
}

Tensor Module::backward(const Tensor& dy) {
  KILN_CHECK(has_forward_, "{}: backward called before forward", describe());
  KILN_CHECK(training_, "{}: backward in eval mode; call train() before a training step",
             describe());
  KILN_CHECK(dy.defined() && dy.dtype() == DType::f32 && dy.device() == device_,
             "{}: backward needs a float32 gradient on {}, found {}", describe(), device_.str(),
             dy.defined() ? dy.str() : std::string("an undefined tensor"));
  KILN_CHECK(dy.shape() == last_output_shape_,
             "{}: the output gradient has shape {} but the last output had shape {}", describe(),
             dy.shape().str(), last_output_shape_.str());
  Tensor dx = backward_impl(dy);
  // Undefined is allowed only when no input gradient is wanted (set_input_grad_wanted).
  KILN_CHECK(
      dx.defined() ? dx.shape() == last_input_shape_ && dx.device() == device_
                   : !input_grad_wanted_,
      "{}: backward returned {} as the input gradient, but the last input had shape {} on {}; "
      "its backward_impl must return a gradient shaped like its input",
      describe(), dx.defined() ? dx.str() : std::string("an undefined tensor"),
      last_input_shape_.str(), device_.str());
  for (const auto& extension : extensions_) extension->backward_done(*this);
  return dx;
}

void Module::skip_backward() {
  if (extensions_.empty()) return;  // a tree without extensions: nobody to tell
  for (const auto& extension : extensions_) extension->backward_done(*this);
  for (auto& [name, child] : children_) child->skip_backward();
}

void Module::attach_extension(std::shared_ptr<ModuleExtension> extension) {
  KILN_CHECK(extension != nullptr, "{}: attach_extension needs an extension, found a null pointer",
             describe());
  extension->joined(*this);
  if (std::find(extensions_.begin(), extensions_.end(), extension) == extensions_.end())
    extensions_.push_back(extension);
  for (auto& [name, child] : children_) child->attach_extension(extension);
}

void Module::detach_extensions(const std::function<bool(const ModuleExtension&)>& which) {
  std::erase_if(extensions_, [&](const std::shared_ptr<ModuleExtension>& e) { return which(*e); });
  for (auto& [name, child] : children_) child->detach_extensions(which);
}

std::string Module::graph_capture_blocker() const {
  for (const auto& [name, child] : children_) {
    std::string reason = child->graph_capture_blocker();
    if (!reason.empty()) return reason;
  }
  return "";
}

std::vector<Parameter*> Module::parameters(bool recurse) {
  std::vector<Parameter*> all;
  for (auto& p : parameters_) all.push_back(p.get());
  if (!recurse) return all;
  for (auto& [name, child] : children_) {
    for (Parameter* p : child->parameters()) all.push_back(p);
  }
  return all;
}

std::vector<const Parameter*> Module::parameters(bool recurse) const {
  std::vector<const Parameter*> all;
  for (const auto& p : parameters_) all.push_back(p.get());
  if (!recurse) return all;
  for (const auto& [name, child] : children_) {
    for (const Parameter* p : std::as_const(*child).parameters()) all.push_back(p);
  }
  return all;
}

std::vector<Buffer*> Module::buffers() {
  std::vector<Buffer*> all;
  for (auto& b : buffers_) all.push_back(b.get());
  for (auto& [name, child] : children_) {
    for (Buffer* b : child->buffers()) all.push_back(b);
  }
  return all;
}

std::vector<const Buffer*> Module::buffers() const {
  std::vector<const Buffer*> all;
  for (const auto& b : buffers_) all.push_back(b.get());
  for (const auto& [name, child] : children_) {
    for (const Buffer* b : std::as_const(*child).buffers()) all.push_back(b);
  }
  return all;
}

std::vector<std::pair<std::string, Generator*>> Module::generators() {
  std::vector<std::pair<std::string, Generator*>> all = generators_;
  for (auto& [name, child] : children_)
    for (auto& [path, gen] : child->generators()) all.emplace_back(name + "." + path, gen);
  return all;
}

bool Module::has_parameters() const {
  if (!parameters_.empty()) return true;
  for (const auto& [name, child] : children_)
    if (child->has_parameters()) return true;
  return false;
}

std::int64_t Module::parameter_count() const {
  std::int64_t n = 0;
  for (const Parameter* p : parameters()) n += p->value.numel();
  return n;
}

void Module::zero_grad() {
  for (Parameter* p : parameters()) fill(p->grad, 0.0f);
}

void parameter_values_changed(Module& module) {
  for (Parameter* p : module.parameters()) p->extensions.value_changed();
}

void Module::to(Device device) {
  for (auto& p : parameters_) {
    p->value = p->value.to(device);
    p->grad = p->grad.to(device);
    p->extensions.value_changed();
  }
  for (auto& b : buffers_) b->value = b->value.to(device);
  for (auto& [name, child] : children_) child->to(device);
  device_ = device;
  output_ = Tensor();
  has_forward_ = false;  // cached activations live on the old device
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [name, child] : children_) child->train(on);
  on_train_changed();
}

Parameter& Module::register_parameter(std::string name, Tensor value) {
  Tensor grad = Tensor::zeros(value.shape(), DType::f32, value.device());
  parameters_.push_back(std::make_unique<Parameter>(
      Parameter{std::move(name), std::move(value), std::move(grad), {}}));
  return *parameters_.back();
}

Buffer& Module::register_buffer(std::string name, Tensor value) {
  buffers_.push_back(std::make_unique<Buffer>(Buffer{std::move(name), std::move(value)}));
  return *buffers_.back();
}

void Module::register_generator(std::string name, Generator& generator) {
  generators_.emplace_back(std::move(name), &generator);
}

void Module::register_module(std::string name, std::shared_ptr<Module> child, ChildInput input) {
  KILN_CHECK(child != nullptr, "register_module('{}') with a null module", name);
  // One module in two places would run twice per step on one set of forward caches, and its
  // backward would use the last call's for both: wrong gradients, without an error.
  KILN_CHECK(child->parent_ == nullptr && child.get() != this,
             "register_module('{}'): {} is registered already, in {}: a module used twice shares "
             "the caches its backward reads, so its gradients would be wrong; build a second one "
             "(to share weights, tie the parameter as TiedLinear does)",
             name, child->describe(),
             child.get() == this ? std::string("itself") : child->parent_->describe());
  // A child's parameter names gain the child's name as a prefix, once, here.
  for (Parameter* p : child->parameters()) p->name = name + "." + p->name;
  for (Buffer* b : child->buffers()) b->name = name + "." + b->name;
  child->parent_ = this;
  child->fed_ = input;
  children_.emplace_back(std::move(name), std::move(child));
  for (const auto& extension : extensions_) {  // the new child joins this module's extensions
    extension->joined(*this);                  // which see this one again: it has a child now
    children_.back().second->attach_extension(extension);
  }
}

Tensor& Module::reuse(Tensor& buffer, const Shape& shape, DType dtype) {
  return reuse_buffer(buffer, shape, dtype, device_);
}

Tensor& Module::reuse_gradient(std::size_t slot, const Shape& shape, DType dtype) {
  std::deque<Tensor>& slots = *gradient_buffers_;
  if (slots.size() <= slot) slots.resize(slot + 1);
  return reuse_buffer(slots[slot], shape, dtype, device_);
}

void Module::share_gradient_buffers(Module& other) {
  KILN_CHECK(describe() == other.describe() && children_.size() == other.children_.size(),
             "share_gradient_buffers: {} and {} differ in structure; only modules of one "
             "structure can share their backward's buffers",
             describe(), other.describe());
  gradient_buffers_ = other.gradient_buffers_;
  for (std::size_t i = 0; i < children_.size(); ++i)
    children_[i].second->share_gradient_buffers(*other.children_[i].second);
}

}  // namespace kiln
