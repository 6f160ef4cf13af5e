// Running loss and top-1 accuracy over an epoch, accumulated on the device: update() queues two
// small ops and never waits for the GPU; read() synchronises once and returns the figures.
// Accuracy needs one class label per sample: with float targets (regression) or a sequence's
// labels ((N, T), next-token prediction, whose figure is the loss and its perplexity) only the
// loss is kept, and read() gives accuracy NaN.
#pragma once

#include "kiln/core/tensor.h"

namespace kiln {

class RunningMetrics {
 public:
  explicit RunningMetrics(Device device = Device::cpu());

  // logits: (N, C), labels: (N) int32 — or output and float targets of any shape (N, ...) —,
  // mean_loss: the batch's scalar mean loss, all on the device.
  // The same as accumulate() then count(N).
  void update(const Tensor& logits, const Tensor& labels, const Tensor& mean_loss);
  // The device half of update(): queues the two ops (a CUDA graph can record them)...
  void accumulate(const Tensor& logits, const Tensor& labels, const Tensor& mean_loss);
  // ...and the host half, once per batch of n samples (per replay of such a graph).
  void count(std::int64_t n) { samples_ += n; }
  struct Values {
    double mean_loss = 0.0;
    double accuracy = 0.0;  // in [0, 1]; NaN for float targets and sequences: no accuracy
    std::int64_t samples = 0;
  };
  Values read() const;
  void reset();

 private:
  Tensor loss_sum_;  // () sum over batches of mean_loss * N
  Tensor correct_;   // () int32 count of correct predictions (exact; a float would round past 2^24)
  std::int64_t samples_ = 0;
  // Float targets or sequence labels were seen: no accuracy. Kept by reset(), since the data's
  // kind stays (and a replayed CUDA graph does not call accumulate() again).
  bool no_accuracy_ = false;
};

}  // namespace kiln
