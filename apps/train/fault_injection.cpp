// KILN_INJECT_FAULT read once, and the fault at its rank and step (apps/train/fault_injection.h).
#include "apps/train/fault_injection.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"
#include "kiln/training/trainer.h"

namespace kiln {

FaultInjection::FaultInjection() {
  const char* spec = std::getenv("KILN_INJECT_FAULT");
  if (spec == nullptr || *spec == '\0') return;
  char kind[8] = {};
  long long step = -1;
  const int fields = std::sscanf(spec, "%4[a-z]:%d:%lld", kind, &rank_, &step);
  kind_ = kind;
  step_ = step;
  KILN_CHECK(
      fields == 3 && (kind_ == "fail" || kind_ == "hang" || kind_ == "kill") && rank_ >= 0 &&
          step_ >= 0,
      "KILN_INJECT_FAULT must read fail:RANK:STEP, hang:RANK:STEP or kill:RANK:STEP, found {}",
      excerpt(spec));
}

void FaultInjection::on_step_begin(Trainer& trainer, std::int64_t global_step) {
  at_step(trainer.rank(), global_step);
}

void FaultInjection::at_step(int rank, std::int64_t step) const {
  if (kind_.empty() || rank != rank_ || step != step_) return;
  if (kind_ == "fail")
    KILN_THROW("rank {} failed at step {} as KILN_INJECT_FAULT asked (a test of failure handling)",
               rank, step);
  if (kind_ == "kill") ::raise(SIGKILL);
  std::fprintf(stderr, "kiln: rank %d stops answering at step %lld as KILN_INJECT_FAULT asked\n",
               rank, static_cast<long long>(step));
  std::fflush(stderr);
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

namespace {
constexpr EnvironmentVariable kTrainVariables[] = {
    {"KILN_INJECT_FAULT",
     "fail:RANK:STEP, hang:RANK:STEP or kill:RANK:STEP (tests of failure handling)",
     [](const char*) { FaultInjection(); }},
};
}  // namespace

std::span<const EnvironmentVariable> train_environment_variables() { return kTrainVariables; }

}  // namespace kiln
