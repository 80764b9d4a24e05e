// Who owns an interface's XDP hook, and the errors a caller sees when a name or queue is wrong:
// a second redirect program is refused (EBUSY, naming the interface); a program attached by
// another netlink user is refused unless the caller asks to replace it, and then replaced.
#include "system_test.hpp"
#include "xsk_fixture.hpp"

#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/unique_fd.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/if_link.h>

#include <stdexcept>
#include <system_error>

namespace {

bool mentions(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

TEST(ProgramConflict, SecondRedirectProgramIsRefused) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::XskProgram first({.interface = veth.b(), .mode = afxdp::AttachMode::native});
  ::testing::internal::CaptureStderr();  // the library does not log, libbpf included
  for (const afxdp::AttachMode mode : {afxdp::AttachMode::native, afxdp::AttachMode::skb}) {
    for (const bool replace : {false, true}) {
      try {
        afxdp::XskProgram second({.interface = veth.b(), .mode = mode, .replace = replace});
        ADD_FAILURE() << "a second program attached (replace=" << replace << ")";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code().value(), EBUSY) << e.what();
        EXPECT_TRUE(mentions(e.what(), veth.b())) << e.what();
        // replace=true cannot help: a bpf_link is detached only by its owner.
        if (replace) {
          EXPECT_TRUE(mentions(e.what(), "bpf_link")) << e.what();
        }
      }
    }
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  // The first one is untouched.
  EXPECT_EQ(afxdp::attached_xdp_program(first.ifindex()), first.program_id());
}

class NetlinkProgram : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(NetlinkProgram, RefusedWithoutReplaceAndReplacedWithIt) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const unsigned ifindex = afxdp::interface_index(veth.b());
  {
    // Another tool's program, attached the old way (netlink, no bpf_link), as
    // `ip link set dev X xdp obj ...` would.
    const afxdp::UniqueFd pass = afxdp::test::load_pass_program();
    ASSERT_EQ(bpf_xdp_attach(static_cast<int>(ifindex), pass.get(), GetParam(), nullptr), 0);
  }  // netlink keeps the program attached after our fd closes
  const std::uint32_t other = afxdp::attached_xdp_program(ifindex);
  ASSERT_NE(other, 0U);

  try {
    afxdp::XskProgram refused({.interface = veth.b(), .mode = afxdp::AttachMode::native});
    ADD_FAILURE() << "attached over another program without replace";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EBUSY) << e.what();
    EXPECT_TRUE(mentions(e.what(), veth.b())) << e.what();
    // The library's words, not a tool's flag: what to set to take the program's place.
    EXPECT_TRUE(mentions(e.what(), "replace")) << e.what();
    EXPECT_FALSE(mentions(e.what(), "--")) << e.what();
  }
  EXPECT_EQ(afxdp::attached_xdp_program(ifindex), other);

  {
    afxdp::XskProgram ours(
        {.interface = veth.b(), .mode = afxdp::AttachMode::native, .replace = true});
    EXPECT_NE(ours.program_id(), other);
    EXPECT_EQ(afxdp::attached_xdp_program(ifindex), ours.program_id());
  }
  EXPECT_EQ(afxdp::attached_xdp_program(ifindex), 0U);
}

INSTANTIATE_TEST_SUITE_P(Modes, NetlinkProgram,
                         ::testing::Values(XDP_FLAGS_DRV_MODE, XDP_FLAGS_SKB_MODE),
                         [](const ::testing::TestParamInfo<std::uint32_t>& flags) {
                           return std::string(flags.param == XDP_FLAGS_SKB_MODE ? "skb" : "native");
                         });

TEST(ControlErrors, MissingInterfaceIsNamed) {
  AFXDP_REQUIRE_SYSTEM();
  const std::string missing = afxdp::lab::unique_prefix() + "z";
  afxdp::Umem umem({.frame_count = 64});
  try {
    afxdp::Socket socket(umem, {.interface = missing});
    ADD_FAILURE() << "bound to a missing interface";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENODEV) << e.what();
    EXPECT_TRUE(mentions(e.what(), missing)) << e.what();
  }
  try {
    afxdp::XskProgram program({.interface = missing});
    ADD_FAILURE() << "attached to a missing interface";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENODEV) << e.what();
    EXPECT_TRUE(mentions(e.what(), missing)) << e.what();
  }
}

TEST(ControlErrors, QueueBeyondTheDeviceIsNamedAndLeavesTheUmemUsable) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix(), 2);
  afxdp::Umem umem({.frame_count = 64});
  try {
    afxdp::Socket socket(umem, {.interface = veth.b(), .queue = 2});
    ADD_FAILURE() << "bound to queue 2 of a 2-queue device";
  } catch (const std::exception& e) {
    EXPECT_TRUE(mentions(e.what(), veth.b())) << e.what();
    EXPECT_TRUE(mentions(e.what(), "queue 2")) << e.what();
  }
  // Nothing was done to the Umem: the right queue still binds.
  afxdp::Socket socket(umem, {.interface = veth.b(), .queue = 1, .mode = afxdp::BindMode::skb});
  EXPECT_EQ(socket.name(), veth.b() + ":1");

  afxdp::XskProgram program({.interface = veth.b(), .mode = afxdp::AttachMode::skb});
  EXPECT_NO_THROW(program.insert(1, socket.fd()));
  try {
    program.insert(2, socket.fd());
    ADD_FAILURE() << "XSKMAP took queue 2 of a 2-queue device";
  } catch (const std::system_error& e) {
    EXPECT_TRUE(mentions(e.what(), veth.b())) << e.what();
    EXPECT_TRUE(mentions(e.what(), "queue 2")) << e.what();
  }
}

}  // namespace
