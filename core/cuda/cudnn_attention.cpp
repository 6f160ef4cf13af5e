// cuDNN's fused attention (core/cuda/cudnn_attention.h) on cuDNN 9's graph API, with no frontend
// library: the forward and backward graphs are the ones cuDNN's fused flash-attention engines
// match (as cudnn-frontend's sdpa nodes write them for a causal mask, no bias, no dropout), heads
// as a batch of n with one head each, Kᵀ and Vᵀ as strided views, Q, K, V, O and their gradients
// in bf16, the scores, statistics and dQ's accumulator in fp32.
#include "kiln/core/cuda/cudnn_attention.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "kiln/core/cuda/bf16_convert.h"
#include "kiln/core/cuda/cudnn_check.h"
#include "kiln/core/cuda/cudnn_runtime.h"
#include "kiln/core/cuda/stream_scratch.cuh"
#include "kiln/core/error.h"
#include "kiln/core/log.h"
#include "kiln/core/operand_checks.h"
#include "kiln/core/ops/causal_attention.h"

namespace kiln::cuda {

namespace {

using Dims = std::vector<std::int64_t>;

// The graphs' real tensors, by unique id (the variant pack binds each to its pointer).
enum Uid : std::int64_t {
  kQ = 1,
  kK,
  kV,
  kO,
  kStats,
  kScale,
  kMinusInfinity,
  kDO,
  kDQ,
  kDK,
  kDV,
  kSoftmaxSum,
  kDQAccumulator,
  kOne,
  kFirstVirtual = 100,
};

// One backend descriptor, destroyed with its owner.
class Descriptor {
 public:
  explicit Descriptor(cudnnBackendDescriptorType_t type) {
    KILN_CUDNN_CHECK(cudnnBackendCreateDescriptor(type, &d_));
  }
  ~Descriptor() {
    if (d_ != nullptr) cudnnBackendDestroyDescriptor(d_);
  }
  Descriptor(Descriptor&& other) noexcept : d_(std::exchange(other.d_, nullptr)) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Descriptor& operator=(Descriptor&&) = delete;

  cudnnBackendDescriptor_t get() const { return d_; }
  template <typename T>
  Descriptor& set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                  const T* values, std::int64_t count = 1) {
    KILN_CUDNN_CHECK(cudnnBackendSetAttribute(d_, name, type, count, values));
    return *this;
  }
  Descriptor& finalize() {
    KILN_CUDNN_CHECK(cudnnBackendFinalize(d_));
    return *this;
  }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
};

// A graph of operations under construction, then its execution plan. Every descriptor it made
// stays alive with it, as long as the plan is kept.
class Graph {
 public:
  using Tensor = cudnnBackendDescriptor_t;

  Tensor tensor(std::int64_t uid, const Dims& dims, const Dims& strides, cudnnDataType_t type,
                bool is_virtual = false, bool by_value = false) {
    Descriptor& t = keep(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const std::int64_t alignment = 16, rank = static_cast<std::int64_t>(dims.size());
    t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type)
        .set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims.data(), rank)
        .set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides.data(), rank)
        .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid)
        .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment)
        .set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, &is_virtual)
        .set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, &by_value)
        .finalize();
    return t.get();
  }
  Tensor intermediate(const Dims& dims, const Dims& strides,
                      cudnnDataType_t type = CUDNN_DATA_FLOAT) {
    return tensor(next_virtual_++, dims, strides, type, true);
  }
  // A scalar whose value the variant pack passes from the host.
  Tensor scalar(std::int64_t uid) {
    return tensor(uid, {1, 1, 1, 1}, {1, 1, 1, 1}, CUDNN_DATA_FLOAT, false, true);
  }

  // y = mode(x[, b][, t]); `axis` for GEN_INDEX.
  void pointwise(cudnnPointwiseMode_t mode, Tensor x, Tensor b, Tensor y, Tensor t = nullptr,
                 std::int64_t axis = -1, cudnnDataType_t math = CUDNN_DATA_FLOAT) {
    Descriptor& pw = keep(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    pw.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, &mode)
        .set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, &math);
    if (axis >= 0) pw.set(CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, &axis);
    pw.finalize();
    const cudnnBackendDescriptor_t pw_desc = pw.get();
    Descriptor& op = keep(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, &pw_desc)
        .set(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &x);
    if (b != nullptr)
      op.set(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &b);
    if (t != nullptr)
      op.set(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &t);
    op.set(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &y).finalize();
    ops_.push_back(op.get());
  }
  void matmul(Tensor a, Tensor b, Tensor c) {
    Descriptor& mm = keep(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    mm.set(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute).finalize();
    const cudnnBackendDescriptor_t mm_desc = mm.get();
    Descriptor& op = keep(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &a)
        .set(CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &b)
        .set(CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &c)
        .set(CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &mm_desc)
        .finalize();
    ops_.push_back(op.get());
  }
  // y = x reduced by `reduction` over the axes where y has size 1.
  void reduce(cudnnReduceTensorOp_t reduction, Tensor x, Tensor y) {
    Descriptor& r = keep(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    r.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, &reduction)
        .set(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute)
        .finalize();
    const cudnnBackendDescriptor_t r_desc = r.get();
    Descriptor& op = keep(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &x)
        .set(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &y)
        .set(CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &r_desc)
        .finalize();
    ops_.push_back(op.get());
  }
  // y: x's elements under y's dimensions and strides (a transposed view).
  void reshape(Tensor x, Tensor y) {
    Descriptor& op = keep(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &x)
        .set(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &y)
        .finalize();
    ops_.push_back(op.get());
  }

  // The graph's execution plan on `handle`: the first engine configuration that finalizes, of
  // the heuristics' mode A and then of their fallback list. Throws kiln::Error (with cuDNN's
  // reason) when none does.
  void build_plan(cudnnHandle_t handle) {
    Descriptor& graph = keep(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &handle)
        .set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, ops_.data(),
             static_cast<std::int64_t>(ops_.size()))
        .finalize();
    std::string reasons;
    for (const cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
      for (cudnnBackendDescriptor_t config : engine_configs(graph.get(), mode, reasons)) {
        Descriptor plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &handle)
            .set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, &config);
        if (const cudnnStatus_t status = cudnnBackendFinalize(plan.get());
            status != CUDNN_STATUS_SUCCESS) {
          reasons = reason(status);
          continue;
        }
        KILN_CUDNN_CHECK(cudnnBackendGetAttribute(plan.get(),
                                                  CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                                  CUDNN_TYPE_INT64, 1, nullptr, &workspace_bytes_));
        plan_ = std::make_unique<Descriptor>(std::move(plan));
        return;
      }
    }
    KILN_THROW(
        "no engine configuration of cuDNN's heuristics finalized for the attention graph: {}",
        reasons.empty() ? "the heuristics listed none" : reasons);
  }

  // Runs the plan with each uid bound to its pointer (device memory, or a host float for a
  // scalar); fixed-size arrays, so that a step's call allocates nothing on the host either.
  template <std::size_t N>
  void execute(cudnnHandle_t handle, const std::array<std::int64_t, N>& uids,
               const std::array<void*, N>& pointers, void* workspace) const {
    constexpr auto count = static_cast<std::int64_t>(N);
    Descriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids.data(), count)
        .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers.data(), count)
        .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &workspace)
        .finalize();
    KILN_CUDNN_CHECK(cudnnBackendExecute(handle, plan_->get(), pack.get()));
  }
  std::int64_t workspace_bytes() const { return workspace_bytes_; }

 private:
  static std::string reason(cudnnStatus_t status) {
    return fmt::format("{} ({})", detail::cudnn_status_name(status),
                       detail::cudnn_status_description(status));
  }
  // The engine configurations cuDNN's heuristics in `mode` list for the finalized graph (none,
  // with the reason in `reasons`, where the heuristics do not finalize).
  std::vector<cudnnBackendDescriptor_t> engine_configs(cudnnBackendDescriptor_t graph,
                                                       cudnnBackendHeurMode_t mode,
                                                       std::string& reasons) {
    Descriptor& heuristics = keep(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    heuristics.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, &graph)
        .set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &mode);
    if (const cudnnStatus_t status = cudnnBackendFinalize(heuristics.get());
        status != CUDNN_STATUS_SUCCESS) {
      reasons = reason(status);
      return {};
    }
    std::int64_t count = 0;
    KILN_CUDNN_CHECK(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
    std::vector<cudnnBackendDescriptor_t> configs;
    for (std::int64_t i = 0; i < count; ++i)
      configs.push_back(keep(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR).get());
    if (count > 0)
      KILN_CUDNN_CHECK(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &count,
                                                configs.data()));
    configs.resize(static_cast<std::size_t>(count));
    return configs;
  }
  Descriptor& keep(cudnnBackendDescriptorType_t type) {
    descriptors_.push_back(std::make_unique<Descriptor>(type));
    return *descriptors_.back();
  }

  std::vector<std::unique_ptr<Descriptor>> descriptors_;
  std::vector<cudnnBackendDescriptor_t> ops_;
  std::int64_t next_virtual_ = kFirstVirtual;
  std::unique_ptr<Descriptor> plan_;
  std::int64_t workspace_bytes_ = 0;
};

// The dimensions of the (n, 1, rows, cols) tensors of the graphs, row-major, and of their
// transposes (the same memory read column by column).
Dims dims(std::int64_t n, std::int64_t rows, std::int64_t cols) { return {n, 1, rows, cols}; }
Dims row_major(std::int64_t rows, std::int64_t cols) { return {rows * cols, rows * cols, cols, 1}; }
Dims column_major(std::int64_t rows, std::int64_t cols) {
  return {rows * cols, rows * cols, 1, rows};
}

// The causal mask on the scores s (n, 1, t, t): entries above the diagonal become -inf.
Graph::Tensor causal_mask(Graph& g, Graph::Tensor s, std::int64_t n, std::int64_t t) {
  const Graph::Tensor row = g.intermediate(dims(n, t, t), row_major(t, t), CUDNN_DATA_INT32),
                      col = g.intermediate(dims(n, t, t), row_major(t, t), CUDNN_DATA_INT32),
                      keep = g.intermediate(dims(n, t, t), row_major(t, t), CUDNN_DATA_BOOLEAN),
                      masked = g.intermediate(dims(n, t, t), row_major(t, t));
  g.pointwise(CUDNN_POINTWISE_GEN_INDEX, s, nullptr, row, nullptr, 2);
  g.pointwise(CUDNN_POINTWISE_GEN_INDEX, s, nullptr, col, nullptr, 3);
  g.pointwise(CUDNN_POINTWISE_CMP_GE, row, col, keep, nullptr, -1, CUDNN_DATA_BOOLEAN);
  g.pointwise(CUDNN_POINTWISE_BINARY_SELECT, s, g.scalar(kMinusInfinity), masked, keep);
  return masked;
}

// O = softmax(scale Q Kᵀ under the causal mask) V, Stats = each row's log-sum-exp.
void forward_graph(Graph& g, std::int64_t n, std::int64_t t, std::int64_t d) {
  const Dims scores = dims(n, t, t), per_row = dims(n, t, 1);
  const Graph::Tensor q = g.tensor(kQ, dims(n, t, d), row_major(t, d), CUDNN_DATA_BFLOAT16),
                      k_t = g.tensor(kK, dims(n, d, t), column_major(d, t), CUDNN_DATA_BFLOAT16),
                      v = g.tensor(kV, dims(n, t, d), row_major(t, d), CUDNN_DATA_BFLOAT16),
                      o = g.tensor(kO, dims(n, t, d), row_major(t, d), CUDNN_DATA_BFLOAT16),
                      stats = g.tensor(kStats, per_row, row_major(t, 1), CUDNN_DATA_FLOAT);
  const Graph::Tensor s = g.intermediate(scores, row_major(t, t)),
                      scaled = g.intermediate(scores, row_major(t, t));
  g.matmul(q, k_t, s);
  g.pointwise(CUDNN_POINTWISE_MUL, s, g.scalar(kScale), scaled);
  const Graph::Tensor masked = causal_mask(g, scaled, n, t);
  const Graph::Tensor max = g.intermediate(per_row, row_major(t, 1)),
                      shifted = g.intermediate(scores, row_major(t, t)),
                      e = g.intermediate(scores, row_major(t, t)),
                      sum = g.intermediate(per_row, row_major(t, 1)),
                      log_sum = g.intermediate(per_row, row_major(t, 1)),
                      p = g.intermediate(scores, row_major(t, t), CUDNN_DATA_BFLOAT16);
  g.reduce(CUDNN_REDUCE_TENSOR_MAX, masked, max);
  g.pointwise(CUDNN_POINTWISE_SUB, masked, max, shifted);
  g.pointwise(CUDNN_POINTWISE_EXP, shifted, nullptr, e);
  g.reduce(CUDNN_REDUCE_TENSOR_ADD, e, sum);
  g.pointwise(CUDNN_POINTWISE_LOG, sum, nullptr, log_sum);
  g.pointwise(CUDNN_POINTWISE_ADD, max, log_sum, stats);
  g.pointwise(CUDNN_POINTWISE_DIV, e, sum, p);
  g.matmul(p, v, o);
}

// From Q, K, V, O, dO and Stats: P recomputed as exp(scale Q Kᵀ - Stats) under the mask,
// dV = Pᵀ dO, dS = scale P (dO Vᵀ - rowsum(dO O)), dK = dSᵀ Q, dQ = dS K (through an fp32
// accumulator).
void backward_graph(Graph& g, std::int64_t n, std::int64_t t, std::int64_t d) {
  const Dims scores = dims(n, t, t), per_row = dims(n, t, 1), heads = dims(n, t, d);
  const Dims by_row = row_major(t, d);
  const Graph::Tensor q = g.tensor(kQ, heads, by_row, CUDNN_DATA_BFLOAT16),
                      k_t = g.tensor(kK, dims(n, d, t), column_major(d, t), CUDNN_DATA_BFLOAT16),
                      v_t = g.tensor(kV, dims(n, d, t), column_major(d, t), CUDNN_DATA_BFLOAT16),
                      o = g.tensor(kO, heads, by_row, CUDNN_DATA_BFLOAT16),
                      d_o = g.tensor(kDO, heads, by_row, CUDNN_DATA_BFLOAT16),
                      stats = g.tensor(kStats, per_row, row_major(t, 1), CUDNN_DATA_FLOAT),
                      d_q = g.tensor(kDQ, heads, by_row, CUDNN_DATA_BFLOAT16),
                      d_k = g.tensor(kDK, heads, by_row, CUDNN_DATA_BFLOAT16),
                      d_v = g.tensor(kDV, heads, by_row, CUDNN_DATA_BFLOAT16),
                      softmax_sum =
                          g.tensor(kSoftmaxSum, per_row, row_major(t, 1), CUDNN_DATA_FLOAT),
                      d_q_sum = g.tensor(kDQAccumulator, heads, by_row, CUDNN_DATA_FLOAT);
  const Graph::Tensor scale = g.scalar(kScale);

  // rowsum(dO O), which is sum_j P dP of each row.
  const Graph::Tensor product = g.intermediate(heads, by_row),
                      row_sum = g.intermediate(per_row, row_major(t, 1));
  g.pointwise(CUDNN_POINTWISE_MUL, d_o, o, product);
  g.reduce(CUDNN_REDUCE_TENSOR_ADD, product, row_sum);
  g.pointwise(CUDNN_POINTWISE_MUL, row_sum, g.scalar(kOne), softmax_sum);

  const Graph::Tensor s = g.intermediate(scores, row_major(t, t)),
                      scaled = g.intermediate(scores, row_major(t, t)),
                      shifted = g.intermediate(scores, row_major(t, t));
  g.matmul(q, k_t, s);
  g.pointwise(CUDNN_POINTWISE_MUL, s, scale, scaled);
  g.pointwise(CUDNN_POINTWISE_SUB, scaled, stats, shifted);
  const Graph::Tensor masked = causal_mask(g, shifted, n, t);
  const Graph::Tensor p = g.intermediate(scores, row_major(t, t)),
                      p_t = g.intermediate(dims(n, t, t), column_major(t, t), CUDNN_DATA_BFLOAT16);
  g.pointwise(CUDNN_POINTWISE_EXP, masked, nullptr, p);
  g.reshape(p, p_t);
  g.matmul(p_t, d_o, d_v);

  const Graph::Tensor d_p = g.intermediate(scores, row_major(t, t)),
                      centred = g.intermediate(scores, row_major(t, t)),
                      d_s_unscaled = g.intermediate(scores, row_major(t, t)),
                      d_s = g.intermediate(scores, row_major(t, t)),
                      d_s_t =
                          g.intermediate(dims(n, t, t), column_major(t, t), CUDNN_DATA_BFLOAT16);
  g.matmul(d_o, v_t, d_p);
  g.pointwise(CUDNN_POINTWISE_SUB, d_p, softmax_sum, centred);
  g.pointwise(CUDNN_POINTWISE_MUL, centred, p, d_s_unscaled);
  g.pointwise(CUDNN_POINTWISE_MUL, d_s_unscaled, scale, d_s);
  g.reshape(d_s, d_s_t);
  g.matmul(d_s_t, q, d_k);

  const Graph::Tensor k = g.intermediate(heads, by_row, CUDNN_DATA_BFLOAT16);
  g.reshape(k_t, k);
  g.matmul(d_s, k, d_q_sum);
  g.pointwise(CUDNN_POINTWISE_IDENTITY, d_q_sum, nullptr, d_q);
}

// A built plan, or why there is none.
struct Entry {
  std::unique_ptr<Graph> graph;
  std::string refusal;
};

using Key = std::tuple<cudnnHandle_t, std::int64_t, std::int64_t, std::int64_t, bool>;
struct PlanCache {
  std::mutex mutex;
  std::map<Key, std::shared_ptr<const Entry>> entries;
};
PlanCache& plan_cache() {
  static auto* cache = new PlanCache();  // never destroyed, as the handles (cudnn_runtime.cpp)
  return *cache;
}

std::shared_ptr<const Entry> build(cudnnHandle_t handle, std::int64_t n, std::int64_t t,
                                   std::int64_t d, bool backward) {
  auto entry = std::make_shared<Entry>();
  try {
    auto graph = std::make_unique<Graph>();
    if (backward)
      backward_graph(*graph, n, t, d);
    else
      forward_graph(*graph, n, t, d);
    graph->build_plan(handle);
    entry->graph = std::move(graph);
  } catch (const Error& e) {
    entry->refusal = e.what();
    log::warn(
        "cuDNN declines its fused attention {} for {} heads x {} positions x {} features: "
        "{}; kiln's CUDA kernel runs it instead (fp32, slower)",
        backward ? "backward" : "forward", n, t, d, e.what());
  }
  return entry;
}

// The plan for the shape on this thread's handle: cached, built now, or null where one cannot be
// built now (inside a CUDA graph capture).
std::shared_ptr<const Entry> plan_for(cudnnHandle_t handle, cudaStream_t stream, std::int64_t n,
                                      std::int64_t t, std::int64_t d, bool backward) {
  const Key key{handle, n, t, d, backward};
  PlanCache& cache = plan_cache();
  {
    std::lock_guard lock(cache.mutex);
    if (auto it = cache.entries.find(key); it != cache.entries.end()) return it->second;
  }
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  KILN_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone) return nullptr;
  std::shared_ptr<const Entry> entry = build(handle, n, t, d, backward);
  std::lock_guard lock(cache.mutex);
  return cache.entries.emplace(key, std::move(entry)).first->second;
}

int current_device() {
  int device = 0;
  KILN_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

// Carves one stream-ordered scratch block into 256-byte aligned pieces.
class Pieces {
 public:
  std::size_t add(std::size_t bytes) {
    const std::size_t at = total_;
    total_ += (bytes + 255) / 256 * 256;
    return at;
  }
  std::size_t total() const { return total_; }

 private:
  std::size_t total_ = 0;
};

// A call cuDNN takes: its plan, the handle it runs on (bound to the call's stream), and the size
// of q (n t d elements) and of its bf16 copy in bytes.
struct Call {
  std::shared_ptr<const Entry> entry;
  cudnnHandle_t handle;
  Index count;
  std::size_t half_bytes;
};

// The call for n x t x d heads on `stream` where cuDNN takes them (an empty batch is left to
// kiln's kernel, which does nothing), else nothing.
std::optional<Call> usable_plan(Index n, Index t, Index d, const float* lse, bool backward,
                                cudaStream_t stream) {
  const bool aligned = reinterpret_cast<std::uintptr_t>(lse) % 16 == 0;
  if (!cudnn_attention_takes_head_size(d) || !aligned || n * t == 0) return std::nullopt;
  cudnnHandle_t handle = cudnn_handle(current_device(), stream);
  std::shared_ptr<const Entry> entry = plan_for(handle, stream, n, t, d, backward);
  if (entry == nullptr || entry->graph == nullptr) return std::nullopt;
  return Call{std::move(entry), handle, n * t * d, static_cast<std::size_t>(n * t * d) * 2};
}

}  // namespace

bool cudnn_causal_attention_forward(const rec::CausalAttentionForward& o, cudaStream_t stream) {
  const std::optional<Call> call = usable_plan(o.n, o.t, o.d, o.lse, false, stream);
  if (!call) return false;
  const auto& [entry, handle, count, half] = *call;
  Pieces pieces;
  const std::size_t q = pieces.add(half), k = pieces.add(half), v = pieces.add(half),
                    y = pieces.add(half),
                    work = pieces.add(static_cast<std::size_t>(entry->graph->workspace_bytes()));
  StreamScratch scratch(pieces.total(), stream);
  char* base = static_cast<char*>(scratch.get());
  round_to_bf16(o.q, base + q, count, stream);
  round_to_bf16(o.k, base + k, count, stream);
  round_to_bf16(o.v, base + v, count, stream);
  float scale = o.scale, minus_infinity = -std::numeric_limits<float>::infinity();
  entry->graph->execute<7>(handle, {kQ, kK, kV, kO, kStats, kScale, kMinusInfinity},
                           {base + q, base + k, base + v, base + y, o.lse, &scale, &minus_infinity},
                           base + work);
  widen_from_bf16(base + y, o.y, count, stream);
  return true;
}

bool cudnn_causal_attention_backward(const rec::CausalAttentionBackward& o, cudaStream_t stream) {
  const std::optional<Call> call = usable_plan(o.n, o.t, o.d, o.lse, true, stream);
  if (!call) return false;
  const auto& [entry, handle, count, half] = *call;
  Pieces pieces;
  const std::size_t q = pieces.add(half), k = pieces.add(half), v = pieces.add(half),
                    y = pieces.add(half), dy = pieces.add(half), dq = pieces.add(half),
                    dk = pieces.add(half), dv = pieces.add(half),
                    row_sums = pieces.add(static_cast<std::size_t>(o.n * o.t) * 4),
                    dq_sum = pieces.add(static_cast<std::size_t>(count) * 4),
                    work = pieces.add(static_cast<std::size_t>(entry->graph->workspace_bytes()));
  StreamScratch scratch(pieces.total(), stream);
  char* base = static_cast<char*>(scratch.get());
  const std::pair<const float*, std::size_t> inputs[] = {
      {o.q, q}, {o.k, k}, {o.v, v}, {o.y, y}, {o.dy, dy}};
  for (const auto& [from, at] : inputs) round_to_bf16(from, base + at, count, stream);
  float scale = o.scale, minus_infinity = -std::numeric_limits<float>::infinity(), one = 1.0f;
  entry->graph->execute<14>(
      handle,
      {kQ, kK, kV, kO, kDO, kStats, kDQ, kDK, kDV, kSoftmaxSum, kDQAccumulator, kScale,
       kMinusInfinity, kOne},
      {base + q, base + k, base + v, base + y, base + dy, const_cast<float*>(o.lse), base + dq,
       base + dk, base + dv, base + row_sums, base + dq_sum, &scale, &minus_infinity, &one},
      base + work);
  widen_from_bf16(base + dq, o.dq, count, stream);
  widen_from_bf16(base + dk, o.dk, count, stream);
  widen_from_bf16(base + dv, o.dv, count, stream);
  return true;
}

std::string cudnn_attention_refusal(std::int64_t n, std::int64_t t, std::int64_t d, bool backward) {
  if (!cudnn_attention_takes_head_size(d))
    return fmt::format("a head size of {} is not a multiple of 8 up to 128", d);
  const int device = current_device();
  cudaStream_t stream = detail::prepare_cuda(Device::cuda(device));
  return plan_for(cudnn_handle(device, stream), stream, n, t, d, backward)->refusal;
}

}  // namespace kiln::cuda
