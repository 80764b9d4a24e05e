#include <afxdp/error.hpp>

#include <system_error>

namespace afxdp {

void throw_errno(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

}  // namespace afxdp
