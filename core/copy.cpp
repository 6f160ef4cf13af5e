// copy and copy_async between any two devices, through the device runtime (core/device_runtime.h).
// A synchronous copy is queued on the current stream of the CUDA side and then waited for, so it
// sees every op queued before it (a plain cudaMemcpy would not order itself after kiln's
// non-blocking streams).
#include <cstring>

#include "kiln/core/device_runtime.h"
#include "kiln/core/operand_checks.h"
#include "kiln/core/ops.h"

namespace kiln {

namespace {
void check_copy(const char* op, const Tensor& src, const Tensor& dst) {
  KILN_CHECK(src.defined() && dst.defined(), "{}: src and dst must be defined tensors", op);
  KILN_CHECK(src.dtype() == dst.dtype(), "{}: src is {} but dst is {}", op, src.str(), dst.str());
  detail::check_same_shape(op, {{"src", &src}, {"dst", &dst}});
}
// The CUDA device a copy runs on: dst's if it is one, else src's.
Device cuda_side(const Tensor& src, const Tensor& dst) {
  return dst.device().is_cuda() ? dst.device() : src.device();
}
// A copy from another GPU runs on the destination's stream: it starts after the work queued on
// the source GPU's current stream (which produced src), as a copy within one GPU does.
void after_producer(DeviceRuntime& runtime, const Tensor& src, Device copy_device, void* stream) {
  if (src.device().is_cuda() && src.device() != copy_device)
    runtime.wait_for_device(stream, src.device().index());
}
}  // namespace

// Between two GPUs a copy also waits for the source GPU's current stream, and an asynchronous one
// keeps the source's memory from reuse on its own GPU until the copy has run.
void copy(const Tensor& src, Tensor& dst) {
  check_copy("copy", src, dst);
  if (src.nbytes() == 0) return;
  if (src.device().is_cpu() && dst.device().is_cpu()) {
    std::memmove(dst.raw_data(), src.raw_data(), src.nbytes());
    return;
  }
  const Device device = cuda_side(src, dst);
  DeviceRuntime& runtime = device_runtime(device, "copy to or from a CUDA device");
  runtime.set_device(device.index());
  void* stream = runtime.current_stream(device.index());
  after_producer(runtime, src, device, stream);
  runtime.copy_bytes_async(dst.raw_data(), src.raw_data(), src.nbytes(), stream);
  runtime.synchronize_stream(stream);
}

void copy_async(const Tensor& src, Tensor& dst, const Stream& stream) {
  check_copy("copy_async", src, dst);
  if (src.device().is_cpu() && dst.device().is_cpu()) {
    std::memmove(dst.raw_data(), src.raw_data(), src.nbytes());  // the CPU has no queue
    return;
  }
  const Device device = cuda_side(src, dst);
  KILN_CHECK(stream.device() == device,
             "copy_async: the copy between {} and {} runs on {}, but the stream is on {}",
             src.device().str(), dst.device().str(), device.str(), stream.device().str());
  if (src.nbytes() == 0) return;
  DeviceRuntime& runtime = device_runtime(device, "copy_async to or from a CUDA device");
  runtime.set_device(device.index());
  void* const handle = stream.handle();
  after_producer(runtime, src, device, handle);
  runtime.copy_bytes_async(dst.raw_data(), src.raw_data(), src.nbytes(), handle);
  // The operands may come from another stream of this device, or be another GPU's: freed
  // before the copy has run, their memory must not be handed out again until it has.
  for (const Tensor* t : {&src, static_cast<const Tensor*>(&dst)}) {
    if (t->device() == device)
      runtime.record_stream(device.index(), t->raw_data(), handle);
    else if (t->device().is_cuda())
      runtime.record_use_from_device(t->device().index(), t->raw_data(), handle, device.index());
  }
}

}  // namespace kiln
