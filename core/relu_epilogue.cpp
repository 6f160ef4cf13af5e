// The process-wide ReLU epilogue choice, first taken from KILN_RELU_EPILOGUE.
#include "kiln/core/relu_epilogue.h"

#include <atomic>
#include <cstdlib>
#include <string_view>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"

namespace kiln {

namespace {

// Unset until the first read, so that the environment is consulted once, and only if asked.
constexpr int kUnset = -1;
std::atomic<int> g_epilogue{kUnset};

}  // namespace

void set_relu_epilogue(ReluEpilogue epilogue) { g_epilogue.store(static_cast<int>(epilogue)); }

ReluEpilogue relu_epilogue() {
  int value = g_epilogue.load(std::memory_order_relaxed);
  if (value == kUnset) {
    int expected = kUnset;
    const ReluEpilogue chosen = parse_relu_epilogue(std::getenv("KILN_RELU_EPILOGUE"));
    g_epilogue.compare_exchange_strong(expected, static_cast<int>(chosen));
    value = g_epilogue.load();
  }
  return static_cast<ReluEpilogue>(value);
}

ReluEpilogue parse_relu_epilogue(const char* name) {
  // Separate by default: cuBLASLt documents no NaN rule for its ReLU epilogue, and oneDNN's ReLU
  // post-op was found to turn NaN into 0 on the CPU. Fused is opt-in until a GPU run shows it keeps
  // NaN.
  if (name == nullptr || *name == '\0' || std::string_view(name) == "separate")
    return ReluEpilogue::separate;
  if (std::string_view(name) == "fused") return ReluEpilogue::fused;
  KILN_THROW(
      "KILN_RELU_EPILOGUE={}: expected fused or separate (or unset it: separate is the "
      "default)",
      excerpt(name));
}

const char* relu_epilogue_name(ReluEpilogue epilogue) {
  return epilogue == ReluEpilogue::fused ? "fused" : "separate";
}

}  // namespace kiln
