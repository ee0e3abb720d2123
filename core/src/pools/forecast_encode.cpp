// The scale-down forecast as JSON, for the command line and the sidebar alike.
#include <boost/json.hpp>
#include <cmath>

#include "json_write.hpp"
#include "tightpack/pools/forecast.hpp"

namespace tightpack::pools {
using json_write::string_array;
namespace json = boost::json;
namespace {

// Explanations only: four decimals, as the autoscaler result prints utilization.
double rounded(double x) {
  return std::isfinite(x) ? std::round(x * 1e4) / 1e4 : 0;
}

}  // namespace

json::value forecast_json(const ScaleDownForecast& f) {
  json::object out;
  out["summary"] = json::object{{"nodes", static_cast<int64_t>(f.nodes.size())},
                                {"removable", f.removable},
                                {"notAutoscaled", f.not_autoscaled}};
  out["unneededTime"] = format_duration(f.unneeded_seconds);
  json::array pools;
  for (const PoolForecast& p : f.pools) {
    pools.push_back(json::object{{"name", p.name},
                                 {"source", p.inferred ? "inferred" : "configured"},
                                 {"minSize", p.min_size},
                                 {"nodes", p.nodes},
                                 {"removable", p.removable}});
  }
  out["pools"] = std::move(pools);
  json::array nodes;
  for (const NodeForecast& n : f.nodes) {
    const autoscaler::Utilization& u = n.utilization;
    json::object util{{"resource", u.resource}, {"value", rounded(u.value)}};
    if (u.gpu_node) {
      util["gpu"] = rounded(u.gpu);
    } else {
      util["cpu"] = rounded(u.cpu);
      util["memory"] = rounded(u.memory);
    }
    json::object o{{"node", n.node},
                   {"pool", n.pool.empty() ? json::value(nullptr) : json::value(n.pool)},
                   {"utilization", std::move(util)},
                   {"threshold", rounded(n.threshold)},
                   {"removable", n.removable}};
    if (n.removable) {
      o["empty"] = n.empty;
      o["podsToMove"] = static_cast<int64_t>(n.pods_to_move);
    } else {
      o["reason"] = n.reason;
      if (!n.blocking_pod.empty()) o["blockingPod"] = n.blocking_pod;
      if (std::string_view fix = blocker_fix(n.reason); !fix.empty()) o["fix"] = fix;
    }
    o["message"] = n.message;
    nodes.push_back(std::move(o));
  }
  out["nodes"] = std::move(nodes);
  if (!f.removed_pods.empty()) out["removedPods"] = string_array(f.removed_pods);
  out["notes"] = string_array(f.notes);
  return out;
}

}  // namespace tightpack::pools
