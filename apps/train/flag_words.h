// How train words the settings the library names (core/setting.h): each setting as train's flag
// for it (Setting::keep_checkpoints as "--keep-checkpoints"), once, so that the diagnosis's
// advice (--workers 8 --pin-memory) and the library's messages read as train always printed them.
#pragma once

#include <string>
#include <vector>

#include "kiln/core/setting.h"

namespace kiln {

class TrainFlagWords : public SettingWords {
 public:
  std::string name(Setting setting) const override;                          // "--keep-checkpoints"
  std::string phrase(const SettingValue& value) const override;              // "--workers 8"
  std::string usage(Setting setting) const override;                         // "--checkpoint DIR"
  std::string join(const std::vector<std::string>& phrases) const override;  // "a b"
};
const TrainFlagWords& train_flag_words();

// From inside a catch block: rethrows the exception in flight, a kiln::Error with its message in
// train's flags (an OutOfMemory as it is: its type is what a batch-size search looks for).
[[noreturn]] void rethrow_in_flag_words();

}  // namespace kiln
