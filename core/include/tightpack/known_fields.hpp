// Every format whose unknown keys are mistakes (configuration, questions,
// scenarios, the daemon's own configuration and published document) refuses
// one so: naming it, and the fields it could have meant.
#pragma once

#include <algorithm>
#include <boost/json/object.hpp>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "tightpack/error.hpp"
#include "tightpack/json_path.hpp"

namespace tightpack {

// `unknown field "x" (known: a, b, …)` at path.x, for the first key of `o`
// not in `known`; nothing when every key is known.
inline std::optional<Error> unknown_field(const boost::json::object& o, const JsonPath& path,
                                          std::initializer_list<std::string_view> known) {
  for (const auto& kv : o) {
    if (std::find(known.begin(), known.end(), kv.key()) != known.end()) continue;
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    return Error{path.field(kv.key()).str(),
                 "unknown field " + quote_value(kv.key()) + " (known: " + list + ")"};
  }
  return std::nullopt;
}

}  // namespace tightpack
