// CUDA Linear forward through cuBLASLt: one matmul whose epilogue adds the bias and applies the
// ReLU as the tile is written, instead of a GEMM, a bias kernel and an activation kernel that each
// read and write y again. Descriptors and the heuristic's algorithm are looked up once per shape
// and operand alignment and kept (per thread: each data-parallel worker thread drives its own GPU).
#include <cublasLt.h>

#include <atomic>
#include <cstdint>
#include <unordered_map>

#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/compute_type.h"
#include "kiln/core/cuda/context.h"
#include "kiln/core/cuda/stream_workspace.h"
#include "kiln/core/ops/activation_record.h"
#include "kiln/core/ops/bias_record.h"
#include "kiln/core/ops/gemm_record.h"
#include "kiln/core/ops/linear_record.h"
#include "kiln/core/relu_epilogue.h"

namespace kiln::cuda {

namespace {

constexpr std::size_t kWorkspaceBytes = kMatmulWorkspaceBytes;

// Each operand's alignment in bytes: the largest power of two up to 256 dividing its address.
struct Alignments {
  std::uint32_t w, x, y, bias;
  bool operator==(const Alignments&) const = default;
};

// Everything the descriptors and the heuristic's choice depend on. The heuristic assumes 256-byte
// aligned operands unless told otherwise (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*) and reads the
// bias pointer's alignment itself, so each operand's alignment is part of the key: a plan made
// for aligned operands must not serve a row slice that starts mid-block.
struct PlanKey {
  int device;
  Index n, in, out;
  cublasLtEpilogue_t epilogue;
  cublasComputeType_t compute;
  Alignments alignment;
  bool operator==(const PlanKey&) const = default;
};

struct PlanKeyHash {
  std::size_t operator()(const PlanKey& k) const {
    std::size_t h = static_cast<std::size_t>(k.device);
    for (std::size_t v :
         {static_cast<std::size_t>(k.n), static_cast<std::size_t>(k.in),
          static_cast<std::size_t>(k.out), static_cast<std::size_t>(k.epilogue),
          static_cast<std::size_t>(k.compute), std::size_t{k.alignment.w},
          std::size_t{k.alignment.x}, std::size_t{k.alignment.y}, std::size_t{k.alignment.bias}})
      h = h * 1000003u ^ v;
    return h;
  }
};

// Kept for the life of the thread: a process keeps only a handful of layer shapes.
struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t w = nullptr, x = nullptr, y = nullptr;
  cublasLtMatmulAlgo_t algo{};
  bool has_algo = false;
};

std::atomic<std::int64_t> g_fallbacks{0};

// A thread's handles and plans (host objects), destroyed when the thread ends: each
// data-parallel worker thread makes its own. The workspace is the stream's
// (stream_workspace.h), shared with cuBLAS and cuDNN there.
struct ThreadPlans {
  std::unordered_map<int, cublasLtHandle_t> handles;  // per device
  std::unordered_map<PlanKey, Plan, PlanKeyHash> plans;
  ThreadPlans() = default;
  ThreadPlans(const ThreadPlans&) = delete;
  ThreadPlans& operator=(const ThreadPlans&) = delete;
  ~ThreadPlans() {
    for (auto& [key, plan] : plans) {
      for (cublasLtMatrixLayout_t layout : {plan.w, plan.x, plan.y})
        if (layout != nullptr) KILN_CUBLAS_LOG(cublasLtMatrixLayoutDestroy(layout));
      if (plan.desc != nullptr) KILN_CUBLAS_LOG(cublasLtMatmulDescDestroy(plan.desc));
    }
    for (auto& [device, handle] : handles) KILN_CUBLAS_LOG(cublasLtDestroy(handle));
  }
};

ThreadPlans& thread_plans() {
  thread_local ThreadPlans state;
  return state;
}

// The largest power of two up to 256 that divides the address (256 for none).
std::uint32_t alignment_of(const void* p) {
  const std::uintptr_t bits = reinterpret_cast<std::uintptr_t>(p) | 256u;
  return static_cast<std::uint32_t>(bits & (~bits + 1));  // the lowest set bit
}

cublasLtHandle_t handle_for(ThreadPlans& state, int device) {
  auto it = state.handles.find(device);
  if (it == state.handles.end()) {
    cublasLtHandle_t handle = nullptr;
    KILN_CUBLAS_CHECK(cublasLtCreate(&handle));
    it = state.handles.emplace(device, handle).first;
  }
  return it->second;
}

cublasLtEpilogue_t epilogue_for(bool bias, bool relu) {
  if (bias) return relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
  return relu ? CUBLASLT_EPILOGUE_RELU : CUBLASLT_EPILOGUE_DEFAULT;
}

template <typename T>
void set_attribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute,
                   const T& value) {
  KILN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value)));
}

// cuBLASLt is column-major, and a row-major (r, c) matrix is the column-major (c, r) one of the
// same memory. So compute yᵀ (out, N) = W (out, in) · xᵀ (in, N): A is the weight, stored as the
// column-major (in, out) matrix and transposed; B is x, the column-major (in, N) matrix; D is y,
// column-major (out, N). The bias then runs along D's rows, as cuBLASLt's epilogue expects.
Plan make_plan(cublasLtHandle_t handle, const PlanKey& key, const float* bias) {
  Plan plan;
  KILN_CUBLAS_CHECK(cublasLtMatmulDescCreate(&plan.desc, key.compute, CUDA_R_32F));
  set_attribute(plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
  set_attribute(plan.desc, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  set_attribute(plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, key.epilogue);
  if (bias != nullptr) set_attribute(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias);
  const auto u = [](Index v) { return static_cast<std::uint64_t>(v); };
  KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan.w, CUDA_R_32F, u(key.in), u(key.out), key.in));
  KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan.x, CUDA_R_32F, u(key.in), u(key.n), key.in));
  KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan.y, CUDA_R_32F, u(key.out), u(key.n), key.out));

  cublasLtMatmulPreference_t preference = nullptr;
  KILN_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference));
  const std::uint64_t workspace = kWorkspaceBytes;
  KILN_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace)));
  const auto set_min_alignment = [&](cublasLtMatmulPreferenceAttributes_t attribute,
                                     std::uint32_t bytes) {
    KILN_CUBLAS_CHECK(
        cublasLtMatmulPreferenceSetAttribute(preference, attribute, &bytes, sizeof(bytes)));
  };
  set_min_alignment(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, key.alignment.w);
  set_min_alignment(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, key.alignment.x);
  set_min_alignment(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, key.alignment.y);
  set_min_alignment(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, key.alignment.y);
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      handle, plan.desc, plan.w, plan.x, plan.y, plan.y, preference, 1, &result, &found);
  KILN_CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(preference));
  // NOT_SUPPORTED (or no result) means this combination has no kernel: use the fallback.
  if (status != CUBLAS_STATUS_NOT_SUPPORTED) KILN_CUBLAS_CHECK(status);
  // The result's fields are valid only when its own state is SUCCESS (cublasLt.h).
  plan.has_algo =
      status == CUBLAS_STATUS_SUCCESS && found > 0 && result.state == CUBLAS_STATUS_SUCCESS;
  if (plan.has_algo) plan.algo = result.algo;
  return plan;
}

// The same result without cuBLASLt: GEMM, then the bias and ReLU kernels.
void unfused_forward(Index n, Index in, Index out, const float* x, const float* w,
                     const float* bias, bool relu, float* y, cudaStream_t stream) {
  gemm({false, true, n, out, in, 1.0f, x, w, 0.0f, y}, stream);
  if (bias != nullptr) bias_add({n, out, bias, y}, stream);
  if (relu) activation_forward({Activation::relu, n * out, y, y, 0.0f}, stream);
}

}  // namespace

std::int64_t linear_forward_fallbacks() { return g_fallbacks.load(); }

// Where cuBLASLt has no algorithm for a case (or the product is empty), the cuBLAS GEMM and the
// bias and ReLU kernels do the same work. With ReluEpilogue::separate (core/relu_epilogue.h) the
// epilogue adds the bias only and kiln's ReLU kernel, which lets NaN through, follows.
void linear_forward(const rec::LinearForward& o, cudaStream_t stream) {
  const Index n = o.n, in = o.in, out = o.out;
  const float *x = o.x, *w = o.w, *bias = o.bias;
  const bool relu = o.relu;
  float* y = o.y;
  if (n == 0 || out == 0) return;
  if (in == 0) return unfused_forward(n, in, out, x, w, bias, relu, y, stream);
  int device = 0;
  KILN_CUDA_CHECK(cudaGetDevice(&device));
  ThreadPlans& state = thread_plans();
  const cublasLtHandle_t handle = handle_for(state, device);
  // The ReLU in the epilogue, or in kiln's kernel after it (a plan of its own: the key's epilogue).
  const bool fused_relu = relu && relu_epilogue() == ReluEpilogue::fused;
  const PlanKey key{device,
                    n,
                    in,
                    out,
                    epilogue_for(bias != nullptr, fused_relu),
                    lt_compute_type(matmul_precision()),
                    {alignment_of(w), alignment_of(x), alignment_of(y), alignment_of(bias)}};
  auto plan_it = state.plans.find(key);
  if (plan_it == state.plans.end())
    plan_it = state.plans.emplace(key, make_plan(handle, key, bias)).first;
  Plan& plan = plan_it->second;
  const auto fall_back = [&] {
    g_fallbacks.fetch_add(1, std::memory_order_relaxed);
    unfused_forward(n, in, out, x, w, bias, relu, y, stream);
  };
  // Some epilogue kernels assume a 16-byte aligned bias whatever the heuristic was told (reports
  // of misaligned-address faults, which no status check could recover from): a bias from a slice
  // at an odd offset takes the unfused path.
  if (!plan.has_algo || (bias != nullptr && alignment_of(bias) < 16)) return fall_back();

  // The bias pointer is the one per-call value the descriptor holds (a host-side store).
  if (bias != nullptr) set_attribute(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias);
  const float alpha = 1.0f, beta = 0.0f;
  const cublasStatus_t status = cublasLtMatmul(
      handle, plan.desc, &alpha, w, plan.w, x, plan.x, &beta, y, plan.y, y, plan.y, &plan.algo,
      stream_workspace(device, stream, kWorkspaceBytes), kWorkspaceBytes, stream);
  if (status ==
      CUBLAS_STATUS_NOT_SUPPORTED) {  // the chosen algorithm refused these operands after all
    plan.has_algo = false;
    return fall_back();
  }
  KILN_CUBLAS_CHECK(status);
  if (relu && !fused_relu) activation_forward({Activation::relu, n * out, y, y, 0.0f}, stream);
}

}  // namespace kiln::cuda
