// The timing of the plain timed benchmark programs (kiln_gpt_layers_benchmark,
// kiln_gpt_step_benchmark): one run of a body, and the median of several after a warm-up.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <utility>
#include <vector>

namespace kiln::bench {

// Milliseconds of the steady clock.
inline double wall_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One run of `body` by `clock`, in milliseconds.
inline double time_ms(const std::function<void()>& body, double (*clock)() = wall_ms) {
  const double start = clock();
  body();
  return clock() - start;
}

// The median of some times (the upper one of an even count).
inline double median(std::vector<double> ms) {
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

// The median of `repetitions` runs after one warm-up (buffers, oneDNN's kernel generation).
inline double median_ms(int repetitions, const std::function<void()>& body,
                        double (*clock)() = wall_ms) {
  body();
  std::vector<double> ms;
  for (int r = 0; r < repetitions; ++r) ms.push_back(time_ms(body, clock));
  return median(std::move(ms));
}

}  // namespace kiln::bench
