// The CPU thread pool is OpenMP's; Eigen follows it (Eigen::setNbThreads) so GEMM and kiln's own
// loops share one set of threads.
#include "kiln/core/parallel.h"

#include <omp.h>

#include <algorithm>
#include <thread>

#include <Eigen/Core>

#include "kiln/core/error.h"

namespace kiln {

int max_cpu_threads() {
  return static_cast<int>(std::max(256u, std::thread::hardware_concurrency()));
}

void set_num_threads(int threads) {
  KILN_CHECK(threads >= 1 && threads <= max_cpu_threads(),
             "the number of CPU threads must be in [1, {}], found {}", max_cpu_threads(), threads);
  omp_set_num_threads(threads);
  Eigen::setNbThreads(threads);
}

int num_threads() { return omp_get_max_threads(); }

}  // namespace kiln
