#include "common/json.hpp"

#include <cstdio>
#include <cstdlib>

namespace afxdp::tool {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_value(const std::string& line, const std::string& key) {
  const std::string quoted = "\"" + key + "\"";
  // The key is the quoted name followed by a colon (a string value may hold the same word).
  for (std::size_t at = line.find(quoted); at != std::string::npos;
       at = line.find(quoted, at + 1)) {
    const std::size_t colon = line.find_first_not_of(" \t", at + quoted.size());
    if (colon == std::string::npos || line[colon] != ':') continue;
    const std::size_t begin = line.find_first_not_of(" \t", colon + 1);
    if (begin == std::string::npos) return "";
    const std::size_t end = line.find_first_of(",} \t", begin);
    return line.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  }
  return "";
}

bool json_number(const std::string& line, const std::string& key, double& value) {
  const std::string text = json_value(line, key);
  if (text.empty()) return false;
  char* end = nullptr;
  const double parsed = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return false;
  value = parsed;
  return true;
}

}  // namespace afxdp::tool
