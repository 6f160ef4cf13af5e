// The CPU thread pool. kiln has exactly one: OpenMP's, shared by Eigen's GEMM and kiln's own
// loops, so the two never oversubscribe the cores. Its size defaults to the number of cores
// (or OMP_NUM_THREADS) and can be changed at run time.
#pragma once

#include <cstdint>

namespace kiln {

// The most CPU threads set_num_threads takes: 256 or the core count, whichever is more (more is
// a typing mistake, and OpenMP would try to start them all).
int max_cpu_threads();
void set_num_threads(int threads);  // throws unless 1 <= threads <= max_cpu_threads()
int num_threads();

}  // namespace kiln
