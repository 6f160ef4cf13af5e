// StepScalars: rows written on the host by the optimizer itself (write_step_scalars), so a
// replayed update uses the very values an eager step would compute, then copied in one piece.
#include "kiln/optim/step_scalars.h"

namespace kiln {

void StepScalars::prepare(const RecordableOptimizer& optimizer, const LrSchedule& schedule,
                          std::int64_t first_step, std::int64_t count) {
  KILN_CHECK(count >= 1, "StepScalars: prepare rows for at least one step, found {}", count);
  KILN_CHECK(first_step >= 0, "StepScalars: steps count from 0, found {}", first_step);
  const Device device = optimizer.parameters().front()->value.device();
  const std::int64_t width = optimizer.step_scalar_width();
  Tensor host = Tensor::empty(Shape{count, width});
  float* row = host.data<float>();
  for (std::int64_t k = 0; k < count; ++k, row += width)
    optimizer.write_step_scalars(schedule.lr_at(first_step + k), k, row);
  if (!rows_.defined() || rows_.shape() != host.shape() || rows_.device() != device)
    rows_ = Tensor::empty(host.shape(), DType::f32, device);
  copy(host, rows_);
  Tensor zero = Tensor::zeros(Shape{1}, DType::i32);
  if (!cursor_.defined() || cursor_.device() != device)
    cursor_ = Tensor::empty(Shape{1}, DType::i32, device);
  copy(zero, cursor_);
  remaining_ = count;
}

}  // namespace kiln
