// The tests' JSON grammar check, strict as RFC 8259 (objects, arrays, strings with their escapes
// and no raw control characters, numbers, true/false/null) and independent of the tool's writer
// (tools/afxdp/common/json.cpp): is_json(line) for each line the tool prints with --json. Values
// are read with the tool's own reader, json_value and json_number (common/json.hpp).
#pragma once

#include <cctype>
#include <cstring>
#include <string>

namespace afxdp::test {

class JsonCheck {
 public:
  explicit JsonCheck(const std::string& text) : s_(text) {}
  [[nodiscard]] bool valid() {
    if (!value()) return false;
    skip();
    return at_ == s_.size();
  }

 private:
  [[nodiscard]] bool more() const { return at_ < s_.size(); }
  [[nodiscard]] bool digit() const {
    return more() && std::isdigit(static_cast<unsigned char>(s_[at_])) != 0;
  }
  void skip() {
    while (more() && std::strchr(" \t\r\n", s_[at_]) != nullptr && s_[at_] != '\0') ++at_;
  }
  bool eat(char c) {
    skip();
    if (more() && s_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  bool value() {
    skip();
    if (!more()) return false;
    const char c = s_[at_];
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return string();
    if (c == '-' || digit()) return number();
    for (const char* word : {"true", "false", "null"}) {
      const std::string w(word);
      if (s_.compare(at_, w.size(), w) == 0) {
        at_ += w.size();
        return true;
      }
    }
    return false;
  }
  bool object() {
    ++at_;
    if (eat('}')) return true;
    do {
      skip();
      if (!string() || !eat(':') || !value()) return false;
    } while (eat(','));
    return eat('}');
  }
  bool array() {
    ++at_;
    if (eat(']')) return true;
    do {
      if (!value()) return false;
    } while (eat(','));
    return eat(']');
  }
  bool string() {
    if (!more() || s_[at_] != '"') return false;
    for (++at_; more(); ++at_) {
      const auto c = static_cast<unsigned char>(s_[at_]);
      if (c < 0x20) return false;  // a control character must be escaped
      if (c == '"') {
        ++at_;
        return true;
      }
      if (c == '\\' && !escape()) return false;
    }
    return false;
  }
  bool escape() {  // at the backslash; leaves at_ on the escape's last character
    ++at_;
    if (!more()) return false;
    if (std::strchr("\"\\/bfnrt", s_[at_]) != nullptr && s_[at_] != '\0') return true;
    if (s_[at_] != 'u') return false;
    for (int i = 0; i < 4; ++i) {
      ++at_;
      if (!more() || std::isxdigit(static_cast<unsigned char>(s_[at_])) == 0) return false;
    }
    return true;
  }
  bool digits() {  // one or more
    if (!digit()) return false;
    while (digit()) ++at_;
    return true;
  }
  bool number() {  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    if (s_[at_] == '-') ++at_;
    if (more() && s_[at_] == '0') {
      ++at_;
    } else if (!digits()) {
      return false;
    }
    if (more() && s_[at_] == '.') {
      ++at_;
      if (!digits()) return false;
    }
    if (more() && (s_[at_] == 'e' || s_[at_] == 'E')) {
      ++at_;
      if (more() && (s_[at_] == '+' || s_[at_] == '-')) ++at_;
      if (!digits()) return false;
    }
    return true;
  }

  const std::string& s_;
  std::size_t at_ = 0;
};

inline bool is_json(const std::string& text) { return JsonCheck(text).valid(); }

}  // namespace afxdp::test
