// Small pieces the JSON encoders of core share. Private to core.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tightpack::json_write {

inline boost::json::array string_array(const std::vector<std::string>& items) {
  boost::json::array a;
  a.reserve(items.size());
  for (const auto& s : items) a.emplace_back(s);
  return a;
}

// The value, or null when there is none.
template <class T>
boost::json::value nullable(const std::optional<T>& v) {
  return v ? boost::json::value(*v) : boost::json::value(nullptr);
}

inline std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : separator) + s;
  return out;
}

}  // namespace tightpack::json_write
