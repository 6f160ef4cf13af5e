// Logging through spdlog, under kiln's own logger ("kiln"), so an application can set kiln's
// level or sinks apart from its own. KILN_LOG_LEVEL=debug|info|warn|error|off sets the start level.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>

namespace kiln::log {

std::shared_ptr<spdlog::logger> logger();

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
