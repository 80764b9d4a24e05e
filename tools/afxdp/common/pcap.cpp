#include "common/pcap.hpp"

#include <pcap/pcap.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

namespace afxdp::tool {
namespace {

// For messages: "pcap file x.pcap"; "-" is standard input when reading, output when writing.
std::string describe(const std::string& path, const char* stream) {
  return path == "-" ? std::string("pcap on ") + stream : "pcap file " + path;
}

struct PcapCloser {
  void operator()(pcap_t* p) const noexcept { pcap_close(p); }
};

}  // namespace

PcapFrames read_pcap(const std::string& path, std::uint64_t max_bytes) {
  const std::string name = describe(path, "standard input");
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  std::unique_ptr<pcap_t, PcapCloser> in(pcap_open_offline(path.c_str(), errbuf));
  if (!in) throw std::runtime_error(name + ": " + errbuf);
  if (pcap_datalink(in.get()) != DLT_EN10MB) {
    const char* type = pcap_datalink_val_to_name(pcap_datalink(in.get()));
    throw std::runtime_error(name + ": link type " + (type ? type : "unknown") + ", not Ethernet");
  }
  PcapFrames frames;
  std::uint64_t bytes = 0;
  for (;;) {
    pcap_pkthdr* header = nullptr;
    const std::uint8_t* data = nullptr;
    const int rc = pcap_next_ex(in.get(), &header, &data);
    if (rc == PCAP_ERROR_BREAK) break;  // end of file
    const std::string where = name + ", frame " + std::to_string(frames.size() + 1);
    // A record cut off by the end of the file, or a header with an impossible length.
    if (rc == PCAP_ERROR) throw std::runtime_error(where + ": " + pcap_geterr(in.get()));
    if (rc != 1) throw std::runtime_error(where + ": pcap_next_ex returned " + std::to_string(rc));
    if (header->caplen != header->len) {
      throw std::runtime_error(where + ": only " + std::to_string(header->caplen) + " of its " +
                               std::to_string(header->len) +
                               " bytes were captured (snap length), so it cannot be replayed");
    }
    // Counted as read, so that a huge capture is refused before it is all in memory.
    bytes += header->caplen;
    if (bytes > max_bytes) {
      throw std::invalid_argument(name + ": more than " + std::to_string(max_bytes) +
                                  " bytes of frames; at most that is replayed");
    }
    frames.push_back({data, header->caplen});
  }
  return frames;
}

PcapWriter::PcapWriter(const std::string& path, std::uint32_t snaplen)
    : path_(path), snaplen_(snaplen) {
  pcap_ = pcap_open_dead(DLT_EN10MB, static_cast<int>(snaplen));
  if (pcap_ == nullptr) throw std::runtime_error("pcap_open_dead failed");
  // pcap_dump_open takes "-" for standard output.
  dumper_ = pcap_dump_open(pcap_, path.c_str());
  if (dumper_ == nullptr) {
    const std::string error = pcap_geterr(pcap_);
    pcap_close(pcap_);
    pcap_ = nullptr;
    throw std::runtime_error(describe(path, "standard output") + ": " + error);
  }
}

PcapWriter::PcapWriter(std::FILE* file, const std::string& path, std::uint32_t snaplen)
    : path_(path), snaplen_(snaplen) {
  pcap_ = pcap_open_dead(DLT_EN10MB, static_cast<int>(snaplen));
  if (pcap_ == nullptr) {
    std::fclose(file);
    throw std::runtime_error("pcap_open_dead failed");
  }
  dumper_ = pcap_dump_fopen(pcap_, file);
  if (dumper_ == nullptr) {
    const std::string error = pcap_geterr(pcap_);
    std::fclose(file);
    pcap_close(pcap_);
    pcap_ = nullptr;
    throw std::runtime_error(path + ": " + error);
  }
}

PcapWriter::~PcapWriter() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; callers that care call close()
  }
}

void PcapWriter::write(const std::uint8_t* frame, std::uint32_t length, const timespec& when) {
  pcap_pkthdr header{};
  header.ts.tv_sec = when.tv_sec;
  header.ts.tv_usec = static_cast<suseconds_t>(when.tv_nsec / 1000);
  header.len = length;
  header.caplen = length < snaplen_ ? length : snaplen_;
  pcap_dump(reinterpret_cast<u_char*>(dumper_), &header, frame);
  ++frames_;
}

void PcapWriter::flush() {
  if (dumper_ != nullptr && pcap_dump_flush(dumper_) != 0) {
    throw std::runtime_error(describe(path_, "standard output") + ": write failed");
  }
}

void PcapWriter::close() {
  if (dumper_ == nullptr) return;
  // pcap_dump_close reports nothing: flush first so a full disk or closed pipe is seen.
  const bool flushed = pcap_dump_flush(dumper_) == 0;
  pcap_dump_close(dumper_);
  dumper_ = nullptr;
  pcap_close(pcap_);
  pcap_ = nullptr;
  if (!flushed) throw std::runtime_error(describe(path_, "standard output") + ": write failed");
}

}  // namespace afxdp::tool
