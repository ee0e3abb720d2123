// Text in, JSON text out: the entry points the WebAssembly bindings call.
// Every failure becomes {"error": "…"} naming the document, field and value.
#include <boost/json.hpp>

#include "json_read.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/labels.hpp"
#include "tightpack/quantity.hpp"
#include "tightpack/timestamp.hpp"
#include "tightpack/what_if/mounted_claims.hpp"
#include "tightpack/what_if/what_if.hpp"

namespace tightpack {
namespace json = boost::json;
using namespace json_read;

namespace {

Error in_document(const char* document, const Error& e) {
  return Error{"", std::string(document) + ": " + e.what()};
}

}  // namespace

std::string error_text(std::string_view message) {
  return json::serialize(json::object{{"error", message}});
}

std::string quantity_text(std::string_view quantity) {
  auto q = Quantity::parse(quantity);
  if (!q) return error_text(q.error().what());
  const int sign = q->is_zero() ? 0 : q->negative() ? -1 : 1;
  return json::serialize(json::object{{"sign", sign}});
}

Result<WhatIfRequest> decode_what_if_request(const json::value& doc, bool with_replicas,
                                             const AdmissionOptions& defaults) {
  WhatIfRequest r;
  auto run = [&]() -> Fail {
    const JsonPath root;
    const json::object* o = nullptr;
    TP_TRY(as_object(doc, root, o));
    if (with_replicas) {
      TP_TRY(only_known(*o, root, {"pod", "replicas", "profile", "release", "admission"}));
    } else {
      TP_TRY(only_known(*o, root, {"pod", "profile", "release", "admission"}));
    }
    AdmissionOptions admission = defaults;
    if (const json::value* a = member(*o, "admission")) {
      const JsonPath ap = root.field("admission");
      const json::object* ao = nullptr;
      TP_TRY(as_object(*a, ap, ao));
      TP_TRY(only_known(*ao, ap, {"extendedResourceToleration"}));
      TP_TRY(
          read_bool(*ao, "extendedResourceToleration", ap, admission.extended_resource_toleration));
    }
    const json::value* pod = member(*o, "pod");
    const JsonPath pod_path = root.field("pod");
    if (!pod) return value_error(pod_path, "is required");
    auto admitted = decode_admitted_pod(*pod, admission, pod_path);
    if (!admitted) return admitted.error();
    r.pod = std::move(admitted->pod);
    r.admitted = std::move(admitted->changes);
    r.drain = admitted->drain;
    TP_TRY(read_string(*o, "profile", root, r.profile));
    TP_TRY(read_string(*o, "release", root, r.release));
    if (with_replicas) {
      if (!member(*o, "replicas")) return value_error(root.field("replicas"), "is required");
      TP_TRY(read_int(*o, "replicas", root, r.replicas));
      if (r.replicas < 1 || r.replicas > kMaxWhatIfReplicas) {
        return value_error(root.field("replicas"), std::to_string(r.replicas) +
                                                       " is not a whole number from 1 to " +
                                                       std::to_string(kMaxWhatIfReplicas));
      }
    }
    return std::nullopt;
  };
  if (auto fail = run()) return *fail;
  return r;
}

Result<WhatIfCluster> load_what_if_cluster(std::string_view snapshot_json,
                                           std::string_view pools_json,
                                           std::string_view scheduler_config_json) {
  WhatIfInputs inputs;
  auto parse = [](const char* name, std::string_view text) -> Result<NamedDocument> {
    auto doc = parse_json(text);
    if (!doc) return in_document(name, doc.error());
    return NamedDocument{name, std::move(*doc)};
  };
  auto snapshot = parse("snapshot", snapshot_json);
  if (!snapshot) return snapshot.error();
  inputs.snapshot = std::move(*snapshot);
  if (!scheduler_config_json.empty()) {
    auto config = parse("schedulerConfig", scheduler_config_json);
    if (!config) return config.error();
    inputs.scheduler_config = std::move(*config);
  }
  if (!pools_json.empty()) {
    auto pools = parse("pools", pools_json);
    if (!pools) return pools.error();
    inputs.pools = std::move(*pools);
  }
  return load_what_if_cluster(inputs);
}

std::string loaded_text(const WhatIfCluster& cluster) {
  const auto* pools = cluster.resolved_pools();
  return json::serialize(json::object{{"nodes", cluster.snapshot().nodes.size()},
                                      {"pods", cluster.snapshot().pods.size()},
                                      {"pendingPods", cluster.snapshot().pending.size()},
                                      {"pools", pools ? pools->pools.size() : 0}});
}

std::string summary_text(const WhatIfCluster& cluster) {
  return json::serialize(cluster.summary());
}

std::string place_text(WhatIfCluster& cluster, std::string_view request_json) {
  auto doc = parse_json(request_json);
  if (!doc) return error_text(doc.error().what());
  auto request = decode_what_if_request(*doc, true, cluster.admission());
  if (!request) return error_text(request.error().what());
  auto profile = cluster.profile(request->profile, request->pod, request->release);
  if (!profile) return error_text(profile.error().what());
  auto placement = cluster.place(request->pod, request->replicas, *profile);
  if (!placement) return error_text(placement.error().what());
  placement->drain = request->drain;
  placement->claims = mounted_claims(cluster.cluster(), request->pod);
  return json::serialize(encode_placement(*placement, request->admitted));
}

std::string explain_text(const WhatIfCluster& cluster, std::string_view request_json) {
  auto doc = parse_json(request_json);
  if (!doc) return error_text(doc.error().what());
  auto request = decode_what_if_request(*doc, false, cluster.admission());
  if (!request) return error_text(request.error().what());
  auto profile = cluster.profile(request->profile, request->pod, request->release);
  if (!profile) return error_text(profile.error().what());
  auto decision = cluster.explain(request->pod, *profile);
  if (!decision) return error_text(decision.error().what());
  json::object out;
  out["schedulerName"] = profile->scheduler_name;
  out["result"] = std::move(*decision);
  out["admission"] = encode_admission_changes(request->admitted);
  return json::serialize(out);
}

namespace {

// The request's removePods or removeDeployments: "namespace/name" each.
Fail read_object_keys(const json::object& o, std::string_view key, const char* what,
                      const JsonPath& root, std::vector<std::string>& out) {
  TP_TRY(read_string_list(o, key, root, out));
  const JsonPath list = root.field(key);
  for (size_t i = 0; i < out.size(); ++i) {
    if (auto bad = pools::object_key_error(out[i], what))
      return value_error(list.index(static_cast<int64_t>(i)), *bad);
  }
  return std::nullopt;
}

}  // namespace

std::string forecast_text(const WhatIfCluster& cluster, std::string_view request_json) {
  auto doc = parse_json(request_json);
  if (!doc) return error_text(doc.error().what());
  const JsonPath root;
  const json::object* o = nullptr;
  if (auto fail = as_object(*doc, root, o)) return error_text(fail->what());
  if (auto fail = only_known(*o, root, {"remove", "removePods", "removeDeployments", "now"}))
    return error_text(fail->what());
  pools::PodRemoval remove;
  std::string remove_text;
  if (auto fail = read_string(*o, "remove", root, remove_text)) return error_text(fail->what());
  if (member(*o, "remove")) {
    auto parsed = parse_label_selector(remove_text);
    if (!parsed) return error_text(value_error(root.field("remove"), parsed.error().what()).what());
    remove.selector = std::move(*parsed);
  }
  if (auto fail = read_object_keys(*o, "removePods", "pod", root, remove.pods))
    return error_text(fail->what());
  if (auto fail = read_object_keys(*o, "removeDeployments", "Deployment", root, remove.deployments))
    return error_text(fail->what());
  // The browser's clock comes in the request: the engine reads no clock, so
  // both builds answer the same for the same request.
  std::string now_text;
  if (auto fail = read_string(*o, "now", root, now_text)) return error_text(fail->what());
  std::optional<int64_t> now;
  if (member(*o, "now")) {
    now = rfc3339_seconds(now_text);
    if (!now)
      return error_text(value_error(root.field("now"), json::serialize(json::value(now_text)) +
                                                           " is not an RFC 3339 time")
                            .what());
  }
  auto forecast = cluster.forecast(remove, now);
  if (!forecast) return error_text(forecast.error().what());
  return json::serialize(pools::forecast_json(*forecast));
}

}  // namespace tightpack
