#include "xsk/xsk_stats.hpp"

#include "common/json.hpp"
#include "common/per_second.hpp"
#include "common/thousands.hpp"

#include <cinttypes>

namespace afxdp::tool {
namespace {

void row(std::FILE* out, const char* name, std::uint64_t rate, std::uint64_t total) {
  std::fprintf(out, "%-18s%-17s%s\n", name, thousands(rate).c_str(), thousands(total).c_str());
}

// When a row is shown: always, without -F, with -F, with -x, with -a.
enum class Shown : std::uint8_t { always, whole, frags, xdp, app };

// One row of the report: the text label (nullptr: only in the JSON summary), the JSON key of the
// total and of the rate per interval (nullptr: none), and what it counts.
struct Row {
  Shown shown;
  const char* label;
  const char* key;
  const char* rate_key;
  std::uint64_t (*count)(const QueueStats&);
};

template <std::uint64_t QueueStats::*Member>
constexpr std::uint64_t queue(const QueueStats& s) {
  return s.*Member;
}
template <std::uint64_t XdpStatistics::*Member>
constexpr std::uint64_t kernel(const QueueStats& s) {
  return s.kernel.*Member;
}
constexpr std::uint64_t syscalls(const QueueStats& s) { return s.wakeups + s.polls; }

// With -F, rx counts whole packets (`rx frags` the descriptors) and tx the descriptors completed.
// The kernel's counters keep their uapi names in the JSON.
constexpr Row rows[] = {
    {Shown::whole, "rx", "rx_packets", "rx_pps", queue<&QueueStats::received>},
    {Shown::frags, "rx", "rx_packets", "rx_pps", queue<&QueueStats::packets>},
    {Shown::frags, "rx frags", "rx_frags", nullptr, queue<&QueueStats::received>},
    {Shown::whole, "tx", "tx_packets", "tx_pps", queue<&QueueStats::completed>},
    {Shown::frags, "tx frags", "tx_frags", "tx_frags_pps", queue<&QueueStats::completed>},
    // Bytes of the frames received, and of those put on tx (sent once completed).
    {Shown::always, "rx bytes", "rx_bytes", "rx_bytes_ps", queue<&QueueStats::rx_bytes>},
    {Shown::always, "tx bytes", "tx_bytes", "tx_bytes_ps", queue<&QueueStats::tx_bytes>},
    {Shown::always, nullptr, "refused_descs", nullptr, queue<&QueueStats::refused>},
    {Shown::frags, nullptr, "invalid_chains", nullptr, queue<&QueueStats::invalid_chains>},
    {Shown::xdp, "rx dropped", "rx_dropped", nullptr, kernel<&XdpStatistics::rx_dropped>},
    {Shown::xdp, "rx invalid", "rx_invalid_descs", nullptr,
     kernel<&XdpStatistics::rx_invalid_descs>},
    {Shown::xdp, "tx invalid", "tx_invalid_descs", nullptr,
     kernel<&XdpStatistics::tx_invalid_descs>},
    {Shown::xdp, "rx queue full", "rx_ring_full", nullptr, kernel<&XdpStatistics::rx_ring_full>},
    {Shown::xdp, "fill ring empty", "rx_fill_ring_empty_descs", nullptr,
     kernel<&XdpStatistics::rx_fill_ring_empty_descs>},
    {Shown::xdp, "tx ring empty", "tx_ring_empty_descs", nullptr,
     kernel<&XdpStatistics::tx_ring_empty_descs>},
    {Shown::app, "syscalls", "syscalls", "syscalls_ps", syscalls},
    {Shown::app, "empty polls", "empty_polls", "empty_polls_ps", queue<&QueueStats::empty_turns>},
};

bool shown(const XskOptions& o, Shown s) {
  switch (s) {
    case Shown::always:
      return true;
    case Shown::whole:
      return !o.frags;
    case Shown::frags:
      return o.frags;
    case Shown::xdp:
      return o.extra_stats;
    case Shown::app:
      return o.app_stats;
  }
  return false;
}

// The JSON groups the rows as the text does (packets, then -x, then -a), each group's rates
// before its totals.
Shown group(Shown s) { return s == Shown::whole || s == Shown::frags ? Shown::always : s; }

void json_field(std::string& line, const char* key, std::uint64_t value) {
  line += ",\"";
  line += key;
  line += "\":" + std::to_string(value);
}

// An interval's rows (rates of `delta`, totals of `total`), or the summary's (`summary`: rates
// of the packet counters only, and the rows only the summary has).
void json_rows(std::string& line, const XskOptions& o, const QueueStats& delta, double seconds,
               const QueueStats& total, bool summary) {
  for (const Shown g : {Shown::always, Shown::xdp, Shown::app}) {
    const bool rates = !summary || g == Shown::always;
    for (const Row& r : rows) {
      if (rates && r.rate_key != nullptr && group(r.shown) == g && shown(o, r.shown)) {
        json_field(line, r.rate_key, per_second(r.count(delta), seconds));
      }
    }
    for (const Row& r : rows) {
      if ((summary || r.label != nullptr) && group(r.shown) == g && shown(o, r.shown)) {
        json_field(line, r.key, r.count(total));
      }
    }
  }
}

}  // namespace

Reporter::Reporter(const XskOptions& options, std::string mode, std::FILE* out)
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
    json_rows(line, options_, delta.stats, s, total.stats, false);
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
  for (const Row& r : rows) {
    if (r.label != nullptr && shown(options_, r.shown)) {
      row(out_, r.label, per_second(r.count(counted.stats), seconds), r.count(total.stats));
    }
  }
}

void Reporter::summary(const std::vector<Sample>& totals, double seconds,
                       const LedgerTotals& ledger) const {
  Sample sum;
  for (const Sample& t : totals) sum.stats = sum.stats + t.stats;
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
  json_field(line, "sockets", sockets);
  json_rows(line, options_, sum.stats, seconds, sum.stats, true);
  line += ledger.enabled ? ",\"ledger\":true" : ",\"ledger\":false";
  if (ledger.enabled) {
    json_field(line, "ledger_errors", ledger.errors);
    json_field(line, "frames", ledger.frames);
    json_field(line, "frames_free", ledger.free);
    json_field(line, "frames_fill", ledger.fill);
    json_field(line, "frames_application", ledger.application);
    json_field(line, "frames_tx", ledger.tx);
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
  if (sum.stats.invalid_chains != 0) {
    std::fprintf(out_, "%-18s%s rx chain(s) longer than 18 descriptors or with a refused one\n",
                 "invalid chains", thousands(sum.stats.invalid_chains).c_str());
  }
  if (sum.stats.refused != 0) {
    std::fprintf(out_, "%-18s%s rx descriptor(s) outside the UMEM, refused\n", "refused",
                 thousands(sum.stats.refused).c_str());
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
