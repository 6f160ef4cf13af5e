// The rules. Each threshold is a constant with the reason beside it; README.md's "What
// kiln-doctor checks" states the same rules in words.
#include "apps/doctor/judgement.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "kiln/monitor/cpu_competition.h"

namespace kiln::doctor {

namespace {

// STREAM's triad on all cores should beat one core by far where several memory channels are
// populated: one core alone cannot saturate them. Below 1.5x on 4 or more cores, the channels
// look underpopulated (one module, or modules in the wrong slots).
constexpr double kMinBandwidthScaling = 1.5;
constexpr int kScalingCores = 4;
// A large fp32 GEMM reaches 60-90 % of the ISA's peak with oneDNN; under 40 % the cores are
// shared, throttled or running a slower kernel than oneDNN reports.
constexpr double kMinGemmShareOfPeak = 0.40;
// The article's slow machine took a second for a 10 KB image; a healthy core decodes small
// PNG/JPEG files in well under 10 ms each.
constexpr double kMinDecodesPerCore = 100.0;
// Below this the files come from a slow disk or a network file system: a loader reading 10 KB
// images needs thousands per second.
constexpr double kMinReadMbs = 50.0;
constexpr double kMinFilesPerSecond = 1000.0;
// kiln's runnable threads waiting for a core more than this share of the time: others take it.
constexpr double kMaxRunQueueWait = kRealShareWaitPercent;  // the epoch diagnosis's rule too
constexpr double kMaxStealPercent = 5.0;
// A core sustaining load should keep 90 % of its starting clock and 85 % of its GEMM rate.
constexpr double kMinSustainedClock = 0.90;
constexpr double kMinSustainedRate = 0.85;
constexpr double kHotCelsius = 90.0;
// Pinned copies should reach half the link's per-direction rate; below, the link or the host
// memory path is slower than the card's slot promises.
constexpr double kMinLinkShare = 0.5;
constexpr double kMinGpuClockShare = 0.8;
// --compare: a figure explains a slower machine when it differs by this factor or more.
constexpr double kCompareFactor = 1.3;

bool is_known(double v) { return v >= 0.0; }

// GB/s per lane and direction after encoding, PCIe generation 1 to 6.
double pcie_lane_gbs(int gen) {
  static const double rate[] = {0.0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563};
  return gen >= 1 && gen <= 6 ? rate[gen] : -1.0;
}

void judge_memory(const CpuFigures& c, std::vector<Judgement>& out) {
  if (!is_known(c.triad_single_gbs) || !is_known(c.triad_all_gbs)) {
    out.push_back({"memory", Verdict::cannot_tell, "memory bandwidth was not measured"});
    return;
  }
  const double scaling = c.triad_all_gbs / std::max(c.triad_single_gbs, 1e-9);
  const std::string measured = fmt::format(
      "memory bandwidth (triad): {:.1f} GB/s on one thread, {:.1f} GB/s on {} ({:.1f}x)",
      c.triad_single_gbs, c.triad_all_gbs, c.triad_threads, scaling);
  if (c.physical_cores < kScalingCores)
    out.push_back({"memory", Verdict::cannot_tell,
                   measured + fmt::format("; with {} cores the scaling cannot show how many memory "
                                          "channels are populated",
                                          c.physical_cores)});
  else if (scaling < kMinBandwidthScaling)
    out.push_back({"memory", Verdict::problem,
                   measured + fmt::format("; under {:.1f}x on {} cores: memory channels look "
                                          "underpopulated (one module, or modules in the wrong "
                                          "slots); compare the DIMM slots with the board's manual",
                                          kMinBandwidthScaling, c.physical_cores)});
  else
    out.push_back({"memory", Verdict::ok, measured});
}

// The firmware's list of modules: the article's "single memory module in the wrong slot" is a
// channel (or, where the locators name none, a slot) left empty, or modules clocked below their
// rating (mixed modules, or a board that cannot run them at speed).
void judge_memory_slots(const MemoryFigures& m, std::vector<Judgement>& out) {
  if (!m.known) {
    out.push_back({"memory slots", Verdict::cannot_tell,
                   "memory modules: the firmware's DMI table is not readable (" + m.source + ")"});
    return;
  }
  std::string measured = fmt::format("memory modules (DMI): {} of {} slots populated, {:.0f} GiB",
                                     m.populated, m.slots, m.total_gib);
  if (m.channels > 0)
    measured += fmt::format(", {} of {} channels", m.populated_channels, m.channels);
  if (m.rated_mts > 0) measured += fmt::format(", rated {} MT/s", m.rated_mts);
  if (m.configured_mts > 0) measured += fmt::format(", running at {} MT/s", m.configured_mts);
  std::vector<std::string> problems;
  if (m.channels > 0 && m.populated_channels < m.channels)
    problems.push_back(fmt::format(
        "{} of the board's {} memory channels hold no module: bandwidth is cut to {} "
        "of {} (a module in the wrong slot, or too few modules)",
        m.channels - m.populated_channels, m.channels, m.populated_channels, m.channels));
  else if (m.channels <= 0 && m.populated < m.slots)
    problems.push_back(
        fmt::format("{} of {} slots are empty and the slot names do not say which channel each is "
                    "on: if a channel is empty, bandwidth is cut (check the board's manual for "
                    "which slots to fill first)",
                    m.slots - m.populated, m.slots));
  if (m.rated_mts > 0 && m.configured_mts > 0 && m.configured_mts < m.rated_mts)
    problems.push_back(
        fmt::format("modules run at {} MT/s, below the {} MT/s they are rated for (mixed modules, "
                    "or the firmware's memory settings)",
                    m.configured_mts, m.rated_mts));
  if (problems.empty())
    out.push_back({"memory slots", Verdict::ok, measured});
  else
    out.push_back({"memory slots", Verdict::problem,
                   measured + "; " + fmt::format("{}", fmt::join(problems, "; "))});
}

void judge_gemm(const CpuFigures& c, std::vector<Judgement>& out) {
  if (!is_known(c.gemm_gflops)) {
    out.push_back({"gemm", Verdict::cannot_tell, "the matrix-product rate was not measured"});
    return;
  }
  const std::string measured =
      fmt::format("matrix products: {:.1f} GFLOP/s on {} threads ({} kernels)", c.gemm_gflops,
                  c.gemm_threads, c.isa);
  const std::string uarch = c.microarchitecture.empty()
                                ? "this CPU is not in kiln's table"
                                : c.microarchitecture + ": " + c.microarchitecture_why;
  if (!is_known(c.gemm_peak_gflops) || c.peak_source.empty()) {
    const char* why = !is_known(c.flops_per_cycle) ? "its FLOPs per cycle are not known"
                                                   : "the CPU's frequency is hidden";
    out.push_back(
        {"gemm", Verdict::cannot_tell,
         measured +
             fmt::format("; the peak cannot be told: {} ({}), and the FMA rate was not measured",
                         why, uarch)});
    return;
  }
  const double share = c.gemm_gflops / c.gemm_peak_gflops;
  const std::string against =
      c.peak_source == "table"
          ? fmt::format(
                " = {:.0f} % of the peak {:.0f} GFLOP/s ({} cores x {:.0f} MHz ({}) x {:.0f} "
                "FLOPs/cycle; "
                "{})",
                100.0 * share, c.gemm_peak_gflops, std::min(c.physical_cores, c.gemm_threads),
                c.frequency_mhz, c.frequency_source, c.flops_per_cycle, uarch)
          : fmt::format(
                " = {:.0f} % of the measured FMA peak {:.0f} GFLOP/s (register-only FMA loops on "
                "{} "
                "threads; {}{})",
                100.0 * share, c.gemm_peak_gflops, c.fma_threads, uarch,
                is_known(c.flops_per_cycle) ? "; the frequency is hidden"
                                            : "; kiln's table has no FLOPs per cycle for it");
  std::string fma;
  if (c.peak_source == "table" && is_known(c.fma_gflops))
    fma = fmt::format("; the cores' measured FMA rate is {:.0f} GFLOP/s{}", c.fma_gflops,
                      share > 1.0 ? " (over 100 %: they run above the nominal clock)" : "");
  if (share < kMinGemmShareOfPeak)
    out.push_back(
        {"gemm", Verdict::problem,
         measured + against + fma +
             fmt::format("; under {:.0f} %: the cores are shared, throttled, or slower than "
                         "their microarchitecture promises",
                         100.0 * kMinGemmShareOfPeak)});
  else
    out.push_back({"gemm", Verdict::ok, measured + against + fma});
}

void judge_data(const DataFigures& d, std::vector<Judgement>& out) {
  if (d.spec.empty()) {
    out.push_back({"decode", Verdict::cannot_tell,
                   "no data given: image decode and read rates not measured"});
    return;
  }
  auto decode = [&](const char* kind, int files, double rate) {
    if (files == 0 || !is_known(rate)) return;
    const std::string measured =
        fmt::format("{} decode: {:.0f} images/s per core ({} files sampled)", kind, rate, files);
    if (rate < kMinDecodesPerCore)
      out.push_back(
          {"decode", Verdict::problem,
           measured + fmt::format("; under {:.0f}: each image takes over {:.0f} ms on a core "
                                  "(a slow core, or memory far slower than it should be)",
                                  kMinDecodesPerCore, 1000.0 / kMinDecodesPerCore)});
    else
      out.push_back({"decode", Verdict::ok, measured});
  };
  decode("PNG", d.png_files, d.png_per_core_s);
  decode("JPEG", d.jpeg_files, d.jpeg_per_core_s);
  if (d.png_files == 0 && d.jpeg_files == 0)
    out.push_back({"decode", Verdict::cannot_tell,
                   fmt::format("data {} holds no PNG or JPEG files: no decode rate", d.spec)});
  if (!is_known(d.read_mbs)) return;
  const double files_per_s =
      d.mean_file_kib > 0.0 ? d.read_mbs * 1e6 / (d.mean_file_kib * 1024.0) : -1.0;
  const std::string measured =
      fmt::format("file reads: {:.0f} MB/s, {:.0f} files/s (files of {:.1f} KiB on average)",
                  d.read_mbs, files_per_s, d.mean_file_kib);
  // Small files are bound by opening them, not by bytes: slow only when both rates are low.
  if (d.read_mbs < kMinReadMbs && files_per_s < kMinFilesPerSecond)
    out.push_back(
        {"read", Verdict::problem,
         measured + fmt::format("; under {:.0f} MB/s and {:.0f} files/s: a slow disk or a network "
                                "file system; copy the data to a local disk",
                                kMinReadMbs, kMinFilesPerSecond)});
  else
    out.push_back({"read", Verdict::ok, measured});
}

void judge_competition(const CompetitionFigures& k, std::vector<Judgement>& out) {
  if (!is_known(k.run_queue_wait_percent)) {
    out.push_back({"competition", Verdict::cannot_tell,
                   "this kernel does not expose run-queue delays (/proc/self/task/*/schedstat)"});
  } else {
    const std::string measured = fmt::format(
        "CPU competition: kiln's threads waited for a core {:.0f} % of the time they were ready",
        k.run_queue_wait_percent);
    if (k.run_queue_wait_percent >= kMaxRunQueueWait) {
      std::string who;
      if (!k.others.empty()) {
        std::vector<std::string> parts;
        for (std::size_t i = 0; i < k.others.size() && i < 3; ++i)
          parts.push_back(fmt::format("{} {:.0f} %", k.others[i].name, k.others[i].percent));
        who = fmt::format("; busiest others: {}", fmt::join(parts, ", "));
      } else {
        who = k.others_visible
                  ? "; no other process shows in /proc (a hypervisor's or another container's)"
                  : "; /proc hides the other processes (a PID namespace)";
      }
      out.push_back(
          {"competition", Verdict::problem,
           measured + fmt::format("; over {:.0f} %: other processes take a real share of the "
                                  "CPU{}; training will be slower by about that much",
                                  kMaxRunQueueWait, who)});
    } else {
      out.push_back({"competition", Verdict::ok, measured});
    }
  }
  if (!is_known(k.steal_percent))
    out.push_back({"competition", Verdict::cannot_tell, "steal time: /proc/stat does not say"});
  else if (k.steal_percent >= kMaxStealPercent)
    out.push_back(
        {"competition", Verdict::problem,
         fmt::format("steal time {:.0f} %: the hypervisor gives this VM's cores to others",
                     k.steal_percent)});
}

void judge_thermal(const ThermalFigures& t, std::vector<Judgement>& out) {
  if (is_known(t.start_mhz) && is_known(t.end_mhz) && t.start_mhz > 0.0) {
    const double kept = t.end_mhz / t.start_mhz;
    const std::string measured =
        fmt::format("clock under sustained load: {:.0f} MHz at the start, {:.0f} MHz at the end",
                    t.start_mhz, t.end_mhz);
    out.push_back({"thermal", kept < kMinSustainedClock ? Verdict::problem : Verdict::ok,
                   kept < kMinSustainedClock
                       ? measured + fmt::format("; a {:.0f} % drop: thermal or power throttling",
                                                100.0 * (1.0 - kept))
                       : measured});
  } else {
    out.push_back({"thermal", Verdict::cannot_tell,
                   "clock under sustained load: cpufreq is not exposed here (a container or a VM), "
                   "so drops cannot be told"});
  }
  if (is_known(t.max_temperature_c) && t.max_temperature_c >= kHotCelsius)
    out.push_back(
        {"thermal", Verdict::problem,
         fmt::format("temperature reached {:.0f} C: near the throttling point; check cooling",
                     t.max_temperature_c)});
  if (is_known(t.sustained_gflops_first) && is_known(t.sustained_gflops_last) &&
      t.sustained_gflops_first > 0.0) {
    const double kept = t.sustained_gflops_last / t.sustained_gflops_first;
    const std::string measured =
        fmt::format("sustained GEMM: {:.1f} GFLOP/s in the first quarter, {:.1f} in the last",
                    t.sustained_gflops_first, t.sustained_gflops_last);
    out.push_back(
        {"thermal", kept < kMinSustainedRate ? Verdict::problem : Verdict::ok,
         kept < kMinSustainedRate
             ? measured + fmt::format("; fell {:.0f} %: throttling, or a competitor that started",
                                      100.0 * (1.0 - kept))
             : measured});
  }
}

void judge_gpu(const GpuFigures& g, std::vector<Judgement>& out) {
  if (!g.present) return;
  if (g.pcie_gen > 0 && g.pcie_width > 0 && g.pcie_max_gen > 0 && g.pcie_max_width > 0) {
    const std::string measured =
        fmt::format("PCIe link under load: Gen{} x{} (the card takes Gen{} x{})", g.pcie_gen,
                    g.pcie_width, g.pcie_max_gen, g.pcie_max_width);
    if (g.pcie_width < g.pcie_max_width || g.pcie_gen < g.pcie_max_gen)
      out.push_back({"gpu", Verdict::problem,
                     measured +
                         ": the card sits in a narrower or older slot than it takes (the "
                         "wrong slot); host-to-device copies get a fraction of their bandwidth"});
    else
      out.push_back({"gpu", Verdict::ok, measured});
  } else {
    out.push_back({"gpu", Verdict::cannot_tell, "PCIe link: NVML does not say"});
  }
  if (is_known(g.h2d_pinned_gbs)) {
    std::string measured =
        fmt::format("host-to-device copies: {:.1f} GB/s pinned, {:.1f} GB/s pageable",
                    g.h2d_pinned_gbs, g.h2d_pageable_gbs);
    const double link =
        g.pcie_gen > 0 && g.pcie_width > 0 ? pcie_lane_gbs(g.pcie_gen) * g.pcie_width : -1.0;
    if (link > 0.0 && g.h2d_pinned_gbs < kMinLinkShare * link)
      out.push_back({"gpu", Verdict::problem,
                     measured + fmt::format("; under half the {:.1f} GB/s of the link", link)});
    else
      out.push_back({"gpu", Verdict::ok, measured});
  }
  if (g.sm_clock_mhz > 0 && g.sm_clock_max_mhz > 0 &&
      g.sm_clock_mhz < kMinGpuClockShare * g.sm_clock_max_mhz)
    out.push_back(
        {"gpu", Verdict::problem,
         fmt::format("GPU clock under load {} MHz of {} MHz: held down (power or temperature)",
                     g.sm_clock_mhz, g.sm_clock_max_mhz)});
  if (!g.others.empty()) {
    std::vector<std::string> parts;
    for (const OtherProcess& p : g.others)
      parts.push_back(fmt::format("{} ({:.0f} MiB)", p.name, p.percent));
    out.push_back({"gpu", Verdict::problem,
                   fmt::format("other processes on the GPU: {}", fmt::join(parts, ", "))});
  }
}

// A figure compared across machines: higher_better says which way is faster.
struct Metric {
  const char* what;
  std::function<double(const MachineFigures&)> value;
  bool higher_better;
  const char* unit;
};

const std::vector<Metric>& metrics() {
  static const std::vector<Metric> list = {
      {"all-thread memory bandwidth", [](const MachineFigures& f) { return f.cpu.triad_all_gbs; },
       true, "GB/s"},
      {"one-thread memory bandwidth",
       [](const MachineFigures& f) { return f.cpu.triad_single_gbs; }, true, "GB/s"},
      {"populated memory channels",
       [](const MachineFigures& f) { return static_cast<double>(f.memory.populated_channels); },
       true, "channels"},
      {"configured memory speed",
       [](const MachineFigures& f) { return static_cast<double>(f.memory.configured_mts); }, true,
       "MT/s"},
      {"matrix-product rate", [](const MachineFigures& f) { return f.cpu.gemm_gflops; }, true,
       "GFLOP/s"},
      {"PNG decode per core", [](const MachineFigures& f) { return f.data.png_per_core_s; }, true,
       "images/s"},
      {"JPEG decode per core", [](const MachineFigures& f) { return f.data.jpeg_per_core_s; }, true,
       "images/s"},
      {"file read rate", [](const MachineFigures& f) { return f.data.read_mbs; }, true, "MB/s"},
      {"pinned host-to-device copies", [](const MachineFigures& f) { return f.gpu.h2d_pinned_gbs; },
       true, "GB/s"},
      {"pageable host-to-device copies",
       [](const MachineFigures& f) { return f.gpu.h2d_pageable_gbs; }, true, "GB/s"},
  };
  return list;
}

}  // namespace

void describe_cpu(const CpuDescription& cpu, CpuFigures& c) {
  c.cores = cpu.logical_cpus;
  c.physical_cores = cpu.physical_cores;
  c.isa = cpu.kernel_set;
  c.microarchitecture = cpu.microarchitecture.name;
  c.microarchitecture_why = cpu.microarchitecture.why;
  c.flops_per_cycle = cpu.microarchitecture.fp32_flops_per_cycle;
}

void set_gemm_peak(CpuFigures& c) {
  // SMT siblings share one core's FMA units: the peak counts the cores the GEMM ran on.
  const int cores =
      std::min(c.physical_cores, c.gemm_threads > 0 ? c.gemm_threads : c.physical_cores);
  if (is_known(c.flops_per_cycle) && is_known(c.frequency_mhz) && cores > 0) {
    c.peak_source = "table";
    c.gemm_peak_gflops = cores * c.frequency_mhz * 1e-3 * c.flops_per_cycle;
  } else if (is_known(c.fma_gflops)) {
    c.peak_source = "measured";
    c.gemm_peak_gflops = c.fma_gflops;
  } else {
    c.peak_source.clear();
    c.gemm_peak_gflops = -1.0;
  }
}

std::vector<Judgement> judge(const MachineFigures& f) {
  std::vector<Judgement> out;
  judge_memory(f.cpu, out);
  judge_memory_slots(f.memory, out);
  judge_gemm(f.cpu, out);
  judge_data(f.data, out);
  judge_competition(f.competition, out);
  judge_thermal(f.thermal, out);
  judge_gpu(f.gpu, out);
  return out;
}

Comparison compare(const MachineFigures& a, const std::string& a_name, const MachineFigures& b,
                   const std::string& b_name) {
  struct Reason {
    double factor;
    bool a_slower;
    std::string text;
  };
  std::vector<Reason> reasons;
  for (const Metric& m : metrics()) {
    const double x = m.value(a), y = m.value(b);
    if (!is_known(x) || !is_known(y) || x <= 0.0 || y <= 0.0) continue;
    const double factor = std::max(x, y) / std::min(x, y);
    if (factor < kCompareFactor) continue;
    const bool a_slower = m.higher_better ? x < y : x > y;
    reasons.push_back({factor, a_slower,
                       fmt::format("{}: {:.1f} {} on {} against {:.1f} {} on {} ({:.1f}x)", m.what,
                                   x, m.unit, a_name, y, m.unit, b_name, factor)});
  }
  // A machine whose cores are taken by others, or whose link is narrower: from the judgements,
  // as a problem one machine has and the other does not.
  auto problems = [](const MachineFigures& f) {
    std::vector<std::string> out;
    for (const Judgement& j : judge(f))
      if (j.verdict == Verdict::problem) out.push_back(j.topic + ": " + j.text);
    return out;
  };
  const std::vector<std::string> pa = problems(a), pb = problems(b);
  auto topic_in = [](const std::vector<std::string>& list, const std::string& line) {
    const std::string topic = line.substr(0, line.find(':'));
    return std::any_of(list.begin(), list.end(),
                       [&](const std::string& l) { return l.rfind(topic + ":", 0) == 0; });
  };
  // A problem only one machine shows counts as a large factor: it is a cause, not a degree.
  for (const std::string& p : pa)
    if (!topic_in(pb, p))
      reasons.push_back({10.0, true, fmt::format("only {} has this: {}", a_name, p)});
  for (const std::string& p : pb)
    if (!topic_in(pa, p))
      reasons.push_back({10.0, false, fmt::format("only {} has this: {}", b_name, p)});
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const Reason& x, const Reason& y) { return x.factor > y.factor; });
  Comparison c;
  int a_votes = 0, b_votes = 0;
  for (const Reason& r : reasons) (r.a_slower ? a_votes : b_votes) += 1;
  if (a_votes != b_votes) c.slower = a_votes > b_votes ? a_name : b_name;
  for (const Reason& r : reasons) c.reasons.push_back(r.text);
  return c;
}

std::string verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::ok: return "ok";
    case Verdict::problem: return "PROBLEM";
    case Verdict::cannot_tell: return "cannot tell";
  }
  return "?";
}

}  // namespace kiln::doctor
