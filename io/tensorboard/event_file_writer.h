// EventFileWriter: a TensorBoard event file, events.out.tfevents.<seconds>.<host>.<pid> in a
// folder, as TensorFlow's summary writers make them: TFRecord framing (io/tensorboard/tfrecord.h)
// around serialized Event messages, the first one naming the format ("brain.Event:2"), then
// scalar and histogram summaries. Each call writes its records at once, so TensorBoard sees them
// while a run goes on.
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

struct Histogram {
  std::string tag;            // "weights/layers.0.weight"
  std::vector<float> values;  // drawn into kHistogramBuckets equal buckets over [min, max]
};
inline constexpr int kHistogramBuckets = 30;

class EventFileWriter {
 public:
  // Creates `dir` if missing and a new event file in it, with its file_version event. `what`
  // names the writer in errors ("TensorBoardLogger's"). Throws kiln::Error when either cannot
  // be made.
  EventFileWriter(const std::string& dir, std::string_view what);

  // One Event at `step` holding every scalar of `scalars`, stamped with the time now.
  void add_scalars(std::int64_t step, const std::vector<Scalar>& scalars);
  // One Event at `step` holding a histogram of each of `histograms` (empty ones left out).
  void add_histograms(std::int64_t step, const std::vector<Histogram>& histograms);
  const std::string& path() const { return file_.path(); }

 private:
  OutputFile file_;
};

}  // namespace kiln
