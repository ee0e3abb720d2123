// Interned strings: label keys and values, taints and image names compare as
// integers in the filters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tightpack {

using StrId = uint32_t;
inline constexpr StrId kNoStr = UINT32_MAX;

class StringPool {
 public:
  StrId intern(std::string_view s);
  StrId find(std::string_view s) const;  // kNoStr when never interned
  const std::string& str(StrId id) const { return strings_[id]; }

 private:
  std::vector<std::string> strings_;
  std::unordered_map<std::string, StrId> ids_;
};

}  // namespace tightpack
