// The library's error policy, for code beside it too: the control path throws std::system_error
// naming the call and the object ("setsockopt(XDP_UMEM_REG) on veth0 queue 3: ..."), bad
// configuration std::invalid_argument naming the field and the rule; the data path never throws.
#pragma once

#include <string>
#include <system_error>

namespace afxdp {

// Throws std::system_error(error, std::generic_category(), what): `error` is an errno value
// (pass errno right after the call, or -rc for calls that return -errno, as libbpf's do).
[[noreturn]] void throw_errno(int error, const std::string& what);

// e.what() without the ": <the errno's words>" std::system_error puts at its end: to say the
// error again with more in front, without the words twice.
std::string message_of(const std::system_error& e);

}  // namespace afxdp
