// Diagnosis rules. Thresholds: waiting for data more than 20 % of the step is input-bound
// (the article saw 98 %); copies above 15 % on a GPU point at pageable memory; a GPU memory
// peak under half the card leaves room for a larger batch.
#include "kiln/training/diagnosis.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

namespace kiln {

namespace {

constexpr double kInputBoundPercent = 20.0;
constexpr double kCopyBoundPercent = 15.0;
constexpr double kLowMemoryFraction = 0.5;
constexpr double kLowGpuUtilization = 60.0;
constexpr double kCommunicationBoundPercent = 25.0;  // gradient all-reduce not hidden by compute

// More workers while there are cores for them; 0 when they already match the cores.
int suggested_workers(const EpochReport& r, int cores) {
  if (r.workers >= cores) return 0;
  return std::min(cores, std::max(2 * r.workers, std::min(4, cores)));
}

std::string worker_advice(const EpochReport& r, int cores) {
  const int next = suggested_workers(r, cores);
  if (next == 0)
    return fmt::format("the {} workers already match the {} cores; make loading cheaper (decode once, "
                       "lighter transforms) or use a machine with more cores",
                       r.workers, cores);
  std::string advice = fmt::format("try --workers {}", next);
  if (r.on_gpu && !r.pin_memory) advice += " --pin-memory";
  return advice;
}

}  // namespace

bool Diagnosis::has(Finding finding) const {
  return std::any_of(items.begin(), items.end(), [&](const DiagnosisItem& i) { return i.finding == finding; });
}

std::vector<std::string> Diagnosis::lines() const {
  std::vector<std::string> out;
  for (const DiagnosisItem& item : items) out.push_back(item.text);
  return out;
}

std::string Diagnosis::text() const {
  std::string out = "diagnosis:\n";
  for (const DiagnosisItem& item : items) out += "  " + item.text + "\n";
  return out;
}

std::string_view bottleneck_name(Bottleneck bottleneck) {
  switch (bottleneck) {
    case Bottleneck::input: return "input";
    case Bottleneck::copy: return "copy";
    case Bottleneck::compute: return "compute";
  }
  return "?";
}

Diagnosis diagnose(const EpochReport& r, int cores) {
  Diagnosis d;
  auto add = [&d](Finding finding, double percent, std::string text) {
    d.items.push_back({finding, percent, std::move(text)});
  };
  const double wait = r.stage_percent(Stage::data_wait);
  const double copy = r.stage_percent(Stage::copy);
  if (wait >= kInputBoundPercent) {
    d.bottleneck = Bottleneck::input;
    d.suggested_workers = suggested_workers(r, cores);
    add(Finding::input_bound, wait, fmt::format("input-bound: {:.0f} % of step time waiting for data; {}", wait,
                                worker_advice(r, cores)));
  } else if (r.on_gpu && copy >= kCopyBoundPercent) {
    d.bottleneck = Bottleneck::copy;
    add(Finding::copy_bound, copy, fmt::format("copy-bound: {:.0f} % of step time copying batches to the GPU; {}",
                                copy,
                                r.pin_memory ? "copies are already pinned; a smaller sample type "
                                               "(uint8 images, converted on the GPU) would help"
                                             : "try --pin-memory so copies overlap compute"));
  } else {
    add(Finding::compute_bound, wait, fmt::format("compute-bound: the loader keeps up ({:.0f} % of step time waiting "
                                "for data)",
                                wait));
    if (!r.on_gpu && r.precision == "fp32" && r.cpu_bf16_instructions)
      add(Finding::bf16_available, 0.0, "this CPU multiplies bf16 in hardware: --precision bf16 runs the matrix products and "
                      "convolutions on it (bf16 inputs, fp32 accumulation and master weights; about 1e-2 "
                      "relative error per product); bench --device=cpu --precision bf16 measures what it gives here");
  }
  const double allreduce = r.stage_percent(Stage::allreduce);
  if (allreduce >= kCommunicationBoundPercent)
    add(Finding::communication_bound, allreduce, fmt::format("communication-bound: {:.0f} % of step time in the gradient all-reduce; "
                                "a larger --batch-size gives each exchange more compute to hide behind, "
                                "fewer ranks on a slow link exchange less",
                                allreduce));
  if (r.on_gpu && r.gpu_memory_total_mib > 0 && r.gpu_memory_peak_mib > 0) {
    const double used = r.gpu_memory_peak_mib / r.gpu_memory_total_mib;
    if (used < kLowMemoryFraction) {
      // Assume memory grows with the batch (activations dominate); leave 20 % headroom.
      const auto factor = static_cast<std::uint64_t>(0.8 / used);
      const std::uint64_t suggested = std::bit_floor(static_cast<std::uint64_t>(r.batch_size) * std::max<std::uint64_t>(factor, 1));
      if (suggested > static_cast<std::uint64_t>(r.batch_size)) {
        d.suggested_batch_size = static_cast<std::int64_t>(suggested);
        add(Finding::larger_batch_fits, 100.0 * used, fmt::format("GPU memory {:.0f} % used: batch size {} would fit (--find-batch-size "
                                    "measures it)",
                                    100.0 * used, suggested));
      }
    }
  }
  if (r.on_gpu && r.gpu_utilization_percent >= 0 && r.gpu_utilization_percent < kLowGpuUtilization &&
      wait < kInputBoundPercent)
    add(Finding::low_gpu_utilization, r.gpu_utilization_percent, fmt::format("GPU utilisation {:.0f} %: kernels are too small to fill the GPU; a "
                                "larger batch gives each launch more work",
                                r.gpu_utilization_percent));
  return d;
}

}  // namespace kiln
