// The library's configuration fields in the tool's words: one table from a PortConfig field (as
// afxdp::ConfigError names it) to the option that sets it, so that the library's rules are
// checked once, by the library, and reported with the flag the user typed.
#pragma once

#include <afxdp/error.hpp>

#include <string>
#include <string_view>

namespace afxdp::tool {

// The option that sets `field` ("-q" for "queues"), or "" when no option does.
std::string_view flag_of(std::string_view field) noexcept;

// "FLAG: rule" for a field an option sets, else the library's own text.
std::string in_flags(const ConfigError& error);

// Calls `check` (validated(config), check_queues, ...) and returns what it returns; a
// ConfigError it throws becomes a std::invalid_argument in the tool's words (a command line
// refused: exit 2).
template <class Check>
auto check_in_flags(Check check) {
  try {
    return check();
  } catch (const ConfigError& e) {
    throw std::invalid_argument(in_flags(e));
  }
}

}  // namespace afxdp::tool
