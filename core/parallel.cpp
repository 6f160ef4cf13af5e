// The CPU thread pool is OpenMP's; Eigen follows it (Eigen::setNbThreads) so GEMM and kiln's own
// loops share one set of threads.
#include "kiln/core/parallel.h"

#include <omp.h>
#include <unistd.h>

#include <cstdlib>

#include <Eigen/Core>

#include "kiln/core/error.h"

namespace kiln {

void set_num_threads(int threads) {
  KILN_CHECK(threads >= 1, "the number of CPU threads must be at least 1, found {}", threads);
  omp_set_num_threads(threads);
  Eigen::setNbThreads(threads);
}

int num_threads() { return omp_get_max_threads(); }

void prefer_passive_openmp_waiting(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;  // the user's choice, or already re-executed
  if (setenv("OMP_WAIT_POLICY", "PASSIVE", 0) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: run on with the default policy
}

}  // namespace kiln
