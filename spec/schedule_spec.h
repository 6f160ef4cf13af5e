// Learning-rate schedules from spec strings, the schedule words of the spec language:
//   constant | step:<step_size>:<gamma> | multistep:<m1>,<m2>,...:<gamma> | exp:<gamma>
//   | cosine[:<eta_min>] (T_max = total_steps) | warmup:<steps>[:<start_factor>]+<schedule>
// ("warmup:500+cosine": cosine then spans total_steps - 500). The schedules themselves are
// optim/lr_schedule.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kiln/optim/lr_schedule.h"

namespace kiln {

// Throws kiln::Error naming the spec, what is wrong and the accepted forms.
std::unique_ptr<LrSchedule> parse_schedule(const std::string& spec, float base_lr,
                                           std::int64_t total_steps);

}  // namespace kiln
