// SMBIOS parsing (DMTF DSP0134): each structure is a header (type, length, handle), `length`
// bytes of fields, then its strings, each NUL-terminated, the set ending in an extra NUL.
#include "apps/doctor/dmi_memory.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

namespace kiln::doctor {

namespace {

constexpr std::uint8_t kPhysicalMemoryArray = 16;
constexpr std::uint8_t kMemoryDevice = 17;
constexpr std::uint8_t kEndOfTable = 127;

struct Structure {
  std::span<const std::uint8_t> fields;  // the header included: offsets are the standard's
  std::vector<std::string> strings;      // string number k is strings[k - 1]
};

std::uint16_t word(std::span<const std::uint8_t> f, std::size_t at) {
  return at + 2 <= f.size() ? static_cast<std::uint16_t>(f[at] | (f[at + 1] << 8)) : 0;
}
std::uint32_t dword(std::span<const std::uint8_t> f, std::size_t at) {
  return at + 4 <= f.size()
             ? static_cast<std::uint32_t>(word(f, at) | (std::uint32_t{word(f, at + 2)} << 16))
             : 0;
}
std::string text(const Structure& s, std::size_t at) {
  const std::size_t k = at < s.fields.size() ? s.fields[at] : 0;
  return k >= 1 && k <= s.strings.size() ? s.strings[k - 1] : std::string();
}

// The structures of the table, up to type 127 or the first one that runs past the end.
std::vector<Structure> structures(std::span<const std::uint8_t> table) {
  std::vector<Structure> out;
  std::size_t at = 0;
  while (at + 4 <= table.size()) {
    const std::uint8_t type = table[at], length = table[at + 1];
    if (length < 4 || at + length > table.size()) break;
    Structure s{table.subspan(at, length), {}};
    std::size_t p = at + length;
    while (p < table.size() && table[p] != 0) {  // the strings, until the empty one
      const std::size_t end =
          std::find(table.begin() + static_cast<std::ptrdiff_t>(p), table.end(), 0) - table.begin();
      s.strings.emplace_back(reinterpret_cast<const char*>(table.data() + p), end - p);
      p = end + 1;
    }
    if (s.strings.empty()) ++p;  // a structure without strings ends in two NULs
    at = p + 1;
    if (type == kEndOfTable) break;
    out.push_back(std::move(s));
  }
  return out;
}

// Size field (offset 0x0C): 0 empty, 0xFFFF unknown, 0x7FFF "see the extended size" (MiB at 0x1C);
// bit 15 set: KiB units.
double size_mib(std::span<const std::uint8_t> f) {
  const std::uint16_t size = word(f, 0x0C);
  if (size == 0 || size == 0xFFFF) return 0.0;
  if (size == 0x7FFF) return static_cast<double>(dword(f, 0x1C) & 0x7FFFFFFF);
  return (size & 0x8000) ? (size & 0x7FFF) / 1024.0 : static_cast<double>(size);
}

// A speed word: 0 unknown; 0xFFFF "see the extended speed" (a dword at `extended`).
int speed(std::span<const std::uint8_t> f, std::size_t at, std::size_t extended) {
  if (at + 2 > f.size()) return -1;
  const std::uint16_t s = word(f, at);
  if (s == 0) return -1;
  if (s == 0xFFFF) return extended + 4 <= f.size() ? static_cast<int>(dword(f, extended)) : -1;
  return s;
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// "ChannelA-DIMM0", "P0 CHANNEL B", "BANK 0 Channel-C" -> "A", "B", "C"; "" when no channel is
// named.
std::string channel_of(const std::string& locators) {
  const std::string u = upper(locators);
  const std::size_t at = u.find("CHANNEL");
  if (at == std::string::npos) return "";
  std::size_t p = at + 7;
  while (p < u.size() && (u[p] == ' ' || u[p] == '-' || u[p] == '_')) ++p;
  std::size_t end = p;
  while (end < u.size() && std::isalnum(static_cast<unsigned char>(u[end]))) ++end;
  return u.substr(p, end - p);
}

}  // namespace

MemoryFigures parse_smbios_memory(std::span<const std::uint8_t> table, const std::string& source) {
  MemoryFigures m;
  m.source = source;
  int board_slots = 0;
  for (const Structure& s : structures(table)) {
    const std::uint8_t type = s.fields[0];
    if (type == kPhysicalMemoryArray) board_slots += word(s.fields, 0x0D);
    if (type != kMemoryDevice) continue;
    MemoryModule module;
    const std::string device = text(s, 0x10), bank = text(s, 0x11);
    module.locator = bank.empty() ? device : device + " / " + bank;
    module.channel = channel_of(device + " " + bank);
    module.size_mib = size_mib(s.fields);
    module.speed_mts = speed(s.fields, 0x15, 0x54);
    module.configured_mts = speed(s.fields, 0x20, 0x58);
    m.modules.push_back(module);
  }
  if (m.modules.empty()) {
    m.source += ": no memory device (SMBIOS type 17) listed";
    return m;
  }
  m.known = true;
  m.slots = std::max(board_slots, static_cast<int>(m.modules.size()));
  m.populated = 0;
  double total_mib = 0.0;
  std::set<std::string> channels, populated_channels;
  bool every_channel_named = true;
  for (const MemoryModule& module : m.modules) {
    every_channel_named = every_channel_named && !module.channel.empty();
    channels.insert(module.channel);
    if (module.size_mib <= 0.0) continue;
    ++m.populated;
    total_mib += module.size_mib;
    populated_channels.insert(module.channel);
    const auto lowest = [](int& so_far, int v) {
      if (v > 0) so_far = so_far < 0 ? v : std::min(so_far, v);
    };
    lowest(m.rated_mts, module.speed_mts);
    lowest(m.configured_mts, module.configured_mts);
  }
  m.total_gib = total_mib / 1024.0;
  if (every_channel_named) {
    m.channels = static_cast<int>(channels.size());
    m.populated_channels = static_cast<int>(populated_channels.size());
  }
  return m;
}

MemoryFigures read_dmi_memory(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    MemoryFigures m;
    m.source = path + ": " + std::strerror(errno) +
               " (the firmware's table is root's, and containers and many VMs hide it)";
    return m;
  }
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                        std::istreambuf_iterator<char>()};
  return parse_smbios_memory(bytes, path);
}

}  // namespace kiln::doctor
