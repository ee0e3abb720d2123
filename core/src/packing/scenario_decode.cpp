// The packing-report scenario: a cluster, optional pools, and the events.
#include <boost/json.hpp>

#include "json_read.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/packing/pack_report.hpp"
#include "tightpack/replay.hpp"

namespace tightpack::packing {

using namespace json_read;

namespace {

Fail read_seconds(const json::object& o, std::string_view key, const JsonPath& path, int64_t& out) {
  const json::value* v = member(o, key);
  if (!v) return std::nullopt;
  if (!v->is_string()) return type_error(path.field(key), "a duration string such as \"15m\"", *v);
  auto d = pools::parse_duration(v->get_string());
  if (!d) return value_error(path.field(key), d.error().message);
  out = *d;
  return std::nullopt;
}

Fail read_retire(const json::object& o, const JsonPath& path, std::optional<Retire>& out) {
  if (!member(o, "retire")) return std::nullopt;
  std::string name;
  TP_TRY(read_string(o, "retire", path, name));
  auto r = parse_retire(name);
  if (!r) return value_error(path.field("retire"), r.error().message);
  out = *r;
  return std::nullopt;
}

Fail read_event(const json::value& v, const JsonPath& path, Event& e) {
  const json::object* o = nullptr;
  TP_TRY(as_object(v, path, o));
  TP_TRY(only_known(*o, path, {"at", "start", "stop", "scale", "pod", "replicas", "retire"}));
  TP_TRY(read_seconds(*o, "at", path, e.at));
  int kinds = 0;
  for (auto [key, kind] :
       {std::pair{"start", Event::Kind::kStart}, std::pair{"stop", Event::Kind::kStop},
        std::pair{"scale", Event::Kind::kScale}}) {
    if (member(*o, key)) {
      ++kinds;
      e.kind = kind;
      TP_TRY(read_string(*o, key, path, e.group));
      if (e.group.empty()) return value_error(path.field(key), "the workload needs a name");
    }
  }
  if (kinds != 1) return value_error(path, "an event has exactly one of start, stop and scale");
  if (e.kind != Event::Kind::kStop) {
    if (!member(*o, "replicas")) return value_error(path.field("replicas"), "replicas is required");
    TP_TRY(read_int(*o, "replicas", path, e.replicas));
    if (e.replicas < 0 || e.replicas > kMaxReplicasPerEvent) {
      return value_error(path.field("replicas"), "replicas " + std::to_string(e.replicas) +
                                                     " is not in [0, " +
                                                     std::to_string(kMaxReplicasPerEvent) + "]");
    }
  }
  if (e.kind == Event::Kind::kScale) {
    TP_TRY(read_retire(*o, path, e.retire));
  } else if (member(*o, "retire")) {
    return value_error(path.field("retire"), "only a scale event retires workers");
  }
  if (e.kind == Event::Kind::kStart) {
    const json::value* pv = member(*o, "pod");
    if (!pv) return value_error(path.field("pod"), "a start event needs the pod to start");
    auto pod = autoscaler::decode_ca_pod(*pv, path.field("pod"));
    if (!pod) return pod.error();
    e.pod = std::move(*pod);
    e.pod.pod.node_name.clear();
  } else if (member(*o, "pod")) {
    return value_error(path.field("pod"), "only a start event takes a pod");
  }
  return std::nullopt;
}

}  // namespace

std::string_view retire_name(Retire r) {
  switch (r) {
    case Retire::kNewest:
      return "newest";
    case Retire::kUpstream:
      return "upstream";
    case Retire::kNodeAware:
      return "node-aware";
  }
  return "newest";
}

Result<Retire> parse_retire(std::string_view name) {
  for (Retire r : {Retire::kNewest, Retire::kUpstream, Retire::kNodeAware}) {
    if (retire_name(r) == name) return r;
  }
  return Error{"", "retire " + quote_value(name) + " is not one of newest, upstream, node-aware"};
}

std::string_view consolidate_name(Consolidate c) {
  return c == Consolidate::kMove ? "move" : "none";
}

Result<Consolidate> parse_consolidate(std::string_view name) {
  for (Consolidate c : {Consolidate::kNone, Consolidate::kMove}) {
    if (consolidate_name(c) == name) return c;
  }
  return Error{"", "consolidate " + quote_value(name) + " is not one of none, move"};
}

Result<PackScenario> decode_pack_scenario(const json::value& doc) {
  PackScenario s;
  auto run = [&]() -> Fail {
    const json::object* o = nullptr;
    JsonPath root;
    TP_TRY(as_object(doc, root, o));
    TP_TRY(only_known(*o, root,
                      {"cluster", "pools", "profiles", "events", "end", "retire", "consolidate"}));
    if (member(*o, "consolidate")) {
      std::string name;
      TP_TRY(read_string(*o, "consolidate", root, name));
      auto c = parse_consolidate(name);
      if (!c) return value_error(root.field("consolidate"), c.error().message);
      s.consolidate = *c;
    }
    std::optional<Retire> retire;
    TP_TRY(read_retire(*o, root, retire));
    s.retire = retire.value_or(Retire::kNewest);
    const json::value* cv = member(*o, "cluster");
    if (!cv) return value_error(root.field("cluster"), "the scenario needs a cluster");
    auto cluster = pools::decode_cluster_snapshot(*cv, root.field("cluster"));
    if (!cluster) return cluster.error();
    s.cluster = std::move(*cluster);
    if (s.cluster.nodes.empty())
      return value_error(root.field("cluster"), "the cluster has no nodes");
    if (const json::value* pv = member(*o, "pools")) {
      auto p = pools::decode_pools_config(*pv, root.field("pools"));
      if (!p) return p.error();
      s.pools = std::move(*p);
    }
    if (s.consolidate == Consolidate::kMove && !s.pools) {
      return value_error(root.field("consolidate"),
                         "moves need the scenario's pools: cluster-autoscaler removes the nodes "
                         "they empty");
    }
    if (member(*o, "profiles")) {
      s.profile_names.clear();
      TP_TRY(read_string_list(*o, "profiles", root, s.profile_names));
      if (s.profile_names.empty())
        return value_error(root.field("profiles"), "name at least one profile");
    }
    JsonPath pp = root.field("profiles");
    for (size_t i = 0; i < s.profile_names.size(); ++i) {
      std::string name;
      auto p = resolve_scenario_profile(json::value(s.profile_names[i]),
                                        pp.index(static_cast<int64_t>(i)), name);
      if (!p) return p.error();
      s.profiles.push_back(std::move(*p));
    }
    const json::value* ev = member(*o, "events");
    if (!ev) return value_error(root.field("events"), "the scenario needs events");
    JsonPath ep = root.field("events");
    const json::array* a = nullptr;
    TP_TRY(as_array(*ev, ep, a));
    if (a->size() > static_cast<size_t>(kMaxEvents)) {
      return value_error(
          ep, std::to_string(a->size()) + " events; at most " + std::to_string(kMaxEvents));
    }
    for (size_t i = 0; i < a->size(); ++i) {
      Event e;
      TP_TRY(read_event((*a)[i], ep.index(static_cast<int64_t>(i)), e));
      s.events.push_back(std::move(e));
    }
    std::stable_sort(s.events.begin(), s.events.end(),
                     [](const Event& x, const Event& y) { return x.at < y.at; });
    s.end = s.events.empty() ? 0 : s.events.back().at;
    TP_TRY(read_seconds(*o, "end", root, s.end));
    if (!s.events.empty() && s.end < s.events.back().at) {
      return value_error(root.field("end"), "end is before the last event");
    }
    return std::nullopt;
  };
  if (auto fail = run()) return *fail;
  return s;
}

}  // namespace tightpack::packing
