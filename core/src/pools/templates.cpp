// The node each pool would add, as cluster-autoscaler builds it.
#include <algorithm>
#include <set>

#include "tightpack/pools/pools.hpp"

namespace tightpack::pools {

std::vector<PoolTemplate> pool_templates(const ClusterSnapshot& snapshot,
                                         const ResolvedPools& pools, const PoolsConfig& config) {
  autoscaler::AutoscaleScenario s = autoscale_scenario_without_pods(snapshot, pools, config);
  // group_template copies a running node with its DaemonSet and mirror pods:
  // hand it only the pods of the nodes it can pick, not the whole cluster's.
  std::set<std::string> candidates;
  for (const autoscaler::NodeGroupSpec& g : s.groups) {
    for (const autoscaler::CaNode& n : s.nodes) {
      if (!n.ready || n.node.unschedulable) continue;
      if (std::find(g.nodes.begin(), g.nodes.end(), n.node.name) == g.nodes.end()) continue;
      candidates.insert(n.node.name);
      break;
    }
  }
  for (const autoscaler::CaPod& p : snapshot.pods) {
    if (candidates.contains(p.pod.node_name)) s.pods.push_back(p);
  }
  std::vector<PoolTemplate> out;
  out.reserve(s.groups.size());
  for (const autoscaler::NodeGroupSpec& g : s.groups) {
    out.push_back(PoolTemplate{g.name, autoscaler::group_template(s, g)});
  }
  return out;
}

}  // namespace tightpack::pools
