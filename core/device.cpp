// Device parsing and printing, and whether CUDA devices answer (asked of the CUDA device runtime,
// core/device_runtime.h, which a CPU-only build does not have).
#include "kiln/core/device.h"

#include <charconv>

#include "kiln/core/device_runtime.h"
#include "kiln/core/error.h"

namespace kiln {

Device Device::parse(std::string_view text) {
  if (text == "cpu") return cpu();
  std::string_view rest;
  for (std::string_view prefix : {"gpu", "cuda"}) {
    if (text.substr(0, prefix.size()) == prefix) {
      rest = text.substr(prefix.size());
      if (rest.empty()) return cuda(0);
      if (rest[0] == ':') {
        int index = -1;
        auto digits = rest.substr(1);
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
        if (ec == std::errc() && end == digits.data() + digits.size() && index >= 0 &&
            !digits.empty())
          return cuda(index);
      }
      break;
    }
  }
  KILN_THROW("unknown device '{}': expected cpu, gpu, gpu:N, cuda or cuda:N", text);
}

std::string Device::str() const {
  return is_cpu() ? std::string("cpu") : fmt::format("cuda:{}", index_);
}

}  // namespace kiln

// ---- CUDA availability

namespace kiln {

int cuda_device_count() {
  DeviceRuntime* cuda = find_device_runtime(Device::Kind::cuda);
  return cuda != nullptr ? cuda->device_count() : 0;
}

std::string device_name(Device device) {
  DeviceRuntime& runtime = device_runtime(device, "device_name of a CUDA device");
  runtime.check_device(device.index());
  return runtime.device_name(device.index());
}

bool cuda_available() { return cuda_device_count() > 0; }

namespace detail {

std::string describe_cuda_unavailable(const CudaProbeFailure& f) {
  auto version = [](int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); };
  const std::string runtime_words = fmt::format("{} ({})", f.error_text, f.error_name);
  if (!f.driver_present)
    return fmt::format(
        "no NVIDIA driver is loaded on this machine (/proc/driver/nvidia is absent; "
        "the CUDA runtime says: {}): install the NVIDIA driver",
        runtime_words);
  if (f.insufficient_driver)
    return fmt::format(
        "the NVIDIA driver is too old for this kiln: it supports CUDA {}, kiln's "
        "runtime is CUDA {} ({}); update the driver",
        f.driver_version > 0 ? version(f.driver_version) : "?", version(f.runtime_version),
        runtime_words);
  return runtime_words;
}

}  // namespace detail

std::string cuda_unavailable_reason() {
  DeviceRuntime* cuda = find_device_runtime(Device::Kind::cuda);
  if (cuda == nullptr) return "this kiln was built without CUDA";
  return cuda->device_count() > 0 ? std::string() : cuda->unavailable_reason();
}

}  // namespace kiln
