// The CPU thread pool. kiln has exactly one: OpenMP's, shared by Eigen's GEMM and kiln's own
// loops, so the two never oversubscribe the cores. Its size defaults to the number of cores
// (or OMP_NUM_THREADS) and can be changed at run time.
#pragma once

#include <cstdint>

namespace kiln {

void set_num_threads(int threads);  // throws unless threads >= 1
int num_threads();

}  // namespace kiln
