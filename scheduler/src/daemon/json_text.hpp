// JSON written as text, for what is written too often to build a
// json::object first: /snapshot's pod templates (150,000 pods on a large hub,
// where building a json::object for each took four times as long).
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace tightpack::daemon {

inline void put_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  out += '"';
}

inline void put_int(std::string& out, int64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

inline void put_key(std::string& out, std::string_view key) {
  put_string(out, key);
  out += ':';
}

// Opens `{` or `[`, writes a comma before every member but the first.
class Nest {
 public:
  Nest(std::string& out, char open, char close) : out_(out), close_(close) { out_ += open; }
  ~Nest() { out_ += close_; }
  Nest(const Nest&) = delete;
  Nest& operator=(const Nest&) = delete;
  std::string& next() {
    if (!first_) out_ += ',';
    first_ = false;
    return out_;
  }
  std::string& key(std::string_view k) {
    put_key(next(), k);
    return out_;
  }

 private:
  std::string& out_;
  char close_;
  bool first_ = true;
};

}  // namespace tightpack::daemon
