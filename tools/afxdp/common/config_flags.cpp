#include "common/config_flags.hpp"

#include <array>
#include <utility>

namespace afxdp::tool {
namespace {

// Every field a subcommand sets from an option. The subcommands agree on the letters.
constexpr std::array<std::pair<std::string_view, std::string_view>, 12> field_flags{{
    {"queues", "-q"},
    {"queue", "-q"},
    {"frames_per_queue", "--frames"},
    {"frame_size", "-f"},
    {"ring_size", "--ring-size"},
    {"frames_per_queue * frame_size", "--frames * -f"},
    {"busy_poll_budget", "-b"},
    {"unaligned_chunks", "-u"},
    {"multi_buffer", "-F"},
    {"steer", "--steer"},
    {"spin_before_sleep", "--spin-before-sleep"},
    {"cpus", "--cpu"},
}};

}  // namespace

std::string_view flag_of(std::string_view field) noexcept {
  for (const auto& [name, flag] : field_flags) {
    if (name == field) return flag;
  }
  return {};
}

std::string in_flags(const ConfigError& error) {
  const std::string_view flag = flag_of(error.field());
  if (flag.empty()) return error.what();
  return std::string(flag) + ": " + error.rule();
}

}  // namespace afxdp::tool
