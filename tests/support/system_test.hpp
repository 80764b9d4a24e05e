// System tests run real AF_XDP in a private network namespace that the test binary enters at
// start (see system_main.cpp): every veth pair a test makes lives there and vanishes with the
// process, however it ends. Without privilege every test skips, naming what is missing.
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace afxdp::test {
// Empty when system tests can run; else why not ("needs CAP_NET_ADMIN (run as root)").
const std::string& skip_reason();
}  // namespace afxdp::test

// First statement of every system test.
#define AFXDP_REQUIRE_SYSTEM()                                                           \
  do {                                                                                   \
    if (!afxdp::test::skip_reason().empty()) GTEST_SKIP() << afxdp::test::skip_reason(); \
  } while (0)
