// OMP_WAIT_POLICY=PASSIVE, then execv of /proc/self/exe (core/openmp_wait_policy.h).
#include "kiln/core/openmp_wait_policy.h"

#include <strings.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

namespace kiln {

namespace {

// What libgomp saw: read while the library loads, before main() can change the environment.
bool passive_at_start() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  if (policy != nullptr && strcasecmp(policy, "passive") == 0) return true;
  const char* spins = std::getenv("GOMP_SPINCOUNT");
  return spins != nullptr && std::string_view(spins) == "0";
}

const bool kPassiveAtStart = passive_at_start();

}  // namespace

void prefer_passive_openmp_waiting(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr)
    return;  // the user's choice, or already re-executed
  if (setenv("OMP_WAIT_POLICY", "PASSIVE", 0) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: run on with the default policy
}

bool openmp_waits_passively() { return kPassiveAtStart; }

}  // namespace kiln
