// /proc readers. schedstat's fields are nanoseconds (on-CPU, run-queue wait, slices); /proc/stat's
// "cpu" line and /proc/PID/stat's utime/stime are clock ticks (sysconf(_SC_CLK_TCK)).
#include "kiln/monitor/cpu_competition.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "kiln/monitor/gpu_monitor.h"

namespace kiln {

namespace {

std::vector<int> numeric_entries(const char* folder) {
  std::vector<int> out;
  DIR* dir = opendir(folder);
  if (dir == nullptr) return out;
  while (const dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long id = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0') out.push_back(static_cast<int>(id));
  }
  closedir(dir);
  return out;
}

void read_schedstat(CpuSample& s) {
  for (int tid : numeric_entries("/proc/self/task")) {
    std::ifstream in(fmt::format("/proc/self/task/{}/schedstat", tid));
    double on_cpu_ns = 0.0, delay_ns = 0.0;
    if (!(in >> on_cpu_ns >> delay_ns)) continue;
    s.thread_delay_s[tid] = delay_ns * 1e-9;
    s.schedstat_known = true;
  }
}

void read_proc_stat(CpuSample& s) {
  std::ifstream in("/proc/stat");
  std::string label;
  if (!(in >> label) || label != "cpu") return;
  // user nice system idle iowait irq softirq steal [guest guest_nice: already in user]
  std::uint64_t field[8] = {};
  for (std::uint64_t& f : field)
    if (!(in >> f)) return;
  for (std::uint64_t f : field) s.stat_total_ticks += f;
  s.stat_steal_ticks = field[7];
  s.stat_known = true;
}

// The name (between the parentheses, which may hold spaces) and utime + stime of one process.
bool read_process(int pid, ProcessTicks& out) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(in, line)) return false;
  const auto open = line.find('('), close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  out.name = line.substr(open + 1, close - open - 1);
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  // Fields after the name start at 3 (state); utime and stime are fields 14 and 15.
  for (int i = 3; i < 14; ++i)
    if (!(rest >> field)) return false;
  std::uint64_t utime = 0, stime = 0;
  if (!(rest >> utime >> stime)) return false;
  out.ticks = utime + stime;
  return true;
}

double sum_values(const std::map<int, double>& after, const std::map<int, double>& before) {
  double sum = 0.0;
  for (const auto& [tid, value] : after) {
    const auto it = before.find(tid);
    sum += value - (it == before.end() ? 0.0 : it->second);  // a thread born in between: all of it
  }
  return sum;
}

}  // namespace

CpuSample sample_cpu(bool with_others) {
  CpuSample s;
  s.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  s.process_cpu_s = process_cpu_seconds();
  read_schedstat(s);
  read_proc_stat(s);
  if (with_others) {
    const int self = static_cast<int>(getpid());
    for (int pid : numeric_entries("/proc")) {
      ProcessTicks p;
      if (pid != self && read_process(pid, p)) s.others[pid] = std::move(p);
    }
  }
  return s;
}

double CpuShare::wait_percent() const {
  if (run_delay_s < 0.0 || run_delay_s + cpu_s <= 0.0) return -1.0;
  return 100.0 * run_delay_s / (run_delay_s + cpu_s);
}

CpuShare cpu_share_between(const CpuSample& a, const CpuSample& b) {
  CpuShare share;
  share.wall_s = b.wall_s - a.wall_s;
  share.cpu_s = b.process_cpu_s - a.process_cpu_s;
  if (a.schedstat_known && b.schedstat_known)
    share.run_delay_s = std::max(0.0, sum_values(b.thread_delay_s, a.thread_delay_s));
  if (a.stat_known && b.stat_known && b.stat_total_ticks > a.stat_total_ticks)
    share.steal_percent = 100.0 * static_cast<double>(b.stat_steal_ticks - a.stat_steal_ticks) /
                          static_cast<double>(b.stat_total_ticks - a.stat_total_ticks);
  share.others_visible = !b.others.empty();
  const double tick_s = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  for (const auto& [pid, p] : b.others) {
    const auto it = a.others.find(pid);
    if (it == a.others.end() || share.wall_s <= 0.0 || p.ticks < it->second.ticks) continue;
    const double percent =
        100.0 * static_cast<double>(p.ticks - it->second.ticks) * tick_s / share.wall_s;
    if (percent >= 5.0) share.others.push_back({pid, p.name, percent});
  }
  std::sort(
      share.others.begin(), share.others.end(),
      [](const ProcessShare& x, const ProcessShare& y) { return x.cpu_percent > y.cpu_percent; });
  return share;
}

std::vector<ProcessShare> grouped_by_name(const std::vector<ProcessShare>& others) {
  std::vector<ProcessShare> groups;
  std::vector<int> counts;
  for (const ProcessShare& p : others) {
    const auto it = std::find_if(groups.begin(), groups.end(),
                                 [&](const ProcessShare& g) { return g.name == p.name; });
    if (it == groups.end()) {
      groups.push_back({p.pid, p.name, p.cpu_percent});
      counts.push_back(1);
    } else {
      it->pid = 0;  // several: no one process id
      it->cpu_percent += p.cpu_percent;
      ++counts[static_cast<std::size_t>(it - groups.begin())];
    }
  }
  for (std::size_t i = 0; i < groups.size(); ++i)
    if (counts[i] > 1) groups[i].name += fmt::format(" ({} processes)", counts[i]);
  std::stable_sort(groups.begin(), groups.end(), [](const ProcessShare& x, const ProcessShare& y) {
    return x.cpu_percent > y.cpu_percent;
  });
  return groups;
}

std::string describe_processes(const std::vector<ProcessShare>& others, std::size_t most) {
  const std::vector<ProcessShare> groups = grouped_by_name(others);
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < groups.size() && i < most; ++i)
    parts.push_back(fmt::format("{} {:.0f} %", groups[i].name, groups[i].cpu_percent));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace kiln
