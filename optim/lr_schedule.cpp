// The schedules of lr_schedule.h, each a closed form evaluated in double (as PyTorch's in Python
// floats) and rounded to float once; their factories check the hyper-parameters. The spec parser
// is spec/schedule_spec.cpp.
#include "kiln/optim/lr_schedule.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "kiln/core/error.h"

namespace kiln {

namespace {

void check_step(std::int64_t step) {
  KILN_CHECK(step >= 0, "learning-rate schedule: step must be >= 0, found {}", step);
}

class ConstantLr final : public LrSchedule {
 public:
  using LrSchedule::LrSchedule;
  float lr_at(std::int64_t step) const override {
    check_step(step);
    return base_lr();
  }
  std::string describe() const override { return "constant"; }
};

class StepLr final : public LrSchedule {
 public:
  StepLr(float base, std::int64_t step_size, float gamma)
      : LrSchedule(base), step_size_(step_size), gamma_(gamma) {}
  float lr_at(std::int64_t step) const override {
    check_step(step);
    return static_cast<float>(base_lr() * std::pow(double{gamma_}, double(step / step_size_)));
  }
  std::string describe() const override {
    return fmt::format("step(step_size={}, gamma={})", step_size_, gamma_);
  }

 private:
  std::int64_t step_size_;
  float gamma_;
};

class MultiStepLr final : public LrSchedule {
 public:
  MultiStepLr(float base, std::vector<std::int64_t> milestones, float gamma)
      : LrSchedule(base), milestones_(std::move(milestones)), gamma_(gamma) {}
  float lr_at(std::int64_t step) const override {
    check_step(step);
    // bisect_right: a milestone counts from its own step on.
    const auto passed =
        std::upper_bound(milestones_.begin(), milestones_.end(), step) - milestones_.begin();
    return static_cast<float>(base_lr() * std::pow(double{gamma_}, double(passed)));
  }
  std::string describe() const override {
    return fmt::format("multistep(milestones={}, gamma={})", fmt::join(milestones_, ","), gamma_);
  }

 private:
  std::vector<std::int64_t> milestones_;
  float gamma_;
};

class ExponentialLr final : public LrSchedule {
 public:
  ExponentialLr(float base, float gamma) : LrSchedule(base), gamma_(gamma) {}
  float lr_at(std::int64_t step) const override {
    check_step(step);
    return static_cast<float>(base_lr() * std::pow(double{gamma_}, double(step)));
  }
  std::string describe() const override { return fmt::format("exp(gamma={})", gamma_); }

 private:
  float gamma_;
};

class CosineLr final : public LrSchedule {
 public:
  CosineLr(float base, std::int64_t t_max, float eta_min, CosinePast past)
      : LrSchedule(base), t_max_(t_max), eta_min_(eta_min), past_(past) {}
  float lr_at(std::int64_t step) const override {
    check_step(step);
    if (past_ == CosinePast::hold && step >= t_max_) return eta_min_;
    const double phase = std::numbers::pi * double(step) / double(t_max_);
    return static_cast<float>(eta_min_ +
                              (base_lr() - double{eta_min_}) * (1.0 + std::cos(phase)) / 2.0);
  }
  std::string describe() const override {
    return fmt::format("cosine(T_max={}, eta_min={}{})", t_max_, eta_min_,
                       past_ == CosinePast::hold ? ", then eta_min" : "");
  }

 private:
  std::int64_t t_max_;
  float eta_min_;
  CosinePast past_;
};

class WarmupLr final : public LrSchedule {
 public:
  WarmupLr(std::int64_t steps, float start, std::unique_ptr<LrSchedule> after)
      : LrSchedule(after->base_lr()), steps_(steps), start_(start), after_(std::move(after)) {}
  float lr_at(std::int64_t step) const override {
    check_step(step);
    if (step >= steps_) return after_->lr_at(step - steps_);
    const double factor = start_ + (1.0 - double{start_}) * double(step) / double(steps_);
    return static_cast<float>(base_lr() * factor);
  }
  std::string describe() const override {
    return fmt::format("warmup({} steps from {}) + {}", steps_, start_, after_->describe());
  }

 private:
  std::int64_t steps_;
  float start_;
  std::unique_ptr<LrSchedule> after_;
};

void check_gamma(float gamma) {
  KILN_CHECK(std::isfinite(gamma) && gamma > 0.0f, "gamma must be a finite value > 0, found {}",
             gamma);
}

}  // namespace

std::unique_ptr<LrSchedule> constant_lr(float base_lr) {
  return std::make_unique<ConstantLr>(base_lr);
}

std::unique_ptr<LrSchedule> step_lr(float base_lr, std::int64_t step_size, float gamma) {
  KILN_CHECK(step_size >= 1, "step schedule: step_size must be >= 1, found {}", step_size);
  check_gamma(gamma);
  return std::make_unique<StepLr>(base_lr, step_size, gamma);
}

std::unique_ptr<LrSchedule> multi_step_lr(float base_lr, std::vector<std::int64_t> milestones,
                                          float gamma) {
  KILN_CHECK(!milestones.empty(), "multistep schedule: give at least one milestone");
  for (std::size_t i = 0; i < milestones.size(); ++i)
    KILN_CHECK(milestones[i] >= 0 && (i == 0 || milestones[i] > milestones[i - 1]),
               "multistep schedule: milestones must be >= 0 and increasing, found {}",
               fmt::join(milestones, ","));
  check_gamma(gamma);
  return std::make_unique<MultiStepLr>(base_lr, std::move(milestones), gamma);
}

std::unique_ptr<LrSchedule> exponential_lr(float base_lr, float gamma) {
  check_gamma(gamma);
  return std::make_unique<ExponentialLr>(base_lr, gamma);
}

std::unique_ptr<LrSchedule> cosine_lr(float base_lr, std::int64_t t_max, float eta_min,
                                      CosinePast past) {
  KILN_CHECK(t_max >= 1, "cosine schedule: T_max must be >= 1 step, found {}", t_max);
  KILN_CHECK(std::isfinite(eta_min) && eta_min >= 0.0f,
             "cosine schedule: eta_min must be >= 0, found {}", eta_min);
  return std::make_unique<CosineLr>(base_lr, t_max, eta_min, past);
}

std::unique_ptr<LrSchedule> warmup_lr(std::int64_t warmup_steps, float start_factor,
                                      std::unique_ptr<LrSchedule> after) {
  KILN_CHECK(warmup_steps >= 1, "warmup: the number of steps must be >= 1, found {}", warmup_steps);
  KILN_CHECK(start_factor >= 0.0f && start_factor <= 1.0f,
             "warmup: the start factor must lie in [0, 1], found {}", start_factor);
  KILN_CHECK(after != nullptr, "warmup: no schedule to follow the warm-up");
  return std::make_unique<WarmupLr>(warmup_steps, start_factor, std::move(after));
}

}  // namespace kiln
