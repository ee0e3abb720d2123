// The routes' JSON answers: a body as it is, or {"error": "…"} naming what
// went wrong.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <string>

#include "daemon/http_server.hpp"

namespace tightpack::daemon {

inline HttpAnswer json_answer(unsigned status, std::string body) {
  HttpAnswer a = text_answer(status, std::move(body));
  a.content_type = "application/json";
  return a;
}

inline HttpAnswer error_answer(unsigned status, const std::string& message) {
  return json_answer(status, boost::json::serialize(boost::json::object{{"error", message}}));
}

}  // namespace tightpack::daemon
