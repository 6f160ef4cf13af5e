// Data-parallel helpers of the training loop; see data_parallel.h.
#include "kiln/distributed/data_parallel.h"

#include "kiln/core/error.h"

namespace kiln {

void broadcast_from_rank0(Module& model, Communicator& comm) {
  std::vector<Tensor*> tensors;
  for (Parameter* p : model.parameters()) tensors.push_back(&p->value);
  for (Buffer* b : model.buffers())
    if (b->value.dtype() == DType::f32) tensors.push_back(&b->value);
  comm.broadcast(tensors, 0);
  parameter_values_changed(model);  // the values just changed
}

void broadcast_buffers_from_rank0(Module& model, Communicator& comm) {
  std::vector<Tensor*> tensors;
  for (Buffer* b : model.buffers())
    if (b->value.dtype() == DType::f32) tensors.push_back(&b->value);
  if (!tensors.empty()) comm.broadcast(tensors, 0);
}

RunningMetrics::Values sum_over_ranks(const RunningMetrics::Values& local, Communicator& comm) {
  if (comm.world_size() == 1) return local;
  const auto n = static_cast<double>(local.samples);
  double sums[3] = {local.mean_loss * n, local.accuracy * n, n};
  comm.all_reduce_host(sums, CollectiveOp::sum);
  RunningMetrics::Values total;
  total.samples = static_cast<std::int64_t>(sums[2]);
  if (total.samples > 0) {
    total.mean_loss = sums[0] / sums[2];
    total.accuracy = sums[1] / sums[2];
  }
  return total;
}

bool any_rank_stopping(bool stopping_here, Communicator& comm) {
  if (comm.world_size() == 1) return stopping_here;
  double flag = stopping_here ? 1.0 : 0.0;
  comm.all_reduce_host(std::span<double>(&flag, 1), CollectiveOp::max);
  return flag > 0.0;
}

}  // namespace kiln
