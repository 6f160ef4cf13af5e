// The CPU description (core/cpu_description.h): the real probe agrees with what oneDNN and the
// kernel say of this machine, each named description is what its microarchitecture is, and an
// override replaces the description for every reader until it ends.
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "kiln/core/cpu_compute.h"
#include "kiln/core/cpu_description.h"
#include "kiln/core/cpu_kernel_isa.h"
#include "kiln/core/error.h"

namespace kiln {
namespace {

TEST(CpuProbe, DescribesThisMachineConsistently) {
  const CpuDescription d = probe_cpu();
  EXPECT_EQ(d.source, "probe");
  EXPECT_GE(d.logical_cpus, 1);
  EXPECT_GE(d.physical_cores, 1);
  EXPECT_LE(d.physical_cores, d.logical_cpus);
  EXPECT_LE(d.logical_cpus, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  // The flags come in the order each implies the next.
  if (d.amx) EXPECT_TRUE(d.avx512);
  if (d.avx512_bf16) EXPECT_TRUE(d.avx512);
  if (!onednn_built()) EXPECT_EQ(d.kernel_set, "none");
  // oneDNN runs no kernel set the flags do not allow (DNNL_MAX_CPU_ISA may only lower it).
  if (d.kernel_set == "avx512_core_amx") EXPECT_TRUE(d.amx);
  if (d.kernel_set == "avx512_core_bf16") EXPECT_TRUE(d.avx512_bf16);
  if (d.kernel_set.rfind("avx512", 0) == 0) EXPECT_TRUE(d.avx512);
  EXPECT_EQ(d.bf16_instructions(),
            d.kernel_set == "avx512_core_bf16" || d.kernel_set == "avx512_core_amx");
  if (!d.microarchitecture.name.empty()) EXPECT_FALSE(d.microarchitecture.why.empty());
  EXPECT_NE(d.summary().find(d.kernel_set + " kernels"), std::string::npos) << d.summary();
}

TEST(CpuProbe, IsWhatTheLibraryReadsWhenNothingIsDescribed) {
  if (std::getenv("KILN_CPU_DESCRIPTION") != nullptr) GTEST_SKIP() << "KILN_CPU_DESCRIPTION is set";
  const CpuDescription probed = probe_cpu();
  EXPECT_EQ(cpu_description().source, "probe");
  EXPECT_EQ(cpu_description().kernel_set, probed.kernel_set);
  EXPECT_EQ(cpu_kernel_isa(), probed.kernel_set);
  EXPECT_EQ(cpu_has_bf16_instructions(), onednn_built() && probed.bf16_instructions());
}

TEST(CpuDescriptions, EachNamedCpuHasItsInstructionSetsAndPeak) {
  struct Expected {
    const char* name;
    bool avx512, bf16, amx;
    const char* kernels;
    double flops;  // fp32 per core per cycle; -1: differs by SKU
  };
  const Expected table[] = {
      {"zen3", false, false, false, "avx2", 32.0},
      {"skylake-sp", true, false, false, "avx512_core", -1.0},
      {"icelake-sp", true, false, false, "avx512_core", 64.0},
      {"zen4", true, true, false, "avx512_core_bf16", 32.0},
      {"sapphire-rapids", true, true, true, "avx512_core_amx", 64.0},
  };
  ASSERT_EQ(cpu_description_names().size(), std::size(table));
  for (const Expected& e : table) {
    SCOPED_TRACE(e.name);
    const CpuDescription d = named_cpu_description(e.name, 3);
    EXPECT_EQ(d.source, e.name);
    EXPECT_TRUE(d.avx2);
    EXPECT_EQ(d.avx512, e.avx512);
    EXPECT_EQ(d.avx512_bf16, e.bf16);
    EXPECT_EQ(d.amx, e.amx);
    EXPECT_EQ(d.kernel_set, onednn_built() ? e.kernels : "none");
    EXPECT_EQ(d.bf16_instructions(), onednn_built() && e.bf16);
    EXPECT_EQ(d.microarchitecture.fp32_flops_per_cycle, e.flops);
    EXPECT_FALSE(d.microarchitecture.name.empty());
    EXPECT_EQ(d.logical_cpus, 3);
    EXPECT_EQ(d.physical_cores, 3);
  }
}

TEST(CpuDescriptions, TheTableCountsVectorUnitsNotTheInstructionSet) {
  // Zen 4 has AVX-512 but 256-bit units; Zen 5's desktop and server parts have 512-bit ones.
  EXPECT_EQ(microarchitecture_of("AuthenticAMD", 25, 17).fp32_flops_per_cycle, 32.0);
  EXPECT_EQ(microarchitecture_of("AuthenticAMD", 25, 17).name, "Zen 4");
  EXPECT_EQ(microarchitecture_of("AuthenticAMD", 25, 1).name, "Zen 3");
  EXPECT_EQ(microarchitecture_of("AuthenticAMD", 26, 2).fp32_flops_per_cycle, 64.0);
  EXPECT_EQ(microarchitecture_of("GenuineIntel", 6, 143).fp32_flops_per_cycle, 64.0);
  EXPECT_EQ(microarchitecture_of("GenuineIntel", 6, 126).fp32_flops_per_cycle,
            32.0);  // one FMA unit
  EXPECT_EQ(microarchitecture_of("GenuineIntel", 6, 85).fp32_flops_per_cycle, -1.0);  // by SKU
  EXPECT_TRUE(microarchitecture_of("GenuineIntel", 6, 1).name.empty());
  EXPECT_TRUE(microarchitecture_of("", 0, 0).name.empty());
}

TEST(CpuDescriptions, TheEnvironmentFormNamesACpuAndItsCores) {
  EXPECT_EQ(parse_cpu_description("zen4").physical_cores, 2);
  const CpuDescription d = parse_cpu_description("sapphire-rapids:cores=56");
  EXPECT_EQ(d.logical_cpus, 56);
  EXPECT_TRUE(d.amx);
  for (const char* bad :
       {"zen9", "zen4:cores=0", "zen4:cores=", "zen4:threads=2", "zen4:cores=99999999999", ""}) {
    SCOPED_TRACE(bad);
    try {
      (void)parse_cpu_description(bad);
      FAIL() << "accepted";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_TRUE(what.find("zen3") != std::string::npos || what.find("cores") != std::string::npos)
          << what;
    }
  }
}

TEST(CpuDescriptions, AnOverrideReplacesTheDescriptionForEveryReaderUntilItEnds) {
  const std::string before = cpu_description().source;
  {
    const ScopedCpuDescription outer(named_cpu_description("zen3", 4));
    EXPECT_EQ(cpu_description().source, "zen3");
    EXPECT_FALSE(cpu_has_bf16_instructions());
    {
      const ScopedCpuDescription inner(named_cpu_description("sapphire-rapids"));
      EXPECT_EQ(cpu_has_bf16_instructions(), onednn_built());
      if (onednn_built()) {
        EXPECT_EQ(cpu_kernel_isa(), "avx512_core_amx");
        EXPECT_NE(cpu_compute_description().find("described as sapphire-rapids"), std::string::npos)
            << cpu_compute_description();
      }
      std::string seen;
      std::thread([&] { seen = cpu_description().source; }).join();
      EXPECT_EQ(seen, "sapphire-rapids");
    }
    EXPECT_EQ(cpu_description().logical_cpus, 4);
  }
  EXPECT_EQ(cpu_description().source, before);
}

}  // namespace
}  // namespace kiln
