// EventFileWriter: a TensorBoard event file, events.out.tfevents.<seconds>.<host>.<pid> in a
// folder, as TensorFlow's summary writers make them: TFRecord framing (io/tensorboard/tfrecord.h)
// around serialized Event messages, the first one naming the format ("brain.Event:2"), then
// scalar summaries. Each call writes its records at once, so TensorBoard sees them while a run
// goes on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/core/output_file.h"

namespace kiln {

struct Scalar {
  std::string tag;   // "loss/train"
  double value = 0;  // stored as float, as TensorBoard's simple_value is
};

class EventFileWriter {
 public:
  // Creates `dir` if missing and a new event file in it, with its file_version event. `what`
  // names the writer in errors ("TensorBoardLogger's"). Throws kiln::Error when either cannot
  // be made.
  EventFileWriter(const std::string& dir, std::string_view what);

  // One Event at `step` holding every scalar of `scalars`, stamped with the time now.
  void add_scalars(std::int64_t step, const std::vector<Scalar>& scalars);
  const std::string& path() const { return file_.path(); }

 private:
  OutputFile file_;
};

}  // namespace kiln
