#include "apps/doctor/report.h"

#include <fmt/format.h>

namespace kiln::doctor {

std::string report_text(const MachineFigures& f, const std::vector<Judgement>& judgements) {
  std::string out = fmt::format("kiln-doctor: {} ({}), {} CPUs ({} cores){}\n", f.host,
                                f.cpu_model.empty() ? "CPU model hidden" : f.cpu_model, f.cpu.cores,
                                f.cpu.physical_cores, f.gpu.present ? ", GPU " + f.gpu.name : "");
  int problems = 0;
  for (const Judgement& j : judgements) {
    out += fmt::format("  [{}] {}\n", verdict_name(j.verdict), j.text);
    problems += j.verdict == Verdict::problem;
  }
  out += problems == 0 ? "no problem found\n"
                       : fmt::format("{} problem{} found\n", problems, problems == 1 ? "" : "s");
  return out;
}

std::string comparison_text(const Comparison& c, const std::string& a_name,
                            const std::string& b_name) {
  if (c.reasons.empty())
    return fmt::format("{} and {}: no figure differs by enough to explain a slower machine\n",
                       a_name, b_name);
  std::string out =
      c.slower.empty()
          ? fmt::format("{} and {} differ, but neither is slower on every count:\n", a_name, b_name)
          : fmt::format("{} looks slower; the differences that explain it, largest first:\n",
                        c.slower);
  for (const std::string& r : c.reasons) out += "  " + r + "\n";
  return out;
}

}  // namespace kiln::doctor
