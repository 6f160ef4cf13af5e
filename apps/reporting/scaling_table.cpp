// Runs the job at each size through the shell and reads rank 0's JSON line back.
#include "apps/reporting/scaling_table.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "kiln/core/error.h"
#include "kiln/core/output_file.h"

namespace kiln {

namespace {

std::string quoted(const std::string& word) {
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string file_of(const ScalingJob& job, int ranks, const char* extension) {
  return fmt::format("{}/scaling-{}.{}", job.work_dir, ranks, extension);
}

std::string tail_of(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string text;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i)
    text += all[i] + "\n";
  return text;
}

}  // namespace

std::string scaling_command(const ScalingJob& job, int ranks) {
  std::string command = quoted(job.mpirun);
  for (const auto& a : job.mpirun_args) command += " " + quoted(a);
  command += fmt::format(" -np {} {}", ranks, quoted(job.train));
  for (const auto& a : job.train_args) command += " " + quoted(a);
  return command;
}

ScalingRow measure_scaling(const ScalingJob& job, int ranks) {
  KILN_CHECK(ranks >= 1, "a scaling run needs at least one rank, found {}", ranks);
  std::filesystem::create_directories(job.work_dir);
  const std::string json = file_of(job, ranks, "jsonl"), log = file_of(job, ranks, "log");
  std::filesystem::remove(json);
  const std::string command = scaling_command(job, ranks) + " --quiet --log-json " + quoted(json) +
                              " >" + quoted(log) + " 2>&1";
  const int status = std::system(command.c_str());
  KILN_CHECK(status == 0, "the {}-rank scaling run failed (status {}): {}\nlast lines of {}:\n{}",
             ranks, status, command, log, tail_of(log, 15));
  std::ifstream in(json);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  KILN_CHECK(!last.empty(), "the {}-rank scaling run wrote no JSON line to {}", ranks, json);
  const auto j = nlohmann::json::parse(last);
  ScalingRow row;
  row.ranks = ranks;
  row.samples_per_s = j.at("samples_per_second").get<double>();
  row.allreduce_percent = j.at("stages").at("all-reduce").at("percent").get<double>();
  row.data_wait_percent = j.at("stages").at("data wait").at("percent").get<double>();
  return row;
}

std::vector<ScalingRow> measure_scaling(const ScalingJob& job, const std::vector<int>& sizes,
                                        std::ostream& out) {
  std::vector<ScalingRow> rows;
  for (int k : sizes) {
    rows.push_back(measure_scaling(job, k));
    out << fmt::format("  {} rank{}: {:.0f} samples/s (all-reduce {:.1f} % of the epoch)\n", k,
                       k == 1 ? "" : "s", rows.back().samples_per_s, rows.back().allreduce_percent)
        << std::flush;
  }
  return rows;
}

std::string scaling_markdown(const std::vector<ScalingRow>& rows) {
  std::string t = "| ranks | samples/s | speedup | efficiency | all-reduce | data wait |\n";
  t += "| ----: | --------: | ------: | ---------: | ---------: | --------: |\n";
  const double base = rows.empty() ? 0.0 : rows.front().samples_per_s / rows.front().ranks;
  for (const ScalingRow& r : rows) {
    const double speedup = base > 0 ? r.samples_per_s / base : 0.0;
    t += fmt::format("| {} | {:.0f} | {:.2f} x | {:.0f} % | {:.1f} % | {:.1f} % |\n", r.ranks,
                     r.samples_per_s, speedup, 100.0 * speedup / r.ranks, r.allreduce_percent,
                     r.data_wait_percent);
  }
  return t;
}

ScalingJob article_scaling_job(const std::string& train, std::int64_t samples,
                               std::int64_t batch_size, int workers, int threads,
                               const std::string& work_dir) {
  ScalingJob job;
  job.mpirun_args = {"--oversubscribe"};  // ranks may outnumber cores; the table says so
  job.train = train;
  job.train_args = {"--device=cpu",
                    "--model",
                    "article",
                    "--data",
                    "article",
                    "--samples",
                    std::to_string(samples),
                    "--batch-size",
                    std::to_string(batch_size),
                    "--epochs",
                    "1",
                    "--schedule",
                    "constant",
                    "--workers",
                    std::to_string(workers),
                    "--threads",
                    std::to_string(threads)};
  job.work_dir = work_dir;
  return job;
}

std::vector<ScalingRow> run_scaling_bench(const ScalingJob& job, const std::vector<int>& sizes,
                                          std::ostream& out) {
  out << "kiln bench --scaling: samples/s of one training epoch as 1, 2, ... MPI ranks\n"
      << std::flush;
  const std::vector<ScalingRow> rows = measure_scaling(job, sizes, out);
  std::string text = scaling_markdown(rows) + "\ncommands:\n\n";
  for (const ScalingRow& r : rows) text += "    " + scaling_command(job, r.ranks) + "\n";
  out << "\n" << text;
  std::filesystem::create_directories(job.work_dir);
  write_output_file(job.work_dir + "/scaling.md", text, "bench --scaling's");
  out << fmt::format("\nwrote {}/scaling.md\n", job.work_dir);
  return rows;
}

}  // namespace kiln
