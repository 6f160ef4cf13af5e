// The message of the kiln::Error a piece of code throws, for tests of error messages.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "kiln/core/error.h"

namespace kiln::testing {

// The message of the kiln::Error that f() throws, or "" when it throws none.
template <typename F> std::string error_message(F&& f) {
  try {
    f();
  } catch (const kiln::Error& e) {
    return e.what();
  }
  return "";
}

// Success when `message` is safe to print to a terminal: at most `most_bytes` long and without
// a control byte (file content in it went through kiln::excerpt()).
inline ::testing::AssertionResult is_printable_message(const std::string& message,
                                                       std::size_t most_bytes = 1024) {
  if (message.empty()) return ::testing::AssertionFailure() << "no error was thrown";
  if (message.size() > most_bytes)
    return ::testing::AssertionFailure() << "a message of " << message.size() << " bytes";
  for (unsigned char c : message)
    if (c < 0x20 || c == 0x7f)
      return ::testing::AssertionFailure() << "control byte " << int{c} << " in: " << message;
  return ::testing::AssertionSuccess();
}

}  // namespace kiln::testing
