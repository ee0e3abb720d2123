#include "daemon/unreadable.hpp"

#include <boost/json.hpp>
#include <climits>

namespace tightpack::daemon {
namespace json = boost::json;

namespace {

const json::object* object_at(const json::value& v, std::string_view key) {
  const json::object* o = v.if_object();
  if (!o) return nullptr;
  const json::value* m = o->if_contains(key);
  return m ? m->if_object() : nullptr;
}

std::string string_at(const json::object* o, std::string_view key) {
  if (!o) return {};
  const json::value* m = o->if_contains(key);
  const json::string* s = m ? m->if_string() : nullptr;
  return s ? std::string(*s) : std::string();
}

}  // namespace

std::optional<std::string> object_name(const json::value& v) {
  std::string name = string_at(object_at(v, "metadata"), "name");
  if (name.empty()) return std::nullopt;
  return name;
}

std::optional<std::string> pod_key(const json::value& v) {
  const json::object* meta = object_at(v, "metadata");
  std::string name = string_at(meta, "name");
  if (name.empty()) return std::nullopt;
  std::string ns = string_at(meta, "namespace");
  return (ns.empty() ? std::string("default") : ns) + "/" + name;
}

std::optional<UnreadablePod> read_unreadable_pod(const json::value& v, std::string error) {
  const json::object* meta = object_at(v, "metadata");
  UnreadablePod p;
  p.name = string_at(meta, "name");
  if (p.name.empty()) return std::nullopt;
  p.ns = string_at(meta, "namespace");
  if (p.ns.empty()) p.ns = "default";
  p.uid = string_at(meta, "uid");
  p.deleting = !string_at(meta, "deletionTimestamp").empty();
  const json::object* spec = object_at(v, "spec");
  p.node_name = string_at(spec, "nodeName");
  p.scheduler_name = string_at(spec, "schedulerName");
  p.phase = string_at(object_at(v, "status"), "phase");
  p.error = std::move(error);
  return p;
}

std::string error_path(const std::string& error) {
  if (error.rfind("$", 0) != 0) return error;
  const size_t colon = error.find(": ");
  return colon == std::string::npos ? error : error.substr(0, colon);
}

autoscaler::CaPod filling_pod(const UnreadablePod& u) {
  constexpr int64_t kFull = int64_t{1} << 62;
  autoscaler::CaPod c;
  Pod& p = c.pod;
  p.ns = u.ns;
  p.name = u.name;
  p.uid = u.uid;
  p.node_name = u.node_name;
  p.scheduler_name = u.scheduler_name;
  p.phase = u.phase;
  p.priority = INT32_MAX;
  Container box;
  box.name = "unreadable";
  box.requests = {{"cpu", kFull}, {"ephemeral-storage", kFull}, {"memory", kFull}};
  p.containers.push_back(std::move(box));
  p.annotations.emplace_back("tightpack.io/unreadable", error_path(u.error));
  return c;
}

}  // namespace tightpack::daemon
