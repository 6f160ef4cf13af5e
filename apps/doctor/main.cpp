// kiln-doctor: measures this machine in about 30 s (memory bandwidth, the GEMM rate against
// oneDNN's ISA peak, decode and read rates of the user's data, CPU competition, clocks under a
// sustained run, and a GPU's copies and link) and says what is wrong with it, by the rules in
// README.md's "What kiln-doctor checks". `--json` writes the figures; `--compare a.json b.json`
// says which differences explain why one machine trains slower.
#include <CLI/CLI.hpp>

#include "apps/support/number_flags.h"

#include <fcntl.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/doctor/machine_facts.h"
#include "apps/doctor/measure.h"
#include "apps/doctor/report.h"
#include "kiln/core/cpu_description.h"
#include "kiln/core/error.h"
#include "kiln/core/openmp_wait_policy.h"
#include "kiln/core/output_file.h"
#include "kiln/monitor/cpu_competition.h"

namespace {

using kiln::doctor::MachineFigures;

MachineFigures examine(const std::string& data, bool quick, bool with_gpu) {
  using namespace kiln::doctor;
  const Sizes sizes = quick ? Sizes::quick() : Sizes{};
  MachineFigures f;
  f.host = host_name();
  f.cpu_model = kiln::cpu_description().model_name;
  // The competition is read over the all-core work: that is when others' load shows as waiting.
  const kiln::CpuSample before = kiln::sample_cpu(true);
  f.cpu = measure_cpu(sizes);
  f.memory = read_dmi_memory();
  f.thermal = measure_sustained(sizes);
  const kiln::CpuShare share = kiln::cpu_share_between(before, kiln::sample_cpu(true));
  f.competition.run_queue_wait_percent = share.wait_percent();
  f.competition.steal_percent = share.steal_percent;
  f.competition.others_visible = share.others_visible;
  for (const kiln::ProcessShare& p : kiln::grouped_by_name(share.others))
    f.competition.others.push_back({p.name, p.cpu_percent});
  if (!data.empty()) f.data = measure_data(data, sizes);
  if (with_gpu) f.gpu = measure_gpu(sizes);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kiln::doctor;
  kiln::prefer_passive_openmp_waiting(argv);
  CLI::App app{"kiln-doctor: measures this machine and says what is wrong with it"};
  std::string data, json_path;
  std::vector<std::string> compare;
  bool quick = false, no_gpu = false;
  app.add_option("--data", data,
                 "a data spec (images:DIR, csv:PATH, ...) whose files are read and decoded");
  app.add_option("--json", json_path, "write the figures to this file (for --compare)");
  app.add_option("--compare", compare,
                 "two files written by --json: which differences explain a slower machine")
      ->expected(2);
  app.add_flag("--quick", quick, "small sizes: about a second, less exact (for tests)");
  app.add_flag("--no-gpu", no_gpu, "leave the GPU checks out");
  if (const auto status = kiln::parse_command_line(app, argc, argv, "kiln-doctor")) return *status;
  try {
    if (!compare.empty()) {
      const MachineFigures a = read_figures(compare[0]), b = read_figures(compare[1]);
      std::cout << comparison_text(kiln::doctor::compare(a, compare[0], b, compare[1]), compare[0],
                                   compare[1]);
      return 0;
    }
    // A --json path that cannot be written (a folder, a link, a missing folder) fails now, in
    // one line, rather than after 30 s of measuring and the whole report.
    if (!json_path.empty()) kiln::OutputFile(json_path, O_WRONLY | O_CREAT, "kiln-doctor --json");
    const MachineFigures figures = examine(data, quick, !no_gpu);
    std::cout << report_text(figures, judge(figures));
    if (!json_path.empty())
      kiln::write_output_file(json_path, to_json(figures).dump(2) + "\n", "kiln-doctor --json");
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "kiln-doctor: %s\n", e.what());
    return 1;
  }
  return 0;
}
