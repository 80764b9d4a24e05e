#include <afxdp/error.hpp>

#include <system_error>

namespace afxdp {

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
