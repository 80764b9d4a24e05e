// How many times afxdp::validate(const PortConfig&) has run in this process: every call that
// reaches it from another unit (validated(), Port::open, the tool's parse, a test's own) is
// counted through the linker's --wrap, which linking afxdp_test_validate_calls turns on. The
// product is not changed for it: it shows that a validated config is not checked again.
#pragma once

namespace afxdp::test {

int port_validations() noexcept;

}  // namespace afxdp::test
