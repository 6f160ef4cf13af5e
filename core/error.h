// kiln::Error and the checks that throw it. Every mistake a user can make (a wrong shape, a
// mixed device, a bad file) becomes one Error whose message says what was expected, what was
// found and, where it helps, what to do; the location is kept apart for logs. The settings a
// message names (core/setting.h) stay values in it: what() words them as the library's API,
// message(words) as a caller's (an app's flags).
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "kiln/core/setting.h"

namespace kiln {

class Error : public std::runtime_error {
 public:
  // `message` as fmt formats it, with any Setting, SettingValue or SettingUsage in it.
  Error(std::string message, std::string where);
  // Where it was thrown, as file:line.
  const std::string& where() const noexcept { return where_; }
  // The message with its settings in `words` (what() has them in the library's).
  std::string message(const SettingWords& words) const { return in_words(text_, words); }
  // The message with its settings kept as values, for another Error's message that quotes it.
  const std::string& text() const noexcept { return text_; }

 private:
  std::string where_;
  std::string text_;
};

// Thrown by long work that polls a stop request (building a model with a stop flag) and saw it
// set: not a mistake, so a program ends as it does when asked to stop.
class Interrupted : public Error {
 public:
  using Error::Error;
};

namespace detail {
[[noreturn]] void throw_error(const char* file, int line, std::string message);
[[noreturn]] void throw_check_failed(const char* file, int line, const char* condition,
                                     std::string message);
// Thrown by every CUDA entry point of a build made without the CUDA backend.
[[noreturn]] void throw_built_without_cuda(const char* what);
}  // namespace detail

}  // namespace kiln

// KILN_CHECK(cond, "format {}", args...): throws kiln::Error when cond is false.
#define KILN_CHECK(cond, ...)                                                                    \
  do {                                                                                           \
    if (!(cond)) [[unlikely]]                                                                    \
      ::kiln::detail::throw_check_failed(__FILE__, __LINE__, #cond, ::fmt::format(__VA_ARGS__)); \
  } while (0)

// KILN_THROW("format {}", args...): throws kiln::Error unconditionally.
#define KILN_THROW(...) ::kiln::detail::throw_error(__FILE__, __LINE__, ::fmt::format(__VA_ARGS__))
