// The name UniqueFd had before it was public, for the tests that still spell it so.
#pragma once

#include <afxdp/unique_fd.hpp>

namespace afxdp::detail {
using UniqueFd = ::afxdp::UniqueFd;
}  // namespace afxdp::detail
