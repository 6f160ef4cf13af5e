// Each check is the reader's own parse, so the start-up check and the later read agree.
#include "kiln/core/environment.h"

#include <cstdlib>

#include "kiln/core/caching_allocator.h"
#include "kiln/core/cpu_compute.h"
#include "kiln/core/cpu_description.h"
#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"
#include "kiln/core/log.h"
#include "kiln/core/relu_epilogue.h"

namespace kiln {

namespace {

void check_cpu_compute(const char*) { (void)cpu_compute_from_environment(); }

void check_cpu_description(const char* value) { (void)parse_cpu_description(value); }

void check_relu_epilogue(const char* value) { (void)parse_relu_epilogue(value); }

void check_device_allocator(const char* value) { (void)parse_allocation_policy(value); }

void check_log_level(const char* value) {
  KILN_CHECK(log::parse_log_level(value).has_value(),
             "KILN_LOG_LEVEL={}: expected trace, debug, info, warn, error, critical or off (or "
             "unset it: info is the default)",
             excerpt(value));
}

constexpr EnvironmentVariable kVariables[] = {
    {"KILN_CPU_COMPUTE", "onednn or reference (default: onednn where built)", check_cpu_compute},
    {"KILN_CPU_DESCRIPTION",
     "a CPU to describe instead of this one: zen3, skylake-sp, icelake-sp, zen4 or "
     "sapphire-rapids, optionally :cores=N (default: unset, this machine's probe)",
     check_cpu_description},
    {"KILN_RELU_EPILOGUE", "fused or separate (default: separate)", check_relu_epilogue},
    {"KILN_LOG_LEVEL", "trace, debug, info, warn, error, critical or off (default: info)",
     check_log_level},
    {"KILN_DEVICE_ALLOCATOR",
     "caching or exact (default: caching; exact: device allocations of the requested size, none "
     "cached, for compute-sanitizer's memcheck)",
     check_device_allocator},
};

void check_each(std::span<const EnvironmentVariable> variables) {
  for (const EnvironmentVariable& v : variables) {
    const char* value = std::getenv(v.name);
    if (value != nullptr && *value != '\0') v.check(value);
  }
}

}  // namespace

std::span<const EnvironmentVariable> environment_variables() { return kVariables; }

void check_environment(std::span<const EnvironmentVariable> app_variables) {
  check_each(environment_variables());
  check_each(app_variables);
}

}  // namespace kiln
