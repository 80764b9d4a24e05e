// The library's error policy, for code beside it too: the control path throws std::system_error
// naming the call and the object ("setsockopt(XDP_UMEM_REG) on veth0 queue 3: ..."), bad
// configuration afxdp::ConfigError (a std::invalid_argument) naming the field and the rule; the
// data path never throws.
#pragma once

#include <stdexcept>
#include <string>
#include <system_error>

namespace afxdp {

// Bad configuration, found before anything is set up: the field (as the config struct names it),
// the rule it breaks and, when there is one, where (the interface). what() is
// "[where: ]field: rule"; a caller with its own names for the fields (a tool's options) maps
// field() to them instead of parsing the text.
class ConfigError : public std::invalid_argument {
 public:
  ConfigError(std::string field, std::string rule, std::string where = {});

  [[nodiscard]] const std::string& field() const noexcept { return field_; }
  [[nodiscard]] const std::string& rule() const noexcept { return rule_; }
  [[nodiscard]] const std::string& where() const noexcept { return where_; }

 private:
  std::string field_;
  std::string rule_;
  std::string where_;
};

// Throws std::system_error(error, std::generic_category(), what): `error` is an errno value
// (pass errno right after the call, or -rc for calls that return -errno, as libbpf's do).
[[noreturn]] void throw_errno(int error, const std::string& what);

// e.what() without the ": <the errno's words>" std::system_error puts at its end: to say the
// error again with more in front, without the words twice.
std::string message_of(const std::system_error& e);

}  // namespace afxdp
