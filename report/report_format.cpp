#include "kiln/report/report_format.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cmath>

namespace kiln {

namespace {
// JSON has no NaN: unknown figures are written as null.
nlohmann::json number_or_null(double v) {
  return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v);
}

std::string percent_or_dash(double v) {
  return std::isnan(v) ? "-" : fmt::format("{:.1f} %", 100.0 * v);
}

// "loss 0.1234 acc 91.0 %", or "loss 0.0123" alone for float targets (no accuracy), or
// "loss 1.8800 ppl 6.55" for a sequence's tokens.
std::string loss_and_accuracy(double loss, double accuracy, bool perplexity) {
  std::string text = fmt::format("loss {:.4f}", loss);
  if (perplexity) text += fmt::format(" ppl {:.2f}", std::exp(loss));
  if (!std::isnan(accuracy)) text += " acc " + percent_or_dash(accuracy);
  return text;
}

nlohmann::json competitors_json(const std::vector<ProcessShare>& others) {
  nlohmann::json out = nlohmann::json::array();
  for (const ProcessShare& p : others)
    out.push_back({{"pid", p.pid}, {"name", p.name}, {"cpu_percent", p.cpu_percent}});
  return out;
}

}  // namespace

std::string epoch_label(std::int64_t epoch, std::int64_t epochs) {
  return epochs > 0 ? fmt::format("epoch {}/{}", epoch, epochs) : fmt::format("epoch {}", epoch);
}

std::string format_epoch_summary(const EpochReport& r, std::int64_t epochs) {
  const std::string test =
      !r.test_split ? "no test split"
      : std::isnan(r.test_loss)
          ? "test not evaluated"
          : "test " + loss_and_accuracy(r.test_loss, r.test_accuracy, r.perplexity);
  const std::string label =
      r.steps > 0 ? fmt::format("step {}/{}", r.step, r.steps) : epoch_label(r.epoch, epochs);
  return fmt::format("{}  {:.1f} s  {:.0f} samples/s  train {}  {}", label, r.wall_s,
                     r.samples_per_s,
                     loss_and_accuracy(r.train_loss, r.train_accuracy, r.perplexity), test);
}

std::string format_stage_table(const EpochReport& r) {
  std::string t = fmt::format("  {:<20} {:>9} {:>8}\n", "stage", "seconds", "% step");
  for (std::size_t i = 0; i < kStageCount; ++i) {
    const auto s = static_cast<Stage>(i);
    if (s == Stage::allreduce && r.stages[s] == 0.0) continue;  // shown only when distributed
    if (s == Stage::graph && r.stages[s] == 0.0)
      continue;                                   // shown only with TrainerOptions::cuda_graph
    if (s == Stage::copy && !r.on_gpu) continue;  // the CPU copies nothing
    t += fmt::format("  {:<20} {:>9.2f} {:>7.1f}%\n", stage_name(s), r.stages[s] / 1000.0,
                     r.stage_percent(s));
  }
  // The copies run on their own stream, beside the compute stages: not part of the host's gap.
  const double other = std::max(0.0, r.step_ms() - (r.stages.sum() - r.stages[Stage::copy]));
  t += fmt::format("  {:<20} {:>9.2f} {:>7.1f}%\n", "other (host)", other / 1000.0,
                   r.wall_s > 0 ? 100.0 * other / r.step_ms() : 0.0);
  t += fmt::format(
      "  CPU: process {:.0f} % of {} threads' time, loader workers busy {:.0f} % ({} workers{})\n",
      r.process_cpu_percent, r.cpu_threads, r.loader_busy_percent, r.workers,
      r.pin_memory ? ", pinned memory" : "");
  // Only where others take a real share, so that a machine of its own prints what it always did.
  if (r.run_queue_wait_percent >= kRealShareWaitPercent)
    t += fmt::format(
        "  CPU competition: threads waited for a core {:.0f} % of their ready time; others: {}\n",
        r.run_queue_wait_percent,
        r.cpu_competitors.empty() ? std::string("hidden from /proc")
                                  : describe_processes(r.cpu_competitors));
  if (r.on_gpu) {
    t += fmt::format(
        "  GPU: memory {:.0f} MiB in use, {:.0f} MiB peak of {:.0f} MiB; utilisation {}\n",
        r.gpu_memory_in_use_mib, r.gpu_memory_peak_mib, r.gpu_memory_total_mib,
        r.gpu_utilization_percent >= 0 ? fmt::format("{:.0f} %", r.gpu_utilization_percent)
                                       : std::string("unknown (no NVML)"));
  }
  return t;
}

namespace {

// The automatic choice of workers and pinned memory, with the rates it was made from.
nlohmann::json loader_tuning_json(const LoaderTuning& tuning) {
  nlohmann::json trials = nlohmann::json::array();
  for (const LoaderTrial& t : tuning.trials)
    trials.push_back({{"workers", t.setting.workers},
                      {"pin_memory", t.setting.pin_memory},
                      {"samples_per_second", t.samples_per_s},
                      {"data_wait_percent", t.data_wait_percent}});
  return {{"automatic", true},
          {"workers", tuning.chosen.setting.workers},
          {"pin_memory", tuning.chosen.setting.pin_memory},
          {"batches_per_trial", tuning.batches},
          {"rounds", tuning.rounds},
          {"noise", tuning.noise},
          {"trials", trials}};
}

}  // namespace

std::string to_json_line(const EpochReport& r) {
  nlohmann::json stages;
  for (std::size_t i = 0; i < kStageCount; ++i) {
    const auto s = static_cast<Stage>(i);
    stages[std::string(stage_name(s))] = {{"seconds", r.stages[s] / 1000.0},
                                          {"percent", r.stage_percent(s)}};
  }
  nlohmann::json line = {{"epoch", r.epoch},
                         {"device", r.device},
                         {"batch_size", r.batch_size},
                         {"batches", r.batches},
                         {"samples", r.samples},
                         {"workers", r.workers},
                         {"pin_memory", r.pin_memory},
                         {"cpu_threads", r.cpu_threads},
                         {"lr", r.lr},
                         {"wall_seconds", r.wall_s},
                         {"samples_per_second", r.samples_per_s},
                         {"train_loss", number_or_null(r.train_loss)},
                         {"train_accuracy", number_or_null(r.train_accuracy)},
                         {"test_loss", number_or_null(r.test_loss)},
                         {"test_accuracy", number_or_null(r.test_accuracy)},
                         {"test_split", r.test_split},
                         {"stages", stages},
                         {"process_cpu_percent", r.process_cpu_percent},
                         {"run_queue_wait_percent", r.run_queue_wait_percent >= 0
                                                        ? nlohmann::json(r.run_queue_wait_percent)
                                                        : nlohmann::json(nullptr)},
                         {"steal_percent", r.steal_percent >= 0 ? nlohmann::json(r.steal_percent)
                                                                : nlohmann::json(nullptr)},
                         {"cpu_competitors", competitors_json(r.cpu_competitors)},
                         {"loader_busy_percent", r.loader_busy_percent},
                         {"queue_occupancy", r.queue_occupancy},
                         {"queue_capacity", r.queue_capacity},
                         {"gpu_memory_in_use_mib", r.gpu_memory_in_use_mib},
                         {"gpu_memory_peak_mib", r.gpu_memory_peak_mib},
                         {"gpu_memory_total_mib", r.gpu_memory_total_mib},
                         {"gpu_utilization_percent", r.gpu_utilization_percent >= 0
                                                         ? nlohmann::json(r.gpu_utilization_percent)
                                                         : nlohmann::json(nullptr)}};
  // Only where they apply, so that an epoch-counted run's lines stay as they were.
  if (r.loader_tuning) line["loader_tuning"] = loader_tuning_json(*r.loader_tuning);
  if (r.steps > 0) {
    line["step"] = r.step;
    line["steps"] = r.steps;
  }
  if (r.perplexity) {
    line["train_perplexity"] = number_or_null(std::exp(r.train_loss));
    line["test_perplexity"] = number_or_null(std::exp(r.test_loss));
  }
  return line.dump();
}

}  // namespace kiln
