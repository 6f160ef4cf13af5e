// Diagnosis rules. Thresholds: waiting for data 10 % of the step or more is input-bound (the
// article saw 98 %): more workers where a core is idle for them, else a cheaper loading; copies
// above 15 % on a GPU point at pageable memory; a GPU memory peak under half the card leaves room
// for a larger batch; threads waiting for a core 10 % of their ready time share the CPU with
// others.
#include "kiln/training/diagnosis.h"

#include <algorithm>
#include <bit>

#include <fmt/args.h>
#include <fmt/format.h>

#include "kiln/core/error.h"

namespace kiln {

namespace {

constexpr double kInputBoundPercent = 20.0;  // GPU utilisation is judged only below it
constexpr double kCopyBoundPercent = 15.0;
constexpr double kLowMemoryFraction = 0.5;
constexpr double kLowGpuUtilization = 60.0;
constexpr double kCommunicationBoundPercent = 25.0;  // gradient all-reduce not hidden by compute
constexpr double kInputWaitWithIdleCores = 10.0;  // input-bound when a worker has a core to run on
constexpr double kCpuShareFall = 0.75;  // an epoch's CPU share under 3/4 of an earlier one's

bool shares_cpu(const EpochReport& r) { return r.run_queue_wait_percent >= kRealShareWaitPercent; }

// Cores the epoch left idle: the machine's, less what this process and the others /proc shows
// used. Threads that waited for a core leave none, whatever /proc shows.
double idle_cores(const EpochReport& r, int cores) {
  if (shares_cpu(r)) return 0.0;
  double others = 0.0;
  for (const ProcessShare& p : r.cpu_competitors) others += p.cpu_percent / 100.0;
  return std::max(0.0, cores * (1.0 - r.process_cpu_percent / 100.0) - others);
}

// "cc1plus 95 %, make 4 %", or what hides them.
std::string competitors(const EpochReport& r) {
  if (!r.cpu_competitors.empty()) return describe_processes(r.cpu_competitors);
  return "/proc shows no other process: another container's or the hypervisor's";
}

// More workers while there are cores for them; 0 when they already match the cores.
int suggested_workers(const EpochReport& r, int cores) {
  if (r.workers >= cores) return 0;
  return std::min(cores, std::max(2 * r.workers, std::min(4, cores)));
}

// Braces of a measured text are escaped, so that only the advice placeholders remain.
std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '{' || c == '}') out += c;
  }
  return out;
}

}  // namespace

std::string DiagnosisItem::text(const SettingWords& words) const {
  fmt::dynamic_format_arg_store<fmt::format_context> args;
  for (const std::vector<Advice>& group : advice) {
    std::vector<std::string> phrases;
    for (const Advice& a : group) phrases.push_back(words.phrase(a));
    args.push_back(words.join(phrases));
  }
  return fmt::vformat(message, args);
}

bool Diagnosis::has(Finding finding) const {
  return std::any_of(items.begin(), items.end(),
                     [&](const DiagnosisItem& i) { return i.finding == finding; });
}

std::vector<std::string> Diagnosis::lines(const SettingWords& words) const {
  std::vector<std::string> out;
  for (const DiagnosisItem& item : items) out.push_back(item.text(words));
  return out;
}

std::string Diagnosis::text(const SettingWords& words) const {
  std::string out = "diagnosis:\n";
  for (const std::string& line : lines(words)) out += "  " + line + "\n";
  return out;
}

std::string_view bottleneck_name(Bottleneck bottleneck) {
  switch (bottleneck) {
    case Bottleneck::input: return "input";
    case Bottleneck::copy: return "copy";
    case Bottleneck::compute: return "compute";
    case Bottleneck::shared_cpu: return "shared-cpu";
  }
  return "?";
}

Diagnosis diagnose(const EpochReport& r, int cores) {
  Diagnosis d;
  // `message` is measured text (braces escaped) with a "{}" for each advice group.
  auto add = [&d](Finding finding, double percent, std::string message,
                  std::vector<std::vector<Advice>> advice = {}) {
    d.items.push_back({finding, percent, std::move(message), std::move(advice)});
  };
  const double wait = r.stage_percent(Stage::data_wait);
  const double copy = r.stage_percent(Stage::copy);
  const bool spare_core = idle_cores(r, cores) >= 1.0;
  auto add_bf16 = [&] {
    if (!r.on_gpu && r.precision == "fp32" && r.cpu_bf16_instructions)
      add(Finding::bf16_available, 0.0,
          "this CPU multiplies bf16 in hardware: {} runs the matrix products and convolutions on "
          "it (bf16 "
          "inputs, fp32 accumulation and master weights; about 1e-2 relative error per product); "
          "{} "
          "measures what it gives here",
          {{{Setting::precision, "bf16"}}, {{Setting::measure_bf16, ""}}});
  };
  auto add_shared_cpu = [&] {
    std::string text = fmt::format(
        "shared CPU: this process's threads waited for a core {:.0f} % of the time they were "
        "ready; other "
        "processes take a real share ({})",
        r.run_queue_wait_percent, competitors(r));
    if (r.steal_percent >= 5.0)
      text += fmt::format("; the hypervisor stole {:.0f} % of the CPUs", r.steal_percent);
    add(Finding::shared_cpu, r.run_queue_wait_percent,
        escaped(text + "; alone on this machine the epoch would take about that much less"));
  };
  if (wait >= kInputWaitWithIdleCores && !spare_core) {
    d.bottleneck = Bottleneck::input;
    add(Finding::input_bound, wait,
        escaped(fmt::format(
            "input-bound: {:.0f} % of step time waiting for data; more workers cannot help "
            "here: no core is idle (this process used {:.0f} % of the {} cores{}); make loading "
            "cheaper (decode once, lighter transforms) or free cores",
            wait, r.process_cpu_percent, cores,
            r.cpu_competitors.empty() ? "" : ", others " + describe_processes(r.cpu_competitors))));
  } else if (wait >= kInputWaitWithIdleCores) {
    d.bottleneck = Bottleneck::input;
    d.suggested_workers = suggested_workers(r, cores);
    const std::string measured =
        escaped(fmt::format("input-bound: {:.0f} % of step time waiting for data; ", wait));
    if (d.suggested_workers == 0) {
      add(Finding::input_bound, wait,
          measured + escaped(fmt::format(
                         "the {} workers already match the {} cores; make loading cheaper "
                         "(decode once, lighter transforms) or use a machine with more cores",
                         r.workers, cores)));
    } else {
      std::vector<Advice> advice{{Setting::loader_workers, std::to_string(d.suggested_workers)}};
      if (r.on_gpu && !r.pin_memory) advice.push_back({Setting::pin_memory, "true"});
      add(Finding::input_bound, wait, measured + "try {}", {advice});
    }
  } else if (r.on_gpu && copy >= kCopyBoundPercent) {
    d.bottleneck = Bottleneck::copy;
    const std::string measured = escaped(
        fmt::format("copy-bound: {:.0f} % of step time copying batches to the GPU; ", copy));
    if (r.pin_memory)
      add(Finding::copy_bound, copy,
          measured +
              "copies are already pinned; a smaller sample type (uint8 images, converted on the "
              "GPU) "
              "would help");
    else
      add(Finding::copy_bound, copy, measured + "try {} so copies overlap compute",
          {{{Setting::pin_memory, "true"}}});
  } else if (shares_cpu(r)) {
    d.bottleneck = Bottleneck::shared_cpu;  // not compute-bound: the compute does not get the cores
    add_shared_cpu();
    add_bf16();
  } else {
    add(Finding::compute_bound, wait,
        escaped(fmt::format(
            "compute-bound: the loader keeps up ({:.0f} % of step time waiting for data)", wait)));
    add_bf16();
  }
  if (shares_cpu(r) && d.bottleneck != Bottleneck::shared_cpu) add_shared_cpu();
  // Spinning threads take the cores that another process's threads, or the loader's workers
  // while the step waits for data, need: a small model's step ran 6-20x slower so.
  if (r.openmp_spin_waits && r.cpu_threads > 1 && !r.on_gpu &&
      (shares_cpu(r) || r.steal_percent >= 5.0 || wait >= kInputWaitWithIdleCores))
    add(Finding::openmp_spinning, r.run_queue_wait_percent,
        escaped(fmt::format(
            "OpenMP's {} threads spin while they wait between parallel regions, on "
            "cores that {} need; ",
            r.cpu_threads,
            shares_cpu(r) || r.steal_percent >= 5.0 ? "other processes" : "the loader's workers")) +
            "try {} (waiting threads then sleep)",
        {{{Setting::openmp_wait_policy, ""}}});
  const double allreduce = r.stage_percent(Stage::allreduce);
  if (allreduce >= kCommunicationBoundPercent)
    add(Finding::communication_bound, allreduce,
        escaped(fmt::format(
            "communication-bound: {:.0f} % of step time in the gradient all-reduce; ", allreduce)) +
            "a larger {} gives each exchange more compute to hide behind, fewer ranks on a slow "
            "link "
            "exchange less",
        {{{Setting::batch_size, ""}}});
  if (r.on_gpu && r.gpu_memory_total_mib > 0 && r.gpu_memory_peak_mib > 0) {
    const double used = r.gpu_memory_peak_mib / r.gpu_memory_total_mib;
    if (used < kLowMemoryFraction) {
      // Assume memory grows with the batch (activations dominate); leave 20 % headroom.
      const auto factor = static_cast<std::uint64_t>(0.8 / used);
      const std::uint64_t suggested = std::bit_floor(static_cast<std::uint64_t>(r.batch_size) *
                                                     std::max<std::uint64_t>(factor, 1));
      if (suggested > static_cast<std::uint64_t>(r.batch_size)) {
        d.suggested_batch_size = static_cast<std::int64_t>(suggested);
        add(Finding::larger_batch_fits, 100.0 * used,
            escaped(fmt::format("GPU memory {:.0f} % used: batch size {} would fit ", 100.0 * used,
                                suggested)) +
                "({} measures it)",
            {{{Setting::measure_batch, ""}}});
      }
    }
  }
  if (r.on_gpu && r.gpu_utilization_percent >= 0 &&
      r.gpu_utilization_percent < kLowGpuUtilization && wait < kInputBoundPercent)
    add(Finding::low_gpu_utilization, r.gpu_utilization_percent,
        escaped(fmt::format(
            "GPU utilisation {:.0f} %: kernels are too small to fill the GPU; a larger batch "
            "gives each launch more work",
            r.gpu_utilization_percent)));
  return d;
}

Diagnosis diagnose(const std::vector<EpochReport>& epochs, int cores) {
  KILN_CHECK(!epochs.empty(), "diagnose needs at least one epoch's report");
  Diagnosis d = diagnose(epochs.back(), cores);
  // The first epoch whose share fell against the best before it (the article's "CPU use starts
  // high and drops after a few minutes").
  const EpochReport* best = &epochs.front();
  for (const EpochReport& r : epochs) {
    if (&r != best && best->process_cpu_percent > 0.0 &&
        r.process_cpu_percent < kCpuShareFall * best->process_cpu_percent) {
      std::string text = fmt::format(
          "CPU use fell in epoch {}: the process got {:.0f} % of the machine there against {:.0f} "
          "% in epoch {} "
          "({:.0f} against {:.0f} samples/s)",
          r.epoch, r.process_cpu_percent, best->process_cpu_percent, best->epoch, r.samples_per_s,
          best->samples_per_s);
      if (shares_cpu(r))
        text += fmt::format("; its threads then waited for a core {:.0f} % of the time ({})",
                            r.run_queue_wait_percent, competitors(r));
      else
        text +=
            "; no other process took the cores: look for throttled clocks or a stage that slowed";
      d.items.insert(
          d.items.begin() + 1,
          DiagnosisItem{Finding::cpu_share_fell, r.process_cpu_percent, escaped(text), {}});
      break;
    }
    if (r.process_cpu_percent > best->process_cpu_percent) best = &r;
  }
  return d;
}

}  // namespace kiln
