// The "kiln" logger: stderr, colour when a terminal, level from KILN_LOG_LEVEL (default info).
#include "kiln/core/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <string_view>

namespace kiln::log {

std::optional<spdlog::level::level_enum> parse_log_level(const char* name) {
  if (name == nullptr || *name == '\0') return spdlog::level::info;
  // spdlog answers "off" for a name it does not know, so "off" itself is told apart first.
  if (std::string_view(name) == "off") return spdlog::level::off;
  const spdlog::level::level_enum level = spdlog::level::from_str(name);
  if (level == spdlog::level::off) return std::nullopt;
  return level;
}

std::shared_ptr<spdlog::logger> logger() {
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto existing = spdlog::get("kiln");
    if (existing) return existing;
    auto made = spdlog::stderr_color_mt("kiln");
    made->set_pattern("[%H:%M:%S.%e] [kiln] [%^%l%$] %v");
    made->set_level(parse_log_level(std::getenv("KILN_LOG_LEVEL")).value_or(spdlog::level::info));
    return made;
  }();
  return instance;
}

}  // namespace kiln::log
