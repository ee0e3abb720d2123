// What the mover (mover.hpp) reads from the cache and changes in it.
#include "daemon/scheduler.hpp"
#include "tightpack/pools/pools.hpp"

namespace tightpack::daemon {

void Scheduler::set_closed(std::set<std::string> nodes) {
  {
    auto lock = lock_for_update();
    if (!cache_.set_closed(std::move(nodes))) return;
    // Opened nodes may take pods that waited.
    queue_.move_all(Clock::now());
  }
  cv_.notify_all();
}

std::optional<autoscaler::AutoscaleScenario> Scheduler::autoscale_scenario() {
  if (!options_.pools_config) return std::nullopt;
  pools::ClusterSnapshot snapshot;
  {
    auto lock = lock_for_update();
    snapshot.nodes.reserve(cache_.nodes().size());
    for (const auto& [name, node] : cache_.nodes()) snapshot.nodes.push_back(node);
    snapshot.pods.reserve(cache_.pods().size());
    for (const auto& [key, rec] : cache_.pods()) {
      if (rec.pod.pod.terminated()) continue;
      if (!rec.holds().empty()) {
        snapshot.pods.push_back(rec.pod);
        snapshot.pods.back().pod.node_name = rec.holds();  // an assumed pod holds its node
      } else {
        snapshot.pending.push_back(rec.pod);
      }
    }
    for (const auto& [key, pdb] : cache_.pdbs()) snapshot.pdbs.push_back(pdb);
    snapshot.objects = cache_.objects().objects();
  }
  std::vector<Node> plain;
  plain.reserve(snapshot.nodes.size());
  for (const autoscaler::CaNode& n : snapshot.nodes) plain.push_back(n.node);
  const pools::ResolvedPools resolved = pools::resolve_pools(*options_.pools_config, plain);
  autoscaler::AutoscaleScenario s =
      pools::autoscale_scenario_without_pods(snapshot, resolved, *options_.pools_config);
  s.pods = std::move(snapshot.pods);
  s.pending = std::move(snapshot.pending);
  return s;
}

size_t Scheduler::unschedulable_pods() {
  auto lock = lock_for_update();
  return queue_.counts().unschedulable;
}

Scheduler::GroupWorkers Scheduler::group_workers(const std::string& ns,
                                                 const std::string& worker_group,
                                                 const std::string& node) {
  GroupWorkers out;
  auto lock = lock_for_update();
  for (const auto& [key, rec] : cache_.pods()) {
    const Pod& p = rec.pod.pod;
    if (p.ns != ns || p.terminated() || !p.deletion_timestamp.empty()) continue;
    const std::string* group = find_label(p.labels, "dask.org/workergroup-name");
    const std::string* component = find_label(p.labels, "dask.org/component");
    if (!group || *group != worker_group || !component || *component != "worker") continue;
    ++out.all;
    if (rec.holds() == node) {
      ++out.on_node;
    } else if (!p.node_name.empty() && p.phase == "Running") {
      ++out.running_elsewhere;
    }
  }
  return out;
}

}  // namespace tightpack::daemon
