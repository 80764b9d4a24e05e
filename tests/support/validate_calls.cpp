#include "validate_calls.hpp"

#include <afxdp/port.hpp>

#include <atomic>

namespace {

std::atomic<int> calls{0};

}  // namespace

// The linker sends every call of the mangled afxdp::validate(const PortConfig&) from another
// object here (__wrap_), and __real_ to the library's own (CMakeLists.txt: --wrap).
void real_validate(const afxdp::PortConfig& config) asm(
    "__real__ZN5afxdp8validateERKNS_10PortConfigE");
void counted_validate(const afxdp::PortConfig& config) asm(
    "__wrap__ZN5afxdp8validateERKNS_10PortConfigE");

void counted_validate(const afxdp::PortConfig& config) {
  calls.fetch_add(1, std::memory_order_relaxed);
  real_validate(config);
}

int afxdp::test::port_validations() noexcept { return calls.load(std::memory_order_relaxed); }
