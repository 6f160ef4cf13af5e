// The CPU thread pool is OpenMP's; Eigen follows it (Eigen::setNbThreads) so GEMM and kiln's own
// loops share one set of threads.
#include "kiln/core/parallel.h"

#include <omp.h>

#include <Eigen/Core>

#include "kiln/core/error.h"

namespace kiln {

void set_num_threads(int threads) {
  KILN_CHECK(threads >= 1, "the number of CPU threads must be at least 1, found {}", threads);
  omp_set_num_threads(threads);
  Eigen::setNbThreads(threads);
}

int num_threads() { return omp_get_max_threads(); }

}  // namespace kiln
