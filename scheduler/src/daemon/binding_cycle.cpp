// The binding cycle of a pod with unbound claims: VolumeBinding's PreBind
// (claims bound and provisioned first), its waits and their timeout.
#include "daemon/scheduler.hpp"
#include "log.hpp"

namespace tightpack::daemon {

void Scheduler::bind_volumes_then_pod(const std::string& key, const Pod& pod,
                                      const std::string& node, BindingPlan claims,
                                      const std::string& profile, int64_t timeout_seconds,
                                      Clock::time_point started) {
  volume_bindings_[key] = VolumeBindingInFlight{pod.uid, profile, started, std::nullopt};
  // The claims' uids as the cache holds them now, for the volumes' claimRefs.
  std::map<std::string, std::string> claim_uids;
  for (const auto& [claim_key, volume] : claims.static_bindings) {
    if (const PersistentVolumeClaim* c = cache_.objects().claim(claim_key))
      claim_uids[claim_key] = c->uid;
  }
  const bool submitted = workers_->submit([this, key, node, claims,
                                           claim_uids = std::move(claim_uids),
                                           timeout_seconds](kube::ApiClient& api) {
    const auto budget = write_budget();
    WrittenBindings written =
        budget ? write_volume_bindings(api, claims, claim_uids, node, *budget) : WrittenBindings{};
    auto lock = lock_for_update();
    auto it = volume_bindings_.find(key);
    if (it == volume_bindings_.end()) return;
    if (!budget) {
      // As for a binding: whoever leads next places the pod.
      log_warning("volume binding of " + key + " not sent: the lease is not confirmed");
      volume_bindings_.erase(it);
      cache_.forget(key);
      cv_.notify_all();
      return;
    }
    if (!written.error.empty()) {
      volume_binding_failed(key, "running PreBind plugin \"VolumeBinding\": " + written.error);
      return;
    }
    it->second.wait.emplace(claims, node, std::move(written),
                            Clock::now() + std::chrono::seconds(timeout_seconds));
    cv_.notify_all();
  });
  if (!submitted)
    volume_binding_failed(key,
                          "running PreBind plugin \"VolumeBinding\": the API call queue is full");
}

void Scheduler::check_volume_waits(Clock::time_point now) {
  std::vector<std::string> keys;
  for (const auto& [key, in_flight] : volume_bindings_) {
    if (in_flight.wait) keys.push_back(key);
  }
  for (const std::string& key : keys) {
    auto& in_flight = volume_bindings_.at(key);
    const PodRecord* rec = cache_.pod(key);
    if (!rec || !rec->pending() || rec->pod.pod.uid != in_flight.uid) {
      // checkBindings: "pod does not exist any more"; nobody to tell.
      volume_bindings_.erase(key);
      cache_.forget(key);
      continue;
    }
    const auto& nodes = cache_.nodes();
    auto n = nodes.find(in_flight.wait->node());
    const auto check =
        in_flight.wait->check(cache_.objects(), n == nodes.end() ? nullptr : &n->second.node, now);
    if (check.state == VolumeBindingWait::State::Waiting) continue;
    if (check.state == VolumeBindingWait::State::Failed) {
      volume_binding_failed(
          key, "running PreBind plugin \"VolumeBinding\": binding volumes: " + check.error);
      continue;
    }
    const std::string node = in_flight.wait->node(), uid = in_flight.uid,
                      profile = in_flight.profile;
    const auto started = in_flight.started;
    volume_bindings_.erase(key);
    if (!workers_->submit([this, key, uid, node, profile, started](kube::ApiClient& api) {
          bind(api, key, uid, node, profile, started);
        })) {
      cache_.forget(key);
      queue_.backoff(key, now);
    }
  }
}

void Scheduler::volume_binding_failed(const std::string& key, const std::string& message) {
  auto it = volume_bindings_.find(key);
  const std::string profile = it == volume_bindings_.end() ? std::string() : it->second.profile;
  const auto started = it == volume_bindings_.end() ? Clock::now() : it->second.started;
  if (it != volume_bindings_.end()) volume_bindings_.erase(it);
  cache_.forget(key);
  log_warning("binding " + key + ": " + message);
  metrics_.attempt(profile, Metrics::Result::Error, seconds_since(started));
  if (const PodRecord* rec = cache_.pod(key); rec && rec->pending()) {
    fail(key, *rec, profile, "SchedulerError", message, "");
  }
  cv_.notify_all();
}

}  // namespace tightpack::daemon
