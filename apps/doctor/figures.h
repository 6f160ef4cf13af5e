// What kiln-doctor measured on one machine, as numbers only (the judgements are judgement.h's
// pure functions of them), and their JSON form for `--json` and `--compare`. Every figure the
// machine does not expose, or the doctor did not measure, is -1 (null in JSON): "cannot tell".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "apps/doctor/dmi_memory.h"

namespace kiln::doctor {

struct OtherProcess {
  std::string name;
  double percent = 0.0;  // CPU: % of one core; GPU: MiB of device memory
};

struct CpuFigures {
  int cores = 0;           // logical CPUs this process may run on
  int physical_cores = 0;  // of those, distinct cores (SMT siblings counted once)
  double triad_single_gbs = -1.0;
  double triad_all_gbs = -1.0;
  int triad_threads = 0;
  std::string isa;  // oneDNN's kernel set, "none" without oneDNN
  double gemm_gflops = -1.0;
  int gemm_threads = 0;
  double frequency_mhz = -1.0;        // the highest the cores reach (cpufreq), -1: cannot tell
  std::string frequency_source;       // "cpufreq" or "cpuinfo" (the hypervisor's nominal figure)
  std::string microarchitecture;      // the name in kiln's table (core/cpu_microarchitecture.cpp)
  std::string microarchitecture_why;  // its vector units: "AVX-512 on 256-bit units: ..."
  double flops_per_cycle = -1.0;      // fp32 per core per cycle from that table; -1: not in it
  double fma_gflops = -1.0;           // measured: register-only FMA loops, one thread per core
  int fma_threads = 0;
  // The peak the GEMM is judged against: "table" (cores x frequency x flops_per_cycle),
  // "measured" (fma_gflops, where the table has no figure), or empty: cannot tell.
  std::string peak_source;
  double gemm_peak_gflops = -1.0;
};

struct DataFigures {
  std::string spec;
  int png_files = 0;
  int jpeg_files = 0;
  double png_per_core_s = -1.0;  // images decoded per second on one core
  double jpeg_per_core_s = -1.0;
  double mean_file_kib = -1.0;
  double read_mbs = -1.0;  // bytes read from the files per second (page cache as it is)
};

struct CompetitionFigures {
  double run_queue_wait_percent = -1.0;  // of its threads' wanted time, spent waiting for a core
  double steal_percent = -1.0;
  bool others_visible = false;
  std::vector<OtherProcess> others;  // busiest first
};

struct ThermalFigures {
  double start_mhz = -1.0;  // mean current frequency at the start of the sustained run
  double end_mhz = -1.0;    // and at its end
  double max_temperature_c = -1.0;
  double sustained_gflops_first = -1.0;  // GEMM rate in the first and the last quarter of the run
  double sustained_gflops_last = -1.0;
};

struct GpuFigures {
  bool present = false;
  std::string name;
  double h2d_pinned_gbs = -1.0;
  double h2d_pageable_gbs = -1.0;
  int pcie_gen = -1;  // read while the copies ran (an idle card lowers its link)
  int pcie_width = -1;
  int pcie_max_gen = -1;
  int pcie_max_width = -1;
  int sm_clock_mhz = -1;
  int sm_clock_max_mhz = -1;
  std::vector<OtherProcess> others;  // other processes on the device, MiB each
};

struct MachineFigures {
  std::string host;
  std::string cpu_model;
  CpuFigures cpu;
  MemoryFigures memory;  // the firmware's list of memory modules (DMI), where it shows one
  DataFigures data;
  CompetitionFigures competition;
  ThermalFigures thermal;
  GpuFigures gpu;
};

nlohmann::json to_json(const MachineFigures& figures);
// Throws kiln::Error naming `source` (a file name) when a field has the wrong type.
MachineFigures figures_from_json(const nlohmann::json& json, const std::string& source);
// Reads a file written by --json; throws naming the file when it is missing or not such JSON.
MachineFigures read_figures(const std::string& path);

}  // namespace kiln::doctor
