// Data-parallel helpers of the training loop; see data_parallel.h.
#include "kiln/dist/data_parallel.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "kiln/core/error.h"
#include "kiln/data/subset_dataset.h"

namespace kiln {

namespace {

// FNV-1a over the settings that must agree for the ranks to issue the same collectives and
// train the same model.
std::uint64_t options_fingerprint(const TrainOptions& o) {
  const std::string text =
      fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", o.model,
                  o.data, o.samples, o.epochs, o.batch_size, o.lr, o.optimizer, o.weight_decay,
                  o.schedule, o.shuffle, o.seed, o.resume, o.init, o.evaluate, o.max_steps, o.loss,
                  o.momentum ? fmt::format("{}", *o.momentum) : "default", o.nesterov, o.beta1,
                  o.beta2, o.eps, o.test_share.value_or(0.1), o.test_data);
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

void check_same_options_on_every_rank(const TrainOptions& options, Communicator& comm) {
  if (comm.world_size() == 1) return;
  const std::uint64_t h = options_fingerprint(options);
  // Halves of 32 bits are exact in a double; max(x) == -max(-x) on every rank iff all agree.
  const double hi = static_cast<double>(h >> 32), lo = static_cast<double>(h & 0xffffffffull);
  double v[4] = {hi, lo, -hi, -lo};
  comm.all_reduce_host(v, CollectiveOp::max);
  KILN_CHECK(
      v[0] == -v[2] && v[1] == -v[3],
      "the ranks of this job were started with different training options ({}); start every rank "
      "with the same command line",
      comm.describe());
}

void broadcast_from_rank0(Module& model, Communicator& comm) {
  std::vector<Tensor*> tensors;
  for (Parameter* p : model.parameters()) tensors.push_back(&p->value);
  for (Buffer* b : model.buffers())
    if (b->value.dtype() == DType::f32) tensors.push_back(&b->value);
  comm.broadcast(tensors, 0);
  invalidate_bf16_copies(model);  // the values just changed
}

void broadcast_buffers_from_rank0(Module& model, Communicator& comm) {
  std::vector<Tensor*> tensors;
  for (Buffer* b : model.buffers())
    if (b->value.dtype() == DType::f32) tensors.push_back(&b->value);
  if (!tensors.empty()) comm.broadcast(tensors, 0);
}

std::shared_ptr<const Dataset> evaluation_shard(std::shared_ptr<const Dataset> data, int rank,
                                                int world_size) {
  if (world_size == 1) return data;
  const std::int64_t n = data->size();
  const std::int64_t begin = n * rank / world_size, end = n * (rank + 1) / world_size;
  return std::make_shared<SubsetDataset>(std::move(data), begin, end - begin);
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

FaultInjection::FaultInjection() {
  const char* spec = std::getenv("KILN_INJECT_FAULT");
  if (spec == nullptr || *spec == '\0') return;
  char kind[8] = {};
  long long step = -1;
  const int fields = std::sscanf(spec, "%4[a-z]:%d:%lld", kind, &rank_, &step);
  kind_ = kind;
  step_ = step;
  KILN_CHECK(fields == 3 && (kind_ == "fail" || kind_ == "hang") && rank_ >= 0 && step_ >= 0,
             "KILN_INJECT_FAULT must read fail:RANK:STEP or hang:RANK:STEP, found '{}'", spec);
}

void FaultInjection::at_step(int rank, std::int64_t step) const {
  if (kind_.empty() || rank != rank_ || step != step_) return;
  if (kind_ == "fail")
    KILN_THROW("rank {} failed at step {} as KILN_INJECT_FAULT asked (a test of failure handling)",
               rank, step);
  std::fprintf(stderr, "kiln: rank %d stops answering at step %lld as KILN_INJECT_FAULT asked\n",
               rank, static_cast<long long>(step));
  std::fflush(stderr);
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

}  // namespace kiln
