// Every option of every subcommand, given a bad value (or a bad combination), makes the real
// binary fail the same way: a non-zero exit, exactly one non-empty line on stderr naming the
// option or the value, nothing on stdout (no statistics, no usage), and no XDP program left on the
// veth pair. The table is checked against `afxdp SUB --help` for every subcommand that
// `afxdp --help` lists: an option added without a row here fails the test.
//
// Flags take a value only as --flag=VALUE, so "--json=maybe" is each flag's bad value; flags that
// change how output is printed (--json, -Q) also have a row where they come with another bad
// value, to show that the failure still prints one plain line and nothing on stdout.
#include "system_test.hpp"
#include "tool_test.hpp"

#include <afxdp/interface.hpp>
#include <afxdp/xsk_program.hpp>
#include <lab.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace {

using afxdp::test::lines_of;
using afxdp::test::run_tool;
using afxdp::test::ToolResult;

struct Row {
  std::string option;             // the option covered, as --help names it ("" covers none)
  std::vector<std::string> args;  // after `afxdp`
  std::vector<std::string> says;  // parts of the one line on stderr
};

// Options with no value that could be bad: --help and --version print what they print and exit 0
// whatever follows them.
const std::set<std::string> no_bad_value = {"--help", "--version"};

// A flag's bad value: anything that is not a truth value.
Row flag(const std::string& sub, const std::string& interface, const std::string& name) {
  return {name, {sub, "-i", interface, name + "=maybe"}, {name, "maybe"}};
}

// The options rxdrop, txpush and l2fwd share; "-d 1" ends a run that wrongly starts.
std::vector<Row> bench_rows(const std::string& s, const std::string& i) {
  std::vector<Row> rows = {
      {"--interface", {s, "-d", "1"}, {"--interface", "required"}},
      {"--interface", {s, "-i", "nosuchif0", "-d", "1"}, {"nosuchif0", "does not exist"}},
      {"--queue", {s, "-i", i, "-q", "3", "-d", "1"}, {"-q", i, "1 rx queue", "queue 3"}},
      {"--queue", {s, "-i", i, "-q", "x", "-d", "1"}, {"-q", "'x'"}},
      {"--queue", {s, "-i", i, "-q", "0-1", "-d", "1"}, {"-q", "queue 1 does not exist"}},
      {"--native", {s, "-i", i, "-N", "-S", "-d", "1"}, {"--native", "--skb"}},
      {"--skb", {s, "-i", i, "-S", "-z", "-d", "1"}, {"--skb", "--zero-copy"}},
      {"--zero-copy", {s, "-i", i, "-z", "-d", "1"}, {"zero-copy", i, "-c"}},
      {"--copy", {s, "-i", i, "-c", "-z", "-d", "1"}, {"--zero-copy", "--copy"}},
      {"--frame-size", {s, "-i", i, "-f", "3000", "-d", "1"}, {"-f", "3000", "power of two"}},
      {"--frame-size", {s, "-i", i, "-f", "abc", "-d", "1"}, {"--frame-size", "abc"}},
      {"--unaligned", {s, "-i", i, "-u", "-f", "1000", "-d", "1"}, {"-f", "1000", "2048 to 65536"}},
      {"--batch", {s, "-i", i, "-b", "0", "-d", "1"}, {"-b", "at least 1"}},
      {"--batch", {s, "-i", i, "-b", "4096", "-d", "1"}, {"-b", "4096", "larger than a ring"}},
      {"--count", {s, "-i", i, "-C", "-1", "-d", "1"}, {"--count", "-1"}},
      {"--count", {s, "-i", i, "-C", "abc", "-d", "1"}, {"--count", "abc"}},
      {"--duration", {s, "-i", i, "--duration=-1"}, {"--duration", "-1"}},
      {"--duration", {s, "-i", i, "-d", "abc"}, {"--duration", "abc"}},
      {"--interval", {s, "-i", i, "-n", "0", "-d", "1"}, {"--interval", "0", "0.01 to 86400"}},
      {"--shared-umem",
       {s, "-i", i, "-M", "-q", "0-1", "-d", "1"},
       {"-q", "queue 1 does not exist"}},
      {"--frames", {s, "-i", i, "--frames", "10", "-d", "1"}, {"--frames", "10"}},
      {"--ring-size",
       {s, "-i", i, "--ring-size", "1000", "-d", "1"},
       {"--ring-size", "1000", "power of two"}},
      {"--cpu", {s, "-i", i, "--cpu", "4000", "-d", "1"}, {"--cpu", "CPU 4000"}},
      {"--cpu", {s, "-i", i, "--cpu", "x", "-d", "1"}, {"--cpu", "'x'"}},
      {"--user", {s, "-i", i, "--user", "no-such-user-x", "-d", "1"}, {"--user", "no-such-user-x"}},
      {"--group",
       {s, "-i", i, "--group", "no-such-group-x", "-d", "1"},
       {"--group", "no-such-group-x"}},
      {"--json", {s, "-i", i, "--json", "-f", "3000", "-d", "1"}, {"-f", "3000"}},
      {"--quiet", {s, "-i", i, "-Q", "--ring-size", "100", "-d", "1"}, {"--ring-size", "100"}},
      {"", {s, "-i", i, "--bogus", "-d", "1"}, {"--bogus"}},
      {"", {s, "-i", i, "stray", "-d", "1"}, {"stray"}},
  };
  for (const char* name : {"--native", "--copy", "--poll", "--busy-poll", "--no-need-wakeup",
                           "--unaligned", "--extra-stats", "--app-stats", "--quiet",
                           "--shared-umem", "--json", "--force", "--drop-privileges", "--frags"}) {
    rows.push_back(flag(s, i, name));
  }
  if (s != "txpush") {
    rows.push_back({"--steer",
                    {s, "-i", i, "--steer", "udp dst prot 5", "-d", "1"},
                    {"--steer", "'prot' at 9", "expected port"}});
  }
  return rows;
}

std::vector<Row> txpush_rows(const std::string& i) {
  const std::string s = "txpush";
  return {
      {"--size", {s, "-i", i, "-s", "5000", "-d", "1"}, {"-s", "5000", "larger than a frame"}},
      {"--size", {s, "-i", i, "-s", "10", "-d", "1"}, {"-s", "10", "smaller than the headers"}},
      {"--dst-mac", {s, "-i", i, "-G", "11:22:33", "-d", "1"}, {"-G", "11:22:33", "MAC"}},
      {"--src-mac", {s, "-i", i, "-H", "11:22:33:44:55:zz", "-d", "1"}, {"-H", "zz", "MAC"}},
      {"--vlan", {s, "-i", i, "-V", "-s", "45", "-d", "1"}, {"-s", "45", "46 bytes"}},
      {"--vlan", {s, "-i", i, "--vlan=maybe", "-d", "1"}, {"--vlan", "maybe"}},
      {"--vlan-id", {s, "-i", i, "-V", "-J", "4096", "-d", "1"}, {"-J", "0 to 4095"}},
      {"--vlan-priority", {s, "-i", i, "-V", "-K", "8", "-d", "1"}, {"-K", "0 to 7"}},
      {"--src-ip", {s, "-i", i, "--src-ip", "1.2.3", "-d", "1"}, {"--src-ip", "1.2.3", "IPv4"}},
      {"--dst-ip", {s, "-i", i, "--dst-ip", "300.1.2.3", "-d", "1"}, {"--dst-ip", "300.1.2.3"}},
      {"--src-port", {s, "-i", i, "--src-port", "70000", "-d", "1"}, {"--src-port", "65535"}},
      {"--dst-port", {s, "-i", i, "--dst-port", "70000", "-d", "1"}, {"--dst-port", "65535"}},
      {"--rate", {s, "-i", i, "--rate=-5", "-d", "1"}, {"--rate", "negative"}},
      {"--pcap",
       {s, "-i", i, "--pcap", "/nonexistent-dir/x.pcap", "-d", "1"},
       {"--pcap", "/nonexistent-dir/x.pcap", "No such file"}},
      // Opens, but is no capture: found once the sockets are up, and still the only line (the
      // copy-mode notice comes only after a set-up that worked).
      {"--pcap", {s, "-i", i, "-c", "--pcap", "/dev/null", "-d", "1"}, {"/dev/null"}},
      {"--pcap", {s, "-i", i, "--pcap", "/dev/null", "-d", "1"}, {"/dev/null"}},
      {"--loop", {s, "-i", i, "--loop", "2", "-d", "1"}, {"--loop", "--pcap"}},
      {"--frags", {s, "-i", i, "-F", "-s", "80000", "-d", "1"}, {"-s", "80000", "longest chain"}},
      {"--loop", {s, "-i", i, "--pcap", "/dev/null", "--loop=-1", "-d", "1"}, {"--loop", "-1"}},
  };
}

std::vector<Row> gen_rows(const std::string& i) {
  const std::string s = "gen";
  return {
      {"--interface", {s, "-d", "1"}, {"--interface", "required"}},
      {"--interface", {s, "-i", "nosuchif0", "-d", "1"}, {"nosuchif0", "does not exist"}},
      {"--size", {s, "-i", i, "-s", "20", "-d", "1"}, {"--size", "20"}},
      {"--size", {s, "-i", i, "-s", "2000", "-d", "1"}, {"2000", "MTU"}},
      {"--count", {s, "-i", i, "-C", "-1", "-d", "1"}, {"--count", "-1"}},
      {"--count", {s, "-i", i, "-C", "abc", "-d", "1"}, {"--count", "abc"}},
      {"--rate", {s, "-i", i, "--rate=-1", "-d", "1"}, {"--rate", "-1"}},
      {"--dst-mac",
       {s, "-i", i, "-G", "02:00:00:00:00", "-d", "1"},
       {"--dst-mac", "02:00:00:00:00"}},
      {"--src-mac", {s, "-i", i, "-H", "xx:00:00:00:00:01", "-d", "1"}, {"--src-mac", "xx:"}},
      {"--src-ip", {s, "-i", i, "--src-ip", "1.2.3.4.5", "-d", "1"}, {"--src-ip", "1.2.3.4.5"}},
      {"--dst-ip", {s, "-i", i, "--dst-ip", "abc", "-d", "1"}, {"--dst-ip", "abc"}},
      {"--src-port", {s, "-i", i, "--src-port", "70000", "-d", "1"}, {"--src-port", "70000"}},
      {"--dst-port", {s, "-i", i, "--dst-port=-1", "-d", "1"}, {"--dst-port", "-1"}},
      {"--cpu", {s, "-i", i, "--cpu", "4000", "-d", "1"}, {"cpu", "4000", "not available"}},
      {"--cpu", {s, "-i", i, "--cpu=-2", "-d", "1"}, {"--cpu", "-2"}},
      {"--duration", {s, "-i", i, "--duration=-1"}, {"--duration", "-1"}},
      {"--duration", {s, "-i", i, "--duration=nan"}, {"--duration", "nan"}},
      {"--batch-size", {s, "-i", i, "--batch-size", "0", "-d", "1"}, {"--batch-size", "0"}},
      {"--batch-size", {s, "-i", i, "--batch-size", "300", "-d", "1"}, {"--batch-size", "300"}},
      {"--engine", {s, "-i", i, "--engine", "pktgen", "-d", "1"}, {"--engine", "pktgen"}},
      {"--queue", {s, "-i", i, "-q", "7", "-d", "1"}, {"queue", "7"}},
      {"--queue", {s, "-i", i, "-q=-1", "-d", "1"}, {"--queue", "-1"}},
      {"--json", {s, "-i", i, "--json", "-s", "20", "-d", "1"}, {"--size", "20"}},
      {"--quiet", {s, "-i", i, "-Q", "-C", "-1", "-d", "1"}, {"--count", "-1"}},
      flag(s, i, "--json"),
      flag(s, i, "--quiet"),
      {"", {s, "-i", i, "--bogus", "-d", "1"}, {"--bogus"}},
  };
}

std::vector<Row> rxq_info_rows(const std::string& i, const std::string& other) {
  const std::string s = "rxq-info";
  return {
      {"--interface", {s, "-d", "1"}, {"--interface", "required"}},
      {"--interface", {s, "-i", "nosuchif0", "-d", "1"}, {"nosuchif0", "does not exist"}},
      {"--action", {s, "-i", i, "-a", "FORWARD", "-d", "1"}, {"--action", "FORWARD"}},
      {"--action", {s, "-i", i, "-a", "REDIRECT", "-d", "1"}, {"REDIRECT", "--redirect-to"}},
      {"--redirect-to",
       {s, "-i", i, "-a", "REDIRECT", "--redirect-to", "nosuchif0", "-d", "1"},
       {"nosuchif0", "does not exist"}},
      {"--redirect-to",
       {s, "-i", i, "--redirect-to", other, "-d", "1"},
       {"--redirect-to", "REDIRECT"}},
      {"--no-touch", {s, "-i", i, "--no-touch", "--read", "-d", "1"}, {"--no-touch", "--read"}},
      {"--read", {s, "-i", i, "--read", "--swapmac", "-d", "1"}, {"--read", "--swapmac"}},
      {"--swapmac",
       {s, "-i", i, "--swapmac", "--no-touch", "-d", "1"},
       {"--swapmac", "--no-touch"}},
      {"--interval", {s, "-i", i, "-s", "0", "-d", "1"}, {"--interval", "0"}},
      {"--interval", {s, "-i", i, "-s", "abc", "-d", "1"}, {"--interval", "abc"}},
      {"--duration", {s, "-i", i, "--duration=-1"}, {"--duration", "-1"}},
      {"--json", {s, "-i", i, "--json", "-a", "FORWARD", "-d", "1"}, {"--action", "FORWARD"}},
      flag(s, i, "--skb-mode"),
      flag(s, i, "--no-touch"),
      flag(s, i, "--read"),
      flag(s, i, "--swapmac"),
      flag(s, i, "--json"),
      {"", {s, "-i", i, "--bogus", "-d", "1"}, {"--bogus"}},
  };
}

std::vector<Row> dump_rows(const std::string& i) {
  const std::string s = "dump";
  const std::string file = "/nonexistent-dir/x.pcap";  // never created: the test leaves nothing
  return {
      {"--interface", {s, "-w", file}, {"--interface", "required"}},
      {"--interface", {s, "-i", "nosuchif0", "-w", file}, {"nosuchif0", "does not exist"}},
      {"--queue", {s, "-i", i, "-q", "3", "-w", file}, {"queue 3", i}},
      {"--queue", {s, "-i", i, "-q", "x", "-w", file}, {"--queue", "x"}},
      {"--write", {s, "-i", i}, {"--write", "required"}},
      // The file is opened before the socket and the program (issue 41 item 11): neither is
      // left when it cannot be.
      {"--write", {s, "-i", i, "-w", file, "-C", "1"}, {file, "No such file"}},
      {"--count", {s, "-i", i, "-w", file, "--count=-1"}, {"--count", "-1"}},
      {"--count", {s, "-i", i, "-w", file, "-C", "abc"}, {"--count", "abc"}},
      {"--skb", {s, "-i", i, "-w", file, "--skb=maybe"}, {"--skb", "maybe"}},
      {"--frags", {s, "-i", i, "-w", file, "--frags=maybe"}, {"--frags", "maybe"}},
      {"--steer",
       {s, "-i", i, "-w", file, "--steer", "arp and udp"},
       {"--steer", "'udp' at 9", "contradicts 'arp'"}},
      {"", {s, "-i", i, "-w", file, "--bogus"}, {"--bogus"}},
  };
}

std::vector<Row> latency_rows(const std::string& i) {
  const std::string s = "latency";
  return {
      {"--interface", {s}, {"--interface or --udp"}},
      {"--interface", {s, "-i", "nosuchif0"}, {"nosuchif0", "does not exist"}},
      // Runs, with nothing on the other end to answer.
      {"--interface",
       {s, "-i", i, "--timeout", "0.2"},
       {"no reply from the reflector on " + i, "0.2 s"}},
      {"--queue", {s, "-i", i, "-q", "3"}, {"queue 3", i}},
      {"--queue", {s, "-i", i, "-q", "x"}, {"--queue", "x"}},
      {"--udp", {s, "--udp", "10.0.0.2"}, {"--udp", "10.0.0.2"}},
      {"--udp", {s, "--udp", "10.0.0.2:7", "-i", i}, {"--udp", "--interface"}},
      {"--udp", {s, "--udp", "127.0.0.1:9", "--timeout", "0.2"}, {"no reply", "127.0.0.1:9"}},
      {"--rate", {s, "-i", i, "--rate", "0"}, {"--rate", "0"}},
      {"--rate", {s, "-i", i, "--rate", "inf"}, {"--rate", "inf"}},
      {"--rate", {s, "-i", i, "--rate", "2e6"}, {"--rate", "1000000"}},
      {"--count", {s, "-i", i, "-C", "0"}, {"--count", "0"}},
      {"--count", {s, "-i", i, "-C", "-1"}, {"--count", "-1"}},
      {"--size", {s, "-i", i, "-s", "20"}, {"--size", "20"}},
      {"--size", {s, "-i", i, "-s", "5000"}, {"--size", "5000"}},
      {"--wait", {s, "-i", i, "--wait", "foo"}, {"--wait", "foo"}},
      {"--wait", {s, "--udp", "10.0.0.2:7", "--wait", "busy-poll"}, {"busy-poll", "--udp"}},
      {"--timeout", {s, "-i", i, "--timeout", "0"}, {"--timeout", "0"}},
      {"--timeout", {s, "-i", i, "--timeout", "nan"}, {"--timeout", "nan"}},
      {"--dst-mac", {s, "-i", i, "-G", "11:22"}, {"MAC", "11:22"}},
      {"--cpu", {s, "-i", i, "--cpu", "4000"}, {"--cpu", "CPU 4000"}},
      {"--cpu", {s, "-i", i, "--cpu", "x"}, {"--cpu", "'x'"}},
      {"--json", {s, "-i", i, "--json", "--rate", "0"}, {"--rate", "0"}},
      {"--spin-before-sleep",
       {s, "-i", i, "--spin-before-sleep=-1"},
       {"--spin-before-sleep", "-1"}},
      {"--spin-before-sleep",
       {s, "-i", i, "--wait", "busy-poll", "--spin-before-sleep", "5"},
       {"--spin-before-sleep", "busy-poll"}},
      {"--steer", {s, "-i", i, "--steer", "bogus"}, {"--steer", "'bogus' at 1"}},
      {"--steer", {s, "--udp", "10.0.0.2:7", "--steer", "udp"}, {"--steer", "--udp"}},
      flag(s, i, "--skb"),
      flag(s, i, "--json"),
      {"", {s, "-i", i, "--bogus"}, {"--bogus"}},
  };
}

// latency's edges: its own ranges (latency.hpp), the CPU list's and CLI11's for integers.
std::vector<Row> latency_boundary_rows(const std::string& i) {
  const std::string s = "latency", u32_over = "4294967296", u64_over = "18446744073709551616";
  std::vector<Row> rows = {
      {"--queue", {s, "-i", i, "-q", "1"}, {"queue 1", i}},
      {"--queue", {s, "-i", i, "-q", "4095"}, {"queue 4095", i}},
      {"--queue", {s, "-i", i, "-q", "4096"}, {"--queue", "4096 is above 4095"}},
      {"--queue", {s, "-i", i, "-q", "4294967295"}, {"--queue", "4294967295 is above 4095"}},
      {"--queue", {s, "-i", i, "-q", u32_over}, {"--queue", u32_over}},
      {"--count", {s, "-i", i, "-C", "10000001"}, {"--count", "10000001"}},
      {"--count", {s, "-i", i, "-C", u64_over}, {"--count", u64_over}},
      {"--size", {s, "-i", i, "-s", "0"}, {"--size", "0"}},
      {"--size", {s, "-i", i, "-s", "61"}, {"--size", "61"}},
      {"--size", {s, "-i", i, "-s", "1515"}, {"--size", "1515"}},
      {"--size", {s, "-i", i, "-s", u32_over}, {"--size", u32_over}},
      {"--rate", {s, "-i", i, "--rate", "1000001"}, {"--rate", "1000001"}},
      {"--cpu", {s, "-i", i, "--cpu", "8191"}, {"--cpu", "CPU 8191"}},
      {"--cpu", {s, "-i", i, "--cpu", "8192"}, {"--cpu", "8192 is above 8191"}},
      {"--cpu", {s, "-i", i, "--cpu", u32_over}, {"--cpu", u32_over}},
  };
  for (const char* value : {"inf", "infinity", "nan", "1e10", "1e300"}) {
    const std::string says = value[0] == 'n' ? value : value[0] == 'i' ? "inf" : "at most 1000000";
    rows.push_back({"--rate", {s, "-i", i, "--rate", value}, {"--rate", says}});
  }
  for (const char* value : {"inf", "nan", "1e10", "1e300", "61"}) {
    const std::string says = value[0] == '6' || value[0] == '1' ? "at most 60" : value;
    rows.push_back({"--timeout", {s, "-i", i, "--timeout", value}, {"--timeout", says}});
  }
  return rows;
}

std::vector<Row> udp_echo_rows() {
  const std::string s = "udp-echo";
  return {
      {"--listen", {s}, {"--listen", "required"}},
      {"--listen", {s, "--listen", "1.2.3.4"}, {"--listen", "1.2.3.4"}},
      {"--listen", {s, "--listen", "192.0.2.99:7"}, {"192.0.2.99:7", "Cannot assign"}},
      {"--count", {s, "--listen", "127.0.0.1:7", "-C", "-1"}, {"--count", "-1"}},
      {"--per-source-rate",
       {s, "--listen", "127.0.0.1:7", "--per-source-rate", "-1"},
       {"--per-source-rate", "-1"}},
      {"--per-source-rate",
       {s, "--listen", "127.0.0.1:7", "--per-source-rate", "nan"},
       {"--per-source-rate", "nan"}},
      {"--per-source-rate",
       {s, "--listen", "127.0.0.1:7", "--per-source-rate", "1000001"},
       {"--per-source-rate", "1000001"}},
      {"", {s, "--listen", "127.0.0.1:7", "--bogus"}, {"--bogus"}},
  };
}

std::vector<Row> demo_rows() {
  const std::string s = "demo";
  return {
      {"--quick", {s, "--quick=maybe"}, {"--quick", "maybe"}},
      {"--duration", {s, "-d", "0"}, {"--duration", "0"}},
      {"--duration", {s, "--duration=-1"}, {"--duration", "-1"}},
      {"--json", {s, "--json=maybe"}, {"--json", "maybe"}},
      {"--json", {s, "--json", "--mode", "xdp"}, {"--mode", "xdp"}},
      {"--benchmark", {s, "--benchmark", "foo"}, {"--benchmark", "foo"}},
      {"--mode", {s, "--mode", "foo"}, {"--mode", "foo"}},
      {"--cores", {s, "--cores", "3"}, {"--cores", "3"}},
      {"--wait", {s, "--wait", "foo"}, {"--wait", "foo"}},
      {"--queues", {s, "--queues", "3"}, {"--queues", "3"}},
      {"--extra", {s, "--extra"}, {"--extra"}},
      {"--extra", {s, "--extra=--bogus"}, {"--extra", "--bogus"}},
      {"--extra",
       {s, "--benchmark", "txpush", "--extra=-s", "--extra=5000"},
       {"--extra", "txpush", "-s", "5000"}},
      {"--gen-rate", {s, "--gen-rate=-1"}, {"--gen-rate", "-1"}},
      {"--gen-rate", {s, "--gen-rate", "fast"}, {"--gen-rate", "fast"}},
      {"--reference",
       {s, "--reference", "/nonexistent/xdpsock"},
       {"--reference", "/nonexistent/xdpsock"}},
      {"--reference",
       {s, "--reference", "/proc/version"},
       {"--reference", "/proc/version", "not executable"}},
      {"--reference-dpdk",
       {s, "--reference-dpdk=/nonexistent/dpdk-testpmd"},
       {"--reference-dpdk", "/nonexistent/dpdk-testpmd", "does not exist"}},
      {"--reference-dpdk",
       {s, "--reference-dpdk=/proc/version"},
       {"--reference-dpdk", "/proc/version", "not an executable file"}},
      {"--latency", {s, "--latency=maybe"}, {"--latency", "maybe"}},
      {"--latency", {s, "--latency", "--no-latency"}, {"--latency", "--no-latency"}},
      {"--no-latency", {s, "--no-latency=maybe"}, {"--no-latency", "maybe"}},
      {"--svg", {s, "--svg", "/nonexistent/chart.svg"}, {"--svg", "cannot write", "/nonexistent/"}},
      {"", {s, "--bogus"}, {"--bogus"}},
  };
}

// The edges of every numeric option: 0, 1, the largest value it takes and the next one, where
// they are refused (those accepted are in the unit tests: XskOptions.
// BoundaryIntegersAreAcceptedUpToTheirLargest, RxqInfoOptions.TimeOptionsAreFiniteAndBounded,
// DemoOptions.BoundaryIntegers), and non-finite and huge values for every time option. "-d 1"
// ends a run that wrongly starts; one that wrongly runs on ("-d 1e10") is killed at 30 s and fails.
std::vector<Row> bench_boundary_rows(const std::string& s, const std::string& i) {
  const std::string u32_over = "4294967296", u64_over = "18446744073709551616";
  std::vector<Row> rows = {
      {"--queue", {s, "-i", i, "-q", "1", "-d", "1"}, {"-q", "queue 1 does not exist"}},
      {"--queue", {s, "-i", i, "-q", "4095", "-d", "1"}, {"-q", "queue 4095 does not exist"}},
      {"--queue", {s, "-i", i, "-q", "4096", "-d", "1"}, {"-q", "4096 is above 4095"}},
      {"--queue", {s, "-i", i, "-q", "4294967295", "-d", "1"}, {"-q", "4294967295 is above 4095"}},
      {"--queue", {s, "-i", i, "-q", "0,4294967295", "-d", "1"}, {"-q", "4294967295 is above"}},
      {"--queue", {s, "-i", i, "-q", "4294967000-4294967295", "-d", "1"}, {"-q", "is above 4095"}},
      {"--queue", {s, "-i", i, "-q", u32_over, "-d", "1"}, {"-q", u32_over}},
      {"--queue", {s, "-i", i, "-q", "0-1024", "-d", "1"}, {"-q", "more than 1024 entries"}},
      {"--queue", {s, "-i", i, "-q", "0-64", "-d", "1"}, {"-q", "at most 64 queues"}},
      {"--cpu", {s, "-i", i, "--cpu", "8191", "-d", "1"}, {"--cpu", "CPU 8191"}},
      {"--cpu", {s, "-i", i, "--cpu", "8192", "-d", "1"}, {"--cpu", "8192 is above 8191"}},
      {"--cpu", {s, "-i", i, "--cpu", "4294967295", "-d", "1"}, {"--cpu", "4294967295 is above"}},
      {"--cpu", {s, "-i", i, "--cpu", u32_over, "-d", "1"}, {"--cpu", u32_over}},
      {"--frame-size", {s, "-i", i, "-f", "0", "-d", "1"}, {"-f", "0", "power of two"}},
      {"--frame-size", {s, "-i", i, "-f", "1", "-d", "1"}, {"-f", "1", "power of two"}},
      {"--frame-size", {s, "-i", i, "-f", "4097", "-d", "1"}, {"-f", "4097"}},
      {"--frame-size",
       {s, "-i", i, "-u", "-f", "65537", "-d", "1"},
       {"-f", "65537", "2048 to 65536"}},
      {"--frame-size", {s, "-i", i, "-f", "4294967295", "-d", "1"}, {"-f", "4294967295"}},
      {"--frame-size", {s, "-i", i, "-f", u32_over, "-d", "1"}, {"--frame-size", u32_over}},
      {"--batch", {s, "-i", i, "-b", "2049", "-d", "1"}, {"-b", "2049", "larger than a ring"}},
      {"--batch", {s, "-i", i, "-b", "4294967295", "-d", "1"}, {"-b", "4294967295"}},
      {"--batch", {s, "-i", i, "-b", u32_over, "-d", "1"}, {"--batch", u32_over}},
      {"--count", {s, "-i", i, "-C", u64_over, "-d", "1"}, {"--count", u64_over}},
      {"--frames", {s, "-i", i, "--frames", "0", "-d", "1"}, {"--frames", "0"}},
      {"--frames", {s, "-i", i, "--frames", "1", "-d", "1"}, {"--frames", "1"}},
      {"--frames", {s, "-i", i, "--frames", "4294967295", "-d", "1"}, {"--frames", "4 GiB"}},
      {"--frames", {s, "-i", i, "--frames", u32_over, "-d", "1"}, {"--frames", u32_over}},
      {"--frames", {s, "-i", i, "-M", "-q", "0-15", "--frames", "131072", "-d", "1"}, {"4 GiB"}},
      {"--frames", {s, "-i", i, "-q", "0-15", "--frames", "131072", "-d", "1"}, {"4 GiB"}},
      {"--ring-size", {s, "-i", i, "--ring-size", "0", "-d", "1"}, {"--ring-size", "0"}},
      {"--ring-size", {s, "-i", i, "--ring-size", "1", "-d", "1"}, {"--ring-size", "1"}},
      {"--ring-size", {s, "-i", i, "--ring-size", "131072", "-d", "1"}, {"--ring-size", "65536"}},
      {"--ring-size", {s, "-i", i, "--ring-size", u32_over, "-d", "1"}, {"--ring-size", u32_over}},
  };
  for (const char* value : {"inf", "infinity", "nan", "1e10", "1e300", "31536001"}) {
    rows.push_back({"--duration", {s, "-i", i, "-d", value}, {"--duration", value}});
  }
  for (const char* value : {"inf", "nan", "1e-10", "0.009", "1e10", "86401"}) {
    rows.push_back({"--interval", {s, "-i", i, "-n", value, "-d", "1"}, {"--interval", value}});
  }
  return rows;
}

std::vector<Row> txpush_boundary_rows(const std::string& i) {
  const std::string s = "txpush", u32_over = "4294967296", u64_over = "18446744073709551616";
  std::vector<Row> rows = {
      {"--size", {s, "-i", i, "-s", "0", "-d", "1"}, {"-s", "0", "smaller than the headers"}},
      {"--size", {s, "-i", i, "-s", "1", "-d", "1"}, {"-s", "1", "smaller than the headers"}},
      {"--size", {s, "-i", i, "-s", "4097", "-d", "1"}, {"-s", "4097", "larger than a frame"}},
      {"--size", {s, "-i", i, "-s", u32_over, "-d", "1"}, {"--size", u32_over}},
      {"--vlan-id", {s, "-i", i, "-V", "-J", u32_over, "-d", "1"}, {"--vlan-id", u32_over}},
      {"--vlan-priority",
       {s, "-i", i, "-V", "-K", u32_over, "-d", "1"},
       {"--vlan-priority", u32_over}},
      {"--src-port", {s, "-i", i, "--src-port", "65536", "-d", "1"}, {"--src-port", "65535"}},
      {"--dst-port", {s, "-i", i, "--dst-port", "65536", "-d", "1"}, {"--dst-port", "65535"}},
      {"--dst-port", {s, "-i", i, "--dst-port", u32_over, "-d", "1"}, {"--dst-port", u32_over}},
      {"--loop",
       {s, "-i", i, "--pcap", "/dev/null", "--loop", u64_over, "-d", "1"},
       {"--loop", u64_over}},
  };
  for (const char* value : {"inf", "nan"}) {
    rows.push_back({"--rate", {s, "-i", i, "--rate", value, "-d", "1"}, {"--rate", value}});
  }
  for (const char* value : {"1e10", "1e300"}) {  // finite: the range refuses them
    rows.push_back({"--rate", {s, "-i", i, "--rate", value, "-d", "1"}, {"--rate", "1e9"}});
  }
  return rows;
}

// gen's own ranges are gen's (gen.cpp); its time option takes no infinity or NaN (number_checks).
std::vector<Row> gen_boundary_rows(const std::string& i) {
  const std::string s = "gen", u32_over = "4294967296", u64_over = "18446744073709551616";
  return {
      {"--size", {s, "-i", i, "-s", "0", "-d", "1"}, {"--size", "0"}},
      {"--size", {s, "-i", i, "-s", "1", "-d", "1"}, {"--size", "1"}},
      {"--size", {s, "-i", i, "-s", "3521", "-d", "1"}, {"--size", "3521"}},
      {"--size", {s, "-i", i, "-s", u32_over, "-d", "1"}, {"--size", u32_over}},
      {"--count", {s, "-i", i, "-C", u64_over, "-d", "1"}, {"--count", u64_over}},
      {"--rate", {s, "-i", i, "--rate", u64_over, "-d", "1"}, {"--rate", u64_over}},
      {"--src-port", {s, "-i", i, "--src-port", "65536", "-d", "1"}, {"--src-port", "65536"}},
      {"--dst-port", {s, "-i", i, "--dst-port", u32_over, "-d", "1"}, {"--dst-port", u32_over}},
      {"--cpu",
       {s, "-i", i, "--cpu", "2147483647", "-d", "1"},
       {"cpu", "2147483647", "not available"}},
      {"--cpu", {s, "-i", i, "--cpu", "2147483648", "-d", "1"}, {"--cpu", "2147483648"}},
      {"--duration", {s, "-i", i, "-d", "1e10"}, {"--duration", "1e10", "31536000"}},
      {"--duration", {s, "-i", i, "-d", "inf"}, {"--duration", "inf"}},
      {"--cpu", {s, "-i", i, "--cpu", "inf", "-d", "1"}, {"--cpu", "inf"}},
      {"--batch-size", {s, "-i", i, "--batch-size", "257", "-d", "1"}, {"--batch-size", "257"}},
      {"--batch-size",
       {s, "-i", i, "--batch-size", u32_over, "-d", "1"},
       {"--batch-size", u32_over}},
      {"--duration", {s, "-i", i, "-d", "inf"}, {"--duration", "inf"}},
      {"--duration", {s, "-i", i, "-d", "infinity"}, {"--duration", "infinity"}},
      {"--duration", {s, "-i", i, "-d", "nan"}, {"--duration", "nan"}},
  };
}

std::vector<Row> rxq_info_boundary_rows(const std::string& i) {
  const std::string s = "rxq-info";
  std::vector<Row> rows;
  for (const char* value : {"inf", "nan", "1e-10", "0.009", "1e10", "1e300", "86401"}) {
    rows.push_back({"--interval", {s, "-i", i, "-s", value, "-d", "1"}, {"--interval", value}});
  }
  for (const char* value : {"inf", "infinity", "nan", "1e10", "1e300", "31536001"}) {
    rows.push_back({"--duration", {s, "-i", i, "-d", value}, {"--duration", value}});
  }
  return rows;
}

std::vector<Row> dump_boundary_rows(const std::string& i) {
  const std::string s = "dump", file = "/nonexistent-dir/x.pcap";
  return {
      {"--queue", {s, "-i", i, "-q", "1", "-w", file}, {"queue 1", i}},
      {"--queue", {s, "-i", i, "-q", "4294967295", "-w", file}, {"queue 4294967295", i}},
      {"--queue", {s, "-i", i, "-q", "4294967296", "-w", file}, {"--queue", "4294967296"}},
      {"--count",
       {s, "-i", i, "-w", file, "-C", "18446744073709551616"},
       {"--count", "18446744073709551616"}},
  };
}

// A demo that wrongly accepts runs its whole matrix: these are all refused while parsing.
std::vector<Row> demo_boundary_rows() {
  const std::string s = "demo";
  std::vector<Row> rows = {
      {"--cores", {s, "--cores", "0"}, {"--cores", "0"}},
      {"--queues", {s, "--queues", "0"}, {"--queues", "0"}},
      {"--queues", {s, "--queues", "4294967296"}, {"--queues", "4294967296"}},
      {"--gen-rate",
       {s, "--gen-rate", "18446744073709551616"},
       {"--gen-rate", "18446744073709551616"}},
  };
  for (const char* value : {"inf", "infinity", "nan", "1e10", "1e300", "3601", "0.09"}) {
    rows.push_back({"--duration", {s, "-d", value}, {"--duration", value}});
  }
  return rows;
}

// The whole table for the veth pair a <-> b: txpush sends on a, the others work on b.
std::map<std::string, std::vector<Row>> table(const std::string& a, const std::string& b) {
  std::map<std::string, std::vector<Row>> rows;
  const auto add = [&rows](const std::string& sub, std::vector<Row> more) {
    for (Row& row : more) rows[sub].push_back(std::move(row));
  };
  add("rxdrop", bench_rows("rxdrop", b));
  add("rxdrop", bench_boundary_rows("rxdrop", b));
  add("l2fwd", bench_rows("l2fwd", b));
  add("l2fwd", {{"--spin-before-sleep",
                 {"l2fwd", "-i", b, "--spin-before-sleep=-1", "-d", "1"},
                 {"--spin-before-sleep", "-1"}},
                {"--spin-before-sleep",
                 {"l2fwd", "-i", b, "--spin-before-sleep", "2e6", "-d", "1"},
                 {"--spin-before-sleep", "2e6"}}});
  add("l2fwd", bench_boundary_rows("l2fwd", b));
  add("txpush", bench_rows("txpush", a));
  add("txpush", bench_boundary_rows("txpush", a));
  add("txpush", txpush_rows(a));
  add("txpush", txpush_boundary_rows(a));
  add("gen", gen_rows(a));
  add("gen", gen_boundary_rows(a));
  add("rxq-info", rxq_info_rows(b, a));
  add("rxq-info", rxq_info_boundary_rows(b));
  add("dump", dump_rows(b));
  add("dump", dump_boundary_rows(b));
  add("demo", demo_rows());
  add("demo", demo_boundary_rows());
  add("latency", latency_rows(b));
  add("latency", latency_boundary_rows(b));
  add("udp-echo", udp_echo_rows());
  rows[""] = {{"", {}, {"subcommand"}}, {"", {"nosuchcommand"}, {"nosuchcommand"}}};  // afxdp's own
  return rows;
}

// The first column of the section `title` of a --help text: "-i,--interface TEXT ..." -> {"-i",
// "--interface"} for options, {"gen"} for subcommands.
std::vector<std::vector<std::string>> help_section(const std::string& help,
                                                   const std::string& title) {
  std::vector<std::vector<std::string>> entries;
  bool inside = false;
  for (const std::string& line : lines_of(help)) {
    if (line.empty() || line[0] != ' ') {
      inside = line == title + ":";
      continue;
    }
    const std::size_t start = line.find_first_not_of(' ');
    // Continuation lines (a long option's description) are indented past the first column.
    if (!inside || start != 2) continue;
    const std::string first = line.substr(start, line.find(' ', start) - start);
    std::vector<std::string> names;
    std::size_t at = 0;
    while (at <= first.size()) {
      const std::size_t comma = std::min(first.find(',', at), first.size());
      names.push_back(first.substr(at, comma - at));
      at = comma + 1;
    }
    entries.push_back(names);
  }
  return entries;
}

TEST(BadInputEveryOption, HelpListsNoOptionWithoutARow) {
  // The names only matter for the table's lookups; nothing runs here.
  const auto rows = table("{A}", "{B}");
  const ToolResult top = run_tool({"--help"}, 30000);
  ASSERT_EQ(top.exit_code, 0) << top.err;
  const auto subcommands = help_section(top.out, "Subcommands");
  ASSERT_GE(subcommands.size(), 7U) << top.out;
  std::vector<std::string> subs{""};  // afxdp's own options first
  for (const auto& entry : subcommands) subs.push_back(entry.front());
  for (const std::string& sub : subs) {
    ASSERT_TRUE(rows.count(sub)) << "subcommand " << sub << " has no rows";
    const ToolResult help = sub.empty() ? top : run_tool({sub, "--help"}, 30000);
    ASSERT_EQ(help.exit_code, 0) << sub << ": " << help.err;
    const auto options = help_section(help.out, "Options");
    ASSERT_GE(options.size(), 2U) << help.out;
    std::set<std::string> known;
    for (const auto& names : options) {
      known.insert(names.begin(), names.end());
      const bool exempt = std::any_of(names.begin(), names.end(),
                                      [](const std::string& n) { return no_bad_value.count(n); });
      const bool covered = std::any_of(rows.at(sub).begin(), rows.at(sub).end(), [&](const Row& r) {
        return std::find(names.begin(), names.end(), r.option) != names.end();
      });
      EXPECT_TRUE(exempt || covered)
          << sub << " " << names.back() << ": no bad-value row and not in no_bad_value";
    }
    for (const Row& row : rows.at(sub)) {  // no row for an option that is gone
      EXPECT_TRUE(row.option.empty() || known.count(row.option)) << sub << " " << row.option;
    }
  }
}

TEST(BadInputEveryOption, OneLineNamingItNothingOnStdoutNothingAttached) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  ASSERT_EQ(veth.queues(), 1U);  // the queue rows count on one queue
  const unsigned a_index = afxdp::interface_index(veth.a());
  const unsigned b_index = afxdp::interface_index(veth.b());
  std::size_t runs = 0;
  for (const auto& [sub, rows] : table(veth.a(), veth.b())) {
    for (const Row& row : rows) {
      std::string label;
      for (const auto& arg : row.args) label += arg + " ";
      const ToolResult r = run_tool(row.args, 30000);
      ++runs;
      // A failure of its own, not a crash or our timeout's SIGKILL (128 + signal).
      EXPECT_TRUE(r.exit_code > 0 && r.exit_code < 128) << label << ": exit " << r.exit_code;
      const auto lines = lines_of(r.err);
      EXPECT_EQ(lines.size(), 1U) << label << ":\n" << r.err;
      EXPECT_TRUE(!r.err.empty() && r.err.back() == '\n') << label << ": " << r.err;
      EXPECT_GT(r.err.size(), std::string("afxdp: \n").size()) << label;
      for (const std::string& part : row.says) {
        EXPECT_NE(r.err.find(part), std::string::npos)
            << label << ": \"" << part << "\" not in: " << r.err;
      }
      EXPECT_EQ(r.out, "") << label;
      EXPECT_EQ(afxdp::attached_xdp_program(a_index), 0U) << label;
      EXPECT_EQ(afxdp::attached_xdp_program(b_index), 0U) << label;
    }
  }
  EXPECT_GT(runs, 150U);
}

}  // namespace
