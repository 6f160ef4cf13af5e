// parse_schedule (spec/schedule_spec.h): learning-rate schedules from specs ("warmup:500+cosine").
// Every mistake names the whole spec, says what is wrong, and lists the accepted forms.
#include <charconv>
#include <string_view>

#include "kiln/core/error.h"
#include "kiln/spec/schedule_spec.h"

namespace kiln {

namespace {

constexpr const char* kScheduleForms =
    "constant | step:<step_size>:<gamma> | multistep:<m1>,<m2>,...:<gamma> | exp:<gamma> | "
    "cosine[:<min_lr>[:<decay_steps>]] | warmup:<steps>[:<start_factor>]+<schedule>";

struct Parser {
  const std::string& spec;

  [[noreturn]] void fail(const std::string& reason) const {
    KILN_THROW("bad learning-rate schedule '{}': {}; accepted forms: {}", spec, reason,
               kScheduleForms);
  }

  std::vector<std::string_view> split(std::string_view s, char sep) const {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
      const std::size_t end = s.find(sep, start);
      parts.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
      if (end == std::string_view::npos) return parts;
      start = end + 1;
    }
  }

  template <typename T> T number(std::string_view text, const char* what) const {
    T value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
      fail(fmt::format("{} '{}' is not a{} number", what, text,
                       std::is_integral_v<T> ? "n integer" : ""));
    return value;
  }

  void expect_fields(const std::vector<std::string_view>& f, std::size_t low, std::size_t high,
                     const char* form) const {
    if (f.size() < low || f.size() > high) fail(fmt::format("'{}' takes the form {}", f[0], form));
  }

  // One schedule without warm-up: `total` steps remain after the `elapsed` warm-up steps.
  std::unique_ptr<LrSchedule> plain(std::string_view text, float base, std::int64_t total,
                                    std::int64_t elapsed) const {
    const auto f = split(text, ':');
    // The factories' own checks (gamma > 0, ...) become errors about this spec.
    try {
      if (f[0] == "constant") {
        expect_fields(f, 1, 1, "constant");
        return constant_lr(base);
      }
      if (f[0] == "step") {
        expect_fields(f, 3, 3, "step:<step_size>:<gamma>");
        return step_lr(base, number<std::int64_t>(f[1], "step_size"), number<float>(f[2], "gamma"));
      }
      if (f[0] == "multistep") {
        expect_fields(f, 3, 3, "multistep:<m1>,<m2>,...:<gamma>");
        std::vector<std::int64_t> milestones;
        for (std::string_view m : split(f[1], ','))
          milestones.push_back(number<std::int64_t>(m, "milestone"));
        return multi_step_lr(base, std::move(milestones), number<float>(f[2], "gamma"));
      }
      if (f[0] == "exp") {
        expect_fields(f, 2, 2, "exp:<gamma>");
        return exponential_lr(base, number<float>(f[1], "gamma"));
      }
      if (f[0] == "cosine") {
        expect_fields(f, 1, 3, "cosine[:<min_lr>[:<decay_steps>]]");
        const float min_lr = f.size() >= 2 ? number<float>(f[1], "min_lr") : 0.0f;
        if (f.size() == 3) {  // nanoGPT's lr_decay_iters: a step of the run, warm-up included
          const auto decay = number<std::int64_t>(f[2], "decay_steps");
          if (decay <= elapsed)
            fail(fmt::format("cosine's decay_steps {} must pass the {} warm-up steps before it",
                             decay, elapsed));
          return cosine_lr(base, decay - elapsed, min_lr, CosinePast::hold);
        }
        if (total < 1) fail(fmt::format("cosine needs steps to anneal over, but {} remain", total));
        return cosine_lr(base, total, min_lr);
      }
    } catch (const Error& e) {
      if (std::string_view(e.what()).starts_with("bad learning-rate schedule")) throw;
      fail(e.text());
    }
    if (f[0] == "warmup") fail("warm-up must be followed by '+<schedule>'");
    fail(fmt::format("unknown schedule '{}'", f[0]));
  }

  std::unique_ptr<LrSchedule> parse(std::string_view text, float base, std::int64_t total,
                                    std::int64_t elapsed) const {
    const std::size_t plus = text.find('+');
    if (plus == std::string_view::npos) return plain(text, base, total, elapsed);
    const auto f = split(text.substr(0, plus), ':');
    if (f[0] != "warmup")
      fail(fmt::format("only a warm-up may stand before '+', found '{}'", f[0]));
    expect_fields(f, 2, 3, "warmup:<steps>[:<start_factor>]+<schedule>");
    const auto steps = number<std::int64_t>(f[1], "warm-up steps");
    const float start = f.size() == 3 ? number<float>(f[2], "start factor") : 0.0f;
    try {
      return warmup_lr(steps, start,
                       parse(text.substr(plus + 1), base, total - steps, elapsed + steps));
    } catch (const Error& e) {
      if (std::string_view(e.what()).starts_with("bad learning-rate schedule")) throw;
      fail(e.text());
    }
  }
};

}  // namespace

std::unique_ptr<LrSchedule> parse_schedule(const std::string& spec, float base_lr,
                                           std::int64_t total_steps) {
  return Parser{spec}.parse(spec, base_lr, total_steps, 0);
}

}  // namespace kiln
