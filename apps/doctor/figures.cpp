// JSON of the figures: "cannot tell" (-1) is written as null and read back as -1, so a reader
// never mistakes an unknown for a measured zero.
#include "apps/doctor/figures.h"

#include <type_traits>

#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/core/input_file.h"

namespace kiln::doctor {

namespace {

using nlohmann::json;

// A figure as written: a number that cannot be told (-1) as null, text and flags as they are.
json figure(double v) { return v < 0.0 ? json(nullptr) : json(v); }
json figure(int v) { return v < 0 ? json(nullptr) : json(v); }
json figure(bool v) { return v; }
json figure(const std::string& v) { return v; }

json processes(const std::vector<OtherProcess>& others) {
  json out = json::array();
  for (const OtherProcess& p : others) out.push_back({{"name", p.name}, {"value", p.percent}});
  return out;
}

// Reads j[key] into out when present and not null; a field of the wrong type is an error.
class Reader {
 public:
  Reader(const json& j, std::string source) : j_(j), source_(std::move(source)) {}
  template <class T> void operator()(const char* section, const char* key, T& out) const {
    if (!j_.contains(section) || !j_[section].is_object()) return;
    const json& s = j_[section];
    if (!s.contains(key) || s[key].is_null()) return;
    try {
      out = s[key].get<T>();
    } catch (const json::exception&) {
      KILN_THROW("{}: field {}.{} should be a {}, found {}; write the file with kiln-doctor --json",
                 source_, section, key, std::is_same_v<T, std::string> ? "string" : "number",
                 s[key].type_name());
    }
  }
  std::vector<OtherProcess> processes(const char* section, const char* key) const {
    std::vector<OtherProcess> out;
    if (!j_.contains(section) || !j_[section].contains(key) || !j_[section][key].is_array())
      return out;
    for (const json& p : j_[section][key])
      if (p.is_object() && p.value("name", json()).is_string() &&
          p.value("value", json()).is_number())
        out.push_back({p["name"].get<std::string>(), p["value"].get<double>()});
    return out;
  }

 private:
  const json& j_;
  std::string source_;
};

// Every figure of the sections, each written once: v(section, key, member). The lists (the other
// processes, the memory modules) are written and read beside it.
template <class Figures, class Visit> void visit_figures(Figures& f, Visit&& v) {
  v("cpu", "cores", f.cpu.cores);
  v("cpu", "physical_cores", f.cpu.physical_cores);
  v("cpu", "triad_single_gbs", f.cpu.triad_single_gbs);
  v("cpu", "triad_all_gbs", f.cpu.triad_all_gbs);
  v("cpu", "triad_threads", f.cpu.triad_threads);
  v("cpu", "isa", f.cpu.isa);
  v("cpu", "gemm_gflops", f.cpu.gemm_gflops);
  v("cpu", "gemm_threads", f.cpu.gemm_threads);
  v("cpu", "frequency_mhz", f.cpu.frequency_mhz);
  v("cpu", "frequency_source", f.cpu.frequency_source);
  v("cpu", "microarchitecture", f.cpu.microarchitecture);
  v("cpu", "microarchitecture_why", f.cpu.microarchitecture_why);
  v("cpu", "flops_per_cycle", f.cpu.flops_per_cycle);
  v("cpu", "fma_gflops", f.cpu.fma_gflops);
  v("cpu", "fma_threads", f.cpu.fma_threads);
  v("cpu", "peak_source", f.cpu.peak_source);
  v("cpu", "gemm_peak_gflops", f.cpu.gemm_peak_gflops);
  v("memory", "known", f.memory.known);
  v("memory", "source", f.memory.source);
  v("memory", "slots", f.memory.slots);
  v("memory", "populated", f.memory.populated);
  v("memory", "channels", f.memory.channels);
  v("memory", "populated_channels", f.memory.populated_channels);
  v("memory", "total_gib", f.memory.total_gib);
  v("memory", "rated_mts", f.memory.rated_mts);
  v("memory", "configured_mts", f.memory.configured_mts);
  v("data", "spec", f.data.spec);
  v("data", "png_files", f.data.png_files);
  v("data", "jpeg_files", f.data.jpeg_files);
  v("data", "png_per_core_s", f.data.png_per_core_s);
  v("data", "jpeg_per_core_s", f.data.jpeg_per_core_s);
  v("data", "mean_file_kib", f.data.mean_file_kib);
  v("data", "read_mbs", f.data.read_mbs);
  v("competition", "run_queue_wait_percent", f.competition.run_queue_wait_percent);
  v("competition", "steal_percent", f.competition.steal_percent);
  v("competition", "others_visible", f.competition.others_visible);
  v("thermal", "start_mhz", f.thermal.start_mhz);
  v("thermal", "end_mhz", f.thermal.end_mhz);
  v("thermal", "max_temperature_c", f.thermal.max_temperature_c);
  v("thermal", "sustained_gflops_first", f.thermal.sustained_gflops_first);
  v("thermal", "sustained_gflops_last", f.thermal.sustained_gflops_last);
  v("gpu", "present", f.gpu.present);
  v("gpu", "name", f.gpu.name);
  v("gpu", "h2d_pinned_gbs", f.gpu.h2d_pinned_gbs);
  v("gpu", "h2d_pageable_gbs", f.gpu.h2d_pageable_gbs);
  v("gpu", "pcie_gen", f.gpu.pcie_gen);
  v("gpu", "pcie_width", f.gpu.pcie_width);
  v("gpu", "pcie_max_gen", f.gpu.pcie_max_gen);
  v("gpu", "pcie_max_width", f.gpu.pcie_max_width);
  v("gpu", "sm_clock_mhz", f.gpu.sm_clock_mhz);
  v("gpu", "sm_clock_max_mhz", f.gpu.sm_clock_max_mhz);
}

}  // namespace

json to_json(const MachineFigures& f) {
  json j;
  j["host"] = f.host;
  j["cpu_model"] = f.cpu_model;
  visit_figures(f, [&j](const char* section, const char* key, const auto& value) {
    j[section][key] = figure(value);
  });
  json modules = json::array();
  for (const MemoryModule& module : f.memory.modules)
    modules.push_back({{"locator", module.locator},
                       {"channel", module.channel},
                       {"size_mib", module.size_mib},
                       {"speed_mts", figure(module.speed_mts)},
                       {"configured_mts", figure(module.configured_mts)}});
  j["memory"]["modules"] = modules;
  j["competition"]["others"] = processes(f.competition.others);
  j["gpu"]["others"] = processes(f.gpu.others);
  return j;
}

MachineFigures figures_from_json(const json& j, const std::string& source) {
  KILN_CHECK(
      j.is_object() && j.contains("cpu"),
      "{}: expected the JSON object kiln-doctor --json writes (with a \"cpu\" section), found {}",
      source, j.type_name());
  MachineFigures f;
  if (j.value("host", json()).is_string()) f.host = j["host"].get<std::string>();
  if (j.value("cpu_model", json()).is_string()) f.cpu_model = j["cpu_model"].get<std::string>();
  const Reader r(j, source);
  visit_figures(f, r);
  if (!j["cpu"].is_object() || !j["cpu"].contains("peak_source")) {
    // An earlier doctor's file: its peak was assumed from the instruction set, so it is not used.
    f.cpu.flops_per_cycle = -1.0;
    f.cpu.gemm_peak_gflops = -1.0;
  }
  f.competition.others = r.processes("competition", "others");
  f.gpu.others = r.processes("gpu", "others");
  return f;
}

MachineFigures read_figures(const std::string& path) {
  const std::string text = read_input_file(path, "kiln-doctor --compare");
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    KILN_THROW("{} is not JSON ({}); expected a file written by kiln-doctor --json", path,
               e.what());
  }
  return figures_from_json(j, path);
}

}  // namespace kiln::doctor
