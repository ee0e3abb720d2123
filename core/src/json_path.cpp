#include "tightpack/json_path.hpp"

#include <vector>

namespace tightpack {
namespace {

bool plain_key(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string JsonPath::str() const {
  std::vector<const JsonPath*> chain;
  for (const JsonPath* p = this; p; p = p->parent_) chain.push_back(p);
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const JsonPath& p = **it;
    if (!p.parent_) {
      out += p.key_;
    } else if (p.index_ >= 0) {
      out += "[" + std::to_string(p.index_) + "]";
    } else if (plain_key(p.key_)) {
      out += "." + std::string(p.key_);
    } else {
      out += "[\"" + std::string(p.key_) + "\"]";
    }
  }
  return out;
}

}  // namespace tightpack
