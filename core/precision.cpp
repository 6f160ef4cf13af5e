#include "kiln/core/precision.h"

#include <atomic>

#include "kiln/core/error.h"

namespace kiln {

namespace {
std::atomic<MatmulPrecision> g_precision{MatmulPrecision::fp32};
}  // namespace

void set_matmul_precision(MatmulPrecision precision) { g_precision.store(precision); }

MatmulPrecision matmul_precision() { return g_precision.load(std::memory_order_relaxed); }

MatmulPrecision parse_matmul_precision(const std::string& name) {
  if (name == "fp32") return MatmulPrecision::fp32;
  if (name == "tf32") return MatmulPrecision::tf32;
  KILN_THROW("unknown precision '{}': expected fp32 or tf32 (bf16 mixed precision is not built yet)", name);
}

const char* matmul_precision_name(MatmulPrecision precision) {
  return precision == MatmulPrecision::tf32 ? "tf32" : "fp32";
}

}  // namespace kiln
