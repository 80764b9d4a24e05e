// What <afxdp/net.hpp> costs per frame: parse alone, and a UDP echo's whole answer (parse,
// swap_endpoints, update_checksums), over IPv4 and IPv6 at 64 and 1500 bytes.
// Run: build/release/bench/net_bench (the checksum's full sum grows with the frame).
#include <afxdp/net.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <vector>

namespace {

// Ethernet, IPv4 or IPv6, UDP 40000 -> 7777, the rest payload: `size` bytes.
std::vector<std::byte> udp_frame(bool ipv6, std::size_t size) {
  std::vector<std::byte> f(size, std::byte{0x5a});
  const auto put16 = [&](std::size_t at, unsigned v) {
    f[at] = static_cast<std::byte>(v >> 8);
    f[at + 1] = static_cast<std::byte>(v & 0xffU);
  };
  put16(12, ipv6 ? 0x86dd : 0x0800);
  const std::size_t ip = 14;
  const std::size_t udp = ip + (ipv6 ? 40 : 20);
  if (ipv6) {
    put16(ip, 0x6000);
    put16(ip + 4, static_cast<unsigned>(size - udp));
    f[ip + 6] = std::byte{17};
  } else {
    put16(ip, 0x4500);
    put16(ip + 2, static_cast<unsigned>(size - ip));
    put16(ip + 6, 0);  // not a fragment
    f[ip + 9] = std::byte{17};
  }
  put16(udp, 40000);
  put16(udp + 2, 7777);
  put16(udp + 4, static_cast<unsigned>(size - udp));
  return f;
}

void parse(benchmark::State& state) {
  std::vector<std::byte> f =
      udp_frame(state.range(0) == 6, static_cast<std::size_t>(state.range(1)));
  for (auto _ : state) {
    const afxdp::net::Headers h = afxdp::net::parse(f);
    benchmark::DoNotOptimize(h.udp.destination_port());
  }
  state.SetItemsProcessed(state.iterations());
}

void udp_echo(benchmark::State& state) {
  std::vector<std::byte> f =
      udp_frame(state.range(0) == 6, static_cast<std::size_t>(state.range(1)));
  for (auto _ : state) {
    afxdp::net::Headers h = afxdp::net::parse(f);
    afxdp::net::swap_endpoints(h);
    afxdp::net::update_checksums(h);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(parse)->ArgsProduct({{4, 6}, {64, 1500}})->ArgNames({"ip", "bytes"});
BENCHMARK(udp_echo)->ArgsProduct({{4, 6}, {64, 1500}})->ArgNames({"ip", "bytes"});

}  // namespace

BENCHMARK_MAIN();
