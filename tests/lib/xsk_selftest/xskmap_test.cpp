// The kernel's cases about the XDP program and its XSKMAP over the sockets' lives: an entry moved
// from one socket to another (XDP_PROG_CLEANUP) and set-up and tear-down in rounds (TEARDOWN).
// They need the kernel's program, so they run on veth only.
#include "harness.hpp"

#include <bpf/bpf.h>
#include <cerrno>
#include <optional>
#include <system_error>
#include <unistd.h>

namespace afxdp::conformance {
namespace {

// XDP_PROG_CLEANUP, as the kernel's: two sockets on one UMEM and queue at each end (the second
// sharing the first's fill and completion rings) and both receiving ones in the XSKMAP (0, 1).
// Round one: both tx sockets send the default stream, a batch each in turn; the redirect program
// gives all of it to the first rx socket. Round two: the XSKMAP's entry 0 moved to the second rx
// socket and the second tx socket alone sends the stream again: all of it reaches the second rx
// socket, none the first, and the same program is still attached.
TEST_P(Conformance, XDP_PROG_CLEANUP) {
  AFXDP_REQUIRE_SYSTEM();
  const auto veth = make_veth(GetParam());
  Link link(veth, GetParam(), {.xskmap_entries = 2});
  Socket second_tx = sharing_socket(link.a, GetParam(), false);
  Socket second_rx = sharing_socket(link.b, GetParam(), true);
  link.b_program->insert(1, second_rx.fd());
  const std::uint32_t program = link.b_program->program_id();
  auto both = uniform_stream(default_packets, min_packet);
  for (std::size_t i = 0; i < both.size(); ++i) both[i].socket = (i / batch) % 2;
  Receiver first_receiver = receiver_on(link.b, link.setup);
  first_receiver.lend();
  {
    Sender sender = sender_on(link.a, link.b, both, link.setup);
    sender.add_socket(second_tx);
    expect_valid(first_receiver, sender, both);
    ASSERT_EQ(run_traffic(sender, {&first_receiver}), "") << "round one";
    ASSERT_EQ(sender.sent_valid(), default_packets);
  }
  link.b_program->insert(0, second_rx.fd());
  const auto stream = uniform_stream(default_packets, min_packet);
  Sender sender = sender_on(second_tx, link.b, stream, link.setup);
  Receiver second_receiver(second_rx, 0, link.setup.rx_frames);
  second_receiver.already_lent();  // the first receiver's frames, on the fill ring they share
  expect_valid(second_receiver, sender, stream);
  EXPECT_EQ(run_traffic(sender, {&second_receiver}), "") << "round two";
  EXPECT_EQ(first_receiver.receive(batch), 0U) << "the first socket still receives";
  EXPECT_EQ(attached_xdp_program(link.b_program->ifindex()), program);
}

// TEARDOWN: ten rounds of set-up, traffic and tear-down on one veth pair; after each, no XDP
// program on either end, and the program and its XSKMAP are gone from the kernel.
TEST_P(Conformance, TEARDOWN) {
  AFXDP_REQUIRE_SYSTEM();
  const auto veth = make_veth(GetParam());
  for (int round = 0; round < 10; ++round) {
    std::uint32_t program = 0;
    std::uint32_t map = 0;
    unsigned a = 0, b = 0;
    {
      std::optional<Link> made;
      // The kernel frees a closed socket's queue binding after a grace period; its own test
      // retries the bind (SOCK_RECONF_CTR times, USLEEP_MAX apart) the same way.
      for (int attempt = 0; !made; ++attempt) {
        try {
          made.emplace(veth, GetParam());
        } catch (const std::system_error& e) {
          if (e.code().value() != EBUSY || attempt == 10) throw;
          ::usleep(10000);
        }
      }
      Link& link = *made;
      program = link.b_program->program_id();
      a = link.a_program->ifindex();
      b = link.b_program->ifindex();
      const int fd = bpf_prog_get_fd_by_id(program);
      ASSERT_GE(fd, 0);
      bpf_prog_info info{};
      std::uint32_t maps[1] = {};
      info.nr_map_ids = 1;
      info.map_ids = reinterpret_cast<std::uint64_t>(maps);
      std::uint32_t length = sizeof info;
      ASSERT_EQ(bpf_obj_get_info_by_fd(fd, &info, &length), 0);
      ::close(fd);
      map = maps[0];
      ASSERT_NE(map, 0U);
      ASSERT_EQ(send_receive(link), "") << "round " << round;
    }
    EXPECT_EQ(attached_xdp_program(a), 0U) << "round " << round;
    EXPECT_EQ(attached_xdp_program(b), 0U) << "round " << round;
    // Freeing the program and the map may finish in a workqueue after the last close.
    const auto gone = [](int fd) {
      if (fd >= 0) ::close(fd);
      return fd < 0 && errno == ENOENT;
    };
    bool program_gone = false, map_gone = false;
    for (int i = 0; i < 1000 && !(program_gone && map_gone); ++i) {
      program_gone = gone(bpf_prog_get_fd_by_id(program));
      map_gone = gone(bpf_map_get_fd_by_id(map));
      if (!(program_gone && map_gone)) ::usleep(1000);
    }
    EXPECT_TRUE(program_gone) << "program " << program << " still exists, round " << round;
    EXPECT_TRUE(map_gone) << "XSKMAP " << map << " still exists, round " << round;
  }
}

}  // namespace
}  // namespace afxdp::conformance
