// kiln-doctor: its judgements on recorded figures (a halved memory bandwidth, a busy CPU, an x4
// link, a hidden frequency), --compare on two recorded JSON files (tests/apps/doctor/), and the
// program itself on this machine at its quick size.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app_testing.h"
#include "apps/doctor/dmi_memory.h"
#include "apps/doctor/judgement.h"
#include "apps/doctor/measure.h"
#include "kiln/core/error.h"
#include "kiln/data/image_io.h"

namespace kiln::doctor {
namespace {

const std::string kFixtures = KILN_DOCTOR_FIXTURES;

MachineFigures healthy() { return read_figures(kFixtures + "/healthy.json"); }

const Judgement* find(const std::vector<Judgement>& judgements, const std::string& topic,
                      Verdict verdict) {
  const auto it = std::find_if(judgements.begin(), judgements.end(), [&](const Judgement& j) {
    return j.topic == topic && j.verdict == verdict;
  });
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

TEST(DoctorJudgement, GemmWithoutAKnownFrequencyOrFmaRateCannotTellThePeak) {
  MachineFigures f = healthy();
  f.cpu.frequency_mhz = -1.0;
  set_gemm_peak(f.cpu);
  const Judgement* j = find(judge(f), "gemm", Verdict::cannot_tell);
  ASSERT_NE(j, nullptr);
  EXPECT_NE(j->text.find("frequency is hidden"), std::string::npos) << j->text;
}

TEST(DoctorJudgement, GemmFarBelowTheTablePeakIsAProblem) {
  MachineFigures f = healthy();
  f.cpu.gemm_gflops = 0.2 * f.cpu.gemm_peak_gflops;
  EXPECT_NE(find(judge(f), "gemm", Verdict::problem), nullptr);
}

// A CPU as kiln's probe would describe it, measured at `gflops` on all its cores at `mhz`.
CpuFigures described(const std::string& name, double mhz, double gflops) {
  CpuFigures c;
  describe_cpu(kiln::named_cpu_description(name, 2), c);
  c.gemm_threads = 2;
  c.gemm_gflops = gflops;
  c.frequency_mhz = mhz;
  c.frequency_source = "cpuinfo";
  set_gemm_peak(c);
  return c;
}

TEST(DoctorJudgement, AQuietZen4ReadsHealthyAgainstItsMicroarchitecturesPeak) {
  // Zen 4 runs AVX-512 on 256-bit units: 32 fp32 FLOPs per cycle, not the 64 of its ISA.
  MachineFigures f = healthy();
  f.cpu = described("zen4", 2596.0, 190.0);
  EXPECT_EQ(f.cpu.peak_source, "table");
  EXPECT_DOUBLE_EQ(f.cpu.gemm_peak_gflops, 2 * 2.596 * 32);
  const Judgement* j = find(judge(f), "gemm", Verdict::ok);
  ASSERT_NE(j, nullptr);
  EXPECT_NE(j->text.find("Zen 4"), std::string::npos) << j->text;
  EXPECT_NE(j->text.find("32 FLOPs/cycle"), std::string::npos) << j->text;
}

TEST(DoctorJudgement, AnIntelCpuWithTwoFmaUnitsAt30PercentOfItsPeakIsAProblem) {
  for (const char* name : {"icelake-sp", "sapphire-rapids"}) {
    MachineFigures f = healthy();
    f.cpu = described(name, 2000.0, 0.3 * 2 * 2.0 * 64);
    EXPECT_EQ(f.cpu.flops_per_cycle, 64.0) << name;
    const Judgement* j = find(judge(f), "gemm", Verdict::problem);
    ASSERT_NE(j, nullptr) << name;
    EXPECT_NE(j->text.find("30 % of the peak"), std::string::npos) << j->text;
    EXPECT_NE(j->text.find("two 512-bit FMA units"), std::string::npos) << j->text;
  }
}

TEST(DoctorJudgement, ACpuWithoutATableFigureIsJudgedAgainstTheMeasuredFmaRate) {
  MachineFigures f = healthy();
  f.cpu = described("skylake-sp", 2400.0, 150.0);  // one or two FMA units, by SKU
  EXPECT_TRUE(f.cpu.peak_source.empty());
  EXPECT_NE(find(judge(f), "gemm", Verdict::cannot_tell), nullptr);
  f.cpu.fma_gflops = 200.0;
  f.cpu.fma_threads = 2;
  set_gemm_peak(f.cpu);
  EXPECT_EQ(f.cpu.peak_source, "measured");
  const Judgement* ok = find(judge(f), "gemm", Verdict::ok);
  ASSERT_NE(ok, nullptr);
  EXPECT_NE(ok->text.find("75 % of the measured FMA peak 200"), std::string::npos) << ok->text;
  EXPECT_NE(ok->text.find("Skylake-SP"), std::string::npos) << ok->text;
  f.cpu.gemm_gflops = 40.0;
  EXPECT_NE(find(judge(f), "gemm", Verdict::problem), nullptr);
}

TEST(DoctorJudgement, AnEarlierDoctorsPeakAssumedFromTheIsaIsNotUsed) {
  nlohmann::json j =
      nlohmann::json::parse(R"({"cpu": {"cores": 2, "physical_cores": 2, "isa": "avx512_core",
      "gemm_gflops": 105.0, "gemm_threads": 2, "frequency_mhz": 2596.0, "frequency_source": "cpuinfo",
      "flops_per_cycle": 64.0, "gemm_peak_gflops": 332.3}})");
  const MachineFigures f = figures_from_json(j, "old.json");
  EXPECT_LT(f.cpu.gemm_peak_gflops, 0.0);
  EXPECT_NE(find(judge(f), "gemm", Verdict::cannot_tell), nullptr);
}

TEST(DoctorFma, MeasuresARateOnEveryThreadAtOnce) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    GTEST_SKIP() << "this CPU has no FMA instructions: fma_gflops returns -1";
  const double one = fma_gflops(1, 0.01);
  EXPECT_GT(one, 1.0);  // any FMA core does more than a GFLOP/s
  EXPECT_GT(fma_gflops(2, 0.01), 0.0);
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

// A hand-built SMBIOS table: type 16 (a board of `slots` slots), a type 17 entry per module
// (device locator, bank locator, size in MiB (0: empty), rated and configured MT/s), type 127.
struct Dimm {
  std::string device, bank;
  std::uint16_t mib, rated, configured;
};
std::vector<std::uint8_t> smbios(std::uint16_t slots, const std::vector<Dimm>& dimms) {
  std::vector<std::uint8_t> t;
  auto put_word = [](std::vector<std::uint8_t>& f, std::size_t at, std::uint16_t v) {
    f[at] = static_cast<std::uint8_t>(v & 0xFF);
    f[at + 1] = static_cast<std::uint8_t>(v >> 8);
  };
  std::vector<std::uint8_t> array(0x0F, 0);
  array[0] = 16;
  array[1] = 0x0F;
  put_word(array, 0x0D, slots);
  t.insert(t.end(), array.begin(), array.end());
  t.insert(t.end(), {0, 0});  // no strings
  for (const Dimm& d : dimms) {
    std::vector<std::uint8_t> f(0x28, 0);
    f[0] = 17;
    f[1] = 0x28;
    put_word(f, 0x0C, d.mib);
    f[0x10] = 1;  // the device locator is string 1, the bank locator string 2 (0: none)
    f[0x11] = d.bank.empty() ? 0 : 2;
    put_word(f, 0x15, d.rated);
    put_word(f, 0x20, d.configured);
    t.insert(t.end(), f.begin(), f.end());
    for (const std::string& s : {d.device, d.bank}) {
      if (s.empty()) continue;  // SMBIOS has no empty strings
      t.insert(t.end(), s.begin(), s.end());
      t.push_back(0);
    }
    t.push_back(0);
  }
  t.insert(t.end(), {127, 4, 0, 0, 0, 0});
  return t;
}

TEST(DoctorMemorySlots, ParsesTheModulesOfARecordedTable) {
  const std::vector<std::uint8_t> table = smbios(4, {{"DIMM 0", "ChannelA", 16384, 3200, 3200},
                                                     {"DIMM 1", "ChannelA", 0, 0, 0},
                                                     {"DIMM 0", "ChannelB", 16384, 3200, 3200},
                                                     {"DIMM 1", "ChannelB", 0, 0, 0}});
  const MemoryFigures m = parse_smbios_memory(table, "recorded");
  ASSERT_TRUE(m.known);
  EXPECT_EQ(m.slots, 4);
  EXPECT_EQ(m.populated, 2);
  EXPECT_EQ(m.channels, 2);
  EXPECT_EQ(m.populated_channels, 2);
  EXPECT_DOUBLE_EQ(m.total_gib, 32.0);
  EXPECT_EQ(m.rated_mts, 3200);
  EXPECT_EQ(m.configured_mts, 3200);
  ASSERT_EQ(m.modules.size(), 4u);
  EXPECT_EQ(m.modules[2].locator, "DIMM 0 / ChannelB");
  EXPECT_EQ(m.modules[2].channel, "B");
  MachineFigures f = healthy();
  f.memory = m;
  const Judgement* j = find(judge(f), "memory slots", Verdict::ok);  // both channels hold a module
  ASSERT_NE(j, nullptr);
  EXPECT_NE(j->text.find("2 of 4 slots populated, 32 GiB, 2 of 2 channels"), std::string::npos)
      << j->text;
}

TEST(DoctorMemorySlots, ASingleModuleLeavingAChannelEmptyIsTheWrongSlot) {
  MachineFigures f = healthy();
  f.memory = parse_smbios_memory(smbios(2, {{"DIMM_A1", "P0 CHANNEL A", 8192, 2666, 2666},
                                            {"DIMM_B1", "P0 CHANNEL B", 0, 0, 0}}),
                                 "recorded");
  const Judgement* j = find(judge(f), "memory slots", Verdict::problem);
  ASSERT_NE(j, nullptr);
  EXPECT_NE(j->text.find("1 of the board's 2 memory channels hold no module"), std::string::npos)
      << j->text;
}

TEST(DoctorMemorySlots, EmptySlotsWithoutChannelNamesAndSlowModulesAreFlagged) {
  MachineFigures f = healthy();
  f.memory = parse_smbios_memory(
      smbios(0, {{"DIMM 0", "", 4096, 3200, 2400}, {"DIMM 1", "", 0, 0, 0}}), "recorded");
  EXPECT_EQ(f.memory.channels, -1);
  EXPECT_EQ(f.memory.slots, 2);  // no type 16 count: the entries
  const Judgement* j = find(judge(f), "memory slots", Verdict::problem);
  ASSERT_NE(j, nullptr);
  EXPECT_NE(j->text.find("1 of 2 slots are empty"), std::string::npos) << j->text;
  EXPECT_NE(j->text.find("run at 2400 MT/s, below the 3200 MT/s"), std::string::npos) << j->text;
}

TEST(DoctorMemorySlots, AnAbsentOrEmptyTableCannotTell) {
  const MemoryFigures absent = read_dmi_memory("/nonexistent/dmi/DMI");
  EXPECT_FALSE(absent.known);
  EXPECT_NE(absent.source.find("/nonexistent/dmi/DMI"), std::string::npos) << absent.source;
  MachineFigures f = healthy();
  f.memory = absent;
  const Judgement* j = find(judge(f), "memory slots", Verdict::cannot_tell);
  ASSERT_NE(j, nullptr);
  EXPECT_NE(j->text.find("not readable"), std::string::npos) << j->text;
  const std::vector<std::uint8_t> no_memory{127, 4, 0, 0, 0, 0};
  EXPECT_FALSE(parse_smbios_memory(no_memory, "recorded").known);
  const std::vector<std::uint8_t> truncated{17, 0x28, 0, 0, 1};  // runs past the end: nothing read
  EXPECT_FALSE(parse_smbios_memory(truncated, "recorded").known);
}

TEST(DoctorFigures, JsonKeepsCannotTellAsNull) {
  MachineFigures f = healthy();
  const nlohmann::json j = to_json(f);
  EXPECT_TRUE(j["thermal"]["start_mhz"].is_null());
  const MachineFigures back = figures_from_json(j, "memory");
  EXPECT_EQ(back.thermal.start_mhz, -1.0);
  EXPECT_EQ(back.cpu.triad_all_gbs, 62.0);
  EXPECT_EQ(back.competition.others.size(), 0u);
  EXPECT_TRUE(back.memory.known);
  EXPECT_EQ(back.memory.populated_channels, 8);
  EXPECT_EQ(back.memory.configured_mts, 3200);
  f.memory = MemoryFigures{};
  EXPECT_TRUE(to_json(f)["memory"]["slots"].is_null());
  EXPECT_EQ(figures_from_json(to_json(f), "memory").memory.slots, -1);
  EXPECT_THROW(figures_from_json(nlohmann::json::parse(R"({"cpu": {"cores": "eight"}})"), "x.json"),
               Error);
}

TEST(DoctorCompare, TheMachineWithOneModuleAndACompilerIsSlowerForThoseReasons) {
  const Comparison c = compare(healthy(), "healthy.json",
                               read_figures(kFixtures + "/one_module.json"), "one_module.json");
  EXPECT_EQ(c.slower, "one_module.json");
  ASSERT_FALSE(c.reasons.empty());
  const std::string all = fmt::format("{}", fmt::join(c.reasons, "\n"));
  EXPECT_NE(all.find("all-thread memory bandwidth: 62.0 GB/s on healthy.json against 19.0 GB/s"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("cc1plus"), std::string::npos) << all;
  EXPECT_NE(all.find("PNG decode per core"), std::string::npos) << all;
  EXPECT_EQ(all.find("matrix-product rate"), std::string::npos) << all;  // 420 vs 400: noise
  EXPECT_NE(all.find("populated memory channels: 8.0 channels on healthy.json against 1.0"),
            std::string::npos)
      << all;
  EXPECT_NE(
      all.find("only one_module.json has this: memory slots: memory modules (DMI): 1 of 8 slots"),
      std::string::npos)
      << all;
}

TEST(DoctorCompare, ProgramComparesTwoRecordedFiles) {
  const testing::Outcome o =
      testing::run(KILN_DOCTOR_BIN,
                   "--compare " + kFixtures + "/healthy.json " + kFixtures + "/one_module.json");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("one_module.json looks slower"), std::string::npos) << o.out;
  const testing::Outcome missing =
      testing::run(KILN_DOCTOR_BIN, "--compare /nonexistent.json " + kFixtures + "/healthy.json");
  testing::expect_one_line_error(missing, "kiln-doctor", "/nonexistent.json");
}

TEST(DoctorProgram, QuickRunMeasuresThisMachineAndWritesItsFigures) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "kiln_doctor_quick";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "images" / "a");
  Image8 image{7, 9, 1, std::vector<std::uint8_t>(63, 100)};
  for (int i = 0; i < 3; ++i)
    write_png((dir / "images" / "a" / (std::to_string(i) + ".png")).string(), image);
  const std::string json = (dir / "figures.json").string();
  const testing::Outcome o =
      testing::run(KILN_DOCTOR_BIN, "--quick --no-gpu --data images:" + (dir / "images").string() +
                                        " --json " + json);
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
