// The KILN_* environment variables kiln reads, all listed in core/environment.cpp with what each
// accepts. check_environment() checks every one at start-up (the apps call it first), so that a
// bad value fails before any data is loaded, in a message that names the variable; the readers
// (core/cpu_compute.cpp, core/relu_epilogue.cpp, core/log.cpp) name it too when read later.
#pragma once

#include <span>

namespace kiln {

struct EnvironmentVariable {
  const char* name;     // "KILN_CPU_COMPUTE"
  const char* accepts;  // "onednn or reference", for the documentation and `kiln-doctor`
  // Throws kiln::Error naming the variable when `value` (never null; unset is not checked) is
  // not one it accepts.
  void (*check)(const char* value);
};

// The variables the library reads.
std::span<const EnvironmentVariable> environment_variables();

// Checks each set variable of environment_variables() and of `app_variables` (an app's own,
// such as train's KILN_INJECT_FAULT); throws at the first bad value.
void check_environment(std::span<const EnvironmentVariable> app_variables = {});

}  // namespace kiln
