// kiln-doctor's judgements: pure functions of the figures, each rule stated beside its constant
// in judgement.cpp and in the README ("What kiln-doctor checks"), so each is tested on recorded
// figures. A figure the machine hides is judged "cannot tell", never guessed.
#pragma once

#include <string>
#include <vector>

#include "apps/doctor/figures.h"
#include "kiln/core/cpu_description.h"

namespace kiln::doctor {

enum class Verdict { ok, problem, cannot_tell };

struct Judgement {
  std::string
      topic;  // "memory", "memory slots", "gemm", "decode", "read", "competition", "thermal", "gpu"
  Verdict verdict = Verdict::ok;
  std::string text;  // what was measured, and what it means
};

std::vector<Judgement> judge(const MachineFigures& figures);

// The CPU's facts from kiln's one description of it (cores, kernel set, microarchitecture and
// its FLOPs per cycle), into `c`.
void describe_cpu(const CpuDescription& cpu, CpuFigures& c);
// The peak the GEMM is judged against: the table's (physical cores the GEMM ran on x frequency
// x FLOPs per cycle) where it has a figure and the frequency is known, else the measured FMA
// rate, else none; sets peak_source and gemm_peak_gflops.
void set_gemm_peak(CpuFigures& c);

// One line per difference that explains why `slow` trains slower than `fast`, the largest
// first; names are the files' (or machines') labels. Empty when no figure differs by enough.
struct Comparison {
  std::string slower;  // the label of the machine that looks slower, "" when neither does
  std::vector<std::string> reasons;
};
Comparison compare(const MachineFigures& a, const std::string& a_name, const MachineFigures& b,
                   const std::string& b_name);

std::string verdict_name(Verdict verdict);  // "ok", "PROBLEM", "cannot tell"

}  // namespace kiln::doctor
