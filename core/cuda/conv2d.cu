// CUDA convolution through cuDNN's legacy API (NCHW, float, cross-correlation as PyTorch's
// conv2d). Descriptors are made per call (host-only, microseconds); the algorithm for each pass
// is chosen once per (device, geometry) and cached: the fastest of cuDNN's heuristic list that is
// deterministic and uses plain FMA math (no TF32, so results stay within 1e-4 of the CPU), with
// a workspace up to kWorkspaceLimit, else PyTorch's deterministic defaults.
#include <cudnn.h>

#include <array>
#include <map>
#include <mutex>

#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/cudnn_check.h"
#include "kiln/core/cuda/cudnn_runtime.h"
#include "kiln/core/ops/conv2d_record.h"

namespace kiln::cuda {

namespace {

constexpr std::size_t kWorkspaceLimit = std::size_t{256} << 20;  // 256 MiB, as PyTorch's forward

// RAII descriptors. A descriptor whose setup fails is destroyed before the error propagates.
struct TensorDesc {
  cudnnTensorDescriptor_t d = nullptr;
  TensorDesc(Index n, Index c, Index h, Index w) {
    KILN_CUDNN_CHECK(cudnnCreateTensorDescriptor(&d));
    try {
      KILN_CUDNN_CHECK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                                  static_cast<int>(n), static_cast<int>(c),
                                                  static_cast<int>(h), static_cast<int>(w)));
    } catch (...) {
      cudnnDestroyTensorDescriptor(d);
      throw;
    }
  }
  ~TensorDesc() { cudnnDestroyTensorDescriptor(d); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
};

struct FilterDesc {
  cudnnFilterDescriptor_t d = nullptr;
  explicit FilterDesc(const Window2d& g) {
    KILN_CUDNN_CHECK(cudnnCreateFilterDescriptor(&d));
    try {
      KILN_CUDNN_CHECK(cudnnSetFilter4dDescriptor(d, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                                  static_cast<int>(g.oc), static_cast<int>(g.c),
                                                  static_cast<int>(g.kh), static_cast<int>(g.kw)));
    } catch (...) {
      cudnnDestroyFilterDescriptor(d);
      throw;
    }
  }
  ~FilterDesc() { cudnnDestroyFilterDescriptor(d); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
};

struct ConvDesc {
  cudnnConvolutionDescriptor_t d = nullptr;
  explicit ConvDesc(const Window2d& g) {
    KILN_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&d));
    try {
      // CROSS_CORRELATION: the kernel is not flipped, as in PyTorch and the CPU path.
      KILN_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
          d, static_cast<int>(g.ph), static_cast<int>(g.pw), static_cast<int>(g.sh),
          static_cast<int>(g.sw), 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
      // FMA only: CUDNN_DEFAULT_MATH would allow TF32 tensor cores on Ampere and later.
      KILN_CUDNN_CHECK(cudnnSetConvolutionMathType(d, CUDNN_FMA_MATH));
    } catch (...) {
      cudnnDestroyConvolutionDescriptor(d);
      throw;
    }
  }
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
};

struct Descriptors {
  TensorDesc x, y;
  FilterDesc w;
  ConvDesc conv;
  explicit Descriptors(const Window2d& g)
      : x(g.n, g.c, g.h, g.w), y(g.n, g.oc, g.oh, g.ow), w(g), conv(g) {}
};

// ---- algorithm choice, cached per (device, geometry, pass)

enum class Pass { forward, data, filter };
using Key = std::array<Index, 15>;
Key key_of(int device, const Window2d& g, Pass pass) {
  return {device, static_cast<Index>(pass),
          g.n,    g.c,
          g.h,    g.w,
          g.oc,   g.kh,
          g.kw,   g.sh,
          g.sw,   g.ph,
          g.pw,   g.oh,
          g.ow};
}

struct Choice {
  int algo = 0;               // a cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t
  std::size_t workspace = 0;  // bytes
};

std::mutex& cache_mutex() {
  static auto* m = new std::mutex();
  return *m;
}
std::map<Key, Choice>& cache() {
  static auto* c = new std::map<Key, Choice>();  // never destroyed, like the handle pools
  return *c;
}

// The first acceptable entry of a heuristic list (ordered fastest first), or -1.
template <typename Perf> int first_acceptable(const Perf* perf, int count) {
  for (int i = 0; i < count; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].determinism == CUDNN_DETERMINISTIC &&
        perf[i].mathType == CUDNN_FMA_MATH && perf[i].memory <= kWorkspaceLimit)
      return i;
  return -1;
}

// Looks the choice up, or asks cuDNN's heuristics through `list` (fills perf, returns the count)
// and `workspace_of` (bytes for an algorithm), falling back to `fallback`.
template <typename Perf, typename List, typename WorkspaceOf>
Choice choose(const Key& key, int fallback, List list, WorkspaceOf workspace_of) {
  {
    std::lock_guard lock(cache_mutex());
    if (auto it = cache().find(key); it != cache().end()) return it->second;
  }
  Perf perf[16];
  const int count = list(perf, 16);
  const int i = first_acceptable(perf, count);
  Choice choice;
  choice.algo = i >= 0 ? static_cast<int>(perf[i].algo) : fallback;
  choice.workspace = workspace_of(choice.algo);
  std::lock_guard lock(cache_mutex());
  cache().emplace(key, choice);
  return choice;
}

int current_device() {
  int device = 0;
  KILN_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

const float kOne = 1.0f, kZero = 0.0f;

}  // namespace

void conv2d_forward(const rec::Conv2dForward& o, cudaStream_t stream) {
  const Window2d& g = o.g;
  const float *x = o.x, *w = o.w, *bias = o.bias;
  float* y = o.y;
  if (g.n == 0) return;
  const int device = current_device();
  cudnnHandle_t h = cudnn_handle(device, stream);
  const Descriptors d(g);
  const Choice c = choose<cudnnConvolutionFwdAlgoPerf_t>(
      key_of(device, g, Pass::forward), CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
      [&](cudnnConvolutionFwdAlgoPerf_t* perf, int n) {
        int count = 0;
        KILN_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(h, d.x.d, d.w.d, d.conv.d, d.y.d, n,
                                                                &count, perf));
        return count;
      },
      [&](int algo) {
        std::size_t bytes = 0;
        KILN_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(
            h, d.x.d, d.w.d, d.conv.d, d.y.d, static_cast<cudnnConvolutionFwdAlgo_t>(algo),
            &bytes));
        return bytes;
      });
  void* workspace = cudnn_workspace(device, stream, c.workspace);
  // beta = 0: y is written without being read (it may hold garbage or NaN).
  KILN_CUDNN_CHECK(cudnnConvolutionForward(h, &kOne, d.x.d, x, d.w.d, w, d.conv.d,
                                           static_cast<cudnnConvolutionFwdAlgo_t>(c.algo),
                                           workspace, c.workspace, &kZero, d.y.d, y));
  if (bias != nullptr) {
    const TensorDesc b(1, g.oc, 1, 1);  // broadcast over N, H, W
    KILN_CUDNN_CHECK(cudnnAddTensor(h, &kOne, b.d, bias, &kOne, d.y.d, y));
  }
}

void conv2d_backward_data(const rec::Conv2dBackwardData& o, cudaStream_t stream) {
  const Window2d& g = o.g;
  const float *dy = o.dy, *w = o.w;
  float* dx = o.dx;
  if (g.n == 0) return;
  const int device = current_device();
  cudnnHandle_t h = cudnn_handle(device, stream);
  const Descriptors d(g);
  // ALGO_0 accumulates with atomics (non-deterministic); the filter keeps it out.
  const Choice c = choose<cudnnConvolutionBwdDataAlgoPerf_t>(
      key_of(device, g, Pass::data), CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
      [&](cudnnConvolutionBwdDataAlgoPerf_t* perf, int n) {
        int count = 0;
        KILN_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w.d, d.y.d, d.conv.d,
                                                                     d.x.d, n, &count, perf));
        return count;
      },
      [&](int algo) {
        std::size_t bytes = 0;
        KILN_CUDNN_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(
            h, d.w.d, d.y.d, d.conv.d, d.x.d, static_cast<cudnnConvolutionBwdDataAlgo_t>(algo),
            &bytes));
        return bytes;
      });
  void* workspace = cudnn_workspace(device, stream, c.workspace);
  // beta = 0: dx is overwritten, as the op promises.
  KILN_CUDNN_CHECK(cudnnConvolutionBackwardData(h, &kOne, d.w.d, w, d.y.d, dy, d.conv.d,
                                                static_cast<cudnnConvolutionBwdDataAlgo_t>(c.algo),
                                                workspace, c.workspace, &kZero, d.x.d, dx));
}

void conv2d_backward_filter(const rec::Conv2dBackwardFilter& o, cudaStream_t stream) {
  const Window2d& g = o.g;
  const float *x = o.x, *dy = o.dy;
  float *dw = o.dw, *dbias = o.dbias;
  if (g.n == 0) return;
  const int device = current_device();
  cudnnHandle_t h = cudnn_handle(device, stream);
  const Descriptors d(g);
  // ALGO_0 and ALGO_3 accumulate with atomics (non-deterministic); the filter keeps them out.
  const Choice c = choose<cudnnConvolutionBwdFilterAlgoPerf_t>(
      key_of(device, g, Pass::filter), CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1,
      [&](cudnnConvolutionBwdFilterAlgoPerf_t* perf, int n) {
        int count = 0;
        KILN_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x.d, d.y.d, d.conv.d,
                                                                       d.w.d, n, &count, perf));
        return count;
      },
      [&](int algo) {
        std::size_t bytes = 0;
        KILN_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(
            h, d.x.d, d.y.d, d.conv.d, d.w.d, static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo),
            &bytes));
        return bytes;
      });
  void* workspace = cudnn_workspace(device, stream, c.workspace);
  // beta = 1: dw += dL/dw, the layers' accumulate contract.
  KILN_CUDNN_CHECK(cudnnConvolutionBackwardFilter(
      h, &kOne, d.x.d, x, d.y.d, dy, d.conv.d, static_cast<cudnnConvolutionBwdFilterAlgo_t>(c.algo),
      workspace, c.workspace, &kOne, d.w.d, dw));
  if (dbias != nullptr) {
    const TensorDesc b(1, g.oc, 1, 1);
    KILN_CUDNN_CHECK(cudnnConvolutionBackwardBias(h, &kOne, d.y.d, dy, &kOne, b.d, dbias));  // +=
  }
}

}  // namespace kiln::cuda
