// NanGuard: the observer that stops training with one clear message when the loss stops being
// a finite number. It reads the loss every `every` steps and at each epoch's last (on a GPU a
// read is a sync, so the trainer checks every 50 steps there and every step on the CPU).
#pragma once

#include <cstdint>

#include "kiln/training/observer.h"

namespace kiln {

class NanGuard : public TrainingObserver {
 public:
  explicit NanGuard(std::int64_t every = 1);  // throws kiln::Error unless every >= 1
  // Throws kiln::Error naming the epoch, the step and what to change.
  void on_step_end(Trainer& trainer, const StepEnd& step) override;

 private:
  std::int64_t every_;
  std::int64_t epoch_ = -1;
  std::int64_t last_checked_ = 0;  // this epoch's last step checked
};

}  // namespace kiln
