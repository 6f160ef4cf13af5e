// What the machine says about itself in /sys and /proc beyond kiln's CPU description
// (core/cpu_description.h: cores, model, instruction sets): its name, the highest clock, the
// current clocks, the hottest thermal zone. Each returns -1 (or empty) where the machine hides it,
// as a container or a VM often does.
#pragma once

#include <string>

namespace kiln::doctor {

std::string host_name();

struct Frequency {
  double mhz = -1.0;
  std::string source;  // "cpufreq" (cpuinfo_max_freq) or "cpuinfo" (the nominal "cpu MHz")
};
Frequency max_frequency();
double mean_current_mhz();   // cpufreq's scaling_cur_freq over the usable CPUs, -1 when hidden
double max_temperature_c();  // the hottest /sys/class/thermal zone, -1 when there is none

}  // namespace kiln::doctor
