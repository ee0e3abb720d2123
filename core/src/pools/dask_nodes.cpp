#include "tightpack/pools/dask_nodes.hpp"

#include <map>
#include <set>

#include "tightpack/model.hpp"

namespace tightpack::pools {

namespace {

bool label_is(const Pod& p, std::string_view key, std::string_view value) {
  const std::string* v = find_label(p.labels, key);
  return v && *v == value;
}

}  // namespace

bool DaskCluster::has_worker(const autoscaler::CaPod& p) const {
  if (p.pod.ns != ns || name.empty()) return false;
  return (label_is(p.pod, "dask.org/cluster-name", name) &&
          label_is(p.pod, "dask.org/component", "worker")) ||
         (label_is(p.pod, "gateway.dask.org/cluster", name) &&
          label_is(p.pod, "app.kubernetes.io/component", "dask-worker"));
}

std::vector<DaskNodeHint> dask_node_hints(const std::vector<const autoscaler::CaNode*>& nodes,
                                          const std::vector<const autoscaler::CaPod*>& pods,
                                          const ResolvedPools& pools, const DaskCluster& cluster) {
  std::map<std::string, DaskNodeHint> hints;
  std::set<std::string> others;  // nodes with another pod that keeps them
  for (const autoscaler::CaPod* p : pods) {
    if (p->pod.node_name.empty() || p->pod.terminated()) continue;
    if (cluster.has_worker(*p)) {
      DaskNodeHint& h = hints[p->pod.node_name];
      h.node = p->pod.node_name;
      ++h.workers;
    } else if (!p->daemon_set && !p->mirror) {
      others.insert(p->pod.node_name);
    }
  }
  for (auto& [name, h] : hints) h.kept = others.contains(name);
  for (const autoscaler::CaNode* n : nodes) {
    auto h = hints.find(n->node.name);
    if (h != hints.end() && n->scale_down_disabled) h->second.kept = true;
  }
  for (const NodePool& pool : pools.pools) {
    if (static_cast<int64_t>(pool.nodes.size()) > pool.min_size) continue;
    for (const std::string& n : pool.nodes) {
      if (auto h = hints.find(n); h != hints.end()) h->second.kept = true;
    }
  }
  std::vector<DaskNodeHint> out;
  for (auto& [name, h] : hints) out.push_back(std::move(h));
  return out;
}

}  // namespace tightpack::pools
