#include "common/parse.hpp"

#include "common/require.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <charconv>
#include <optional>
#include <string_view>

namespace afxdp::tool {
namespace {

std::uint32_t parse_number(std::string_view text, const char* what, std::uint32_t max) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool digits = end == text.data() + text.size() && !text.empty();
  require(digits && error != std::errc::invalid_argument,
          std::string(what) + ": '" + std::string(text) + "' is not a number");
  require(error == std::errc{} && value <= max,
          std::string(what) + ": " + std::string(text) + " is above " + std::to_string(max));
  return static_cast<std::uint32_t>(value);
}

}  // namespace

std::vector<std::uint32_t> parse_number_list(const std::string& text, const char* what,
                                             std::uint32_t max, std::size_t max_entries) {
  std::vector<std::uint32_t> numbers;
  std::string_view rest = text;
  require(!rest.empty(), std::string(what) + ": empty list");
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    require(!item.empty() && !(comma != std::string_view::npos && rest.empty()),
            std::string(what) + ": '" + text + "' has an empty item");
    const std::size_t dash = item.find('-');
    const std::uint32_t first = parse_number(item.substr(0, dash), what, max);
    const std::uint32_t last =
        dash == std::string_view::npos ? first : parse_number(item.substr(dash + 1), what, max);
    require(first <= last,
            std::string(what) + ": range '" + std::string(item) + "' runs backwards");
    // Counted in 64 bits: a range ending at the type's largest value must still end.
    for (std::uint64_t n = first; n <= last; ++n) {
      require(numbers.size() < max_entries,
              std::string(what) + ": more than " + std::to_string(max_entries) + " entries");
      require(std::find(numbers.begin(), numbers.end(), n) == numbers.end(),
              std::string(what) + ": " + std::to_string(n) + " appears twice in '" + text + "'");
      numbers.push_back(static_cast<std::uint32_t>(n));
    }
  }
  return numbers;
}

Mac parse_mac(const std::string& text, const char* what) {
  const std::optional<MacAddress> mac = parse_mac_address(text);
  require(mac.has_value(),
          std::string(what) + ": '" + text + "' is not a MAC address (aa:bb:cc:dd:ee:ff)");
  return *mac;
}

std::uint32_t parse_ipv4(const std::string& text, const char* what) {
  in_addr address{};
  require(::inet_pton(AF_INET, text.c_str(), &address) == 1,
          std::string(what) + ": '" + text + "' is not an IPv4 address (a.b.c.d)");
  return ntohl(address.s_addr);
}

}  // namespace afxdp::tool
