// The message of the kiln::Error a piece of code throws, for tests of error messages.
#pragma once

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

}  // namespace kiln::testing
