// Typed reads from boost::json values with errors that carry the JSON path.
// Private to core's decoders.
#pragma once

#include <algorithm>
#include <boost/json.hpp>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tightpack/error.hpp"
#include "tightpack/json_path.hpp"
#include "tightpack/known_fields.hpp"

namespace tightpack::json_read {

namespace json = boost::json;
using Fail = std::optional<Error>;

#define TP_TRY(expr)               \
  do {                             \
    if (auto tp_fail_ = (expr)) {  \
      return std::move(*tp_fail_); \
    }                              \
  } while (false)

inline const char* kind_name(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return "a boolean";
    case json::kind::int64:
    case json::kind::uint64:
      return "an integer";
    case json::kind::double_:
      return "a number";
    case json::kind::string:
      return "a string";
    case json::kind::array:
      return "an array";
    case json::kind::object:
      return "an object";
  }
  return "a value";
}

inline Error type_error(const JsonPath& path, const char* want, const json::value& v) {
  return Error{path.str(), std::string("expected ") + want + ", got " + kind_name(v)};
}

inline Error value_error(const JsonPath& path, std::string message) {
  return Error{path.str(), std::move(message)};
}

// The members the decoders look up on this thread while one is installed:
// how scheduling_fields.cpp learns from the decoders themselves what they
// read of a pod. Every decoder reads through member(), so a lookup is logged
// whether or not the object has the member.
using LookupLog = std::vector<std::pair<const json::object*, std::string>>;
inline thread_local LookupLog* lookup_log = nullptr;
// Out of line, so that member() stays small enough to inline everywhere.
[[gnu::cold, gnu::noinline]] void log_lookup(const json::object& o, std::string_view key);

// A field that is absent or null reads as "not there", as Go's decoder does.
inline const json::value* member(const json::object& o, std::string_view key) {
  if (lookup_log != nullptr) [[unlikely]]
    log_lookup(o, key);
  auto it = o.find(key);
  if (it == o.end() || it->value().is_null()) return nullptr;
  return &it->value();
}

// Every format whose unknown keys are mistakes refuses one (known_fields.hpp).
inline Fail only_known(const json::object& o, const JsonPath& path,
                       std::initializer_list<std::string_view> known) {
  return unknown_field(o, path, known);
}

inline Fail as_object(const json::value& v, const JsonPath& path, const json::object*& out) {
  if (!v.is_object()) return type_error(path, "an object", v);
  out = &v.get_object();
  return std::nullopt;
}

inline Fail as_array(const json::value& v, const JsonPath& path, const json::array*& out) {
  if (!v.is_array()) return type_error(path, "an array", v);
  out = &v.get_array();
  return std::nullopt;
}

inline Fail read_string(const json::object& o, std::string_view key, const JsonPath& path,
                        std::string& out) {
  if (const json::value* v = member(o, key)) {
    if (!v->is_string()) return type_error(path.field(key), "a string", *v);
    out = std::string(v->get_string());
  }
  return std::nullopt;
}

inline Fail read_bool(const json::object& o, std::string_view key, const JsonPath& path,
                      bool& out) {
  if (const json::value* v = member(o, key)) {
    if (!v->is_bool()) return type_error(path.field(key), "a boolean", *v);
    out = v->get_bool();
  }
  return std::nullopt;
}

template <class Int>
Fail read_int(const json::object& o, std::string_view key, const JsonPath& path, Int& out) {
  const json::value* v = member(o, key);
  if (!v) return std::nullopt;
  JsonPath p = path.field(key);
  if (v->is_int64()) {
    int64_t x = v->get_int64();
    if (x < std::numeric_limits<Int>::min() || x > std::numeric_limits<Int>::max()) {
      return value_error(p, "integer " + std::to_string(x) + " is out of range");
    }
    out = static_cast<Int>(x);
    return std::nullopt;
  }
  if (v->is_uint64()) {
    return value_error(p, "integer " + std::to_string(v->get_uint64()) + " is out of range");
  }
  // Converting a double outside Int's range is undefined behaviour, and JSON
  // parsers keep integers too large for 64 bits as doubles; [min, -min) is
  // Int's range with both ends exact in a double.
  constexpr auto kMin = static_cast<double>(std::numeric_limits<Int>::min());
  static_assert(std::numeric_limits<Int>::is_signed);
  if (v->is_double() && v->get_double() >= kMin && v->get_double() < -kMin) {
    double d = v->get_double();
    auto x = static_cast<Int>(d);
    if (static_cast<double>(x) == d) {  // 3.0 is an integer in JSON's eyes too
      out = x;
      return std::nullopt;
    }
  }
  return type_error(p, "an integer", *v);
}

// Reads a map of strings (labels, nodeSelector) into sorted pairs.
template <class Pairs>
Fail read_string_map(const json::object& o, std::string_view key, const JsonPath& path,
                     Pairs& out) {
  const json::value* v = member(o, key);
  if (!v) return std::nullopt;
  JsonPath p = path.field(key);
  const json::object* m = nullptr;
  TP_TRY(as_object(*v, p, m));
  out.clear();
  out.reserve(m->size());
  for (const auto& kv : *m) {
    if (!kv.value().is_string()) return type_error(p.field(kv.key()), "a string", kv.value());
    out.emplace_back(std::string(kv.key()), std::string(kv.value().get_string()));
  }
  std::sort(out.begin(), out.end());
  return std::nullopt;
}

// Appends the strings of the array at `key`, if present.
inline Fail read_string_list(const json::object& o, std::string_view key, const JsonPath& path,
                             std::vector<std::string>& out) {
  const json::value* v = member(o, key);
  if (!v) return std::nullopt;
  JsonPath p = path.field(key);
  const json::array* a = nullptr;
  TP_TRY(as_array(*v, p, a));
  for (size_t i = 0; i < a->size(); ++i) {
    if (!(*a)[i].is_string())
      return type_error(p.index(static_cast<int64_t>(i)), "a string", (*a)[i]);
    out.emplace_back((*a)[i].get_string());
  }
  return std::nullopt;
}

}  // namespace tightpack::json_read
