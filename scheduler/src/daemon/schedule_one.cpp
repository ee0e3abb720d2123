// One pod from the queue: its decision, preemption when it fits nowhere, and
// the failure's status and event (kube-scheduler's schedule_one.go).
#include <algorithm>
#include <boost/json.hpp>

#include "daemon/scheduler.hpp"
#include "daemon/storage_publish.hpp"
#include "log.hpp"
#include "tightpack/framework/preemption.hpp"
#include "tightpack/labels.hpp"
#include "tightpack/timestamp.hpp"

namespace tightpack::daemon {
namespace json = boost::json;

void Scheduler::loop() {
  std::unique_lock lock(m_);
  for (;;) {
    const auto now = Clock::now();
    const auto next = queue_.next_ready(now);
    const bool ready = active_ && synced() && next && *next <= now;
    if (stopping_) return;
    if (!volume_bindings_.empty() && now - volumes_checked_ >= std::chrono::milliseconds(250)) {
      volumes_checked_ = now;
      check_volume_waits(now);
    }
    if (!ready) {
      // Watches and binders notify; backoffs expire by time; the sync flag has no notification.
      auto until = now + std::chrono::milliseconds(200);
      if (active_ && next && *next > now && *next < until) until = *next;
      cv_.wait_until(lock, until);
      continue;
    }
    auto key = queue_.pop(now);
    if (key) schedule_one(*key);
    update_pending_metric();
    // With thousands of pods queued this loop would keep the lock for
    // seconds: binders and watches waiting for it go first.
    if (waiting_.load() > 0) {
      lock.unlock();
      const auto until = Clock::now() + std::chrono::milliseconds(5);
      while (waiting_.load() > 0 && Clock::now() < until) std::this_thread::yield();
      lock.lock();
    }
  }
}

std::unique_lock<std::mutex> Scheduler::lock_for_update() {
  ++waiting_;
  std::unique_lock lock(m_);
  --waiting_;
  return lock;
}

void Scheduler::schedule_one(const std::string& key) {
  const auto started = Clock::now();
  const PodRecord* found = cache_.pod(key);
  if (!found || !schedulable(*found)) {
    queue_.remove(key);
    return;
  }
  const PodRecord& rec = *found;
  const Pod& pod = rec.pod.pod;
  const std::string profile_name =
      pod.scheduler_name.empty() ? "default-scheduler" : pod.scheduler_name;
  const Profile* profile = options_.profiles.find(profile_name);
  if (!profile) {
    queue_.remove(key);
    return;
  }
  Cluster& cluster = cache_.cluster();
  if (cluster.size() == 0) {
    metrics_.attempt(profile_name, Metrics::Result::Unschedulable, seconds_since(started));
    fail(key, rec, profile_name, "Unschedulable", "0/0 nodes are available.", "");
    return;
  }
  auto plan = PodPlan::make(cluster, *profile, pod);
  if (!plan) {
    // A pod using what the engine does not model (resource claims), or whose
    // claims the watch cache has not listed yet: kube-scheduler would judge
    // it; tightpack says why it cannot.
    metrics_.attempt(profile_name, Metrics::Result::Error, seconds_since(started));
    const std::string message = "tightpack cannot schedule this pod: " + plan.error().what();
    fail(key, rec, profile_name, "SchedulerError", message, "");
    return;
  }
  PlanScratch scratch;
  Decision d = decide(*plan, cluster, scratch);
  if (!d.error.empty()) {
    metrics_.attempt(profile_name, Metrics::Result::Error, seconds_since(started));
    fail(key, rec, profile_name, "SchedulerError", d.error, "");
    return;
  }
  if (d.chosen && !pod.volumes.empty()) {
    // Claims that wait for their first consumer are bound before the pod
    // (VolumeBinding's Reserve and PreBind).
    const auto storage = cluster.storage().storage_of(pod);
    if (storage && !storage->delayed_claims.empty()) {
      const std::string node = cluster.name(*d.chosen);
      BindingPlan claims =
          plugins::binding_plan(cluster.storage(), *storage, cluster.node(*d.chosen));
      if (claims.conflicts) {
        // Filter accepted the node, so this is a defect: say so rather than guess.
        metrics_.attempt(profile_name, Metrics::Result::Error, seconds_since(started));
        fail(key, rec, profile_name, "SchedulerError",
             "running Reserve plugin \"VolumeBinding\": the claims cannot be bound on node " + node,
             "");
        return;
      }
      if (!claims.empty()) {
        cache_.assume(key, node, plan->bound(key));
        bind_volumes_then_pod(key, pod, node, std::move(claims), profile_name,
                              profile->volume_bind_timeout_seconds, started);
        return;
      }
    }
  }
  if (d.chosen) {
    const std::string node = cluster.name(*d.chosen);
    cache_.assume(key, node, plan->bound(key));
    const std::string uid = pod.uid;
    if (!workers_->submit([this, key, uid, node, profile_name, started](kube::ApiClient& api) {
          bind(api, key, uid, node, profile_name, started);
        })) {
      cache_.forget(key);
      queue_.backoff(key, Clock::now());
    }
    return;
  }
  std::string nominated;
  if (profile->preemption && d.preemption && d.preemption->helps)
    nominated = preempt(key, rec, *plan, scratch, d);
  metrics_.attempt(profile_name, Metrics::Result::Unschedulable, seconds_since(started));
  fail(key, rec, profile_name, "Unschedulable", d.message, nominated);
}

bool Scheduler::eligible_to_preempt(const Pod& pod) {
  // podEligibleToPreemptOthers: a pod whose earlier preemption is still
  // under way (a lower-priority pod terminating on its nominated node) waits.
  if (pod.nominated_node_name.empty()) return true;
  Cluster& c = cache_.cluster();
  const NodeIndex n = c.find(pod.nominated_node_name);
  if (n >= c.size()) return true;
  for (const auto& bp : c.pods_on(n)) {
    const PodRecord* r = cache_.pod(bp.key);
    if (r && !r->pod.pod.deletion_timestamp.empty() && bp.priority < pod.priority) return false;
  }
  return true;
}

std::string Scheduler::preempt(const std::string& key, const PodRecord& rec, const PodPlan& plan,
                               PlanScratch& scratch, Decision& d) {
  const Pod& pod = rec.pod.pod;
  Cluster& c = cache_.cluster();
  if (!eligible_to_preempt(pod)) {
    d.preemption->message = "not eligible due to a terminating pod on the nominated node.";
    d.message = fit_error_message(plan, c, d);
    return pod.nominated_node_name;
  }
  PreemptionFacts facts;
  std::vector<const autoscaler::PdbSpec*> pdbs;
  for (const auto& [k, pdb] : cache_.pdbs()) {
    pdbs.push_back(&pdb);
    facts.pdb_disruptions_allowed.push_back(static_cast<int32_t>(pdb.disruptions_allowed));
  }
  facts.pdbs_of = [&](const BoundPod& bp) {
    std::vector<size_t> out;
    const PodRecord* r = cache_.pod(bp.key);
    if (!r) return out;
    // filterPodsWithPDBViolation: an empty selector and a pod without labels match nothing.
    if (r->pod.pod.labels.empty()) return out;
    for (size_t i = 0; i < pdbs.size(); ++i) {
      const auto& sel = pdbs[i]->selector;
      if (pdbs[i]->ns != r->pod.pod.ns || !sel ||
          (sel->match_labels.empty() && sel->match_expressions.empty()))
        continue;
      if (label_selector_matches(*sel, r->pod.pod.labels)) out.push_back(i);
    }
    return out;
  };
  // The latest status.startTime the watch saw (the kubelet sets it after the
  // pod was bound); a pod without one counts as starting now, as upstream's
  // GetPodStartTime has it.
  facts.start_time = [&](const BoundPod& bp) -> int64_t {
    const PodRecord* r = cache_.pod(bp.key);
    return r ? rfc3339_seconds(r->pod.pod.start_time).value_or(0) : 0;
  };
  auto choice = select_preemption(plan, c, scratch, d, facts);
  if (!choice) return "";
  d.preemption->message = preemption_success_message(c, *choice);
  d.message = fit_error_message(plan, c, d);
  const std::string node = c.name(choice->node);
  const auto& on = c.pods_on(choice->node);
  metrics_.preemption(static_cast<int>(choice->victims.size()));
  std::vector<std::string> names;
  for (size_t pos : choice->victims) {
    const std::string victim = on[pos].key;
    names.push_back(victim);
    const PodRecord* r = cache_.pod(victim);
    const std::string uid = r ? r->pod.pod.uid : "";
    const auto [ns, name] = split_key(victim);
    workers_->submit([this, ns = ns, name = name, uid](kube::ApiClient& api) {
      delete_victim(api, ns, name, uid);
    });
    event(ns, name, uid, pod.scheduler_name, "Normal", "Preempted", "Preempting",
          "Preempted by pod " + pod.uid + " on node " + node);
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  log_info("preemption: " + key + " nominated to " + node + ", evicting " + list);
  return node;
}

void Scheduler::fail(const std::string& key, const PodRecord& rec, const std::string& profile,
                     const std::string& reason, const std::string& message,
                     const std::string& nominated) {
  const Pod& pod = rec.pod.pod;
  if (reason == "Unschedulable") {
    queue_.unschedulable(key, Clock::now());
  } else {
    queue_.backoff(key, Clock::now());
  }
  const auto [ns, name] = split_key(key);
  event(ns, name, pod.uid, profile, "Warning", "FailedScheduling", "Scheduling", message);
  const std::string written = reason + "\n" + message + "\n" + nominated;
  if (condition_written_[key] == written && pod.nominated_node_name == nominated) return;
  condition_written_[key] = written;
  json::object status{
      {"conditions", json::array{json::object{{"type", "PodScheduled"},
                                              {"status", "False"},
                                              {"reason", reason},
                                              {"message", message},
                                              {"lastProbeTime", nullptr},
                                              {"lastTransitionTime", utc_timestamp(0)}}}}};
  if (!nominated.empty() || !pod.nominated_node_name.empty()) {
    status["nominatedNodeName"] = nominated.empty() ? json::value(nullptr) : json::value(nominated);
  }
  workers_->submit([this, ns = ns, name = name, status](kube::ApiClient& api) {
    patch_status(api, ns, name, status);
  });
}

}  // namespace tightpack::daemon
