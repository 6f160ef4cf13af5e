// Loss: what the Trainer minimises, from the model's output and the batch's targets. A loss
// expects class labels ((N) int32, as CrossEntropyLoss) or float targets of the output's shape
// (MSELoss); forward() checks which before it computes, so a regression set meets a
// classification loss (or the reverse) with one message saying which loss fits. Results live
// in buffers the loss owns and reuses, valid until its next call.
#pragma once

#include <memory>
#include <string>

#include "kiln/core/tensor.h"

namespace kiln {

class Loss {
 public:
  virtual ~Loss() = default;

  // output: (N, ...) and target on the same device: (N) int32 class labels when
  // expects_class_labels(), else float32 of the output's shape -> () mean loss, on the device.
  const Tensor& forward(const Tensor& output, const Tensor& target);
  // -> doutput: the output's shape, the gradient of the mean loss times `scale`.
  virtual const Tensor& backward(float scale = 1.0f) = 0;
  // "CrossEntropyLoss(label_smoothing=0.1)", "MSELoss".
  virtual std::string describe() const = 0;
  virtual bool expects_class_labels() const = 0;
  // A loss over a sequence's tokens, whose reports show the perplexity exp(loss) beside it.
  virtual bool reports_perplexity() const { return false; }

 private:
  virtual const Tensor& compute(const Tensor& output, const Tensor& target) = 0;
};

// By name: "cross-entropy" (aliases "ce", "crossentropy", "cross_entropy") or "mse" (aliases
// "l2", "mean-squared-error"). Throws kiln::Error listing them for any other name.
// With `sequence_labels` (targets (N, T), token windows) cross-entropy is the
// SequenceCrossEntropyLoss over (N, T, V) logits, ignore index -1.
std::unique_ptr<Loss> make_loss(const std::string& name, bool sequence_labels = false);
// The canonical name of an accepted one ("ce" -> "cross-entropy"), e.g. to compare settings.
std::string canonical_loss_name(const std::string& name);

// Throws kiln::Error unless `loss` fits targets of this kind (class labels or float values) of
// the data `data` describes: for a check before training.
void check_loss_fits_targets(const Loss& loss, bool class_labels, const std::string& data);

}  // namespace kiln
