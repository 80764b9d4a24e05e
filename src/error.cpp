#include <afxdp/error.hpp>

#include <system_error>
#include <utility>

namespace afxdp {

ConfigError::ConfigError(std::string field, std::string rule, std::string where)
    : std::invalid_argument((where.empty() ? "" : where + ": ") + field + ": " + rule),
      field_(std::move(field)),
      rule_(std::move(rule)),
      where_(std::move(where)) {}

void throw_errno(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

std::string message_of(const std::system_error& e) {
  std::string what = e.what();
  const std::string words = ": " + e.code().message();
  if (what.size() >= words.size() &&
      what.compare(what.size() - words.size(), words.size(), words) == 0) {
    what.resize(what.size() - words.size());
  }
  return what;
}

}  // namespace afxdp
