// A strict little JSON reader for the tool's output lines: is_json() checks the grammar (objects,
// arrays, strings without escapes beyond \", numbers, true/false/null), independent of the tool.
#pragma once

#include <cctype>
#include <string>

namespace afxdp::test {

class JsonCheck {
 public:
  explicit JsonCheck(const std::string& text) : s_(text) {}
  bool valid() {
    skip();
    if (!value()) return false;
    skip();
    return at_ == s_.size();
  }

 private:
  void skip() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
  }
  bool eat(char c) {
    skip();
    if (at_ < s_.size() && s_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  bool value() {
    skip();
    if (at_ >= s_.size()) return false;
    const char c = s_[at_];
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return string();
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) return number();
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
    if (at_ >= s_.size() || s_[at_] != '"') return false;
    for (++at_; at_ < s_.size(); ++at_) {
      if (s_[at_] == '\\') {
        ++at_;
      } else if (s_[at_] == '"') {
        ++at_;
        return true;
      }
    }
    return false;
  }
  bool number() {
    const std::size_t start = at_;
    if (s_[at_] == '-') ++at_;
    while (at_ < s_.size() &&
           (std::isdigit(static_cast<unsigned char>(s_[at_])) || s_[at_] == '.' || s_[at_] == 'e' ||
            s_[at_] == 'E' || s_[at_] == '+' || s_[at_] == '-')) {
      ++at_;
    }
    return at_ > start && std::isdigit(static_cast<unsigned char>(s_[at_ - 1]));
  }

  const std::string& s_;
  std::size_t at_ = 0;
};

inline bool is_json(const std::string& text) { return JsonCheck(text).valid(); }

}  // namespace afxdp::test
