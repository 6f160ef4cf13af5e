// The real CPU probe, the named descriptions tests use, and the override between them
// (core/cpu_description.h). /proc/cpuinfo's flags are read rather than cpuid, because the kernel
// clears a flag whose registers the OS does not save (AVX-512 state in some VMs).
#include "kiln/core/cpu_description.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"

namespace kiln {

namespace {

std::vector<int> usable_cpu_ids() {
  std::vector<int> ids;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return ids;
  for (int i = 0; i < CPU_SETSIZE; ++i)
    if (CPU_ISSET(i, &set)) ids.push_back(i);
  return ids;
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Distinct thread_siblings_list among the usable CPUs; `logical` where the topology is hidden.
int count_physical_cores(const std::vector<int>& ids, int logical) {
  std::set<std::string> cores;
  for (int id : ids) {
    const std::string siblings =
        first_line(fmt::format("/sys/devices/system/cpu/cpu{}/topology/thread_siblings_list", id));
    if (siblings.empty()) return logical;
    cores.insert(siblings);
  }
  return cores.empty() ? logical : static_cast<int>(cores.size());
}

// The first processor's fields of /proc/cpuinfo ("vendor_id", "cpu family", "flags", ...).
std::string cpuinfo_field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const auto colon = line.find(':');
    const std::string name = line.substr(0, line.find_first_of("\t:"));
    if (name == key && colon != std::string::npos)
      return colon + 2 <= line.size() ? line.substr(colon + 2) : std::string();
  }
  return "";
}

int to_int(const std::string& text) {
  try {
    return text.empty() ? 0 : std::stoi(text);
  } catch (const std::exception&) {
    return 0;
  }
}

std::string kernel_set_for(const CpuDescription& d) {
  if (!cpu::onednn::built()) return "none";
  if (d.amx) return "avx512_core_amx";
  if (d.avx512_bf16) return "avx512_core_bf16";
  if (d.avx512) return "avx512_core";
  return d.avx2 ? "avx2" : "sse41";
}

const CpuDescription& initial() {
  static const CpuDescription d = [] {
    const char* named = std::getenv("KILN_CPU_DESCRIPTION");
    return named != nullptr && *named != '\0' ? parse_cpu_description(named) : probe_cpu();
  }();
  return d;
}

std::atomic<const CpuDescription*> override_in_force{nullptr};

}  // namespace

bool CpuDescription::bf16_instructions() const {
  return kernel_set == "avx512_core_bf16" || kernel_set == "avx512_core_amx";
}

std::string CpuDescription::summary() const {
  std::string what = fmt::format("family {}, model {}", family, model);
  if (!microarchitecture.name.empty()) what += ": " + microarchitecture.name;
  return fmt::format("{} ({}), {} core{}, {} kernels{}",
                     model_name.empty() ? "unknown CPU" : model_name, what, physical_cores,
                     physical_cores == 1 ? "" : "s", kernel_set,
                     source == "probe" ? "" : fmt::format(" [described as {}]", source));
}

CpuDescription probe_cpu() {
  CpuDescription d;
  d.source = "probe";
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  const std::string cpuinfo = text.str();
  d.vendor = cpuinfo_field(cpuinfo, "vendor_id");
  d.model_name = cpuinfo_field(cpuinfo, "model name");
  d.family = to_int(cpuinfo_field(cpuinfo, "cpu family"));
  d.model = to_int(cpuinfo_field(cpuinfo, "model"));
  std::set<std::string> flags;
  std::istringstream words(cpuinfo_field(cpuinfo, "flags"));
  for (std::string w; words >> w;) flags.insert(w);
  auto has = [&](const char* f) { return flags.count(f) > 0; };
  d.avx2 = has("avx2") && has("fma");
  d.avx512 = has("avx512f") && has("avx512bw") && has("avx512vl") && has("avx512dq");
  d.avx512_bf16 = d.avx512 && has("avx512_bf16");
  d.amx = d.avx512 && has("amx_bf16") && has("amx_tile");
  // What oneDNN really runs here (DNNL_MAX_CPU_ISA may cap it below the flags).
  d.kernel_set = cpu::onednn::isa_name();
  const std::vector<int> ids = usable_cpu_ids();
  d.logical_cpus = ids.empty() ? std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)))
                               : static_cast<int>(ids.size());
  d.physical_cores = count_physical_cores(ids, d.logical_cpus);
  d.microarchitecture = microarchitecture_of(d.vendor, d.family, d.model);
  return d;
}

std::vector<std::string> cpu_description_names() {
  return {"zen3", "skylake-sp", "icelake-sp", "zen4", "sapphire-rapids"};
}

CpuDescription named_cpu_description(const std::string& name, int cores) {
  KILN_CHECK(cores >= 1 && cores <= 4096, "a described CPU needs 1 to 4096 cores, found {}", cores);
  CpuDescription d;
  d.source = name;
  d.avx2 = true;
  if (name == "zen3") {
    d.vendor = "AuthenticAMD", d.model_name = "AMD EPYC 7B13", d.family = 25, d.model = 1;
  } else if (name == "skylake-sp") {
    d.vendor = "GenuineIntel", d.model_name = "Intel Xeon (Skylake-SP)", d.family = 6, d.model = 85;
    d.avx512 = true;
  } else if (name == "icelake-sp") {
    d.vendor = "GenuineIntel", d.model_name = "Intel Xeon (Ice Lake-SP)", d.family = 6,
    d.model = 106;
    d.avx512 = true;
  } else if (name == "zen4") {
    d.vendor = "AuthenticAMD", d.model_name = "AMD EPYC 9B14", d.family = 25, d.model = 17;
    d.avx512 = d.avx512_bf16 = true;
  } else if (name == "sapphire-rapids") {
    d.vendor = "GenuineIntel", d.model_name = "Intel Xeon (Sapphire Rapids)", d.family = 6,
    d.model = 143;
    d.avx512 = d.avx512_bf16 = d.amx = true;
  } else {
    KILN_THROW("unknown CPU description '{}': expected one of {}", excerpt(name),
               fmt::join(cpu_description_names(), ", "));
  }
  d.kernel_set = kernel_set_for(d);
  d.logical_cpus = d.physical_cores = cores;
  d.microarchitecture = microarchitecture_of(d.vendor, d.family, d.model);
  return d;
}

CpuDescription parse_cpu_description(const std::string& text) {
  const auto colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const std::string option = colon == std::string::npos ? "" : text.substr(colon + 1);
  const std::vector<std::string> names = cpu_description_names();
  const bool known = std::find(names.begin(), names.end(), name) != names.end();
  const bool cores_ok =
      colon == std::string::npos ||
      (option.rfind("cores=", 0) == 0 && option.size() > 6 && option.size() <= 10 &&
       option.find_first_not_of("0123456789", 6) == std::string::npos &&
       std::stoi(option.substr(6)) >= 1 && std::stoi(option.substr(6)) <= 4096);
  KILN_CHECK(
      known && cores_ok,
      "KILN_CPU_DESCRIPTION={}: expected NAME or NAME:cores=N (N from 1 to 4096), NAME one of {} "
      "(or unset it: this machine's probe is the default)",
      excerpt(text), fmt::join(names, ", "));
  return named_cpu_description(name, colon == std::string::npos ? 2 : std::stoi(option.substr(6)));
}

const CpuDescription& cpu_description() {
  if (const CpuDescription* d = override_in_force.load(std::memory_order_acquire)) return *d;
  return initial();
}

ScopedCpuDescription::ScopedCpuDescription(CpuDescription description)
    : description_(std::make_unique<const CpuDescription>(std::move(description))),
      previous_(override_in_force.exchange(description_.get(), std::memory_order_acq_rel)) {}

ScopedCpuDescription::~ScopedCpuDescription() {
  override_in_force.store(previous_, std::memory_order_release);
}

}  // namespace kiln
