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

json known(double v) { return v < 0.0 ? json(nullptr) : json(v); }
json known(int v) { return v < 0 ? json(nullptr) : json(v); }

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

}  // namespace

json to_json(const MachineFigures& f) {
  json j;
  j["host"] = f.host;
  j["cpu_model"] = f.cpu_model;
  const CpuFigures& c = f.cpu;
  j["cpu"] = {{"cores", c.cores},
              {"physical_cores", c.physical_cores},
              {"triad_single_gbs", known(c.triad_single_gbs)},
              {"triad_all_gbs", known(c.triad_all_gbs)},
              {"triad_threads", c.triad_threads},
              {"isa", c.isa},
              {"gemm_gflops", known(c.gemm_gflops)},
              {"gemm_threads", c.gemm_threads},
              {"frequency_mhz", known(c.frequency_mhz)},
              {"frequency_source", c.frequency_source},
              {"microarchitecture", c.microarchitecture},
              {"microarchitecture_why", c.microarchitecture_why},
              {"flops_per_cycle", known(c.flops_per_cycle)},
              {"fma_gflops", known(c.fma_gflops)},
              {"fma_threads", c.fma_threads},
              {"peak_source", c.peak_source},
              {"gemm_peak_gflops", known(c.gemm_peak_gflops)}};
  const MemoryFigures& m = f.memory;
  json modules = json::array();
  for (const MemoryModule& module : m.modules)
    modules.push_back({{"locator", module.locator},
                       {"channel", module.channel},
                       {"size_mib", module.size_mib},
                       {"speed_mts", known(module.speed_mts)},
                       {"configured_mts", known(module.configured_mts)}});
  j["memory"] = {{"known", m.known},
                 {"source", m.source},
                 {"slots", known(m.slots)},
                 {"populated", known(m.populated)},
                 {"channels", known(m.channels)},
                 {"populated_channels", known(m.populated_channels)},
                 {"total_gib", known(m.total_gib)},
                 {"rated_mts", known(m.rated_mts)},
                 {"configured_mts", known(m.configured_mts)},
                 {"modules", modules}};
  const DataFigures& d = f.data;
  j["data"] = {{"spec", d.spec},
               {"png_files", d.png_files},
               {"jpeg_files", d.jpeg_files},
               {"png_per_core_s", known(d.png_per_core_s)},
               {"jpeg_per_core_s", known(d.jpeg_per_core_s)},
               {"mean_file_kib", known(d.mean_file_kib)},
               {"read_mbs", known(d.read_mbs)}};
  const CompetitionFigures& k = f.competition;
  j["competition"] = {{"run_queue_wait_percent", known(k.run_queue_wait_percent)},
                      {"steal_percent", known(k.steal_percent)},
                      {"others_visible", k.others_visible},
                      {"others", processes(k.others)}};
  const ThermalFigures& t = f.thermal;
  j["thermal"] = {{"start_mhz", known(t.start_mhz)},
                  {"end_mhz", known(t.end_mhz)},
                  {"max_temperature_c", known(t.max_temperature_c)},
                  {"sustained_gflops_first", known(t.sustained_gflops_first)},
                  {"sustained_gflops_last", known(t.sustained_gflops_last)}};
  const GpuFigures& g = f.gpu;
  j["gpu"] = {{"present", g.present},
              {"name", g.name},
              {"h2d_pinned_gbs", known(g.h2d_pinned_gbs)},
              {"h2d_pageable_gbs", known(g.h2d_pageable_gbs)},
              {"pcie_gen", known(g.pcie_gen)},
              {"pcie_width", known(g.pcie_width)},
              {"pcie_max_gen", known(g.pcie_max_gen)},
              {"pcie_max_width", known(g.pcie_max_width)},
              {"sm_clock_mhz", known(g.sm_clock_mhz)},
              {"sm_clock_max_mhz", known(g.sm_clock_max_mhz)},
              {"others", processes(g.others)}};
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
  CpuFigures& c = f.cpu;
  r("cpu", "cores", c.cores);
  r("cpu", "physical_cores", c.physical_cores);
  r("cpu", "triad_single_gbs", c.triad_single_gbs);
  r("cpu", "triad_all_gbs", c.triad_all_gbs);
  r("cpu", "triad_threads", c.triad_threads);
  r("cpu", "isa", c.isa);
  r("cpu", "gemm_gflops", c.gemm_gflops);
  r("cpu", "gemm_threads", c.gemm_threads);
  r("cpu", "frequency_mhz", c.frequency_mhz);
  r("cpu", "frequency_source", c.frequency_source);
  r("cpu", "microarchitecture", c.microarchitecture);
  r("cpu", "microarchitecture_why", c.microarchitecture_why);
  r("cpu", "flops_per_cycle", c.flops_per_cycle);
  r("cpu", "fma_gflops", c.fma_gflops);
  r("cpu", "fma_threads", c.fma_threads);
  r("cpu", "peak_source", c.peak_source);
  r("cpu", "gemm_peak_gflops", c.gemm_peak_gflops);
  if (!j["cpu"].is_object() || !j["cpu"].contains("peak_source")) {
    // An earlier doctor's file: its peak was assumed from the instruction set, so it is not used.
    c.flops_per_cycle = -1.0;
    c.gemm_peak_gflops = -1.0;
  }
  MemoryFigures& m = f.memory;
  r("memory", "known", m.known);
  r("memory", "source", m.source);
  r("memory", "slots", m.slots);
  r("memory", "populated", m.populated);
  r("memory", "channels", m.channels);
  r("memory", "populated_channels", m.populated_channels);
  r("memory", "total_gib", m.total_gib);
  r("memory", "rated_mts", m.rated_mts);
  r("memory", "configured_mts", m.configured_mts);
  DataFigures& d = f.data;
  r("data", "spec", d.spec);
  r("data", "png_files", d.png_files);
  r("data", "jpeg_files", d.jpeg_files);
  r("data", "png_per_core_s", d.png_per_core_s);
  r("data", "jpeg_per_core_s", d.jpeg_per_core_s);
  r("data", "mean_file_kib", d.mean_file_kib);
  r("data", "read_mbs", d.read_mbs);
  CompetitionFigures& k = f.competition;
  r("competition", "run_queue_wait_percent", k.run_queue_wait_percent);
  r("competition", "steal_percent", k.steal_percent);
  r("competition", "others_visible", k.others_visible);
  k.others = r.processes("competition", "others");
  ThermalFigures& t = f.thermal;
  r("thermal", "start_mhz", t.start_mhz);
  r("thermal", "end_mhz", t.end_mhz);
  r("thermal", "max_temperature_c", t.max_temperature_c);
  r("thermal", "sustained_gflops_first", t.sustained_gflops_first);
  r("thermal", "sustained_gflops_last", t.sustained_gflops_last);
  GpuFigures& g = f.gpu;
  r("gpu", "present", g.present);
  r("gpu", "name", g.name);
  r("gpu", "h2d_pinned_gbs", g.h2d_pinned_gbs);
  r("gpu", "h2d_pageable_gbs", g.h2d_pageable_gbs);
  r("gpu", "pcie_gen", g.pcie_gen);
  r("gpu", "pcie_width", g.pcie_width);
  r("gpu", "pcie_max_gen", g.pcie_max_gen);
  r("gpu", "pcie_max_width", g.pcie_max_width);
  r("gpu", "sm_clock_mhz", g.sm_clock_mhz);
  r("gpu", "sm_clock_max_mhz", g.sm_clock_max_mhz);
  g.others = r.processes("gpu", "others");
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
