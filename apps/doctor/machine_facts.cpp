#include "apps/doctor/machine_facts.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace kiln::doctor {

namespace {

std::vector<int> usable_cpu_ids() {
  std::vector<int> ids;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return ids;
  for (int i = 0; i < CPU_SETSIZE; ++i)
    if (CPU_ISSET(i, &set)) ids.push_back(i);
  return ids;
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

double number_in(const std::string& path) {
  const std::string text = first_line(path);
  try {
    return text.empty() ? -1.0 : std::stod(text);
  } catch (const std::exception&) {
    return -1.0;
  }
}

// The value after "KEY\t: " of the first /proc/cpuinfo line that starts with KEY.
std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
  }
  return "";
}

}  // namespace

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof(name) - 1) == 0 ? std::string(name) : std::string();
}

Frequency max_frequency() {
  const double khz = number_in("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  if (khz > 0.0) return {khz / 1000.0, "cpufreq"};
  const std::string mhz = cpuinfo_field("cpu MHz");
  try {
    if (!mhz.empty() && std::stod(mhz) > 0.0) return {std::stod(mhz), "cpuinfo"};
  } catch (const std::exception&) {
  }
  return {};
}

double mean_current_mhz() {
  double sum = 0.0;
  int count = 0;
  for (int id : usable_cpu_ids()) {
    const double khz =
        number_in(fmt::format("/sys/devices/system/cpu/cpu{}/cpufreq/scaling_cur_freq", id));
    if (khz <= 0.0) continue;
    sum += khz / 1000.0;
    ++count;
  }
  return count > 0 ? sum / count : -1.0;
}

double max_temperature_c() {
  namespace fs = std::filesystem;
  double hottest = -1.0;
  std::error_code error;
  for (const auto& zone : fs::directory_iterator("/sys/class/thermal", error)) {
    if (zone.path().filename().string().rfind("thermal_zone", 0) != 0) continue;
    const double milli = number_in((zone.path() / "temp").string());
    if (milli > 0.0) hottest = std::max(hottest, milli / 1000.0);
  }
  return hottest;
}

}  // namespace kiln::doctor
