// The CUDA context kiln keeps, behind plain C++ signatures: device selection, memory (pinned
// host, cached device), streams, events and the per-thread library handles. Compiled only into CUDA
// builds: the CUDA kernels call it directly, the rest of kiln through the device-runtime interface
// that core/cuda/device_runtime.cpp implements over it (core/device_runtime.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/core/caching_allocator.h"

typedef struct CUstream_st* cudaStream_t;
typedef struct cublasContext* cublasHandle_t;

// Kept free of fmt (and so of error.h and memory.h): .cu files include this header, and fmt 9
// does not compile under nvcc in C++20.
namespace kiln {
struct DeviceMemoryInfo;
}  // namespace kiln

namespace kiln::cuda {

int device_count();                // 0 when no device or driver answers
std::string unavailable_reason();  // the driver's words when device_count() is 0
void set_device(int device);       // cheap when already current for this thread
void check_device(int device);     // throws unless 0 <= device < device_count()
std::string device_name(int device);
std::string pci_bus_id(int device);  // "0000:3b:00.0", as NVML names devices

void* pinned_allocate(std::size_t bytes);
void pinned_release(void* ptr);
MemoryStats pinned_stats();

CachingAllocator& device_allocator(int device);
DeviceMemoryInfo memory_info(int device);

// The calling thread's current stream on `device`; set_current_stream changes it.
cudaStream_t current_stream(int device);
void set_current_stream(int device, cudaStream_t stream);
cudaStream_t create_stream(int device);
void destroy_stream(cudaStream_t stream);  // logs, never throws

// Copies between any two of host and device memory (unified addressing picks the direction).
void copy_bytes(void* dst, const void* src, std::size_t bytes, int device);
void copy_bytes_async(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);
void synchronize_stream(cudaStream_t stream);
void stream_wait_event(cudaStream_t stream, void* event);
// Work queued on `stream` after the call waits for the work queued so far on this thread's
// current stream of `device` (a copy from another GPU after the kernels producing its source).
void wait_for_device(cudaStream_t stream, int device);
// Marks that the work just queued on `stream` (of `device`) uses the device memory at `ptr`,
// which may have been allocated on another stream: freed, it is not reused before `stream` has
// passed this point (CachingAllocator::record_stream).
void record_stream(int device, const void* ptr, cudaStream_t stream);
// The same for a use queued on `stream` of another device (`stream_device`: a copy from one GPU
// to another): the owner's current stream waits for that use and the block is marked used there.
void record_use_from_device(int device, const void* ptr, cudaStream_t stream, int stream_device);
// Whether `stream` (a cudaStream_t) is being captured into a graph now.
bool stream_capturing(const void* stream) noexcept;

void* create_event(int device);   // with timing
void destroy_event(void* event);  // logs, never throws
void record_event(void* event, cudaStream_t stream);
void synchronize_event(void* event);
bool query_event(void* event);
float event_elapsed_ms(void* start, void* end);

// The calling thread's cuBLAS handle on `device`, bound to `stream`.
cublasHandle_t cublas_handle(int device, cudaStream_t stream);

// Stream capture for CudaGraph (core/cuda_graph.h) on `device`. While this thread captures,
// StreamScratch hands its blocks to `scratch_sink` instead of releasing them (the graph keeps
// them), and the device allocator serves this thread from the capture's private pool.
void begin_capture(cudaStream_t stream, std::vector<void*>* scratch_sink, int device);
// Ends the capture and returns the instantiated graph (a cudaGraphExec_t). `failed`: the work
// threw, so the capture is ended and dropped without instantiating, and nullptr is returned.
void* end_capture(cudaStream_t stream, bool failed = false);
void launch_graph(void* exec, cudaStream_t stream);
void destroy_graph(void* exec);  // logs, never throws
// The sink of the capture running on this thread, or nullptr.
std::vector<void*>* capture_scratch_sink();
// A number for the capture running on this thread, unique in the process; 0 when none runs.
std::uint64_t capture_serial();
// The private pool of `device`'s allocator that this thread's allocations go to now: the serial
// of its capture on that device, else CachingAllocator::kSharedPool.
std::uint64_t capture_pool(int device);
// Whether any thread is capturing now (the device allocator then keeps its cache: cudaFree
// would wait for the device and break the capture).
bool capture_in_progress();

}  // namespace kiln::cuda
