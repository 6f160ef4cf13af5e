// How every app reads its numeric flags and ends on a bad command line: the value is checked as
// text before CLI11 converts it, so that too large, negative, non-finite or non-numeric values all
// end in one line of the app's, naming the flag, the value as given and the range in words
// ("train: --epochs must be in [1, 2147483647], found 99999999999"), never CLI11's "Value -1 not
// in range 0.000000 to 1797693134862315708145...". One rule, one message, for every numeric flag.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln {

// The values a numeric flag takes: [least, most], either end open where `*_open` says (a rate
// > 0 is least 0 and least_open). Floating-point values must also be finite. `note` follows the
// range in the message ("0: all cores").
struct NumberRange {
  long double least = -std::numeric_limits<long double>::infinity();
  long double most = std::numeric_limits<long double>::infinity();
  bool least_open = false, most_open = false;
  std::string note;
};

// "--top-k must be >= 0 (0: all), found -1", "--lr must be a positive number, found 'abc'": the
// message for `text` given to `flag`, or "" when it is a number of the kind (`whole`: an integer)
// within `range` and within [type_least, type_most], the bounds of the flag's type (said only
// where the value passed them).
std::string number_flag_problem(const std::string& flag, const std::string& text, bool whole,
                                long double type_least, long double type_most,
                                const NumberRange& range);

// A whole number accepted by number_flag_problem in plain decimal: "+010" -> "10" (CLI11 would
// read a leading 0 as octal).
std::string decimal_whole_number(const std::string& text);

// Throws the kiln::Error of a bad flag (out of line: this header stays free of kiln/core).
[[noreturn]] void throw_flag_error(const std::string& message);

// The number a flag's value holds: T itself, or the element of an optional or a vector.
template <typename T> struct FlagNumber { using type = T; };
template <typename T> struct FlagNumber<std::optional<T>> { using type = T; };
template <typename T> struct FlagNumber<std::vector<T>> { using type = T; };

// The CLI11 check of a flag whose values are numbers of type V (each element of a vector):
// throws kiln::Error with number_flag_problem's message.
template <typename V>
CLI::Validator number_check(const std::string& flag, const NumberRange& range) {
  static_assert(std::is_arithmetic_v<V>, "number_check is for numbers");
  return CLI::Validator(
      [flag, range](std::string& text) {
        const std::string problem =
            number_flag_problem(flag, text, std::is_integral_v<V>,
                                static_cast<long double>(std::numeric_limits<V>::lowest()),
                                static_cast<long double>(std::numeric_limits<V>::max()), range);
        if (!problem.empty()) throw_flag_error(problem);
        if constexpr (std::is_integral_v<V>) text = decimal_whole_number(text);
        return std::string();
      },
      "");
}

// The numeric flag `flag` bound to `value` (a number, an optional one, or a vector of them),
// its values in `range`.
template <typename T>
CLI::Option* add_number_flag(CLI::App& app, const std::string& flag, T& value,
                             const std::string& description, const NumberRange& range = {}) {
  return app.add_option(flag, value, description)
      ->check(number_check<typename FlagNumber<T>::type>(flag, range));
}

// Parses the command line. Returns the status main() should end with: 0 after --help (printed),
// 1 after a bad flag, with one line "PROGRAM: message" on stderr; nullopt to go on.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv,
                                      const std::string& program);

}  // namespace kiln
