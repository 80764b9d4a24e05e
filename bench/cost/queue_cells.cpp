// The Queue's cells: each verb as the tool's loops call it (rxdrop, l2fwd, a forwarder, txpush),
// in busy batches over testing::Loopback. Only the Queue's call is counted.
#include "cells.hpp"
#include "meter.hpp"

#include <afxdp/queue.hpp>

#include <linux/bpf.h>

#include <array>
#include <optional>

namespace afxdp::cost {
namespace {

std::uint64_t syscalls(const Queue& q) {
  const QueueStats s = q.stats();
  return s.wakeups + s.polls;
}

template <class Reader>
void receive_cell(const std::string& name, const Run& run, Reader reader) {
  testing::Loopback lb(loopback_config());
  Queue& q = lb.port().queues()[0];
  const auto packet = test_packet();
  Meter m(name, run);
  m.run(
      [&](Meter& meter) {
        arrive(lb, 0, packet, meter.batch_size());
        return meter.measured([&] { return q.receive(reader, meter.batch_size()); });
      },
      [&] { return syscalls(q); });
}

template <class Handler>
void serve_cell(const std::string& name, const Run& run, Handler handler) {
  testing::Loopback lb(loopback_config());
  Queue& q = lb.port().queues()[0];
  const auto packet = test_packet();
  Meter m(name, run);
  m.run(
      [&](Meter& meter) {
        arrive(lb, 0, packet, meter.batch_size());
        const std::uint32_t n =
            meter.measured([&] { return q.serve(handler, meter.batch_size()); });
        (void)lb.transmitted(0);  // the wire, and the completions published
        return n;
      },
      [&] { return syscalls(q); });
}

template <class Handler>
void forward_cell(const std::string& name, const Run& run, Handler handler) {
  testing::Loopback lb(loopback_config(2));
  Queue& in = lb.port().queues()[0];
  Queue& out = lb.port().queues()[1];
  const auto packet = test_packet();
  Meter m(name, run);
  m.run(
      [&](Meter& meter) {
        arrive(lb, 0, packet, meter.batch_size());
        const std::uint32_t n =
            meter.measured([&] { return in.forward(out, handler, meter.batch_size()); });
        (void)lb.transmitted(1);
        return n;
      },
      [&] { return syscalls(in) + syscalls(out); });
}

// txpush: allocate and send are counted; the application's writing of the frames is not.
void txpush_cell(const Run& run) {
  testing::Loopback lb(loopback_config());
  Queue& q = lb.port().queues()[0];
  Meter m("txpush", run);
  m.run(
      [&](Meter& meter) {
        std::optional<TxBatch> batch;
        meter.measured([&] { batch.emplace(q.allocate(meter.batch_size())); });
        for (TxFrame f : *batch) f.resize(64);
        const std::uint32_t sent = meter.measured([&] {
          const std::uint32_t n = batch->send();
          batch.reset();  // ending the batch is the Queue's work too
          return n;
        });
        (void)lb.transmitted(0);
        return sent;
      },
      [&] { return syscalls(q); });
}

// keep+send: a reader keeps every frame (a FrameRef each) and sends them all after the batch in one
// send(span), as an application that answers later does. receive, keep and send are counted.
void keep_send_cell(const Run& run) {
  testing::Loopback lb(loopback_config());
  Queue& q = lb.port().queues()[0];
  const auto packet = test_packet();
  std::array<FrameRef, 64> kept;
  Meter m("keep+send", run);
  m.run(
      [&](Meter& meter) {
        arrive(lb, 0, packet, meter.batch_size());
        const std::uint32_t n = meter.measured([&] {
          std::uint32_t held = 0;
          const std::uint32_t got = q.receive(
              [&](Frames frames) {
                for (Frame f : frames) kept[held++] = q.keep(f);
              },
              meter.batch_size());
          (void)q.send(std::span<FrameRef>(kept.data(), held));
          return got;
        });
        (void)lb.transmitted(0);
        return n;
      },
      [&] { return syscalls(q); });
}

// Multi-buffer: packets of `fragments` frames each, 64 descriptors a batch.
testing::LoopbackConfig multi_buffer_config() {
  testing::LoopbackConfig c = loopback_config();
  c.multi_buffer = true;
  return c;
}

std::vector<std::byte> chain_packet(const testing::LoopbackConfig& c, std::uint32_t fragments) {
  const std::size_t room = c.frame_size - XDP_PACKET_HEADROOM - c.headroom;
  return test_packet(fragments == 1 ? 64 : (fragments - 1) * room + 64);
}

template <class Reader>
void receive_packets_cell(const std::string& name, const Run& run, std::uint32_t fragments,
                          Reader reader) {
  testing::Loopback lb(multi_buffer_config());
  Queue& q = lb.port().queues()[0];
  const auto packet = chain_packet(multi_buffer_config(), fragments);
  Meter m(name, run);
  m.run(
      [&](Meter& meter) {
        arrive(lb, 0, packet, meter.batch_size() / fragments);
        return meter.measured([&] { return q.receive_packets(reader, meter.batch_size()); });
      },
      [&] { return syscalls(q); });
}

template <class Handler>
void serve_packets_cell(const std::string& name, const Run& run, std::uint32_t fragments,
                        Handler handler) {
  testing::Loopback lb(multi_buffer_config());
  Queue& q = lb.port().queues()[0];
  const auto packet = chain_packet(multi_buffer_config(), fragments);
  Meter m(name, run);
  m.run(
      [&](Meter& meter) {
        arrive(lb, 0, packet, meter.batch_size() / fragments);
        const std::uint32_t n =
            meter.measured([&] { return q.serve_packets(handler, meter.batch_size()); });
        (void)lb.transmitted(0);
        return n;
      },
      [&] { return syscalls(q); });
}

void multi_buffer_cells(const Run& run, const Select& select) {
  for (const std::uint32_t fragments : {1U, 2U}) {
    const std::string suffix = fragments == 1 ? "" : "/2";
    if (select("receive_packets" + suffix)) {
      receive_packets_cell("receive_packets" + suffix, run, fragments, [](std::span<Packet>) {});
    }
    if (select("serve_packets" + suffix)) {
      serve_packets_cell("serve_packets" + suffix, run, fragments,
                         [](Packet&) { return Verdict::send_back; });
    }
  }
}

}  // namespace

void queue_cells(const Run& run, const Select& select) {
  std::uint64_t counted = 0;
  if (select("receive")) receive_cell("receive", run, [](Frames) {});
  if (select("receive+count")) {
    receive_cell("receive+count", run, [&](Frames f) { counted += f.size(); });
  }
  if (select("serve")) serve_cell("serve", run, [](Frame&) { return Verdict::send_back; });
  if (select("serve+swap")) {
    serve_cell("serve+swap", run, [](Frame& f) {
      swap_macs(f.data().data());
      return Verdict::send_back;
    });
  }
  if (select("forward")) forward_cell("forward", run, [](Frame&) { return Verdict::send; });
  if (select("forward+swap")) {
    forward_cell("forward+swap", run, [](Frame& f) {
      swap_macs(f.data().data());
      return Verdict::send;
    });
  }
  if (select("txpush")) txpush_cell(run);
  if (select("keep+send")) keep_send_cell(run);
  multi_buffer_cells(run, select);
  if (counted == 1) std::printf("(never)\n");  // keeps the count alive
}

}  // namespace afxdp::cost
