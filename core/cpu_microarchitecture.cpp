// The fp32 throughput per core and cycle of the microarchitectures kiln knows, by cpuid's vendor,
// family and model: vector width x FMA pipes x 2, never guessed from the instruction set. A part
// whose SKUs differ (Skylake-SP has one or two 512-bit FMA units) or that mixes core types
// (Alder Lake) is left out: kiln-doctor then measures the FMA rate instead.
#include "kiln/core/cpu_description.h"

#include <array>

namespace kiln {

namespace {

struct Entry {
  const char* vendor;
  int family;
  int first_model, last_model;
  const char* name;
  double flops;
  const char* why;
};

constexpr const char* kAmd = "AuthenticAMD";
constexpr const char* kIntel = "GenuineIntel";
constexpr const char* kTwo256 = "two 256-bit FMA pipes: 2 x 8 lanes x 2";
constexpr const char* kTwo512 = "two 512-bit FMA units: 2 x 16 lanes x 2";

constexpr std::array kTable = {
    Entry{kAmd, 23, 0x00, 0x2f, "Zen / Zen+", 16.0, "two 128-bit FMA pipes: 2 x 4 lanes x 2"},
    Entry{kAmd, 23, 0x30, 0xff, "Zen 2", 32.0, kTwo256},
    Entry{kAmd, 25, 0x00, 0x0f, "Zen 3", 32.0, kTwo256},
    Entry{kAmd, 25, 0x20, 0x5f, "Zen 3", 32.0, kTwo256},
    Entry{kAmd, 25, 0x10, 0x1f, "Zen 4", 32.0, "AVX-512 on 256-bit units: 2 x 8 lanes x 2"},
    Entry{kAmd, 25, 0x60, 0x7f, "Zen 4", 32.0, "AVX-512 on 256-bit units: 2 x 8 lanes x 2"},
    Entry{kAmd, 25, 0xa0, 0xaf, "Zen 4", 32.0, "AVX-512 on 256-bit units: 2 x 8 lanes x 2"},
    Entry{kAmd, 26, 0x00, 0x1f, "Zen 5", 64.0, "a 512-bit datapath: 2 x 16 lanes x 2"},
    Entry{kAmd, 26, 0x40, 0x4f, "Zen 5", 64.0, "a 512-bit datapath: 2 x 16 lanes x 2"},
    Entry{kAmd, 26, 0x20, 0x2f, "Zen 5 (mobile)", 32.0,
          "AVX-512 on 256-bit units: 2 x 8 lanes x 2"},
    Entry{kIntel, 6, 0x3c, 0x3c, "Haswell", 32.0, kTwo256},
    Entry{kIntel, 6, 0x3f, 0x3f, "Haswell", 32.0, kTwo256},
    Entry{kIntel, 6, 0x45, 0x46, "Haswell", 32.0, kTwo256},
    Entry{kIntel, 6, 0x3d, 0x3d, "Broadwell", 32.0, kTwo256},
    Entry{kIntel, 6, 0x47, 0x47, "Broadwell", 32.0, kTwo256},
    Entry{kIntel, 6, 0x4f, 0x4f, "Broadwell", 32.0, kTwo256},
    Entry{kIntel, 6, 0x56, 0x56, "Broadwell", 32.0, kTwo256},
    Entry{kIntel, 6, 0x4e, 0x4e, "Skylake", 32.0, kTwo256},
    Entry{kIntel, 6, 0x5e, 0x5e, "Skylake", 32.0, kTwo256},
    Entry{kIntel, 6, 0x8e, 0x8e, "Kaby / Coffee Lake", 32.0, kTwo256},
    Entry{kIntel, 6, 0x9e, 0x9e, "Kaby / Coffee Lake", 32.0, kTwo256},
    Entry{kIntel, 6, 0xa5, 0xa6, "Comet Lake", 32.0, kTwo256},
    Entry{kIntel, 6, 0x7d, 0x7e, "Ice Lake (client)", 32.0, "one 512-bit FMA unit: 16 lanes x 2"},
    Entry{kIntel, 6, 0x8c, 0x8d, "Tiger Lake", 32.0, "one 512-bit FMA unit: 16 lanes x 2"},
    Entry{kIntel, 6, 0x55, 0x55, "Skylake-SP / Cascade Lake", -1.0,
          "one or two 512-bit FMA units, by SKU"},
    Entry{kIntel, 6, 0x97, 0x9a, "Alder Lake", -1.0, "performance and efficiency cores differ"},
    Entry{kIntel, 6, 0xb7, 0xb7, "Raptor Lake", -1.0, "performance and efficiency cores differ"},
    Entry{kIntel, 6, 0xba, 0xba, "Raptor Lake", -1.0, "performance and efficiency cores differ"},
    Entry{kIntel, 6, 0xbf, 0xbf, "Raptor Lake", -1.0, "performance and efficiency cores differ"},
    Entry{kIntel, 6, 0x6a, 0x6a, "Ice Lake-SP", 64.0, kTwo512},
    Entry{kIntel, 6, 0x6c, 0x6c, "Ice Lake-SP", 64.0, kTwo512},
    Entry{kIntel, 6, 0x8f, 0x8f, "Sapphire Rapids", 64.0, kTwo512},
    Entry{kIntel, 6, 0xcf, 0xcf, "Emerald Rapids", 64.0, kTwo512},
    Entry{kIntel, 6, 0xad, 0xae, "Granite Rapids", 64.0, kTwo512},
};

}  // namespace

Microarchitecture microarchitecture_of(const std::string& vendor, int family, int model) {
  for (const Entry& e : kTable)
    if (vendor == e.vendor && family == e.family && model >= e.first_model && model <= e.last_model)
      return {e.name, e.flops, e.why};
  return {};
}

}  // namespace kiln
