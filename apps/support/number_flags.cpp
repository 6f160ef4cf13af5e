// The numeric flags' rule and message, and the command line's one-line ending
// (apps/support/number_flags.h).
#include "apps/support/number_flags.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"

namespace kiln {

namespace {

constexpr long double kInf = std::numeric_limits<long double>::infinity();

std::string number_text(long double v, bool whole) {
  if (whole) {
    if (v < 0) return fmt::format("{}", static_cast<std::int64_t>(v));
    return fmt::format("{}", static_cast<std::uint64_t>(v));
  }
  return fmt::format("{:g}", static_cast<double>(v));
}

// The range as train words it: "at least 1", ">= 0", "in [0, 256]", "positive", "in [0, 1)";
// for a value that is no number of the kind, with the kind: "a whole number >= 0", "a positive
// number".
std::string range_words(bool whole, long double least, long double most, const NumberRange& r,
                        long double type_least, long double type_most, bool show_least,
                        bool show_most, bool is_number) {
  if (whole) {
    // A bound of the flag's type is said only where the value passed it.
    const bool low = show_least, high = show_most;
    std::string words;
    if (low && high)
      words = fmt::format("in [{}, {}]", number_text(least, true), number_text(most, true));
    else if (low && least == 0)
      words = ">= 0";
    else if (low)
      words = fmt::format("{}at least {}", is_number ? "" : "of ", number_text(least, true));
    else if (high)
      words = fmt::format("{}at most {}", is_number ? "" : "of ", number_text(most, true));
    if (is_number) return words;
    return words.empty() ? "a whole number" : "a whole number " + words;
  }
  const bool low = least > type_least, high = most < type_most;
  if (low && !high && least == 0 && r.least_open)
    return is_number ? "positive" : "a positive number";
  std::string words = "finite";
  if (low && high)
    words = fmt::format("in {}{}, {}{}", r.least_open ? '(' : '[', number_text(least, false),
                        number_text(most, false), r.most_open ? ')' : ']');
  else if (low)
    words = fmt::format("{} {}", r.least_open ? ">" : ">=", number_text(least, false));
  else if (high)
    words = fmt::format("{} {}", r.most_open ? "<" : "<=", number_text(most, false));
  if (is_number) return words;
  return words == "finite" ? "a finite number" : "a number " + words;
}

// The value as given: as it is when it is a short plain number, else quoted and bounded.
std::string shown_value(const std::string& text, bool parsed) {
  return parsed && text.size() <= 40 ? text : excerpt(text, 40);
}

// `text` read exactly as an integer (decimal, an optional sign), or nothing; `overflow` is set
// when it is one but passes int64 and uint64.
std::optional<long double> read_whole(std::string_view text, bool& overflow) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  const char* end = text.data() + text.size();
  if (text.front() == '-') {
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ptr != end) return std::nullopt;
    if (ec == std::errc::result_out_of_range) return overflow = true, -kInf;
    return ec == std::errc() ? std::optional<long double>(static_cast<long double>(v))
                             : std::nullopt;
  }
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ptr != end) return std::nullopt;
  if (ec == std::errc::result_out_of_range) return overflow = true, kInf;
  return ec == std::errc() ? std::optional<long double>(static_cast<long double>(v)) : std::nullopt;
}

// `text` read exactly as a real number, or nothing (NaN is no number).
std::optional<long double> read_real(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return std::nullopt;
  char* end = nullptr;
  const long double v = std::strtold(text.c_str(), &end);
  if (end != text.c_str() + text.size() || std::isnan(v)) return std::nullopt;
  return v;
}

}  // namespace

std::string number_flag_problem(const std::string& flag, const std::string& text, bool whole,
                                long double type_least, long double type_most,
                                const NumberRange& range) {
  const long double least = std::max(range.least, type_least);
  const long double most = std::min(range.most, type_most);
  const bool least_open = range.least_open && least == range.least;
  const bool most_open = range.most_open && most == range.most;
  NumberRange said = range;
  said.least_open = least_open, said.most_open = most_open;
  bool overflow = false;
  const std::optional<long double> v = whole ? read_whole(text, overflow) : read_real(text);
  const bool show_least = range.least > type_least || (v && *v < type_least);
  const bool show_most = range.most < type_most || (v && *v > type_most);
  const std::string words = range_words(whole, least, most, said, type_least, type_most, show_least,
                                        show_most, v.has_value() && std::isfinite(*v));
  const std::string note = range.note.empty() ? "" : " (" + range.note + ")";
  const bool inside = v && std::isfinite(*v) && (least_open ? *v > least : *v >= least) &&
                      (most_open ? *v < most : *v <= most);
  if (inside) return "";
  // A real number past what the flag's type holds: the type's bound is said, as it is the one
  // met.
  const std::string beyond =
      !whole && v && std::isfinite(*v) && (*v > type_most || *v < type_least)
          ? fmt::format(" (at most {:g} in size)", static_cast<double>(type_most))
          : "";
  return fmt::format("{} must be {}{}{}, found {}", flag, words, note, beyond,
                     shown_value(text, v.has_value()));
}

std::string decimal_whole_number(const std::string& text) {
  bool overflow = false;
  const std::optional<long double> v = read_whole(text, overflow);
  return v && std::isfinite(*v) ? number_text(*v, true) : text;
}

void throw_flag_error(const std::string& message) { throw Error(message, "the command line"); }

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv,
                                      const std::string& program) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help: printed on stdout
    std::fprintf(stderr, "%s: %s (see --help)\n", program.c_str(), e.what());
  } catch (const Error& e) {  // a numeric flag's check
    std::fprintf(stderr, "%s: %s\n", program.c_str(), e.what());
  }
  return 1;
}

}  // namespace kiln
