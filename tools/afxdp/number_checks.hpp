// CLI11 checks for numbers whose failures read as one short line naming the value. CLI11 2.1's
// own fall short twice: it reads "-1" into an unsigned option as 2^64 - 1 (so "-C -1" would mean
// "no limit"), and PositiveNumber / NonNegativeNumber print the whole of DBL_MAX (300 digits) as
// the top of the range. The names are CLI11's, so --help reads as before.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <string>

namespace afxdp::tool {

// The number in `text`, or why it is none (with its own quotes): "'x' is not a number".
inline std::string number_or_why(const std::string& text, double& value) {
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || value != value) {  // NaN too
    return "'" + text + "' is not a number";
  }
  return {};
}

// For unsigned options: a leading minus sign is refused, not wrapped around.
inline CLI::Validator not_negative_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.find('-') != std::string::npos) return text + " is negative";
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

}  // namespace afxdp::tool
