// Module: the base of every layer. Explicit forward/backward, no tape (as in Caffe and llm.c):
// forward caches what backward needs, backward accumulates (+=) into parameter gradients and
// returns the input gradient. The public methods check their inputs and call the *_impl hooks.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/op_kinds.h"
#include "kiln/core/tensor.h"
#include "kiln/layers/module_extension.h"
#include "kiln/layers/parameter_extension.h"

namespace kiln {

class Generator;

struct Parameter {
  std::string name;  // "weight", or "layers.0.weight" from a container's parameters()
  Tensor value;
  Tensor grad;  // same shape and device as value; accumulated by backward
  // What features keep beside the value (the bf16 copy of a bf16 run):
  // layers/parameter_extension.h.
  ParameterExtensions extensions;
};

// The output shape of `model` for `batch_input`: (batch, sample dims...), as every shape
// argument of kiln's API takes it (Sequential::summary, export_onnx, estimate_training_memory),
// as PyTorch's do. Throws kiln::Error as output_shape does, except that a shape the model would
// take with a batch axis in front is named as one without a batch axis, with the shape to give.
Shape batch_output_shape(const class Module& model, const Shape& batch_input,
                         const std::string& caller);

// Tells the extensions of every parameter of `module` that its value was written (after loading
// or broadcasting values into them; to() tells them itself).
void parameter_values_changed(class Module& module);

// State a module keeps and checkpoints save, but no optimizer updates (BatchNorm's running
// statistics).
struct Buffer {
  std::string name;  // "running_mean", or "layers.1.running_mean" from a container's buffers()
  Tensor value;
};

// What a registered child is fed in its parent's forward, as the parent states it when it
// registers the child: `computed`, a value the parent computed (the child must give its input
// gradient), or `parent_input`, the parent's own input or a view of it (the child gives its input
// gradient when the parent must give its own).
enum class ChildInput : unsigned char { computed, parent_input };

// Outputs live in buffers the module owns and reuses while shapes stay the same, so a steady
// training step allocates nothing; a returned tensor stays valid until the module's next call
// (predict returns one the caller owns).
class Module {
 public:
  virtual ~Module();
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // x: (N, ...) -> y. In training mode caches what backward needs. The result is the module's
  // output buffer (or, for an identity, x itself): valid until this module's next forward, which
  // overwrites it. Keep a result across calls with clone(), or use predict.
  const Tensor& forward(const Tensor& x);
  // Inference: forward in eval mode, each module's mode restored afterwards (also when forward
  // throws), returning a tensor the caller owns, sharing storage with no buffer of the module nor
  // with x. A backward must follow a new training forward.
  Tensor predict(const Tensor& x);
  // dy: the shape of the last forward's output -> dx: the shape of its input, or an undefined
  // tensor when the input's gradient is not wanted (below).
  Tensor backward(const Tensor& dy);
  // Whether backward must produce the input's gradient (default yes). A network's input is data,
  // whose gradient nobody reads: the trainer turns it off, and then a Sequential runs no backward
  // of its leading layers without parameters and its first layer with parameters skips its
  // input-gradient product (Linear's dx GEMM, Conv2d's backward-data convolution), as PyTorch
  // does for inputs that do not require grad. A child registered with register_module takes its
  // wish at each forward from what its parent stated when registering it (ChildInput), as to,
  // train and parameters recurse. A module of one's own forwards nothing.
  void set_input_grad_wanted(bool wanted) { input_grad_wanted_ = wanted; }
  bool input_grad_wanted() const { return input_grad_wanted_; }

  // Every parameter of this module and its children, named by path ("layers.0.weight"); with
  // recurse false, only those it registered itself.
  std::vector<Parameter*> parameters(bool recurse = true);
  std::vector<const Parameter*> parameters(bool recurse = true) const;
  // The modules registered with register_module.
  std::size_t child_count() const { return children_.size(); }
  std::int64_t parameter_count() const;
  // Whether this module or a child holds a parameter (no list is built: hot paths ask it).
  bool has_parameters() const;
  // Every buffer of this module and its children, named by path as parameters are.
  std::vector<Buffer*> buffers();
  std::vector<const Buffer*> buffers() const;
  // Every random generator whose counter decides what training computes (Dropout's masks), named
  // by path ("layers.11.mask"): checkpoints save and restore their state, so a resumed run draws
  // the masks an uninterrupted one would.
  std::vector<std::pair<std::string, Generator*>> generators();
  void zero_grad();
  // Moves parameters, gradients and buffers to `device`; later inputs must live there too.
  void to(Device device);
  Device device() const { return device_; }
  void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }

  // Makes this module and every module below it keep their backward's buffers (reuse_gradient)
  // in `other`'s, module for module, for two modules of one structure run one after the other
  // whose caller uses each one's results up before the next runs: a GPT's blocks
  // (share_block_gradients, models/gpt_block.h, says why that holds). A gradient such a module
  // returns stays valid until the next backward of either. Throws kiln::Error when the two
  // differ in structure.
  void share_gradient_buffers(Module& other);

  // Attaches `extension` (layers/module_extension.h) to this module and every module below it,
  // now and registered later: it is told of each backward (and may refuse a module as it joins).
  void attach_extension(std::shared_ptr<ModuleExtension> extension);
  // Detaches, from this module and every module below it, each extension `which` picks.
  void detach_extensions(const std::function<bool(const ModuleExtension&)>& which);
  // For a container that skips this module's backward (a ReLU fused into the Linear before it, a
  // leading layer without parameters when no input gradient is wanted): tells the extensions of
  // this module and every module below it that their backward is done.
  void skip_backward();

  // Whether this module takes on the work of `next`, the module that follows it in a Sequential:
  // when it returns true it computes next's forward and backward as part of its own from then on
  // (a Linear runs a following ReLU in its GEMM's epilogue) and the container skips next's, which
  // keeps its place in the list and in parameter names. Asked once, when the container grows.
  virtual bool absorb(const Module& next) {
    (void)next;
    return false;
  }
  // The elementwise activation this module computes on its input and nothing else (an activation
  // layer's kind), or none: what a module before it asks in absorb, to fuse it into its own op.
  virtual std::optional<Activation> elementwise_activation() const { return std::nullopt; }

  // Why this module cannot be recorded once in a CUDA graph and replayed every step, or "" when
  // it can: a container gives its first child's reason, Dropout its own (its mask must change
  // every step).
  virtual std::string graph_capture_blocker() const;

  // "Linear(784 -> 1024)": what the layer is, for summaries and messages.
  virtual std::string describe() const = 0;
  // The output shape for an input shape, checking the input as forward would.
  virtual Shape output_shape(const Shape& input) const = 0;

 protected:
  virtual Tensor forward_impl(const Tensor& x) = 0;
  virtual Tensor backward_impl(const Tensor& dy) = 0;
  virtual void on_train_changed() {}

  // Parameters are created on the CPU at construction; to() moves them.
  Parameter& register_parameter(std::string name, Tensor value);
  // Buffers likewise: created on the CPU, moved by to(), read through the returned reference.
  Buffer& register_buffer(std::string name, Tensor value);
  // Throws kiln::Error for a module registered already (here or in another module): one module
  // in two places would compute wrong gradients (its forward caches serve one call). `input`
  // says what this module's forward feeds the child (ChildInput above).
  void register_module(std::string name, std::shared_ptr<Module> child,
                       ChildInput input = ChildInput::computed);
  // A generator of this module's (it must outlive the module), listed by generators().
  void register_generator(std::string name, Generator& generator);
  // Returns `buffer` reshaped to `shape` on this module's device, reallocating only when the
  // shape or device changed, so steady-state steps reuse the same memory.
  Tensor& reuse(Tensor& buffer, const Shape& shape, DType dtype = DType::f32);
  // As reuse, for a buffer only backward writes and reads (an input gradient, a gradient staged
  // between two products): slot `slot` of this module's gradient buffers, which
  // share_gradient_buffers may hand to another module.
  Tensor& reuse_gradient(std::size_t slot, const Shape& shape, DType dtype = DType::f32);

 private:
  // Throws kiln::Error when this module holds parameters and is not registered below `caller`,
  // whose forward runs it.
  void check_registered_below(const Module& caller) const;
  // Each module's training flag, depth first, for predict to restore.
  void collect_modes(std::vector<bool>& modes) const;
  void restore_modes(const std::vector<bool>& modes, std::size_t& next);

  std::vector<std::unique_ptr<Parameter>> parameters_;
  std::vector<std::unique_ptr<Buffer>> buffers_;
  std::vector<std::pair<std::string, Generator*>> generators_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  const Module* parent_ = nullptr;  // the module that registered this one
  // reuse_gradient's slots, this module's own unless share_gradient_buffers made them another's;
  // a deque, so that a slot added later leaves the references to earlier ones valid.
  std::shared_ptr<std::deque<Tensor>> gradient_buffers_ = std::make_shared<std::deque<Tensor>>();
  Device device_ = Device::cpu();
  bool training_ = true;
  bool input_grad_wanted_ = true;
  ChildInput fed_ = ChildInput::computed;  // what the parent's forward feeds this module
  bool has_forward_ = false;
  Shape last_output_shape_;
  Shape last_input_shape_;  // what backward's result must match
  Tensor output_;           // the last forward's result, which forward returns by reference
  std::vector<std::shared_ptr<ModuleExtension>> extensions_;  // each shared with the modules below
};

}  // namespace kiln
