#include "common/steer.hpp"

#include "common/json.hpp"
#include "common/thousands.hpp"

#include <stdexcept>

namespace afxdp::tool {

void add_steer_option(CLI::App& app, std::vector<std::string>& texts) {
  app.add_option("--steer", texts,
                 "only frames matching EXPR reach the socket, the rest go to the kernel "
                 "(e.g. 'udp dst port 53'; repeat for more rules)")
      ->type_size(1)
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

std::vector<Match> parse_steer(const std::vector<std::string>& texts) {
  std::vector<Match> matches;
  for (const std::string& text : texts) {
    try {
      matches.push_back(Match::parse(text));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--steer: ") + e.what());
    }
  }
  return matches;
}

std::string steering_text(const std::vector<SteeringRule>& rules) {
  std::string text;
  for (const SteeringRule& r : rules) {
    text += "steering: rule " + std::to_string(r.id) + " '" + r.match.str() +
            "': " + thousands(r.hits) + " frames\n";
  }
  return text;
}

std::string steering_json(const std::vector<SteeringRule>& rules) {
  std::string json = "[";
  for (const SteeringRule& r : rules) {
    if (json.size() > 1) json += ",";
    json += "{\"rule\":" + json_string(r.match.str()) + ",\"hits\":" + std::to_string(r.hits) + "}";
  }
  return json + "]";
}

}  // namespace afxdp::tool
