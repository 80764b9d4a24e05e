#include "xsk/xsk_stats.hpp"

#include "common/json.hpp"
#include "common/thousands.hpp"

#include <cinttypes>
#include <cmath>

namespace afxdp::tool {
namespace {

std::uint64_t per_second(std::uint64_t n, double seconds) {
  return seconds > 0 ? static_cast<std::uint64_t>(std::llround(static_cast<double>(n) / seconds))
                     : 0;
}

void row(std::FILE* out, const char* name, std::uint64_t rate, std::uint64_t total) {
  std::fprintf(out, "%-18s%-17s%s\n", name, thousands(rate).c_str(), thousands(total).c_str());
}

struct Field {
  const char* name;
  std::uint64_t value;
};

void json_fields(std::string& line, std::initializer_list<Field> fields) {
  for (const Field& f : fields) {
    line += ",\"";
    line += f.name;
    line += "\":" + std::to_string(f.value);
  }
}

// The kernel's XDP_STATISTICS (-x): the JSON key (the uapi field's name) and the text row's label.
struct XdpField {
  const char* key;
  const char* label;
  std::uint64_t XdpStatistics::*member;
};
constexpr XdpField xdp_fields[] = {
    {"rx_dropped", "rx dropped", &XdpStatistics::rx_dropped},
    {"rx_invalid_descs", "rx invalid", &XdpStatistics::rx_invalid_descs},
    {"tx_invalid_descs", "tx invalid", &XdpStatistics::tx_invalid_descs},
    {"rx_ring_full", "rx queue full", &XdpStatistics::rx_ring_full},
    {"rx_fill_ring_empty_descs", "fill ring empty", &XdpStatistics::rx_fill_ring_empty_descs},
    {"tx_ring_empty_descs", "tx ring empty", &XdpStatistics::tx_ring_empty_descs},
};

void json_xdp(std::string& line, const XdpStatistics& x) {
  for (const XdpField& f : xdp_fields) json_fields(line, {{f.key, x.*f.member}});
}

void text_xdp(std::FILE* out, const XdpStatistics& counted, double seconds,
              const XdpStatistics& total) {
  for (const XdpField& f : xdp_fields) {
    row(out, f.label, per_second(counted.*f.member, seconds), total.*f.member);
  }
}

XdpStatistics operator+(const XdpStatistics& a, const XdpStatistics& b) {
  XdpStatistics sum = a;
  for (const XdpField& f : xdp_fields) sum.*f.member += b.*f.member;
  return sum;
}

}  // namespace

Reporter::Reporter(const BenchOptions& options, std::string mode, std::FILE* out)
    : options_(options), mode_(std::move(mode)), out_(out) {}

void Reporter::print(const SocketLabel& socket, const Sample& delta, const Sample& total) const {
  const double s = delta.seconds;
  const char* benchmark = benchmark_name(options_.benchmark);
  if (options_.json) {
    std::string line = "{\"socket\":" + std::to_string(socket.index) +
                       ",\"interface\":" + json_string(socket.interface) +
                       ",\"queue\":" + std::to_string(socket.queue) + ",\"benchmark\":\"" +
                       benchmark + "\",\"mode\":\"" + mode_ + "\"";
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, ",\"seconds\":%.3f", s);
    line += seconds;
    json_fields(line, {{"rx_pps", per_second(rx_packets(delta.app), s)},
                       {tx_pps_key(), per_second(delta.app.tx, s)},
                       {"rx_packets", rx_packets(total.app)},
                       {tx_count_key(), total.app.tx}});
    if (options_.frags) json_fields(line, {{"rx_frags", total.app.rx}});
    if (options_.extra_stats) json_xdp(line, total.xdp);
    if (options_.app_stats) {
      json_fields(line, {{"syscalls_ps", per_second(delta.app.syscalls, s)},
                         {"empty_polls_ps", per_second(delta.app.empty_polls, s)},
                         {"syscalls", total.app.syscalls},
                         {"empty_polls", total.app.empty_polls}});
    }
    std::fprintf(out_, "%s}\n", line.c_str());
    std::fflush(out_);
    return;
  }
  std::fprintf(out_, "\n sock%u@%s:%u %s %s%s\n", socket.index, socket.interface.c_str(),
               socket.queue, benchmark, mode_.c_str(), options_.use_poll ? " poll()" : "");
  std::fprintf(out_, "%-18s%-17s%-17s%.2f\n", "", "pps", "pkts", s);
  text_rows(delta, s, total);
  std::fflush(out_);
}

void Reporter::text_rows(const Sample& counted, double seconds, const Sample& total) const {
  const auto rate = [seconds](std::uint64_t n) { return per_second(n, seconds); };
  row(out_, "rx", rate(rx_packets(counted.app)), rx_packets(total.app));
  if (options_.frags) row(out_, "rx frags", rate(counted.app.rx), total.app.rx);
  row(out_, options_.frags ? "tx frags" : "tx", rate(counted.app.tx), total.app.tx);
  if (options_.extra_stats) text_xdp(out_, counted.xdp, seconds, total.xdp);
  if (options_.app_stats) {
    row(out_, "syscalls", rate(counted.app.syscalls), total.app.syscalls);
    row(out_, "empty polls", rate(counted.app.empty_polls), total.app.empty_polls);
  }
}

void Reporter::summary(const std::vector<Sample>& totals, double seconds,
                       const LedgerTotals& ledger) const {
  Sample sum;
  for (const Sample& t : totals) {
    sum.app = sum.app + t.app;
    sum.xdp = sum.xdp + t.xdp;
  }
  if (options_.json) {
    json_summary(sum, totals.size(), seconds, ledger);
  } else {
    text_summary(sum, totals.size(), seconds, ledger);
  }
  std::fflush(out_);
}

void Reporter::json_summary(const Sample& sum, std::size_t sockets, double seconds,
                            const LedgerTotals& ledger) const {
  std::string line =
      "{\"summary\":true,\"benchmark\":\"" + std::string(benchmark_name(options_.benchmark)) +
      "\",\"interface\":" + json_string(options_.interface) + ",\"mode\":\"" + mode_ + "\"";
  char text[32];
  std::snprintf(text, sizeof text, ",\"seconds\":%.3f", seconds);
  line += text;
  json_fields(line, {{"sockets", sockets},
                     {"rx_pps", per_second(rx_packets(sum.app), seconds)},
                     {tx_pps_key(), per_second(sum.app.tx, seconds)},
                     {"rx_packets", rx_packets(sum.app)},
                     {tx_count_key(), sum.app.tx},
                     {"refused_descs", sum.app.refused}});
  if (options_.frags) {
    json_fields(line, {{"rx_frags", sum.app.rx}, {"invalid_chains", sum.app.invalid_chains}});
  }
  if (options_.extra_stats) json_xdp(line, sum.xdp);
  if (options_.app_stats) {
    json_fields(line, {{"syscalls", sum.app.syscalls}, {"empty_polls", sum.app.empty_polls}});
  }
  line += ledger.enabled ? ",\"ledger\":true" : ",\"ledger\":false";
  if (ledger.enabled) {
    json_fields(line, {{"ledger_errors", ledger.errors},
                       {"frames", ledger.frames},
                       {"frames_free", ledger.free},
                       {"frames_fill", ledger.fill},
                       {"frames_application", ledger.application},
                       {"frames_tx", ledger.tx}});
  }
  std::fprintf(out_, "%s}\n", line.c_str());
}

void Reporter::text_summary(const Sample& sum, std::size_t sockets, double seconds,
                            const LedgerTotals& ledger) const {
  std::fprintf(out_, "\n summary: %s on %s, %s, %zu socket(s), %.2f s\n",
               benchmark_name(options_.benchmark), options_.interface.c_str(), mode_.c_str(),
               sockets, seconds);
  std::fprintf(out_, "%-18s%-17s%s\n", "", "pps (average)", "pkts");
  text_rows(sum, seconds, sum);
  if (sum.app.invalid_chains != 0) {
    std::fprintf(out_, "%-18s%s rx chain(s) longer than 18 descriptors or with a refused one\n",
                 "invalid chains", thousands(sum.app.invalid_chains).c_str());
  }
  if (sum.app.refused != 0) {
    std::fprintf(out_, "%-18s%s rx descriptor(s) outside the UMEM, refused\n", "refused",
                 thousands(sum.app.refused).c_str());
  }
  if (ledger.enabled) {
    std::fprintf(out_, "%-18s%s error(s); of %s frames: %s free, %s fill, %s application, %s tx\n",
                 "ledger", thousands(ledger.errors).c_str(), thousands(ledger.frames).c_str(),
                 thousands(ledger.free).c_str(), thousands(ledger.fill).c_str(),
                 thousands(ledger.application).c_str(), thousands(ledger.tx).c_str());
  } else {
    std::fprintf(out_, "%-18s%s\n", "ledger", "off (built without AFXDP_FRAME_LEDGER)");
  }
}

}  // namespace afxdp::tool
