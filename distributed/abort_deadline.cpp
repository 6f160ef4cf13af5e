// A detached thread that ends the process when the abort it guards has not (abort_deadline.h).
#include "kiln/distributed/abort_deadline.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace kiln {

void leave_by_itself_after(double wait_s, int exit_code, std::string who, std::string call) {
  try {
    std::thread([=, who = std::move(who), call = std::move(call)] {
      std::this_thread::sleep_for(std::chrono::duration<double>(wait_s));
      const std::string message = fmt::format(
          "kiln: {}: {} did not end this process within {:g} s (the launcher's daemon probably "
          "cannot reach the other hosts); leaving by itself with exit status {}\n",
          who, call, wait_s, exit_code);
      std::fputs(message.c_str(), stderr);
      std::fflush(stderr);
      std::_Exit(exit_code);
    }).detach();
  } catch (const std::exception&) {
    // No thread to be had: the abort goes on unguarded, as it would without a deadline.
  }
}

}  // namespace kiln
