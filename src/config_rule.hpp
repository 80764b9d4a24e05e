// One rule of a config's validate() (umem.cpp, socket.cpp): when it does not hold, the
// ConfigError that names the field and the rule, as the error policy (error.hpp) asks.
#pragma once

#include <afxdp/error.hpp>

#include <string>

namespace afxdp::detail {

inline void require(bool holds, const char* field, const std::string& rule) {
  if (!holds) throw ConfigError(field, rule);
}

}  // namespace afxdp::detail
