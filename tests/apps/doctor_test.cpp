// kiln-doctor: its judgements on recorded figures (a halved memory bandwidth, a busy CPU, an x4
// link, a hidden frequency), --compare on two recorded JSON files (tests/apps/doctor/), and the
// program itself on this machine at its quick size.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app_testing.h"
#include "kiln/apps/doctor/judgement.h"
#include "kiln/core/error.h"
#include "kiln/data/image_io.h"

namespace kiln::doctor {
namespace {

const std::string kFixtures = KILN_DOCTOR_FIXTURES;

MachineFigures healthy() { return read_figures(kFixtures + "/healthy.json"); }

const Judgement* find(const std::vector<Judgement>& judgements, const std::string& topic, Verdict verdict) {
  const auto it = std::find_if(judgements.begin(), judgements.end(),
                               [&](const Judgement& j) { return j.topic == topic && j.verdict == verdict; });
  return it == judgements.end() ? nullptr : &*it;
}

TEST(DoctorJudgement, HealthyFiguresFindNoProblem) {
  for (const Judgement& j : judge(healthy())) EXPECT_NE(j.verdict, Verdict::problem) << j.text;
}

TEST(DoctorJudgement, BandwidthThatDoesNotScaleWithCoresLooksLikeUnderpopulatedChannels) {
  MachineFigures f = healthy();
  f.cpu.triad_all_gbs = f.cpu.triad_single_gbs * 1.2;
  const Judgement* j = find(judge(f), "memory", Verdict::problem);
  ASSERT_NE(j, nullptr);
  EXPECT_NE(j->text.find("underpopulated"), std::string::npos) << j->text;
}

TEST(DoctorJudgement, BandwidthScalingOnTwoCoresCannotTell) {
  MachineFigures f = healthy();
  f.cpu.physical_cores = 2;
  f.cpu.triad_all_gbs = f.cpu.triad_single_gbs;
  EXPECT_NE(find(judge(f), "memory", Verdict::cannot_tell), nullptr);
}

TEST(DoctorJudgement, BusyCpuIsAProblemNamingTheOthers) {
  MachineFigures f = healthy();
  f.competition.run_queue_wait_percent = 45.0;
  f.competition.others = {{"cc1plus", 98.0}, {"make", 6.0}};
  const Judgement* j = find(judge(f), "competition", Verdict::problem);
  ASSERT_NE(j, nullptr);
  EXPECT_NE(j->text.find("45 %"), std::string::npos) << j->text;
  EXPECT_NE(j->text.find("cc1plus 98 %"), std::string::npos) << j->text;
}

TEST(DoctorJudgement, BusyCpuBehindAPidNamespaceSaysTheOthersAreHidden) {
  MachineFigures f = healthy();
  f.competition.run_queue_wait_percent = 45.0;
  f.competition.others_visible = false;
  const Judgement* j = find(judge(f), "competition", Verdict::problem);
  ASSERT_NE(j, nullptr);
  EXPECT_NE(j->text.find("PID namespace"), std::string::npos) << j->text;
}

TEST(DoctorJudgement, AnX4LinkForAnX16CardIsTheWrongSlot) {
  MachineFigures f = healthy();
  f.gpu.present = true;
  f.gpu.pcie_gen = 4;
  f.gpu.pcie_width = 4;
  f.gpu.pcie_max_gen = 4;
  f.gpu.pcie_max_width = 16;
  f.gpu.h2d_pinned_gbs = 6.5;
  f.gpu.h2d_pageable_gbs = 3.0;
  const std::vector<Judgement> judgements = judge(f);
  const Judgement* j = find(judgements, "gpu", Verdict::problem);
  ASSERT_NE(j, nullptr);
  EXPECT_NE(j->text.find("Gen4 x4"), std::string::npos) << j->text;
  EXPECT_NE(j->text.find("wrong slot"), std::string::npos) << j->text;
  f.gpu.pcie_width = 16;
  f.gpu.h2d_pinned_gbs = 25.0;
  EXPECT_EQ(find(judge(f), "gpu", Verdict::problem), nullptr);
}

TEST(DoctorJudgement, GemmWithoutAKnownFrequencyCannotTellThePeak) {
  MachineFigures f = healthy();
  f.cpu.frequency_mhz = -1.0;
  f.cpu.gemm_peak_gflops = -1.0;
  const Judgement* j = find(judge(f), "gemm", Verdict::cannot_tell);
  ASSERT_NE(j, nullptr);
  EXPECT_NE(j->text.find("frequency is hidden"), std::string::npos) << j->text;
}

TEST(DoctorJudgement, GemmFarBelowTheIsaPeakIsAProblem) {
  MachineFigures f = healthy();
  f.cpu.gemm_gflops = 0.2 * f.cpu.gemm_peak_gflops;
  EXPECT_NE(find(judge(f), "gemm", Verdict::problem), nullptr);
  EXPECT_EQ(fp32_flops_per_cycle("avx2"), 32.0);
  EXPECT_EQ(fp32_flops_per_cycle("avx512_core_amx"), 64.0);
  EXPECT_LT(fp32_flops_per_cycle("generic"), 0.0);
}

TEST(DoctorJudgement, SlowReadsAreAProblemOnlyWhenBothBytesAndFilesAreSlow) {
  MachineFigures f = healthy();
  f.data.read_mbs = 2.0;  // 10 KiB files: 195 files/s, the article's slow machine
  EXPECT_NE(find(judge(f), "read", Verdict::problem), nullptr);
  f.data.read_mbs = 16.0;  // tiny files: bound by opening them, 30,000 a second
  f.data.mean_file_kib = 0.5;
  EXPECT_EQ(find(judge(f), "read", Verdict::problem), nullptr);
}

TEST(DoctorJudgement, ThermalFactsHiddenCannotTell) {
  EXPECT_NE(find(judge(healthy()), "thermal", Verdict::cannot_tell), nullptr);
  MachineFigures f = healthy();
  f.thermal.start_mhz = 3500;
  f.thermal.end_mhz = 2400;
  EXPECT_NE(find(judge(f), "thermal", Verdict::problem), nullptr);
}

TEST(DoctorFigures, JsonKeepsCannotTellAsNull) {
  MachineFigures f = healthy();
  const nlohmann::json j = to_json(f);
  EXPECT_TRUE(j["thermal"]["start_mhz"].is_null());
  const MachineFigures back = figures_from_json(j, "memory");
  EXPECT_EQ(back.thermal.start_mhz, -1.0);
  EXPECT_EQ(back.cpu.triad_all_gbs, 62.0);
  EXPECT_EQ(back.competition.others.size(), 0u);
  EXPECT_THROW(figures_from_json(nlohmann::json::parse(R"({"cpu": {"cores": "eight"}})"), "x.json"), Error);
}

TEST(DoctorCompare, TheMachineWithOneModuleAndACompilerIsSlowerForThoseReasons) {
  const Comparison c = compare(healthy(), "healthy.json", read_figures(kFixtures + "/one_module.json"), "one_module.json");
  EXPECT_EQ(c.slower, "one_module.json");
  ASSERT_FALSE(c.reasons.empty());
  const std::string all = fmt::format("{}", fmt::join(c.reasons, "\n"));
  EXPECT_NE(all.find("all-thread memory bandwidth: 62.0 GB/s on healthy.json against 19.0 GB/s"), std::string::npos) << all;
  EXPECT_NE(all.find("cc1plus"), std::string::npos) << all;
  EXPECT_NE(all.find("PNG decode per core"), std::string::npos) << all;
  EXPECT_EQ(all.find("matrix-product rate"), std::string::npos) << all;  // 420 vs 400: noise
}

TEST(DoctorCompare, ProgramComparesTwoRecordedFiles) {
  const testing::Outcome o =
      testing::run(KILN_DOCTOR_BIN, "--compare " + kFixtures + "/healthy.json " + kFixtures + "/one_module.json");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("one_module.json looks slower"), std::string::npos) << o.out;
  const testing::Outcome missing = testing::run(KILN_DOCTOR_BIN, "--compare /nonexistent.json " + kFixtures + "/healthy.json");
  testing::expect_one_line_error(missing, "kiln-doctor", "/nonexistent.json");
}

TEST(DoctorProgram, QuickRunMeasuresThisMachineAndWritesItsFigures) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "kiln_doctor_quick";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "images" / "a");
  Image8 image{7, 9, 1, std::vector<std::uint8_t>(63, 100)};
  for (int i = 0; i < 3; ++i) write_png((dir / "images" / "a" / (std::to_string(i) + ".png")).string(), image);
  const std::string json = (dir / "figures.json").string();
  const testing::Outcome o =
      testing::run(KILN_DOCTOR_BIN, "--quick --no-gpu --data images:" + (dir / "images").string() + " --json " + json);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("memory bandwidth (triad)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("PNG decode"), std::string::npos) << o.out;
  const MachineFigures f = read_figures(json);
  EXPECT_GT(f.cpu.triad_single_gbs, 0.0);
  EXPECT_GT(f.cpu.gemm_gflops, 0.0);
  EXPECT_EQ(f.data.png_files, 3);
  EXPECT_GT(f.data.png_per_core_s, 0.0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kiln::doctor
