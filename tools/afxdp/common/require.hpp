// The rules options are checked against, each failure one std::invalid_argument naming the
// option and the rule.
#pragma once

#include <afxdp/xsk/privilege.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace afxdp::tool {

inline void require(bool rule, const std::string& message) {
  if (!rule) throw std::invalid_argument(message);
}

// Before any set-up: "<subcommand> needs CAP_NET_ADMIN (run as root)" when a privilege is missing.
inline void require_privilege(std::string_view subcommand) {
  if (const std::string missing = missing_privilege(); !missing.empty()) {
    throw std::runtime_error(std::string(subcommand) + " needs " + missing);
  }
}

}  // namespace afxdp::tool
