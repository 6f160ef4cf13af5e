// Injected faults, for the tests of failure handling that run train as an mpirun job: rank RANK
// fails, hangs or dies at a training step, as KILN_INJECT_FAULT says. The library itself reads no
// such variable and has no option for it. It stays in the train program, not a test build of it,
// because the mpi tests run the program users run.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "kiln/core/environment.h"
#include "kiln/training/observer.h"

namespace kiln {

// KILN_INJECT_FAULT="fail:RANK:STEP" makes rank RANK throw at training step STEP (0-based);
// "hang:RANK:STEP" makes it stop answering there; "kill:RANK:STEP" makes it die there at once
// (SIGKILL: no message, no checkpoint, as a crashed host or the OOM killer). train attaches it to
// its Trainer as an observer (training/observer.h).
class FaultInjection : public TrainingObserver {
 public:
  FaultInjection();  // reads the environment; throws kiln::Error for a value of another form
  void at_step(int rank, std::int64_t step) const;
  void on_step_begin(Trainer& trainer, std::int64_t global_step) override;

 private:
  std::string kind_;  // "", "fail", "hang" or "kill"
  int rank_ = -1;
  std::int64_t step_ = -1;
};

// train's own KILN_* variables (KILN_INJECT_FAULT), for check_environment at start-up.
std::span<const EnvironmentVariable> train_environment_variables();

}  // namespace kiln
