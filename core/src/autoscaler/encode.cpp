// The result document of one scenario, in the corpus's field names.
#include <boost/json.hpp>
#include <cmath>

#include "json_write.hpp"
#include "run.hpp"
#include "tightpack/autoscaler/autoscaler.hpp"
#include "tightpack/decode.hpp"

namespace tightpack::autoscaler {
using json_write::string_array;
namespace json = boost::json;
namespace {

json::object reasons(const Reasons& r) {
  json::object o;
  for (const auto& [group, rs] : r) o[group] = string_array(rs);
  return o;
}

// Explanations only: rounded as the corpus prints them.
double rounded(double x, double scale) {
  return std::isfinite(x) ? std::round(x * scale) / scale : 0;
}

json::object option_json(const OptionRecord& o) {
  return json::object{{"nodeGroup", o.group},
                      {"nodeCount", o.node_count},
                      {"pods", string_array(o.pods)},
                      {"waste", json::object{{"cpu", rounded(o.waste.cpu, 1e6)},
                                             {"memory", rounded(o.waste.memory, 1e6)}}}};
}

json::object scale_down_json(const ScaleDownRecord& d) {
  json::object out;
  out["loop"] = d.loop;
  out["unneeded"] = string_array(d.unneeded);
  out["removable"] = string_array(d.unneeded);
  json::object blocked, blocking, util;
  for (const auto& [n, why] : d.blocked) blocked[n] = why;
  for (const auto& [n, pod] : d.blocking_pods) blocking[n] = pod;
  for (const auto& [n, u] : d.utilization) {
    json::object o;
    o["cpu"] = rounded(u.cpu, 1e4);  // CA leaves both 0 on a GPU node
    o["memory"] = rounded(u.memory, 1e4);
    if (u.gpu != 0) o["gpu"] = rounded(u.gpu, 1e4);
    o["resource"] = u.resource;
    o["value"] = rounded(u.value, 1e4);
    util[n] = std::move(o);
  }
  out["blocked"] = std::move(blocked);
  if (!blocking.empty()) out["blockingPods"] = std::move(blocking);
  if (!util.empty()) out["utilization"] = std::move(util);
  // CA deletes the empty unneeded nodes together, else one node it drains.
  json::object first{{"emptyCount", 0}, {"drainCount", 0}};
  if (!d.empty.empty()) {
    first["empty"] = string_array(d.empty);
    first["emptyCount"] = d.empty.size();
    first["drainCount"] = 0;
  } else if (d.unneeded.size() == 1) {
    first["drain"] = string_array(d.unneeded);
    first["drainCount"] = 1;
  } else if (!d.unneeded.empty()) {
    // Which one CA drains first depends on its map order.
    first["ambiguous"] = true;
    first["drainCount"] = 1;
    first["candidates"] = string_array(d.unneeded);
  }
  out["deleteFirst"] = std::move(first);
  return out;
}

json::value encode(const RunRecord& run) {
  json::object out;
  json::array ups;
  for (const ScaleUpRecord& r : run.scale_ups) {
    json::object o{{"loop", r.loop},
                   {"nodeGroup", r.group},
                   {"delta", r.delta},
                   {"estimated", r.estimated},
                   {"pods", string_array(r.pods)}};
    if (!r.tied.empty()) o["tied"] = string_array(r.tied);
    json::array considered;
    for (const OptionRecord& c : r.considered) {
      considered.push_back(json::object{
          {"nodeGroup", c.group}, {"nodeCount", c.node_count}, {"podCount", c.pods.size()}});
    }
    o["considered"] = std::move(considered);
    ups.push_back(std::move(o));
  }
  out["scaleUp"] = std::move(ups);
  out["unhelped"] = string_array(run.unhelped);
  if (!run.no_scale_up.empty()) {
    json::array nsu;
    for (const NoScaleUpRecord& n : run.no_scale_up) {
      json::object o{{"pods", string_array(n.pods)}};
      if (!n.rejected.empty()) o["rejected"] = reasons(n.rejected);
      if (!n.skipped.empty()) o["skipped"] = reasons(n.skipped);
      nsu.push_back(std::move(o));
    }
    out["noScaleUp"] = std::move(nsu);
  }
  if (!run.fits_existing.empty()) out["fitsExisting"] = string_array(run.fits_existing);
  json::array options;
  for (const OptionRecord& o : run.options) options.push_back(option_json(o));
  out["options"] = std::move(options);
  out["loops"] = run.loops;
  out["lastResult"] = run.last_result;
  if (run.scale_down) out["scaleDown"] = scale_down_json(*run.scale_down);
  return out;
}

}  // namespace

Profile ca_profile() {
  Profile p = default_profile();
  // Only checks that differ before v1.37 read it (NodeVolumeLimits' driver
  // check under VolumeLimitScaling, alpha and off in v1.35); scores and
  // FailedScheduling messages, which it also words, CA does not use.
  p.kube_minor = 35;
  return p;
}

json::value run_autoscale(const AutoscaleScenario& s) {
  const Profile profile = ca_profile();
  auto run = run_loops(s, profile);  // its loops run the planner too
  if (!run) return json::object{{"error", run.error().what()}};
  return encode(*run);
}

std::string autoscale_text(std::string_view text) {
  auto doc = parse_json(text);
  if (!doc) return json::serialize(json::object{{"error", doc.error().what()}});
  auto scenario = decode_autoscale_scenario(*doc);
  if (!scenario) return json::serialize(json::object{{"error", scenario.error().what()}});
  return json::serialize(run_autoscale(*scenario));
}

}  // namespace tightpack::autoscaler
