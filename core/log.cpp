// The "kiln" logger: stderr, colour when a terminal, level from KILN_LOG_LEVEL (default info).
#include "kiln/core/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>

namespace kiln::log {

std::shared_ptr<spdlog::logger> logger() {
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto existing = spdlog::get("kiln");
    if (existing) return existing;
    auto made = spdlog::stderr_color_mt("kiln");
    made->set_pattern("[%H:%M:%S.%e] [kiln] [%^%l%$] %v");
    const char* level = std::getenv("KILN_LOG_LEVEL");
    made->set_level(level ? spdlog::level::from_str(level) : spdlog::level::info);
    return made;
  }();
  return instance;
}

}  // namespace kiln::log
