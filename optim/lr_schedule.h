// Learning-rate schedules as pure functions of the step: lr_at(step) for step = 0, 1, ... (the
// number of optimizer steps taken before this one, PyTorch's last_epoch), so resuming needs only
// the step count. The closed forms are PyTorch's, listed with the builders below.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

class LrSchedule {
 public:
  explicit LrSchedule(float base_lr) : base_lr_(base_lr) {}
  virtual ~LrSchedule() = default;
  // The learning rate for step `step` >= 0.
  virtual float lr_at(std::int64_t step) const = 0;
  virtual std::string describe() const = 0;  // "cosine(T_max=1000, eta_min=0)"
  float base_lr() const { return base_lr_; }

 private:
  float base_lr_;
};

// The builders, and their closed forms:
//   constant     base
//   step         base * gamma^floor(step / step_size)                       StepLR
//   multistep    base * gamma^(number of milestones <= step)                 MultiStepLR
//   exponential  base * gamma^step                                           ExponentialLR
//   cosine       eta_min + (base - eta_min) * (1 + cos(pi * step / T_max)) / 2   CosineAnnealingLR
//                (past T_max it rises again, as PyTorch's closed form does; or, with
//                CosinePast::hold, stays at eta_min, as nanoGPT's get_lr holds min_lr past
//                lr_decay_iters)
//   warmup W     base * (start + (1 - start) * step / W) for step < W, then the inner schedule at
//                step - W (SequentialLR of LinearLR and it); start defaults to 0.
std::unique_ptr<LrSchedule> constant_lr(float base_lr);
std::unique_ptr<LrSchedule> step_lr(float base_lr, std::int64_t step_size, float gamma);
std::unique_ptr<LrSchedule> multi_step_lr(float base_lr, std::vector<std::int64_t> milestones,
                                          float gamma);
std::unique_ptr<LrSchedule> exponential_lr(float base_lr, float gamma);
// What cosine does past T_max: PyTorch's closed form rises again; nanoGPT holds the floor.
enum class CosinePast { rise, hold };
std::unique_ptr<LrSchedule> cosine_lr(float base_lr, std::int64_t t_max, float eta_min = 0.0f,
                                      CosinePast past = CosinePast::rise);
// Linear warm-up over `warmup_steps` in front of `after` (which starts at its own step 0).
std::unique_ptr<LrSchedule> warmup_lr(std::int64_t warmup_steps, float start_factor,
                                      std::unique_ptr<LrSchedule> after);

}  // namespace kiln
