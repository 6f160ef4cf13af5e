// OMP_WAIT_POLICY=PASSIVE, then execv of /proc/self/exe (apps/support/openmp_wait_policy.h).
#include "kiln/apps/support/openmp_wait_policy.h"

#include <unistd.h>

#include <cstdlib>

namespace kiln {

void prefer_passive_openmp_waiting(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr)
    return;  // the user's choice, or already re-executed
  if (setenv("OMP_WAIT_POLICY", "PASSIVE", 0) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: run on with the default policy
}

}  // namespace kiln
