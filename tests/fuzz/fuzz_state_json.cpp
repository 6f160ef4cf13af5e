// state.json of a checkpoint: any text, any JSON, any value in any field.
#include <cstdint>
#include <string_view>

#include "kiln/checkpoint/training_state.h"
#include "kiln/core/error.h"
#include "tests/fuzz/fuzz_message.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const kiln::TrainingState state = kiln::parse_training_state(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz/state.json");
    // What it accepted must write back and read again to the same state. A kiln-checkpoint-2
    // file's flag-keyed settings are read for comparison only and never written, so they are
    // not part of the round trip.
    const kiln::TrainingState again =
        kiln::parse_training_state(kiln::state_to_json(state), "again");
    if (again.global_step != state.global_step || again.seed != state.seed ||
        again.run != state.run || again.pieces != state.pieces)
      __builtin_trap();
  } catch (const kiln::Error& e) {
    kiln::fuzz::check_message(e);
  }
  return 0;
}
