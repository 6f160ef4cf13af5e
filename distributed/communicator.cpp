// The checked public collectives and the single-process communicator.
#include "kiln/distributed/communicator.h"

#include "kiln/core/error.h"

namespace kiln {

const char* collective_op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::sum: return "sum";
    case CollectiveOp::mean: return "mean";
    case CollectiveOp::max: return "max";
  }
  return "?";
}

Communicator::Communicator(int rank, int world_size, Device device)
    : rank_(rank), world_size_(world_size), device_(device) {
  KILN_CHECK(world_size >= 1 && rank >= 0 && rank < world_size,
             "a communicator needs 0 <= rank < world_size, found rank {} of {}", rank, world_size);
}

void Communicator::check_tensor(const char* what, const Tensor& x) const {
  KILN_CHECK(x.defined() && x.dtype() == DType::f32, "{}: needs a float32 tensor, found {}", what,
             x.defined() ? x.str() : std::string("an undefined tensor"));
  KILN_CHECK(x.device() == device_,
             "{}: the tensor is on {} but this communicator ({}) works on {}", what,
             x.device().str(), describe(), device_.str());
}

void Communicator::all_reduce_async(Tensor& x, CollectiveOp op) {
  check_tensor("all_reduce", x);
  if (x.numel() == 0) return;
  all_reduce_async_impl(x, op);
}

void Communicator::wait_all() { wait_all_impl(); }

void Communicator::all_reduce(std::span<Tensor* const> tensors, CollectiveOp op) {
  for (Tensor* x : tensors) all_reduce_async(*x, op);
  wait_all();
}

void Communicator::broadcast(std::span<Tensor* const> tensors, int root) {
  KILN_CHECK(root >= 0 && root < world_size_, "broadcast: root must be in [0, {}), found {}",
             world_size_, root);
  for (Tensor* x : tensors) {
    check_tensor("broadcast", *x);
    if (x->numel() > 0) broadcast_impl(*x, root);
  }
  wait_all();
}

void Communicator::all_reduce_host(std::span<double> values, CollectiveOp op) {
  if (values.empty()) return;
  all_reduce_host_impl(values, op == CollectiveOp::mean ? CollectiveOp::sum : op);
  if (op == CollectiveOp::mean)
    for (double& v : values) v /= world_size_;
}

void Communicator::barrier() { barrier_impl(); }

namespace {

class SingleProcessCommunicator final : public Communicator {
 public:
  explicit SingleProcessCommunicator(Device device) : Communicator(0, 1, device) {}
  std::string describe() const override { return "single process"; }
  bool is_single_process() const override { return true; }

 protected:
  void all_reduce_async_impl(Tensor&, CollectiveOp) override {}
  void wait_all_impl() override {}
  void broadcast_impl(Tensor&, int) override {}
  void all_reduce_host_impl(std::span<double>, CollectiveOp) override {}
  void barrier_impl() override {}
};

}  // namespace

std::unique_ptr<Communicator> make_single_process_communicator(Device device) {
  return std::make_unique<SingleProcessCommunicator>(device);
}

}  // namespace kiln
