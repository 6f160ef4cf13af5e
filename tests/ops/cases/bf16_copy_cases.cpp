// Cases of write_bf16_copy, Linear's bf16 weight copy on the CPU (group Linear; its only kernel is
// the reference, so it enters no pair yet, but OpCases runs it twice): round to nearest even with
// NaN and infinities kept, at odd sizes.
#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"

namespace kiln::ops_testing {
namespace {

std::vector<OpCase> cases() {
  std::vector<OpCase> out;
  for (std::int64_t n : {0, 1, 7, 1000})
    out.push_back({"write_bf16_copy", "Linear", "n=" + std::to_string(n) + " NaN/inf",
                   [n](Device d) -> Outputs {
                     Tensor bits = Tensor::empty({n}, DType::bf16, d);
                     write_bf16_copy(with_sentinels(input({n}, 4500)).to(d), bits);
                     return {{"bits", bits}};
                   },
                   kExact});
  return out;
}

const AddCases kCases(cases());

}  // namespace
}  // namespace kiln::ops_testing
