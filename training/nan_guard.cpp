// NanGuard (training/nan_guard.h).
#include "kiln/training/nan_guard.h"

#include <cmath>

#include "kiln/core/error.h"

namespace kiln {

NanGuard::NanGuard(std::int64_t every) : every_(every) {
  KILN_CHECK(every >= 1, "NanGuard checks every N >= 1 steps, found {}", every);
}

void NanGuard::on_step_end(Trainer& trainer, const StepEnd& s) {
  (void)trainer;
  if (s.epoch != epoch_) {
    epoch_ = s.epoch;
    last_checked_ = 0;
  }
  if (s.step % every_ != 0 && s.step != s.epoch_steps) return;
  const float loss = s.loss.item();
  if (!std::isfinite(loss))
    KILN_THROW(
        "the loss became {} in epoch {} at step {}{}; lower {} (now too "
        "large for this model) or check the data for NaN values",
        loss, s.epoch, s.step,
        s.step - last_checked_ > 1
            ? fmt::format(" (checked every few steps: after step {})", last_checked_)
            : "",
        Setting::learning_rate);
  last_checked_ = s.step;
}

}  // namespace kiln
