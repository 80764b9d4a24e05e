// The benchmarks check the library's PortConfig rules once, while parsing (to say a refusal in
// the option's words), and open the Port with that verdict: Port::open does not check again.
// validate(PortConfig)'s runs are counted by the linker (validate_calls.hpp); no kernel, no root.
#include <xsk/xsk_options.hpp>
#include <xsk/xsk_run.hpp>

#include "expect_throw.hpp"
#include "parse_xsk_options.hpp"
#include "validate_calls.hpp"
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <system_error>
#include <vector>

namespace {

using afxdp::tool::Benchmark;
using afxdp::tool::XskOptions;

using xsk_options_test::parse;

TEST(ValidateOnce, ParsingChecksThePortConfigAndOpeningDoesNot) {
  for (const Benchmark b : {Benchmark::rxdrop, Benchmark::txpush, Benchmark::l2fwd}) {
    const int before = afxdp::test::port_validations();
    const XskOptions o = parse(b, {"-i", "afxdp-none0", "-f", "2048", "--ring-size", "512"});
    EXPECT_EQ(afxdp::test::port_validations() - before, 1);
    ASSERT_TRUE(o.port.has_value());
    const afxdp::PortConfig expected = afxdp::tool::port_config(o);  // what the options ask for
    EXPECT_EQ((*o.port)->frame_size, 2048U);
    EXPECT_EQ((*o.port)->ring_size, expected.ring_size);
    EXPECT_EQ((*o.port)->receive, expected.receive);
    EXPECT_EQ((*o.port)->transmit, expected.transmit);
    EXPECT_THROW_WITH((void)afxdp::tool::open_port(o), std::system_error, "afxdp-none0");
    EXPECT_EQ(afxdp::test::port_validations() - before, 1) << afxdp::tool::benchmark_name(b);
  }
}

}  // namespace
