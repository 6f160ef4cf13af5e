// The Loss contract's checks and the loss names.
#include "kiln/layers/loss.h"

#include "kiln/core/error.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/layers/mse_loss.h"
#include "kiln/layers/sequence_cross_entropy_loss.h"

namespace kiln {

namespace {

constexpr const char* kNames =
    "cross-entropy (or ce) for class labels, mse (or l2) for float targets";

std::string target_text(const Tensor& target) {
  return target.defined() ? fmt::format("{} {}", dtype_name(target.dtype()), target.shape().str())
                          : std::string("no target");
}

}  // namespace

const Tensor& Loss::forward(const Tensor& output, const Tensor& target) {
  KILN_CHECK(target.defined(), "{}: the target is an undefined tensor", describe());
  if (expects_class_labels())
    KILN_CHECK(target.dtype() == DType::i32,
               "{} needs class labels (int32), found float targets {}: use {} "
               "for regression, or data whose target is a class label",
               describe(), target_text(target), Setting::mse_loss);
  else
    KILN_CHECK(target.dtype() == DType::f32,
               "{} needs float targets, found class labels {}: use {} "
               "for classification, or read the target as a float (csv:PATH:target=float, a "
               "float32 .npy labels file)",
               describe(), target_text(target), Setting::cross_entropy_loss);
  return compute(output, target);
}

std::string canonical_loss_name(const std::string& name) {
  if (name == "cross-entropy" || name == "ce" || name == "crossentropy" || name == "cross_entropy")
    return "cross-entropy";
  if (name == "mse" || name == "l2" || name == "mean-squared-error") return "mse";
  KILN_THROW("unknown loss '{}': expected {}", name, kNames);
}

std::unique_ptr<Loss> make_loss(const std::string& name, bool sequence_labels) {
  if (canonical_loss_name(name) == "mse") return std::make_unique<MSELoss>();
  if (sequence_labels) return std::make_unique<SequenceCrossEntropyLoss>();
  return std::make_unique<CrossEntropyLoss>();
}

void check_loss_fits_targets(const Loss& loss, bool class_labels, const std::string& data) {
  KILN_CHECK(loss.expects_class_labels() == class_labels, "{} needs {}, but {} has {}: {}",
             loss.describe(), loss.expects_class_labels() ? "class labels" : "float targets", data,
             class_labels ? "class labels" : "float targets",
             class_labels
                 ? fmt::format("use {}", Setting::cross_entropy_loss)
                 : fmt::format("use {} (or give data with class labels)", Setting::mse_loss));
}

}  // namespace kiln
