#include "tightpack/string_pool.hpp"

namespace tightpack {

StrId StringPool::intern(std::string_view s) {
  auto [it, inserted] = ids_.try_emplace(std::string(s), static_cast<StrId>(strings_.size()));
  if (inserted) strings_.emplace_back(s);
  return it->second;
}

StrId StringPool::find(std::string_view s) const {
  auto it = ids_.find(std::string(s));
  return it == ids_.end() ? kNoStr : it->second;
}

}  // namespace tightpack
