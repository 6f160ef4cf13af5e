// What the CPU gives this process and who else takes it, from Linux's /proc: the CPU time the
// process got, the time its runnable threads waited in the run queue (/proc/self/task/*/schedstat,
// which holds even where a PID namespace hides the other processes), the steal time a hypervisor
// took (/proc/stat), and the other processes' names and CPU where /proc shows them. Two samples
// give the shares between them; a figure the system does not expose is -1, never a guess.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kiln {

// Threads waiting for a core this share of their ready time or more: others take a real share
// of the CPU (kiln-doctor and the epoch diagnosis judge by it).
inline constexpr double kRealShareWaitPercent = 10.0;

struct ProcessTicks {
  std::string name;
  std::uint64_t ticks = 0;  // user + system clock ticks
};

struct CpuSample {
  double wall_s = 0.0;                   // steady clock
  double process_cpu_s = 0.0;            // user + system, all threads
  std::map<int, double> thread_delay_s;  // run-queue wait per thread id (schedstat field 2)
  bool schedstat_known = false;
  std::uint64_t stat_total_ticks = 0;  // all CPUs' ticks in /proc/stat
  std::uint64_t stat_steal_ticks = 0;
  bool stat_known = false;
  std::map<int, ProcessTicks> others;  // other processes, when sampled
};

// with_others: also read every /proc/PID/stat (a few ms on a busy host).
CpuSample sample_cpu(bool with_others);

struct ProcessShare {
  int pid = 0;
  std::string name;
  double cpu_percent = 0.0;  // of one core over the interval
};

struct CpuShare {
  double wall_s = 0.0;
  double cpu_s = 0.0;           // CPU time the process got
  double run_delay_s = -1.0;    // time its runnable threads waited for a core (-1: cannot tell)
  double steal_percent = -1.0;  // of all CPUs' time taken by the hypervisor (-1: cannot tell)
  std::vector<ProcessShare> others;  // at least 5 % of a core, busiest first
  bool others_visible = false;       // /proc showed other processes at all

  // Of the time the process's runnable threads wanted a core, the share they waited: 0 on a
  // machine of its own, 50 when another process takes every second slice. -1: cannot tell.
  double wait_percent() const;
};

CpuShare cpu_share_between(const CpuSample& before, const CpuSample& after);

// Processes of one name as one ("cc1plus (3 processes)", their CPU summed, pid 0), busiest first.
std::vector<ProcessShare> grouped_by_name(const std::vector<ProcessShare>& others);
// "cc1plus (3 processes) 72 %, make 3 %": the busiest `most` of grouped_by_name(others).
std::string describe_processes(const std::vector<ProcessShare>& others, std::size_t most = 3);

}  // namespace kiln
