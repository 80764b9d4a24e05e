// The XDP verdicts, with the uapi's values, and their names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace afxdp {

enum class XdpAction : std::uint32_t { aborted = 0, drop = 1, pass = 2, tx = 3, redirect = 4 };

// "XDP_DROP" etc., as the uapi names them.
constexpr const char* xdp_action_name(XdpAction action) noexcept {
  switch (action) {
    case XdpAction::aborted:
      return "XDP_ABORTED";
    case XdpAction::drop:
      return "XDP_DROP";
    case XdpAction::pass:
      return "XDP_PASS";
    case XdpAction::tx:
      return "XDP_TX";
    case XdpAction::redirect:
      return "XDP_REDIRECT";
  }
  return "XDP_ABORTED";
}

// "drop", "XDP_DROP", "Drop"... -> XdpAction::drop; nullopt for an unknown name.
inline std::optional<XdpAction> parse_xdp_action(std::string_view name) {
  std::string upper;
  for (const char c : name) upper += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  if (upper.rfind("XDP_", 0) == 0) upper.erase(0, 4);
  for (const XdpAction action :
       {XdpAction::aborted, XdpAction::drop, XdpAction::pass, XdpAction::tx, XdpAction::redirect}) {
    if (upper == xdp_action_name(action) + 4) return action;
  }
  return std::nullopt;
}

}  // namespace afxdp
