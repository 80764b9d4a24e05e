// --steer EXPR for the subcommands that receive (rxdrop, l2fwd, dump, latency): which frames
// the sockets take (afxdp::Match, docs/api.md "Steering"); the rest stay with the kernel.
// Repeatable: each --steer is one rule. The summaries print each rule's hits.
#pragma once

#include <afxdp/steering/match.hpp>
#include <afxdp/steering/steering.hpp>

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace afxdp::tool {

void add_steer_option(CLI::App& app, std::vector<std::string>& texts);
// Each text as a Match; a bad one throws std::invalid_argument naming --steer, the word and
// its position.
std::vector<Match> parse_steer(const std::vector<std::string>& texts);
// "steering: rule 1 'udp dst port 53': 1,234 frames\n" per rule; "" without rules.
std::string steering_text(const std::vector<SteeringRule>& rules);
// "[{"rule":"udp dst port 53","hits":1234},...]".
std::string steering_json(const std::vector<SteeringRule>& rules);

}  // namespace afxdp::tool
