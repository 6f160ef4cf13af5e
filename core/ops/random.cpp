// The random fills' checks and the public uniform_ and normal_.
#include "kiln/core/ops/random.h"

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace op {

void Uniform::check() {
  detail::check_operands(kName, {{"x", &x}}, DType::f32);
  KILN_CHECK(low <= high, "uniform_: low {} is above high {}", low, high);
  offset = gen.advance(static_cast<std::uint64_t>(x.numel()));
  record = {x.numel(), gen.seed(), offset, low, high, x.data<float>()};
}

void Normal::check() {
  detail::check_operands(kName, {{"x", &x}}, DType::f32);
  KILN_CHECK(stddev >= 0.0f, "normal_: the standard deviation must be >= 0, found {}", stddev);
  offset = gen.advance(static_cast<std::uint64_t>(x.numel()));
  record = {x.numel(), gen.seed(), offset, mean, stddev, x.data<float>()};
}

}  // namespace op

void uniform_(Tensor& x, float low, float high, Generator& gen) {
  run(op::Uniform{x, low, high, gen});
}
void normal_(Tensor& x, float mean, float stddev, Generator& gen) {
  run(op::Normal{x, mean, stddev, gen});
}

}  // namespace kiln
