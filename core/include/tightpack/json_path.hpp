// A JSON path built on the stack while decoding and rendered only when an
// error needs it, so that decoding 150,000 pods allocates no path strings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tightpack {

class JsonPath {
 public:
  JsonPath() = default;  // the root, "$"
  explicit JsonPath(std::string_view root) : key_(root) {}

  // A child points at its parent, so the parent must outlive it: children of
  // temporaries do not compile (name each level as a local instead).
  JsonPath field(std::string_view key) const& { return JsonPath(this, key, -1); }
  JsonPath index(int64_t i) const& { return JsonPath(this, {}, i); }
  JsonPath field(std::string_view key) const&& = delete;
  JsonPath index(int64_t i) const&& = delete;

  std::string str() const;

 private:
  JsonPath(const JsonPath* parent, std::string_view key, int64_t index)
      : parent_(parent), key_(key), index_(index) {}

  const JsonPath* parent_ = nullptr;
  std::string_view key_ = "$";
  int64_t index_ = -1;
};

}  // namespace tightpack
