// What train checks about the files it writes before it reads any: no output is one of its
// inputs. --log-json pointed at the training CSV would append JSON lines to the user's data.
#pragma once

#include "kiln/apps/train/train_options.h"

namespace kiln {

// Throws kiln::Error naming the flag when --log-json is the same file (device and inode) as a
// file --data, --test-data or --init reads.
void check_outputs_are_no_inputs(const TrainOptions& o);

}  // namespace kiln
