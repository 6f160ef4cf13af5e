// EventFileWriter (io/tensorboard/event_file_writer.h): Events built with the classes protoc makes
// of tensorboard_event.proto, serialized, framed and written in one write each.
#include "kiln/io/tensorboard/event_file_writer.h"

#include <fcntl.h>
#include <unistd.h>

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

}  // namespace kiln
