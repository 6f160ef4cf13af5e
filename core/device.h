// Where a tensor lives: the CPU or one CUDA device. A value on each tensor, never a global mode.
// Parsed from the spellings users type: "cpu", "gpu", "gpu:1", "cuda", "cuda:0".
#pragma once

#include <string>
#include <string_view>

namespace kiln {

class Device {
 public:
  enum class Kind : unsigned char { cpu, cuda };

  constexpr Device() = default;
  static constexpr Device cpu() { return Device(Kind::cpu, 0); }
  static constexpr Device cuda(int index = 0) { return Device(Kind::cuda, index); }
  // Throws kiln::Error naming the text and the accepted forms.
  static Device parse(std::string_view text);

  constexpr Kind kind() const { return kind_; }
  constexpr int index() const { return index_; }
  constexpr bool is_cpu() const { return kind_ == Kind::cpu; }
  constexpr bool is_cuda() const { return kind_ == Kind::cuda; }
  std::string str() const;  // "cpu" or "cuda:N"

  friend constexpr bool operator==(Device, Device) = default;

 private:
  constexpr Device(Kind kind, int index) : kind_(kind), index_(index) {}
  Kind kind_ = Kind::cpu;
  int index_ = 0;
};

// True when this build has the CUDA backend and at least one device answers.
bool cuda_available();
// Number of CUDA devices; 0 in a CPU-only build or on a machine without a GPU.
int cuda_device_count();
// The device's marketing name ("NVIDIA H200"), or "CPU".
std::string device_name(Device device);
// Why cuda_available() is false, in words ("built without CUDA", "no NVIDIA driver", ...).
std::string cuda_unavailable_reason();

namespace detail {
// What a failed CUDA device probe found. The runtime says "driver version is insufficient"
// both where the driver is too old and where there is none at all; /proc/driver/nvidia tells
// the two apart.
struct CudaProbeFailure {
  std::string_view error_name, error_text;      // the runtime's, e.g. cudaErrorInsufficientDriver
  bool insufficient_driver = false;             // the error is cudaErrorInsufficientDriver
  bool driver_present = false;                  // /proc/driver/nvidia exists
  int runtime_version = 0, driver_version = 0;  // 13000 is 13.0; the driver's 0 when none answers
};
// The words for it: no NVIDIA driver, a driver too old for the runtime, or the runtime's own.
std::string describe_cuda_unavailable(const CudaProbeFailure& failure);
}  // namespace detail

}  // namespace kiln
