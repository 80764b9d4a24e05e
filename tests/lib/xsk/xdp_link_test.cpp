// XdpLink: a program attached through a bpf_link lives exactly as long as the XdpLink (and its
// moves); a second attach to the same interface is refused with a message naming it.
#include "system_test.hpp"
#include "xsk_fixture.hpp"

#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xdp_link.hpp>
#include <lab.hpp>

#include <bpf/bpf.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

namespace {

bool mentions(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

// Does the kernel still know the bpf_link `id`? Its release after the last close may be deferred.
bool link_exists(std::uint32_t id) {
  for (int i = 0; i < 40; ++i) {
    const int fd = bpf_link_get_fd_by_id(id);
    if (fd < 0) return false;
    ::close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

TEST(XdpLink, AttachesAndDetachesWithItsOwner) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const unsigned ifindex = afxdp::interface_index(veth.b());
  const afxdp::UniqueFd program = afxdp::test::load_pass_program();
  std::uint32_t link_id = 0;
  {
    const afxdp::XdpLink link(veth.b(), program.get(), {.mode = afxdp::AttachMode::skb});
    EXPECT_EQ(link.interface(), veth.b());
    EXPECT_EQ(link.ifindex(), ifindex);
    EXPECT_NE(link.program_id(), 0U);
    EXPECT_EQ(afxdp::attached_xdp_program(ifindex), link.program_id());
    link_id = link.link_id();
    ASSERT_NE(link_id, 0U);
    const int fd = bpf_link_get_fd_by_id(link_id);
    EXPECT_GE(fd, 0) << "the link is not in the kernel while its owner lives";
    if (fd >= 0) ::close(fd);
  }
  EXPECT_EQ(afxdp::attached_xdp_program(ifindex), 0U);
  EXPECT_FALSE(link_exists(link_id)) << "bpf_link " << link_id << " outlived its XdpLink";
}

TEST(XdpLink, SecondAttachIsRefusedNamingTheInterface) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const afxdp::UniqueFd program = afxdp::test::load_pass_program();
  const afxdp::XdpLink first(veth.b(), program.get(), {.mode = afxdp::AttachMode::native});
  ::testing::internal::CaptureStderr();  // the library does not log, libbpf included
  for (const afxdp::AttachMode mode : {afxdp::AttachMode::native, afxdp::AttachMode::skb}) {
    for (const bool replace : {false, true}) {
      try {
        const afxdp::XdpLink second(veth.b(), program.get(), {.mode = mode, .replace = replace});
        ADD_FAILURE() << "a second link attached (replace=" << replace << ")";
      } catch (const afxdp::XdpAttachConflict& e) {
        EXPECT_EQ(e.code().value(), EBUSY) << e.what();
        EXPECT_EQ(e.other_program(), first.program_id());
        EXPECT_TRUE(mentions(e.what(), veth.b())) << e.what();
        // replace cannot help: only the owner of a bpf_link detaches it.
        if (replace) {
          EXPECT_TRUE(mentions(e.what(), "bpf_link")) << e.what();
        }
      }
    }
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(afxdp::attached_xdp_program(first.ifindex()), first.program_id());
}

TEST(XdpLink, MovedLinkKeepsTheProgramAttached) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const unsigned ifindex = afxdp::interface_index(veth.b());
  const afxdp::UniqueFd program = afxdp::test::load_pass_program();
  {
    afxdp::XdpLink first(veth.b(), program.get(), {.mode = afxdp::AttachMode::skb});
    const std::uint32_t id = first.program_id();
    afxdp::XdpLink moved(std::move(first));
    {
      const afxdp::XdpLink gone = std::move(moved);
      EXPECT_EQ(afxdp::attached_xdp_program(ifindex), id);
    }
    EXPECT_EQ(afxdp::attached_xdp_program(ifindex), 0U) << "the last owner went";
  }
  EXPECT_EQ(afxdp::attached_xdp_program(ifindex), 0U);
}

TEST(XdpLink, MissingInterfaceIsNamed) {
  AFXDP_REQUIRE_SYSTEM();
  const afxdp::UniqueFd program = afxdp::test::load_pass_program();
  try {
    const afxdp::XdpLink link("nosuchif0", program.get());
    ADD_FAILURE() << "attached to a missing interface";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENODEV) << e.what();
    EXPECT_TRUE(mentions(e.what(), "nosuchif0")) << e.what();
  }
}

}  // namespace

namespace {

// Native attach on an interface whose driver has no native XDP (lo: issue 41) names the way that
// works instead of a bare "Operation not supported".
TEST(XdpLink, NativeWithoutDriverSupportSaysSkbModeWorks) {
  AFXDP_REQUIRE_SYSTEM();
  const afxdp::UniqueFd program = afxdp::test::load_pass_program();
  try {
    const afxdp::XdpLink link("lo", program.get(), {.mode = afxdp::AttachMode::native});
    ADD_FAILURE() << "lo took a native XDP program";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EOPNOTSUPP) << e.what();
    EXPECT_TRUE(mentions(e.what(), "no native XDP")) << e.what();
    EXPECT_TRUE(mentions(e.what(), "skb mode")) << e.what();
  }
  EXPECT_EQ(afxdp::attached_xdp_program(afxdp::interface_index("lo")), 0U);
}

}  // namespace
