// Learning-rate schedules from spec strings, the schedule words of the spec language; the
// schedules themselves are optim/lr_schedule.h.
//   constant | step:<step_size>:<gamma> | multistep:<m1>,<m2>,...:<gamma> | exp:<gamma>
//   | cosine[:<min_lr>[:<decay_steps>]] | warmup:<steps>[:<start_factor>]+<schedule>
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kiln/optim/lr_schedule.h"

namespace kiln {

// cosine anneals to min_lr (nanoGPT's min_lr, default 0) over the steps that remain
// ("warmup:500+cosine": total_steps - 500), or until step decay_steps of the run, counted from
// its start as nanoGPT's lr_decay_iters is, then holds min_lr.
// Throws kiln::Error naming the spec, what is wrong and the accepted forms.
std::unique_ptr<LrSchedule> parse_schedule(const std::string& spec, float base_lr,
                                           std::int64_t total_steps);

}  // namespace kiln
