// What the mover (mover.hpp) reads from the cache and changes in it.
#include "daemon/cache_scenario.hpp"
#include "daemon/scheduler.hpp"

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
  return cache_scenario(cluster_snapshot(), *options_.pools_config);
}

size_t Scheduler::unschedulable_pods() {
  auto lock = lock_for_update();
  return queue_.counts().unschedulable;
}

Scheduler::GroupWorkers Scheduler::group_workers(const std::string& ns, const std::string& name,
                                                 const std::string& node, bool gateway) {
  // The operator labels a worker with its group; dask-gateway with its cluster.
  const char* name_label = gateway ? "gateway.dask.org/cluster" : "dask.org/workergroup-name";
  const char* component_label = gateway ? "app.kubernetes.io/component" : "dask.org/component";
  const std::string_view worker = gateway ? "dask-worker" : "worker";
  GroupWorkers out;
  auto lock = lock_for_update();
  for (const auto& [key, rec] : cache_.pods()) {
    const Pod& p = rec.pod.pod;
    if (p.ns != ns || p.terminated() || !p.deletion_timestamp.empty()) continue;
    const std::string* group = find_label(p.labels, name_label);
    const std::string* component = find_label(p.labels, component_label);
    if (!group || *group != name || !component || *component != worker) continue;
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
