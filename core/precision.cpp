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
  if (name == "bf16") return MatmulPrecision::bf16;
  KILN_THROW("unknown precision '{}': expected fp32, tf32 or bf16", name);
}

const char* matmul_precision_name(MatmulPrecision precision) {
  switch (precision) {
    case MatmulPrecision::fp32: return "fp32";
    case MatmulPrecision::tf32: return "tf32";
    case MatmulPrecision::bf16: return "bf16";
  }
  return "fp32";
}

}  // namespace kiln
