// What the spawn page and the events on waiting pods read of the scheduler.
#include "daemon/cache_scenario.hpp"
#include "daemon/scheduler.hpp"

namespace tightpack::daemon {

pools::ClusterSnapshot Scheduler::cluster_snapshot() {
  auto lock = lock_for_update();
  return cache_snapshot(cache_);
}

std::vector<Scheduler::WaitingPod> Scheduler::waiting_pods() {
  std::vector<WaitingPod> out;
  auto lock = lock_for_update();
  if (!active_) return out;
  // fail() keeps what it last wrote in each pod's condition: the reason,
  // the message and the node nominated for preemption, line by line.
  for (const auto& [key, written] : condition_written_) {
    if (!written.starts_with("Unschedulable\n") || !written.ends_with("\n")) continue;
    const PodRecord* rec = cache_.pod(key);
    if (!rec || !schedulable(*rec) || !rec->pod.pod.nominated_node_name.empty()) continue;
    out.push_back(WaitingPod{key, rec->pod.pod.scheduler_name, rec->pod});
  }
  return out;
}

void Scheduler::report(const WaitingPod& pod, const std::string& type, const std::string& reason,
                       const std::string& note) {
  {
    auto lock = lock_for_update();
    if (!active_) return;
  }
  event(pod.pod.pod.ns, pod.pod.pod.name, pod.pod.pod.uid, pod.profile, type, reason, "Predicting",
        note);
}

}  // namespace tightpack::daemon
