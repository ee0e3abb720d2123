#include "tightpack/error.hpp"

namespace tightpack {

std::string quote_value(std::string_view text) {
  constexpr size_t kMax = 64;
  std::string out = "\"";
  if (text.size() <= kMax) {
    out.append(text);
    out += '"';
  } else {
    out.append(text.substr(0, kMax));
    out += "\"… (" + std::to_string(text.size()) + " bytes)";
  }
  return out;
}

}  // namespace tightpack
