// What train checks about the files it is given before it reads any: no output is one of its
// inputs (--log-json pointed at the training CSV would append JSON lines to the user's data), and
// no file flag is given where it would be ignored.
#pragma once

#include "apps/train/train_options.h"

namespace kiln {

// Throws kiln::Error naming the flag when --log-json is the same file (device and inode) as a
// file --data, --test-data or --init reads.
void check_outputs_are_no_inputs(const TrainAppOptions& o);

// --init beside --resume: the checkpoint's weights would replace the --init ones unsaid.
void check_file_flags_are_used(const TrainAppOptions& o);

}  // namespace kiln
