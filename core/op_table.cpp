// The op table's listing and its one "no kernel" message.
#include "kiln/core/op_table.h"

#include <algorithm>
#include <mutex>

#include "kiln/core/device_runtime.h"
#include "kiln/core/error.h"

namespace kiln {

namespace {
std::mutex& table_mutex() {
  static std::mutex m;
  return m;
}
std::vector<KernelInfo>& table() {
  static std::vector<KernelInfo> t;
  return t;
}
}  // namespace

const char* backend_name(Backend backend) {
  switch (backend) {
    case Backend::reference: return "reference";
    case Backend::onednn: return "onednn";
    case Backend::cuda: return "cuda";
  }
  return "?";
}

std::vector<KernelInfo> registered_kernels() {
  std::vector<KernelInfo> out;
  {
    const std::lock_guard lock(table_mutex());
    out = table();
  }
  std::sort(out.begin(), out.end(), [](const KernelInfo& a, const KernelInfo& b) {
    return a.op != b.op ? a.op < b.op : a.backend < b.backend;
  });
  return out;
}

std::vector<std::string> registered_ops() {
  std::vector<std::string> ops;
  for (const KernelInfo& k : registered_kernels())
    if (ops.empty() || ops.back() != k.op) ops.push_back(k.op);
  return ops;
}

namespace detail {

void record_kernel(KernelInfo info) {
  const std::lock_guard lock(table_mutex());
  table().push_back(std::move(info));
}

void throw_no_kernel(const char* op, Device device) {
  if (find_device_runtime(device.kind()) == nullptr) throw_built_without_cuda(op);
  KILN_THROW("{} has no kernel for {} in this build; see `kiln-ops` for the kernels it has", op,
             device.str());
}

}  // namespace detail
}  // namespace kiln
