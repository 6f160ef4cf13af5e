// RecordableOptimizer's recorded step: the eager update's code, reading its scalars from rows.
#include "kiln/optim/recordable_optimizer.h"

#include "kiln/core/error.h"

namespace kiln {

void RecordableOptimizer::record_step(const StepScalarRows& per_step) {
  KILN_CHECK(steps_ > 0,
             "{}: a recorded update reads the state an earlier step leaves (momentum buffers, "
             "moments); run step() once before recording one",
             describe());
  update_from(&per_step);
}

RecordableOptimizer* as_recordable(Optimizer& optimizer) {
  return dynamic_cast<RecordableOptimizer*>(&optimizer);
}

}  // namespace kiln
