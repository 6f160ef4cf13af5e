// Logging through spdlog, under kiln's own logger ("kiln"), so an application can set kiln's
// level or sinks apart from its own. KILN_LOG_LEVEL=debug|info|warn|error|off sets the start level.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <optional>

namespace kiln::log {

std::shared_ptr<spdlog::logger> logger();
// The level a KILN_LOG_LEVEL value names (info when null or empty), or nullopt for a name spdlog
// does not know (trace, debug, info, warn or warning, err or error, critical, off).
std::optional<spdlog::level::level_enum> parse_log_level(const char* name);

template <typename... Args> void debug(spdlog::format_string_t<Args...> f, Args&&... args) {
  logger()->debug(f, std::forward<Args>(args)...);
}
template <typename... Args> void info(spdlog::format_string_t<Args...> f, Args&&... args) {
  logger()->info(f, std::forward<Args>(args)...);
}
template <typename... Args> void warn(spdlog::format_string_t<Args...> f, Args&&... args) {
  logger()->warn(f, std::forward<Args>(args)...);
}
template <typename... Args> void error(spdlog::format_string_t<Args...> f, Args&&... args) {
  logger()->error(f, std::forward<Args>(args)...);
}

}  // namespace kiln::log
