// CLI11 checks for numbers whose failures read as one short line naming the value. CLI11 2.1's
// own fall short three times: it reads "-1" into an unsigned option as 2^64 - 1 (so "-C -1" would
// mean "no limit"), it reads 2^64 into a 64-bit one as 2^64 - 1, and PositiveNumber /
// NonNegativeNumber print the whole of DBL_MAX (300 digits) as the top of the range and let "inf"
// through. The names are CLI11's, so --help reads as before.
#pragma once

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>
#include <string>

namespace afxdp::tool {

// The number in `text`, or why it is none (with its own quotes): "'x' is not a number". NaN and
// the infinities are no numbers here: every number an option takes ends up counted or timed.
inline std::string number_or_why(const std::string& text, double& value) {
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    return "'" + text + "' is not a finite number";
  }
  return {};
}

// For unsigned options: a leading minus sign is refused, not wrapped around, and so is a value
// above 2^64 - 1, which CLI11 would take as 2^64 - 1 (for 32-bit options it says it cannot
// convert).
inline CLI::Validator not_negative_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.find('-') != std::string::npos) return text + " is negative";
        errno = 0;
        char* end = nullptr;
        static_cast<void>(std::strtoull(text.c_str(), &end, 0));
        if (errno == ERANGE) return text + " is above 18446744073709551615";
        return {};
      },
      "", "NOT_NEGATIVE_INTEGER");
}

inline CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        if (std::string why = number_or_why(text, value); !why.empty()) return why;
        return value >= 0 ? std::string{} : text + " is negative";
      },
      "NONNEGATIVE", "NONNEGATIVE");
}

inline CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        if (std::string why = number_or_why(text, value); !why.empty()) return why;
        return value > 0 ? std::string{} : text + " must be more than 0";
      },
      "POSITIVE", "POSITIVE");
}

// A time option's range in seconds. Every one is turned into nanoseconds in a 64-bit count (about
// 292 years), and an interval much below the reporting loop's own 20 ms step only spins it.
struct Seconds {
  double min;  // smallest value besides 0
  double max;
  bool zero_means_none;  // 0 is allowed too ("no limit")
};
inline constexpr Seconds run_duration{0, 31'536'000, true};     // up to 365 days; 0: until stopped
inline constexpr Seconds report_interval{0.01, 86'400, false};  // 10 ms to a day
inline constexpr Seconds demo_cell{0.1, 3'600, false};          // 0.1 s to an hour per cell

inline std::string format_number(double value) {
  std::ostringstream text;
  text << std::setprecision(15) << value;
  return text.str();
}

// "0 or 0.01 to 86400", as --help and the errors say it.
inline std::string seconds_range(Seconds s) {
  if (s.zero_means_none && s.min == 0) return "0 to " + format_number(s.max);
  return (s.zero_means_none ? "0 or " : "") + format_number(s.min) + " to " + format_number(s.max);
}

// Why `value` is outside `s` ("" when inside): "'1e10' must be 0 to 31536000 seconds".
inline std::string seconds_rule(const std::string& text, double value, Seconds s) {
  const bool inside = (value == 0 && s.zero_means_none) || (value >= s.min && value <= s.max);
  return inside ? std::string{} : "'" + text + "' must be " + seconds_range(s) + " seconds";
}

inline CLI::Validator seconds_within(Seconds s) {
  return CLI::Validator(
      [s](std::string& text) -> std::string {
        double value = 0;
        if (std::string why = number_or_why(text, value); !why.empty()) return why;
        return seconds_rule(text, value, s);
      },
      "SECONDS in " + seconds_range(s), "SECONDS");
}

}  // namespace afxdp::tool
