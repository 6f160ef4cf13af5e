// Device parsing and printing, and whether CUDA devices answer (a CUDA seam).
#include "kiln/core/device.h"

#include <charconv>

#include "kiln/core/error.h"

#if KILN_CUDA
#include "kiln/core/cuda/runtime.h"
#endif

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
        if (ec == std::errc() && end == digits.data() + digits.size() && index >= 0 && !digits.empty())
          return cuda(index);
      }
      break;
    }
  }
  KILN_THROW("unknown device '{}': expected cpu, gpu, gpu:N, cuda or cuda:N", text);
}

std::string Device::str() const { return is_cpu() ? std::string("cpu") : fmt::format("cuda:{}", index_); }

}  // namespace kiln

// ---- CUDA availability (a CUDA seam)

namespace kiln {

int cuda_device_count() {
#if KILN_CUDA
  return cuda::device_count();
#else
  return 0;
#endif
}

std::string device_name(Device device) {
  if (device.is_cpu()) return "CPU";
#if KILN_CUDA
  cuda::check_device(device.index());
  return cuda::device_name(device.index());
#else
  detail::throw_built_without_cuda("device_name of a CUDA device");
#endif
}

bool cuda_available() { return cuda_device_count() > 0; }

namespace detail {

std::string describe_cuda_unavailable(const CudaProbeFailure& f) {
  auto version = [](int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); };
  const std::string runtime_words = fmt::format("{} ({})", f.error_text, f.error_name);
  if (!f.driver_present)
    return fmt::format("no NVIDIA driver is loaded on this machine (/proc/driver/nvidia is absent; "
                       "the CUDA runtime says: {}): install the NVIDIA driver",
                       runtime_words);
  if (f.insufficient_driver)
    return fmt::format("the NVIDIA driver is too old for this kiln: it supports CUDA {}, kiln's "
                       "runtime is CUDA {} ({}); update the driver",
                       f.driver_version > 0 ? version(f.driver_version) : "?",
                       version(f.runtime_version), runtime_words);
  return runtime_words;
}

}  // namespace detail

std::string cuda_unavailable_reason() {
#if KILN_CUDA
  return cuda::device_count() > 0 ? std::string() : cuda::unavailable_reason();
#else
  return "this kiln was built without CUDA";
#endif
}

}  // namespace kiln
