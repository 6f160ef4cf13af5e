// EventFileWriter (io/tensorboard/event_file_writer.h): Events built with the classes protoc makes
// of tensorboard_event.proto, serialized, framed and written in one write each.
#include "kiln/io/tensorboard/event_file_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "kiln/core/error.h"
#include "kiln/io/output_folder.h"
#include "kiln/io/tensorboard/tfrecord.h"
#include "tensorboard_event.pb.h"

namespace kiln {

namespace {

double seconds_since_epoch() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string host_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "localhost";
  return host;
}

std::string new_event_file(const std::string& dir, std::string_view what) {
  create_output_folder(dir, what);
  return fmt::format("{}/events.out.tfevents.{}.{}.{}", dir,
                     static_cast<long long>(seconds_since_epoch()), host_name(),
                     static_cast<long long>(::getpid()));
}

std::string framed(const tensorboard::Event& event) {
  std::string bytes;
  KILN_CHECK(event.SerializeToString(&bytes), "cannot serialize a TensorBoard event of {} bytes",
             event.ByteSizeLong());
  return tfrecord(bytes);
}

// Equal buckets over [min, max]; all values equal: one bucket holding them all.
void fill_histogram(const std::vector<float>& values, tensorboard::HistogramProto& h) {
  double lo = values.front(), hi = values.front(), sum = 0, squares = 0;
  for (const float v : values) {
    lo = std::min<double>(lo, v), hi = std::max<double>(hi, v);
    sum += v, squares += static_cast<double>(v) * v;
  }
  h.set_min(lo), h.set_max(hi), h.set_num(static_cast<double>(values.size()));
  h.set_sum(sum), h.set_sum_squares(squares);
  const int buckets = hi > lo ? kHistogramBuckets : 1;
  std::vector<double> counts(buckets, 0.0);
  for (const float v : values) {
    const int i = hi > lo ? static_cast<int>((v - lo) / (hi - lo) * buckets) : 0;
    counts[std::clamp(i, 0, buckets - 1)] += 1;
  }
  for (int i = 0; i < buckets; ++i) {
    h.add_bucket_limit(i + 1 == buckets ? hi : lo + (hi - lo) * (i + 1) / buckets);
    h.add_bucket(counts[i]);
  }
}

}  // namespace

EventFileWriter::EventFileWriter(const std::string& dir, std::string_view what)
    : file_(new_event_file(dir, what), O_WRONLY | O_CREAT | O_EXCL, fmt::format("{} event", what)) {
  tensorboard::Event event;
  event.set_wall_time(seconds_since_epoch());
  event.set_file_version("brain.Event:2");
  file_.write_all(framed(event));
}

void EventFileWriter::add_scalars(std::int64_t step, const std::vector<Scalar>& scalars) {
  tensorboard::Event event;
  event.set_wall_time(seconds_since_epoch());
  event.set_step(step);
  for (const Scalar& scalar : scalars) {
    tensorboard::Summary::Value* value = event.mutable_summary()->add_value();
    value->set_tag(scalar.tag);
    value->set_simple_value(static_cast<float>(scalar.value));
  }
  file_.write_all(framed(event));
}

void EventFileWriter::add_histograms(std::int64_t step, const std::vector<Histogram>& histograms) {
  tensorboard::Event event;
  event.set_wall_time(seconds_since_epoch());
  event.set_step(step);
  for (const Histogram& histogram : histograms) {
    if (histogram.values.empty()) continue;
    tensorboard::Summary::Value* value = event.mutable_summary()->add_value();
    value->set_tag(histogram.tag);
    fill_histogram(histogram.values, *value->mutable_histo());
  }
  file_.write_all(framed(event));
}

}  // namespace kiln
