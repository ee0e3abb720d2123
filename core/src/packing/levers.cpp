#include "tightpack/packing/levers.hpp"

#include <algorithm>

#include "tightpack/advice/intent.hpp"
#include "tightpack/advice/tiling.hpp"
#include "tightpack/pod_resources.hpp"

namespace tightpack::packing {

namespace {

ResourceList own_requests(const Pod& pod, const ResourceList& of) {
  const ResourceList all = pod_requests(pod, false);
  ResourceList out;
  for (const auto& [name, v] : of) {
    if (const int64_t* have = find_resource(all, name)) set_resource(out, name, *have);
  }
  return out;
}

}  // namespace

Result<PackScenario> tile_workloads(const PackScenario& s, std::vector<TiledWorkload>& tiled) {
  if (!s.pools) return Error{"pools", "tiling workloads needs the scenario's pools"};
  if (s.profiles.empty()) return Error{"profiles", "no profile to place the workloads with"};
  std::vector<Node> nodes;
  for (const auto& n : s.cluster.nodes) nodes.push_back(n.node);
  const pools::ResolvedPools resolved = pools::resolve_pools(*s.pools, nodes);
  const auto templates = pools::pool_templates(s.cluster, resolved, *s.pools);
  // Workloads of one shape tile alike: decided once per pod (names aside).
  std::vector<std::pair<Pod, std::optional<advice::PoolTiling>>> decided;
  PackScenario out = s;
  for (Event& e : out.events) {
    if (e.kind != Event::Kind::kStart) continue;
    Pod key = e.pod.pod;
    key.name.clear();
    key.labels.clear();
    auto known =
        std::find_if(decided.begin(), decided.end(), [&](const auto& d) { return d.first == key; });
    if (known == decided.end()) {
      const auto intent = advice::pool_intent(e.pod.pod, templates, s.cluster, resolved);
      auto tiling =
          advice::tile(templates, s.cluster.objects, s.profiles.front(), e.pod.pod, {}, &intent);
      if (!tiling) return tiling.error();
      std::optional<advice::PoolTiling> chosen;
      for (advice::PoolTiling& t : *tiling) {
        if (t.worth_tiling) {
          chosen = std::move(t);
          break;
        }
      }
      decided.emplace_back(std::move(key), std::move(chosen));
      known = std::prev(decided.end());
    }
    if (!known->second) continue;
    const advice::Shape& shape = known->second->suggestions.front();
    auto smaller = advice::resized(e.pod.pod, shape.requests);
    if (!smaller) continue;
    tiled.push_back(TiledWorkload{e.group, known->second->pool, known->second->per_node,
                                  shape.per_node, own_requests(e.pod.pod, shape.requests),
                                  shape.requests});
    e.pod.pod = std::move(*smaller);
  }
  return out;
}

Result<PackScenario> with_unneeded_time(const PackScenario& s, int64_t seconds) {
  if (!s.pools) {
    return Error{"pools", "cluster-autoscaler's timing needs the scenario's pools (it autoscales)"};
  }
  PackScenario out = s;
  out.pools->scale_down_unneeded_seconds = seconds;
  return out;
}

}  // namespace tightpack::packing
