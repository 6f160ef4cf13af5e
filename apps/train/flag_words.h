// How train words what the library says in its own API: the diagnosis's advice as train's flags
// (--workers 8 --pin-memory), and the library's messages with each API name it uses for a
// setting train takes as a flag (TrainerOptions::keep_checkpoints) replaced by that flag, so that
// train prints what it always printed.
#pragma once

#include <string>
#include <vector>

#include "kiln/training/diagnosis.h"

namespace kiln {

class TrainFlagWords : public SettingWords {
 public:
  std::string phrase(const Advice& advice) const override;                   // "--workers 8"
  std::string join(const std::vector<std::string>& phrases) const override;  // "a b"
};
const TrainFlagWords& train_flag_words();

// `message` with the library's names of train's settings replaced by train's flags.
std::string in_flag_words(std::string message);

// From inside a catch block: rethrows the exception in flight, a kiln::Error in flag words
// (an OutOfMemory as it is: its type is what a batch-size search looks for).
[[noreturn]] void rethrow_in_flag_words();

}  // namespace kiln
