// The memory modules the firmware lists: SMBIOS type 17 (Memory Device) entries of the DMI table
// (/sys/firmware/dmi/tables/DMI, readable by root; absent in most containers and some VMs), and
// type 16's count of the board's slots. Parsed from the raw bytes, read-only; where the table is
// absent or unreadable the figures say so (known = false) rather than guess.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kiln::doctor {

struct MemoryModule {
  std::string locator;      // "DIMM_A1", "ChannelA-DIMM0" (device locator, then bank locator)
  std::string channel;      // the channel the locators name ("A"), "" when they name none
  double size_mib = 0.0;    // 0: an empty slot
  int speed_mts = -1;       // rated, MT/s (-1: the firmware does not say)
  int configured_mts = -1;  // as configured now
};

struct MemoryFigures {
  bool known = false;  // a DMI table was read
  std::string source;  // the file read, or why there is none
  int slots = -1;      // the board's memory slots (type 16, else the type 17 entries)
  int populated = -1;  // slots holding a module
  int channels = -1;   // distinct channels the locators name (-1: they name none)
  int populated_channels = -1;
  double total_gib = -1.0;
  int rated_mts = -1;                 // the lowest rated speed of the populated modules
  int configured_mts = -1;            // the lowest configured speed of the populated modules
  std::vector<MemoryModule> modules;  // every slot, populated or empty
};

// The figures of an SMBIOS structure table (the bytes of /sys/firmware/dmi/tables/DMI). A table
// with no type 17 entry gives known = false; a malformed one is read up to where it breaks.
MemoryFigures parse_smbios_memory(std::span<const std::uint8_t> table, const std::string& source);

// Reads `path` (default the sysfs table); absent or unreadable: known = false, source says why.
MemoryFigures read_dmi_memory(const std::string& path = "/sys/firmware/dmi/tables/DMI");

}  // namespace kiln::doctor
