#include "daemon/cache_scenario.hpp"

namespace tightpack::daemon {

pools::ClusterSnapshot cache_snapshot(const ClusterCache& cache) {
  pools::ClusterSnapshot snapshot;
  snapshot.nodes.reserve(cache.nodes().size());
  for (const auto& [name, node] : cache.nodes()) snapshot.nodes.push_back(node);
  snapshot.pods.reserve(cache.pods().size());
  for (const auto& [key, rec] : cache.pods()) {
    if (rec.pod.pod.terminated()) continue;
    if (!rec.holds().empty()) {
      snapshot.pods.push_back(rec.pod);
      snapshot.pods.back().pod.node_name = rec.holds();
    } else {
      snapshot.pending.push_back(rec.pod);
    }
  }
  for (const auto& [key, pdb] : cache.pdbs()) snapshot.pdbs.push_back(pdb);
  snapshot.objects = cache.objects().objects();
  return snapshot;
}

autoscaler::AutoscaleScenario cache_scenario(pools::ClusterSnapshot snapshot,
                                             const pools::PoolsConfig& config) {
  std::vector<Node> plain;
  plain.reserve(snapshot.nodes.size());
  for (const autoscaler::CaNode& n : snapshot.nodes) plain.push_back(n.node);
  const pools::ResolvedPools resolved = pools::resolve_pools(config, plain);
  autoscaler::AutoscaleScenario s =
      pools::autoscale_scenario_without_pods(snapshot, resolved, config);
  s.pods = std::move(snapshot.pods);
  s.pending = std::move(snapshot.pending);
  return s;
}

}  // namespace tightpack::daemon
