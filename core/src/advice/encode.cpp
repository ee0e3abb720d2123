// The JSON of advise(), shared by `tightpack advise --output json` and the
// WebAssembly module.
#include <boost/json.hpp>

#include "json_read.hpp"
#include "tightpack/advice/advice.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/quantity.hpp"

namespace tightpack::advice {
namespace json = boost::json;

namespace {

json::object quantities(const ResourceList& list) {
  json::object o;
  for (const auto& [name, amount] : list) o[name] = format_resource(name, amount);
  return o;
}

json::object shares(const Shares& list) {
  json::object o;
  for (const auto& [name, share] : list) o[name] = share;
  return o;
}

const char* why_text(NotMeant why) {
  switch (why) {
    case NotMeant::kGpu:
      return "gpu";
    case NotMeant::kHubCore:
      return "hub-core";
    case NotMeant::kReserved:
      return "reserved";
    case NotMeant::kSelector:
      return "selector";
    case NotMeant::kMeant:
      break;
  }
  return "meant";
}

json::object encode_outcome(const Outcome& o) {
  json::array pools;
  for (const auto& [pool, copies] : o.pools) {
    pools.push_back(json::object{{"pool", pool.empty() ? json::value(nullptr) : json::value(pool)},
                                 {"replicas", copies}});
  }
  return json::object{{"replicas", o.replicas},
                      {"now", o.now},
                      {"afterScaleUp", o.after_scale_up},
                      {"never", o.never},
                      {"offPool", o.off_pool},
                      {"nodes", o.nodes},
                      {"nodesAdded", o.nodes_added},
                      {"readyInSeconds", o.ready_in_seconds},
                      {"pools", std::move(pools)}};
}

json::object encode_shape(const Shape& s) {
  return json::object{{"perNode", s.per_node},
                      {"requests", quantities(s.requests)},
                      {"container", s.container},
                      {"containerRequests", quantities(s.container_requests)},
                      {"change", shares(s.change)}};
}

json::object encode_toleration(const Toleration& t) {
  json::object o{{"key", t.key}, {"operator", t.op}};
  if (!t.value.empty()) o["value"] = t.value;
  if (!t.effect.empty()) o["effect"] = t.effect;
  return o;
}

json::object encode_fix(const Fix& f) {
  json::object change;
  if (!f.change.add_tolerations.empty()) {
    json::array t;
    for (const Toleration& x : f.change.add_tolerations) t.push_back(encode_toleration(x));
    change["addTolerations"] = std::move(t);
  }
  if (!f.change.add_node_selector.empty()) {
    json::object s;
    for (const auto& [k, v] : f.change.add_node_selector) s[k] = v;
    change["addNodeSelector"] = std::move(s);
  }
  if (f.change.shape) {
    change["requests"] = quantities(f.change.shape->requests);
    change["container"] = f.change.shape->container;
    change["containerRequests"] = quantities(f.change.shape->container_requests);
    change["requestChange"] = shares(f.change.shape->change);
    change["perNode"] = f.change.shape->per_node;
  }
  if (f.change.replicas) change["replicas"] = *f.change.replicas;
  json::object o{{"pool", f.pool.empty() ? json::value(nullptr) : json::value(f.pool)},
                 {"change", std::move(change)},
                 {"byOperator", f.max_size.has_value()},
                 {"gained", f.gained},
                 {"outcome", encode_outcome(f.outcome)}};
  if (f.max_size) {
    o["maxSize"] = json::object{
        {"pool", f.max_size->pool}, {"from", f.max_size->from}, {"to", f.max_size->to}};
  }
  return o;
}

json::object encode_tiling(const PoolTiling& t, const Outcome* at_first) {
  json::array suggestions;
  for (const Shape& s : t.suggestions) {
    json::object o = encode_shape(s);
    if (at_first && &s == &t.suggestions.front()) o["outcome"] = encode_outcome(*at_first);
    suggestions.push_back(std::move(o));
  }
  json::object allocatable;
  // Of the resources the pod asks for, as `free` lists them.
  for (const auto& [name, amount] : t.free) {
    if (const int64_t* a = find_resource(t.allocatable, name))
      allocatable[name] = format_resource(name, *a);
  }
  return json::object{{"pool", t.pool},
                      {"perNode", t.per_node},
                      {"binding", t.binding},
                      {"allocatable", std::move(allocatable)},
                      {"free", quantities(t.free)},
                      {"idle", shares(t.idle)},
                      {"worthTiling", t.worth_tiling},
                      {"suggestions", std::move(suggestions)}};
}

}  // namespace

json::object encode_advice(const Advice& a, const std::vector<AdmissionChange>& admitted) {
  json::object o;
  o["schedulerName"] = a.scheduler_name;
  if (a.replicas) o["replicas"] = *a.replicas;
  json::array pools;
  for (const PoolTiling& t : a.tiling) {
    const Outcome* at_first = nullptr;
    for (const auto& [pool, outcome] : a.at_first_suggestion) {
      if (pool == t.pool) at_first = &outcome;
    }
    pools.push_back(encode_tiling(t, at_first));
  }
  o["pools"] = std::move(pools);
  json::array not_meant;
  for (const PoolIntent& i : a.intent) {
    if (!i.meant()) not_meant.push_back(json::object{{"pool", i.pool}, {"why", why_text(i.why)}});
  }
  o["notMeant"] = std::move(not_meant);
  if (a.as_is) {
    o["asIs"] = encode_outcome(*a.as_is);
    json::array fixes;
    for (const Fix& f : a.fixes) fixes.push_back(encode_fix(f));
    o["fixes"] = std::move(fixes);
  }
  o["admission"] = encode_admission_changes(admitted);
  return o;
}

std::string advise_text(WhatIfCluster& cluster, std::string_view request_json) {
  auto doc = parse_json(request_json);
  if (!doc) return error_text(doc.error().what());
  const bool with_replicas = doc->is_object() && doc->as_object().contains("replicas");
  auto request = decode_what_if_request(*doc, with_replicas, cluster.admission());
  if (!request) return error_text(request.error().what());
  auto profile = cluster.profile(request->profile, request->pod, request->release);
  if (!profile) return error_text(profile.error().what());
  auto advice =
      advise(cluster, request->pod,
             with_replicas ? std::optional<int64_t>(request->replicas) : std::nullopt, *profile);
  if (!advice) return error_text(advice.error().what());
  return json::serialize(encode_advice(*advice, request->admitted));
}

}  // namespace tightpack::advice
