// Injected faults, for the tests of failure handling that run train as an mpirun job:
// KILN_INJECT_FAULT="fail:RANK:STEP" makes rank RANK throw at training step STEP (0-based);
// "hang:RANK:STEP" makes it stop answering there. train hands at_step to the Trainer as its
// TrainerOptions::before_step hook; the library itself reads no such variable.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "kiln/core/environment.h"

namespace kiln {

class FaultInjection {
 public:
  FaultInjection();  // reads the environment; throws kiln::Error for a value of another form
  void at_step(int rank, std::int64_t step) const;

 private:
  std::string kind_;  // "", "fail" or "hang"
  int rank_ = -1;
  std::int64_t step_ = -1;
};

// train's own KILN_* variables (KILN_INJECT_FAULT), for check_environment at start-up.
std::span<const EnvironmentVariable> train_environment_variables();

}  // namespace kiln
