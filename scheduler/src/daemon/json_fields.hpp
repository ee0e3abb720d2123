// Lenient reads of one field of a JSON answer or object: what is not there,
// or not of the kind asked, reads as absent. For answers the daemon only
// glances at (a review's verdict, the key of an object that does not decode),
// not for objects core's decoder reads.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>

namespace tightpack::daemon {

inline const boost::json::object* object_at(const boost::json::value& v, std::string_view key) {
  const boost::json::object* o = v.if_object();
  const boost::json::value* m = o ? o->if_contains(key) : nullptr;
  return m ? m->if_object() : nullptr;
}

inline std::string string_at(const boost::json::object* o, std::string_view key) {
  const boost::json::value* m = o ? o->if_contains(key) : nullptr;
  const boost::json::string* s = m ? m->if_string() : nullptr;
  return s ? std::string(*s) : std::string();
}

inline bool bool_at(const boost::json::object* o, std::string_view key) {
  const boost::json::value* m = o ? o->if_contains(key) : nullptr;
  return m && m->is_bool() && m->as_bool();
}

}  // namespace tightpack::daemon
