#include "daemon/unreadable.hpp"

#include <boost/json.hpp>
#include <climits>

#include "daemon/json_fields.hpp"
#include "daemon/object_store.hpp"

namespace tightpack::daemon {
namespace json = boost::json;

std::optional<UnreadablePod> read_unreadable_pod(const json::value& v, const Error& error) {
  auto key = watched_key("Pod", v);
  if (!key) return std::nullopt;
  UnreadablePod p;
  std::tie(p.ns, p.name) = split_key(*key);
  const json::object* meta = object_at(v, "metadata");
  p.uid = string_at(meta, "uid");
  p.deleting = !string_at(meta, "deletionTimestamp").empty();
  const json::object* spec = object_at(v, "spec");
  p.node_name = string_at(spec, "nodeName");
  p.scheduler_name = string_at(spec, "schedulerName");
  p.phase = string_at(object_at(v, "status"), "phase");
  p.path = error.path;
  p.error = error.what();
  return p;
}

autoscaler::CaPod filling_pod(const UnreadablePod& u) {
  // More than any node offers (2^49: 562 billion cores, 512 TiB), yet 2^13
  // of them on one node still sum below int64's limit: amounts add as Go's
  // int64 do, so 2^62 each wrapped to room after three. Beyond 2^13 pods the
  // node is full by its pod count.
  constexpr int64_t kFull = int64_t{1} << 49;
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
  p.annotations.emplace_back(kUnreadableAnnotation, u.path.empty() ? "the pod" : u.path);
  return c;
}

}  // namespace tightpack::daemon
