#include "config_edit.hpp"

namespace tightpack::config_edit {

namespace json = boost::json;

json::object& first_profile(json::value& config) {
  return config.as_object()["profiles"].as_array()[0].as_object();
}

json::array& score_list(json::object& profile, const char* which) {
  json::value& plugins = profile["plugins"];
  if (!plugins.is_object()) plugins = json::object{};
  json::value& score = plugins.as_object()["score"];
  if (!score.is_object()) score = json::object{};
  json::value& list = score.as_object()[which];
  if (!list.is_array()) list = json::array{};
  return list.as_array();
}

bool is_named(const json::value& entry, std::string_view name) {
  if (!entry.is_object()) return false;
  const json::value* n = entry.as_object().if_contains("name");
  return n && n->is_string() && n->get_string() == name;
}

void erase_named(json::array& list, std::string_view name) {
  for (auto it = list.begin(); it != list.end();) {
    if (is_named(*it, name)) {
      it = list.erase(it);
    } else {
      ++it;
    }
  }
}

bool contains_named(const json::array& list, std::string_view name) {
  for (const auto& e : list) {
    if (is_named(e, name)) return true;
  }
  return false;
}

json::object& fit_args(json::object& profile) {
  json::value& configs = profile["pluginConfig"];
  if (!configs.is_array()) configs = json::array{};
  for (auto& c : configs.as_array()) {
    if (is_named(c, "NodeResourcesFit")) {
      json::value& args = c.as_object()["args"];
      if (!args.is_object()) args = json::object{};
      return args.as_object();
    }
  }
  configs.as_array().push_back(
      json::object{{"name", "NodeResourcesFit"}, {"args", json::object{}}});
  return configs.as_array().back().as_object()["args"].as_object();
}

}  // namespace tightpack::config_edit
