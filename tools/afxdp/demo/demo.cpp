#include "demo/demo.hpp"

#include "common/child.hpp"
#include "common/json.hpp"
#include "common/number_checks.hpp"
#include "common/require.hpp"
#include "common/sibling.hpp"
#include "demo/demo_latency_run.hpp"
#include "demo/demo_svg.hpp"
#include "demo/dpdk_reference.hpp"
#include "demo/launcher.hpp"
#include "demo/xdpsock_reference.hpp"
#include "xsk/xsk_options.hpp"

#include <afxdp/interface.hpp>
#include <afxdp/run.hpp>
#include <afxdp/xsk_program.hpp>

#include <lab.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <unistd.h>
#include <utility>

namespace afxdp::tool {
namespace {

// The first usable CPU runs the traffic source, the second the application (DemoCpus). "2
// cores": the kernel's receive work for the veth runs where the sender is (softirq on the source's
// CPU). "1 core": it runs as a threaded NAPI pinned to the application's CPU, so the two must take
// turns.

// What the benchmarks send (txpush's frames, and l2fwd's: gen's with the addresses swapped) goes
// to this MAC, which no interface has, as xdpsock's default destination does. The peer's stack
// then drops each frame at its first check ("not for this host"); addressed to the peer or
// broadcast, every frame would climb its IPv4 stack to a failed route lookup, on the sending CPU,
// which doubled txpush's cost there (docs/benchmarks.md).
constexpr const char* nobody_mac = "02:00:00:00:00:02";

std::string format_seconds(double seconds) {
  std::ostringstream text;
  text << seconds;
  return text.str();
}

void place_kernel_work(const lab::VethPair& veth, int cores, DemoCpus cpus) {
  // The receiving end (b) of the source's traffic, and the peer (a) that txpush/l2fwd send to.
  lab::set_threaded_napi(veth.b(), cores == 1);
  if (cores == 1) lab::pin_napi_threads(veth.b(), cpus.app);
  lab::set_threaded_napi(veth.a(), true);
  lab::pin_napi_threads(veth.a(), cores == 1 ? cpus.app : cpus.source);
}

// Busy polling also needs the device to hold back its own interrupts/softirq while the socket
// polls: napi_defer_hard_irqs and gro_flush_timeout (ns); 0 and 0 restore the default.
void set_busy_poll_sysfs(const lab::VethPair& veth, bool on) {
  for (const std::string& interface : {veth.a(), veth.b()}) {
    const std::string dir = "/sys/class/net/" + interface + "/";
    if (std::FILE* f = std::fopen((dir + "napi_defer_hard_irqs").c_str(), "w")) {
      std::fputs(on ? "2" : "0", f);
      std::fclose(f);
    }
    if (std::FILE* f = std::fopen((dir + "gro_flush_timeout").c_str(), "w")) {
      std::fputs(on ? "200000" : "0", f);
      std::fclose(f);
    }
  }
}

// The last line of `out` that carries "summary".
std::string summary_line(const std::string& out) {
  return last_line_where(
      out, [](const std::string& line) { return line.find("\"summary\"") != std::string::npos; });
}

// gen's rate while the application ran: the median of its per-second lines, leaving out the
// first (start-up) and the last (the application may have stopped).
double offered_pps(const std::string& out) {
  std::istringstream lines(out);
  std::string line;
  std::vector<double> rates;
  while (std::getline(lines, line)) {
    double pps = 0;
    if (line.find("\"summary\"") == std::string::npos && json_number(line, "pps", pps)) {
      rates.push_back(pps);
    }
  }
  if (rates.size() > 2) rates = std::vector<double>(rates.begin() + 1, rates.end() - 1);
  if (rates.empty()) return 0;
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

// One queue: its thread on the application's CPU. Two: each queue's thread on the CPU that is
// not its traffic source's.
std::string cpu_list(int queues, DemoCpus cpus) {
  if (queues == 1) return std::to_string(cpus.app);
  return std::to_string(cpus.thread_of_queue(0)) + "," + std::to_string(cpus.thread_of_queue(1));
}

// The benchmark's command line for one cell, --extra's arguments last.
std::vector<std::string> cell_args(const DemoCell& cell, const std::string& interface,
                                   const std::string& duration, DemoCpus cpus,
                                   const std::vector<std::string>& extra) {
  if (cell.benchmark == DemoBenchmark::xdp_drop) {
    std::vector<std::string> args{"rxq-info", "-i", interface, "-a",
                                  "DROP",     "-d", duration,  "--json"};
    if (cell.mode == DemoMode::skb) args.push_back("-S");
    return args;
  }
  std::vector<std::string> args{demo_name(cell.benchmark),
                                "-i",
                                interface,
                                cell.mode == DemoMode::skb ? "-S" : "-N",
                                "-c",
                                "-d",
                                duration,
                                "--json",
                                "--cpu",
                                cpu_list(cell.queues, cpus),
                                "-q",
                                cell.queues == 1 ? "0" : "0,1"};
  if (cell.benchmark == DemoBenchmark::txpush) args.insert(args.end(), {"-G", nobody_mac});
  if (cell.poll) args.push_back("-p");
  if (cell.busy_poll) args.push_back("-B");
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// --extra is parsed as every cell's benchmark will parse it, before anything runs: a bad one is
// one line now rather than one failed cell after another and a table of dashes.
void check_extra(const DemoOptions& options) {
  if (options.extra.empty()) return;
  for (const DemoCell& cell : demo_matrix(options)) {
    const std::optional<Benchmark> benchmark = benchmark_named(demo_name(cell.benchmark));
    if (!benchmark) continue;  // --extra is for the benchmarks only, not the xdp-drop row
    CLI::App probe;
    XskOptions parsed;
    add_xsk_subcommand(probe, parsed, *benchmark, "");
    // Parsing only: any two CPUs do.
    std::vector<std::string> args = cell_args(cell, "demob", "1", DemoCpus{}, options.extra);
    std::reverse(args.begin(), args.end());  // CLI11 takes a vector last argument first
    try {
      probe.parse(args);
    } catch (const CLI::ParseError& e) {
      throw CLI::ValidationError("--extra",
                                 demo_name(cell.benchmark) + std::string(": ") + e.what());
    }
  }
}

// --reference-dpdk's program, found now: a missing one is one line before anything is set up.
void check_testpmd(DemoOptions& options) {
  if (options.reference_dpdk.empty()) return;
  std::string why;
  options.reference_dpdk = resolve_testpmd(options.reference_dpdk, why);
  if (!why.empty()) throw CLI::ValidationError("--reference-dpdk", why);
}

// What every cell of one demo run shares.
struct DemoRun {
  const lab::VethPair& veth;
  double seconds = 0;  // per cell
  DemoCpus cpus;
  const DemoOptions& options;
  std::string tool;    // the `afxdp` binary measured
  std::string engine;  // gen's engine for every source of the run (source_engine)
};

// The reference on the application's CPU, as our --cpu puts ours; LC_ALL=C keeps its numbers
// free of thousands separators. xdpsock binds once and gives up on EBUSY, which a queue answers
// until the kernel's deferred release of the previous cell's socket has run; ours tries again
// for up to a second (xsk/xsk_run.cpp), and so the reference is started again for as long.
std::unique_ptr<Child> start_reference(const DemoCell& cell, const DemoRun& run) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (;;) {
    auto app = std::make_unique<Child>(
        xdpsock_args(cell, run.veth.b(), run.seconds), run.options.reference,
        std::vector<std::string>{"env", "LC_ALL=C", "taskset", "-c", std::to_string(run.cpus.app)});
    // A failed bind ends it within a few milliseconds; a running xdpsock is still there.
    if (!app->exited(250) || app->err().find("Device or resource busy") == std::string::npos ||
        std::chrono::steady_clock::now() >= deadline) {
      return app;
    }
  }
}

// The reference's result. It attaches its program without a bpf_link (libxdp's netlink attach)
// and detaches it at its exit; had it crashed, the program would stay and fail every later cell,
// so that is checked, and cleared. testpmd (no `app`: run_testpmd read its rate) likewise.
void measure_reference(DemoCell& cell, const Child* app, int code, const lab::VethPair& veth) {
  if (attached_xdp_program(interface_index(veth.b())) != 0) {
    for (const char* mode : {"xdpgeneric", "xdpdrv"}) {
      try {
        lab::run({"ip", "link", "set", "dev", veth.b(), mode, "off"});
      } catch (const std::runtime_error&) {
      }
    }
    cell.measured = false;
    cell.error = std::string(demo_name(cell.tool)) + " left its XDP program attached (exit code " +
                 std::to_string(code) + ")";
    return;
  }
  if (app == nullptr) return;
  double pps = 0;
  if (code != 0 ||
      !xdpsock_rate(app->out(), cell.benchmark == DemoBenchmark::rxdrop ? "rx" : "tx", pps)) {
    cell.error = "xdpsock: " + (code != 0 ? app->last_error_line() : "no statistics in its output");
    return;
  }
  cell.mpps = pps / 1e6;
  cell.measured = true;
}

// rxdrop, l2fwd and the ceiling receive gen's traffic, for longer than the application runs so
// that it covers its whole interval. veth puts a sender's frames on rx queue (sending CPU mod
// queues): one gen per queue, one per CPU.
std::vector<std::unique_ptr<Child>> start_sources(const DemoCell& cell, const DemoRun& run) {
  std::vector<std::unique_ptr<Child>> sources;
  if (cell.benchmark == DemoBenchmark::txpush) return sources;
  for (int q = 0; q < cell.queues; ++q) {
    const unsigned cpu = cell.queues == 1 ? run.cpus.source : run.cpus.sender_of_queue(q);
    std::vector<std::string> gen{"gen",
                                 "-i",
                                 run.veth.a(),
                                 "--cpu",
                                 std::to_string(cpu),
                                 "-d",
                                 format_seconds(run.seconds + 3),
                                 "-H",
                                 nobody_mac,
                                 "--engine",
                                 run.engine,
                                 "-q",  // xsk sends on it; live's CPU picks the same one
                                 std::to_string(q),
                                 "--json"};
    if (run.options.gen_rate > 0) {
      gen.insert(gen.end(), {"--rate", std::to_string(run.options.gen_rate)});
    }
    sources.push_back(std::make_unique<Child>(gen, run.tool));
  }
  return sources;
}

// Stops the sources and adds what they sent to the cell; why they failed ("" when they did not).
// Stopped by us a source exits 0; anything else means it failed, and the cell measured nothing.
std::string stop_sources(DemoCell& cell, std::vector<std::unique_ptr<Child>>& sources) {
  std::string error;
  for (auto& source : sources) {
    source->terminate();
    const int code = source->wait(5000);
    cell.offered_mpps += offered_pps(source->out()) / 1e6;
    if (code != 0 && error.empty()) error = "traffic source: " + source->first_error_line();
  }
  return error;
}

// Our application's result: its summary line (rxq-info's for the ceiling).
void measure_application(DemoCell& cell, const Child& app, int code) {
  if (code != 0) {
    cell.error = app.first_error_line();
    if (cell.error.empty()) cell.error = "exit code " + std::to_string(code);
    return;
  }
  const std::string summary = summary_line(app.out());
  if (cell.benchmark == DemoBenchmark::xdp_drop) {
    // rxq-info's summary: the total it processed over its duration.
    const auto total = summary.find("\"total\":");
    double processed = 0, elapsed = 0;
    if (total == std::string::npos || !json_number(summary.substr(total), "processed", processed) ||
        !json_number(summary, "duration_s", elapsed) || elapsed <= 0) {
      cell.error = "no summary in the output of rxq-info";
      return;
    }
    cell.mpps = processed / elapsed / 1e6;
    cell.measured = true;
    return;
  }
  double pps = 0;
  if (!json_number(summary, cell.benchmark == DemoBenchmark::rxdrop ? "rx_pps" : "tx_pps", pps)) {
    cell.error = std::string("no summary in the output of ") + demo_name(cell.benchmark);
    return;
  }
  cell.mpps = pps / 1e6;
  cell.measured = true;
}

// The application of one cell: ours, xdpsock or testpmd (which run_testpmd runs to its end and
// measures itself, so no Child comes back). Returns the Child and its exit code.
std::pair<std::unique_ptr<Child>, int> run_application(DemoCell& cell, const DemoRun& run) {
  // Threaded NAPI kthreads appear once the program is attached: pin them again.
  const auto pin_napi = [&] {
    if (cell.cores == 1) lab::pin_napi_threads(run.veth.b(), run.cpus.app);
  };
  if (cell.tool == DemoTool::dpdk) {
    run_testpmd(cell, run.options.reference_dpdk, run.veth.b(), run.seconds, run.cpus, nobody_mac,
                pin_napi);
    return {nullptr, 0};
  }
  std::unique_ptr<Child> app =
      cell.tool != DemoTool::afxdp
          ? start_reference(cell, run)
          : std::make_unique<Child>(cell_args(cell, run.veth.b(), format_seconds(run.seconds),
                                              run.cpus, run.options.extra),
                                    run.tool);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  pin_napi();
  const int code = app->wait(static_cast<int>(run.seconds * 1000) + 15000);
  return {std::move(app), code};
}

void measure(DemoCell& cell, const DemoRun& run) {
  place_kernel_work(run.veth, cell.cores, run.cpus);
  set_busy_poll_sysfs(run.veth, cell.busy_poll);
  std::vector<std::unique_ptr<Child>> sources = start_sources(cell, run);
  const auto [app, code] = run_application(cell, run);
  const std::string source_error = stop_sources(cell, sources);
  set_busy_poll_sysfs(run.veth, false);
  if (!source_error.empty()) {
    cell.measured = false;
    cell.error = source_error;
  } else if (cell.tool != DemoTool::afxdp) {
    measure_reference(cell, app.get(), code, run.veth);
  } else {
    measure_application(cell, *app, code);
  }
}

// gen's engine for this run, decided once by one frame through gen's `auto` (or what
// AFXDP_GEN_ENGINE forces), so that every cell is fed alike and the header can say which.
// `why`: gen's line on stderr when it fell back from live frames.
std::string source_engine(const lab::VethPair& veth, const std::string& tool, std::string& why) {
  Child probe({"gen", "-i", veth.a(), "-C", "1", "-H", nobody_mac, "--json", "-Q"}, tool);
  const int code = probe.wait(30000);
  const std::string summary = summary_line(probe.out());
  const std::string key = "\"engine\":\"";
  const auto at = summary.find(key);
  if (code != 0 || at == std::string::npos) {
    throw std::runtime_error("demo: traffic source: " + probe.first_error_line());
  }
  why = probe.first_error_line();
  const auto from = at + key.size();
  return summary.substr(from, summary.find('"', from) - from);
}

// The `afxdp` this demo measures: the one that started it, else the one beside it (a build
// tree), else the installed one.
std::string tool_to_measure() {
  if (const char* tool = std::getenv(tool_variable); tool != nullptr && *tool != '\0') return tool;
  const std::optional<std::string> tool = find_sibling("afxdp", AFXDP_TOOL_DIR);
  if (!tool) {
    throw std::runtime_error(std::string("demo: no afxdp executable next to afxdp-demo, nor in ") +
                             AFXDP_TOOL_DIR);
  }
  return *tool;
}

void write_svg(const std::string& path, const std::vector<DemoCell>& cells) {
  std::ofstream out(path);
  out << demo_svg(cells, machine_note());
  if (!out.flush()) throw std::runtime_error("demo: cannot write the chart to " + path);
}

void print_cell(const DemoCell& cell, const DemoOptions& options, const std::string& engine) {
  if (options.json) {
    std::printf(
        "{\"benchmark\":\"%s\",\"tool\":\"%s\",\"engine\":\"%s\",\"poll\":%s,\"busy_poll\":%s,"
        "\"mode\":\"%s\","
        "\"cores\":%d,\"queues\":%d,\"mpps\":%.3f,\"offered_mpps\":%.3f,"
        "\"gen_rate\":%llu,\"measured\":%s,\"error\":%s}\n",
        demo_name(cell.benchmark), demo_name(cell.tool), engine.c_str(),
        cell.poll ? "true" : "false", cell.busy_poll ? "true" : "false", demo_name(cell.mode),
        cell.cores, cell.queues, cell.mpps, cell.offered_mpps,
        static_cast<unsigned long long>(options.gen_rate), cell.measured ? "true" : "false",
        json_string(cell.error).c_str());
    std::fflush(stdout);
  } else if (!cell.measured) {
    std::fprintf(stderr, "afxdp demo: %s (%s): %s\n", row_name(cell).c_str(),
                 column_name(cell).c_str(), cell.error.c_str());
  }
}

void print_latency_row(const LatencyRow& row, bool json) {
  if (json) {
    std::fputs(latency_row_json(row).c_str(), stdout);
    std::fflush(stdout);
  } else if (!row.measured) {
    std::fprintf(stderr, "afxdp demo: latency, %s%s: %s\n", latency_row_name(row).c_str(),
                 row.refused ? " skipped" : "", row.error.c_str());
  }
}

// The latency rows after the matrix, on veth pairs of their own; true when every row measured
// or was skipped for a facility the kernel refuses.
bool latency_table(const DemoOptions& options, const DemoRun& run, const SignalStop& stop) {
  if (!options.json) {
    std::printf("\nafxdp demo: latency, afxdp latency on CPU %u, the reflector on CPU %u\n",
                run.cpus.source, run.cpus.app);
    std::fflush(stdout);
  }
  const double seconds = options.quick ? 1.0 : 2.0;
  const LatencyRun latency{.tool = run.tool,
                           .xdpsock = options.reference,
                           .cpus = run.cpus,
                           .seconds = seconds,
                           .stop = &stop};
  const auto print = [&](const LatencyRow& row) {
    if (!stop.requested()) print_latency_row(row, options.json);
  };
  const std::vector<LatencyRow> rows = run_demo_latency(latency, print);
  if (!options.json) std::printf("%s", demo_latency_table(rows, seconds).c_str());
  return std::all_of(rows.begin(), rows.end(),
                     [](const LatencyRow& r) { return r.measured || r.refused; });
}

int run_demo(const DemoOptions& options) {
  require_privilege("demo");
  const std::string tool = tool_to_measure();
  const DemoCpus cpus = demo_cpus(usable_cpus());
  const double seconds = options.seconds > 0 ? options.seconds : (options.quick ? 1.0 : 3.0);
  // SIGINT and SIGTERM end the children at once (from the handler) and then the demo.
  const SignalStop stop(kill_all_children);
  lab::enter_private_network();
  // The namespace is ours alone, so plain names are fine; short, to fit NAPI kthread names.
  // Two queues on both ends when a cell asks for them (with one queue every sender lands on queue
  // 0).
  std::vector<DemoCell> cells = demo_matrix(options);
  const bool two_queues =
      std::any_of(cells.begin(), cells.end(), [](const DemoCell& cell) { return cell.queues > 1; });
  lab::VethPair veth("demo", two_queues ? 2 : 1);
  lab::set_gro(veth.a(), true);
  lab::set_gro(veth.b(), true);
  std::string fallback;
  const std::string engine = source_engine(veth, tool, fallback);
  if (!options.json) {
    std::printf(
        "afxdp demo: veth pair %s <-> %s in a private network namespace; %g s per cell; "
        "traffic source (afxdp gen, engine %s) on CPU %u, application on CPU %u\n",
        veth.a().c_str(), veth.b().c_str(), seconds, engine.c_str(), cpus.source, cpus.app);
    if (!fallback.empty()) std::printf("  (%s)\n", fallback.c_str());
    std::fflush(stdout);
  }
  const DemoRun run{veth, seconds, cpus, options, tool, engine};
  for (DemoCell& cell : cells) {
    if (stop.requested()) break;
    measure(cell, run);
    if (stop.requested()) {
      cell.measured = false;
      cell.error = "interrupted";
    }
    print_cell(cell, options, run.engine);
  }
  if (!options.json) std::printf("%s", demo_table(cells).c_str());
  if (!options.svg.empty()) write_svg(options.svg, cells);
  bool all =
      std::all_of(cells.begin(), cells.end(), [](const DemoCell& cell) { return cell.measured; });
  if (options.wants_latency() && !stop.requested()) all = latency_table(options, run, stop) && all;
  if (stop.requested()) return 130;
  return all ? 0 : 1;
}

// --svg FILE, checked while parsing: the chart is written after the whole matrix ran.
void add_svg_option(CLI::App& sub, std::string& path) {
  sub.add_option("--svg", path, "Also draw the matrix as an SVG bar chart into this file")
      ->check(CLI::Validator(
          [](const std::string& file) {
            const auto slash = file.rfind('/');
            const std::string dir = slash == std::string::npos ? "." : file.substr(0, slash + 1);
            return ::access(dir.c_str(), W_OK) == 0 ? std::string()
                                                    : "cannot write a file in " + dir;
          },
          "FILE"));
}

}  // namespace

Subcommand add_demo_subcommand(CLI::App& app) {
  auto options = std::make_shared<DemoOptions>();
  CLI::App* sub = app.add_subcommand("demo", demo_description);
  sub->add_flag("--quick", options->quick, "1 s per measurement, 2 cores only (about 20 s)");
  sub->add_option("-d,--duration", options->seconds,
                  "Seconds per measurement (default 3; 1 with --quick)")
      ->check(seconds_within(demo_cell));
  sub->add_flag("--json", options->json, "One JSON object per measurement instead of the table");
  sub->add_option("--benchmark", options->benchmarks, "Only these benchmarks (default: all)")
      ->check(CLI::IsMember({demo_ceiling, "rxdrop", "txpush", "l2fwd"}));
  sub->add_option("--mode", options->modes, "Only these modes (default: native and skb)")
      ->check(CLI::IsMember({"native", "skb"}));
  sub->add_option("--cores", options->cores, "Only these core counts (default: 1 and 2)")
      ->check(CLI::IsMember({1, 2}));
  sub->add_option("--wait", options->waits,
                  "How the application waits: spin, poll, busy-poll (default: spin and poll)")
      ->check(CLI::IsMember({"spin", "poll", "busy-poll"}));
  sub->add_option("--queues", options->queues, "Queue counts, one thread per queue (default: 1)")
      ->check(CLI::IsMember({1, 2}));
  sub->add_option("--extra", options->extra,
                  "One more argument for every benchmark run (repeat: --extra=-b --extra=256)")
      ->allow_extra_args(false);
  sub->add_option("--gen-rate", options->gen_rate,
                  "Pace each traffic source to this many frames/s (default 0: as fast as it goes)")
      ->check(not_negative_integer());
  sub->add_option("--reference", options->reference,
                  "An xdpsock binary to run beside each one-queue rxdrop, txpush and l2fwd cell, "
                  "same traffic and CPU (docs/benchmarks.md)")
      ->check(CLI::ExistingFile)
      ->check(CLI::Validator(
          [](const std::string& path) {
            return ::access(path.c_str(), X_OK) == 0 ? std::string() : path + " is not executable";
          },
          "EXECUTABLE"));
  add_svg_option(*sub, options->svg);
  CLI::Option* latency = sub->add_flag(
      "--latency", options->latency,
      "Measure the latency table after the matrix also with --json (default: only with the table)");
  CLI::Option* no_latency = sub->add_flag(
      "--no-latency", options->no_latency,
      "No latency table (by default it follows the table: afxdp latency at 20000 probes/s, 2 s per "
      "reflector, 1 s with --quick)");
  latency->excludes(no_latency);
  // An optional value: alone it means Debian's testpmd in PATH.
  CLI::Option* dpdk = sub->add_option("--reference-dpdk", options->reference_dpdk,
                                      "Also run DPDK's testpmd (its AF_XDP driver; default: "
                                      "dpdk-testpmd in PATH) beside each one-queue native rxdrop, "
                                      "txpush and l2fwd cell without poll()")
                          ->expected(0, 1);
  sub->parse_complete_callback([options, dpdk] {
    check_extra(*options);
    if (dpdk->count() > 0 && options->reference_dpdk.empty())
      options->reference_dpdk = default_testpmd;
    check_testpmd(*options);
  });
  return {sub, [options] { return run_demo(*options); }};
}

}  // namespace afxdp::tool
