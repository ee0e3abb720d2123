#include "daemon/scheduler.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <ctime>
#include <random>

#include "daemon/snapshot.hpp"
#include "daemon/storage_publish.hpp"
#include "log.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/framework/preemption.hpp"
#include "tightpack/labels.hpp"
#include "tightpack/plugins/inter_pod_affinity.hpp"
#include "tightpack/pools/dask_nodes.hpp"
#include "tightpack/timestamp.hpp"

namespace tightpack::daemon {
namespace json = boost::json;

namespace {

// status fields change without the pod changing for scheduling; kube-scheduler
// requeues a waiting pod only when something else changed (isPodUpdated).
bool spec_changed(const Pod& a, const Pod& b) {
  Pod x = a, y = b;
  for (Pod* p : {&x, &y}) {
    p->phase.clear();
    p->nominated_node_name.clear();
    p->start_time.clear();
  }
  return !(x == y);
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

Scheduler::Scheduler(SchedulerOptions options, std::shared_ptr<const kube::ClientConfig> client,
                     Metrics& metrics)
    : options_(std::move(options)),
      client_(std::move(client)),
      metrics_(metrics),
      limiter_(std::make_shared<kube::RateLimiter>(options_.daemon.qps, options_.daemon.burst)),
      // kube-scheduler's events go through a client of their own, with the same limits.
      event_limiter_(
          std::make_shared<kube::RateLimiter>(options_.daemon.qps, options_.daemon.burst)),
      queue_(options_.daemon.initial_backoff, options_.daemon.max_backoff) {}

Scheduler::~Scheduler() {
  stop(std::chrono::milliseconds(0));
}

bool Scheduler::ours(const Pod& pod) const {
  const std::string& name =
      pod.scheduler_name.empty() ? std::string("default-scheduler") : pod.scheduler_name;
  return options_.profiles.find(name) != nullptr;
}

void Scheduler::start() {
  // Binds, status patches and victim deletions: a bounded backlog, so that a
  // slow API server costs retries, not memory. A bind that finds it full is
  // forgotten and its pod backs off (schedule_one); a patch or a deletion is
  // made again by the pod's next attempt.
  workers_ = std::make_unique<kube::ApiWorkers>(options_.bind_workers, client_, limiter_, 10000);
  // Events are best effort, as kube-scheduler's broadcaster's are: a bounded
  // backlog, the overflow dropped and counted.
  event_workers_ = std::make_unique<kube::ApiWorkers>(
      std::max<size_t>(2, options_.bind_workers / 4), client_, event_limiter_, 10000);
  reflectors_.push_back(std::make_unique<kube::Reflector>("/api/v1/nodes", "nodes", client_,
                                                          limiter_, node_handler()));
  reflectors_.push_back(
      std::make_unique<kube::Reflector>("/api/v1/pods", "pods", client_, limiter_, pod_handler()));
  reflectors_.push_back(std::make_unique<kube::Reflector>("/apis/policy/v1/poddisruptionbudgets",
                                                          "poddisruptionbudgets", client_, limiter_,
                                                          pdb_handler()));
  for (const WatchedKind& kind : kWatchedKinds) {
    reflectors_.push_back(std::make_unique<kube::Reflector>(kind.path, kind.resource, client_,
                                                            limiter_, object_handler(kind)));
  }
  for (auto& r : reflectors_) r->start();
  loop_ = std::thread([this] { loop(); });
}

void Scheduler::set_active(bool active) {
  {
    auto lock = lock_for_update();
    active_ = active;
  }
  cv_.notify_all();
}

void Scheduler::set_write_fence(std::function<Clock::time_point()> valid_until) {
  write_fence_ = std::move(valid_until);
}

std::optional<std::chrono::milliseconds> Scheduler::write_budget() const {
  constexpr std::chrono::milliseconds kLongest = std::chrono::seconds(30);
  if (!write_fence_) return kLongest;
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(write_fence_() - Clock::now());
  if (left <= std::chrono::milliseconds(0)) return std::nullopt;
  return std::min(left, kLongest);
}

size_t Scheduler::stop(std::chrono::milliseconds grace) {
  {
    auto lock = lock_for_update();
    if (stopping_) return 0;
    stopping_ = true;
    active_ = false;
  }
  cv_.notify_all();
  if (loop_.joinable()) loop_.join();
  size_t abandoned = 0;
  if (workers_) abandoned += workers_->drain(grace);
  if (event_workers_)
    abandoned += event_workers_->drain(std::min(grace, std::chrono::milliseconds(2000)));
  for (auto& r : reflectors_) r->stop();
  return abandoned;
}

bool Scheduler::synced() const {
  if (reflectors_.empty()) return false;
  for (const auto& r : reflectors_) {
    if (!r->synced()) return false;
  }
  return true;
}

std::string Scheduler::watch_problem() const {
  for (const auto& r : reflectors_) {
    if (r->forbidden()) {
      return "the API server refused to list or watch " + r->what() + " " +
             std::to_string(kube::Reflector::kForbiddenLimit) +
             " times in a row (401/403): the scheduler's credentials lack a right it needs "
             "(docs/deploy.md)";
    }
  }
  return "";
}

// ------------------------------------------------------------------ watches

kube::ReflectorHandler Scheduler::node_handler() {
  auto listed = std::make_shared<std::vector<autoscaler::CaNode>>();
  kube::ReflectorHandler h;
  h.list_begin = [listed] { listed->clear(); };
  h.list_item = [listed](const json::value& v) {
    auto n = autoscaler::decode_ca_node(v, JsonPath("node"));
    if (!n) {
      log_error("node left out: " + n.error().what());
      return;
    }
    listed->push_back(std::move(*n));
  };
  h.list_end = [this, listed] {
    auto lock = lock_for_update();
    cache_.replace_nodes(std::move(*listed));
    listed->clear();
    queue_.move_all(Clock::now());
    cv_.notify_all();
  };
  h.event = [this](kube::EventType type, const json::value& v) {
    auto n = autoscaler::decode_ca_node(v, JsonPath("node"));
    if (!n) {
      log_error("node event left out: " + n.error().what());
      return;
    }
    auto lock = lock_for_update();
    if (type == kube::EventType::Deleted) {
      cache_.remove_node(n->node.name);
      return;
    }
    if (cache_.upsert_node(std::move(*n))) {
      queue_.move_all(Clock::now());
      cv_.notify_all();
    }
  };
  return h;
}

kube::ReflectorHandler Scheduler::pod_handler() {
  auto listed = std::make_shared<std::vector<autoscaler::CaPod>>();
  kube::ReflectorHandler h;
  h.list_begin = [listed] { listed->clear(); };
  h.list_item = [listed](const json::value& v) {
    autoscaler::CaPod& p = listed->emplace_back();
    if (auto s = autoscaler::decode_ca_pod_into(v, JsonPath("pod"), p); !s) {
      log_error("pod left out: " + s.error().what());
      listed->pop_back();
    }
  };
  h.list_end = [this, listed] {
    auto lock = lock_for_update();
    cache_.replace_pods(std::move(*listed));
    listed->clear();
    // Queued pods the list no longer has are gone.
    for (const std::string& key : queue_.keys()) {
      if (!cache_.pod(key)) queue_.remove(key);
    }
    for (const auto& [key, rec] : cache_.pods()) requeue_if_pending(rec);
    queue_.move_all(Clock::now());
    update_pending_metric();
    cv_.notify_all();
  };
  h.event = [this](kube::EventType type, const json::value& v) {
    autoscaler::CaPod p;
    if (auto s = autoscaler::decode_ca_pod_into(v, JsonPath("pod"), p); !s) {
      log_error("pod event left out: " + s.error().what());
      return;
    }
    auto lock = lock_for_update();
    if (type == kube::EventType::Deleted) {
      on_pod_gone(p.pod.key());
    } else {
      on_pod(std::move(p));
    }
    cv_.notify_all();
  };
  return h;
}

kube::ReflectorHandler Scheduler::pdb_handler() {
  auto listed = std::make_shared<std::map<std::string, autoscaler::PdbSpec>>();
  auto key_of = [](const json::value& v) -> std::optional<std::string> {
    auto name = autoscaler::decode_object_name(v, JsonPath("poddisruptionbudget"));
    if (!name) return std::nullopt;
    return name->first + "/" + name->second;
  };
  kube::ReflectorHandler h;
  h.list_begin = [listed] { listed->clear(); };
  h.list_item = [listed, key_of](const json::value& v) {
    auto pdb = autoscaler::decode_pdb(v, JsonPath("poddisruptionbudget"));
    auto key = key_of(v);
    if (!pdb || !key) {
      log_error("PodDisruptionBudget left out: " +
                (pdb ? std::string("no name") : pdb.error().what()));
      return;
    }
    (*listed)[*key] = std::move(*pdb);
  };
  h.list_end = [this, listed] {
    auto lock = lock_for_update();
    cache_.replace_pdbs(std::move(*listed));
    listed->clear();
  };
  h.event = [this, key_of](kube::EventType type, const json::value& v) {
    auto key = key_of(v);
    if (!key) return;
    auto lock = lock_for_update();
    if (type == kube::EventType::Deleted) {
      cache_.remove_pdb(*key);
      return;
    }
    auto pdb = autoscaler::decode_pdb(v, JsonPath("poddisruptionbudget"));
    if (!pdb) {
      log_error("PodDisruptionBudget event left out: " + pdb.error().what());
      return;
    }
    cache_.upsert_pdb(*key, std::move(*pdb));
  };
  return h;
}

kube::ReflectorHandler Scheduler::object_handler(const WatchedKind& kind) {
  auto listed = std::make_shared<std::vector<DecodedObject>>();
  // A new or changed claim, volume, class or CSI object can make a waiting
  // pod fit (kube-scheduler's queueing hints for the volume plugins), as can
  // a namespace's labels (InterPodAffinity's namespace selector); Services
  // and controllers change only scores.
  const bool may_unblock = kind.storage || kind.kind == std::string_view("Namespace");
  kube::ReflectorHandler h;
  h.list_begin = [listed] { listed->clear(); };
  h.list_item = [listed, &kind](const json::value& v) {
    auto d = decode_watched(kind.kind, v);
    if (!d) {
      log_error(std::string(kind.kind) + " left out: " + d.error().what());
      return;
    }
    listed->push_back(std::move(*d));
  };
  h.list_end = [this, listed, &kind, may_unblock] {
    auto lock = lock_for_update();
    cache_.replace_objects(kind, std::move(*listed));
    listed->clear();
    if (may_unblock) queue_.move_all(Clock::now());
    cv_.notify_all();
  };
  h.event = [this, &kind, may_unblock](kube::EventType type, const json::value& v) {
    if (type == kube::EventType::Deleted) {
      auto key = watched_key(kind.kind, v);
      if (!key) return;
      auto lock = lock_for_update();
      cache_.remove_object(kind, *key);
      return;
    }
    auto d = decode_watched(kind.kind, v);
    if (!d) {
      log_error(std::string(kind.kind) + " event left out: " + d.error().what());
      return;
    }
    auto lock = lock_for_update();
    // A status update changes nothing scheduling reads: no new cluster, no
    // requeue (volume bindings in flight, polled, still see its resourceVersion).
    if (!cache_.upsert_object(kind, std::move(*d))) return;
    if (may_unblock) {
      queue_.move_all(Clock::now());
      cv_.notify_all();
    }
  };
  return h;
}

bool Scheduler::ours_to_place(const PodRecord& rec) const {
  const Pod& p = rec.pod.pod;
  // Gated pods wait outside the queue, as kube-scheduler's PreEnqueue keeps them.
  return rec.pending() && p.deletion_timestamp.empty() && !p.scheduling_gated && ours(p);
}

bool Scheduler::schedulable(const PodRecord& rec) const {
  return ours_to_place(rec) && rec.assumed_node.empty();
}

void Scheduler::requeue_if_pending(const PodRecord& rec) {
  const Pod& p = rec.pod.pod;
  const std::string key = p.key();
  if (!ours_to_place(rec)) {
    queue_.remove(key);
    if (!rec.pending()) condition_written_.erase(key);
  } else if (rec.assumed_node.empty()) {
    queue_.add(key, p.priority, p.creation_timestamp, Clock::now());
  }
}

void Scheduler::on_pod(autoscaler::CaPod pod) {
  const std::string key = pod.pod.key();
  std::optional<PodRecord> before = cache_.upsert_pod(std::move(pod));
  const PodRecord& rec = *cache_.pod(key);
  // Our own status patches come back as updates: they retry nothing.
  if (!ours_to_place(rec) || !before || spec_changed(before->pod.pod, rec.pod.pod) ||
      !queue_.contains(key)) {
    requeue_if_pending(rec);
  }
  // A pod that stopped holding room frees it for the waiting pods.
  if (before && !before->holds().empty() && rec.holds().empty()) queue_.move_all(Clock::now());
  update_pending_metric();
}

void Scheduler::on_pod_gone(const std::string& key) {
  std::optional<PodRecord> before = cache_.remove_pod(key);
  queue_.remove(key);
  condition_written_.erase(key);
  if (before && !before->holds().empty()) queue_.move_all(Clock::now());
  update_pending_metric();
}

void Scheduler::update_pending_metric() {
  const auto c = queue_.counts();
  metrics_.pending(c.active, c.backoff, c.unschedulable);
}

// ------------------------------------------------------------------ decisions

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
  Decision d = decide(*plan, cluster);
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
      BindingPlan claims = cluster.storage().binding_plan(*storage, cluster.node(*d.chosen));
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
    nominated = preempt(key, rec, *plan, d);
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
                               Decision& d) {
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
  auto choice = select_preemption(plan, c, d, facts);
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

// ------------------------------------------------------------------ volume binding

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

// ------------------------------------------------------------------ API calls

void Scheduler::bind(kube::ApiClient& api, const std::string& key, const std::string& uid,
                     const std::string& node, const std::string& profile,
                     Clock::time_point started) {
  const auto [ns, name] = split_key(key);
  {
    // The node may have gone while the binding waited for its turn.
    auto lock = lock_for_update();
    if (stopping_) return;
    if (!cache_.nodes().count(node)) {
      cache_.forget(key);
      if (const PodRecord* r = cache_.pod(key); r && r->pending())
        queue_.backoff(key, Clock::now());
      cv_.notify_all();
      return;
    }
  }
  json::object binding{{"apiVersion", "v1"},
                       {"kind", "Binding"},
                       {"metadata", {{"name", name}, {"namespace", ns}, {"uid", uid}}},
                       {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  const auto budget = write_budget();
  if (!budget) {
    // Leadership is no longer confirmed: another replica may be deciding
    // already. The room goes back; whoever leads next places the pod.
    log_warning("binding " + key + " to " + node + " not sent: the lease is not confirmed");
    auto lock = lock_for_update();
    cache_.forget(key);
    cv_.notify_all();
    return;
  }
  const auto t0 = Clock::now();
  auto r = api.request("POST", "/api/v1/namespaces/" + ns + "/pods/" + name + "/binding",
                       json::serialize(binding), "application/json", *budget);
  const bool ok = r && r->ok();
  metrics_.binding(seconds_since(t0), ok);
  auto lock = lock_for_update();
  if (ok) {
    metrics_.attempt(profile, Metrics::Result::Scheduled, seconds_since(started));
    event(ns, name, uid, profile, "Normal", "Scheduled", "Binding",
          "Successfully assigned " + ns + "/" + name + " to " + node);
    return;
  }
  // Not bound by us: give the room back. A 409 means the pod is bound
  // already (by us on an earlier try, or by someone else): the watch shows
  // where, and the pod is never bound again.
  cache_.forget(key);
  const std::string why = r ? kube::api_error_text(*r) : r.error().what();
  if (r && (r->status == 404 || r->status == 409)) {
    log_info("binding " + key + " to " + node + " not needed: " + why);
    if (r->status == 409) {
      if (const PodRecord* rec = cache_.pod(key); rec && rec->pending())
        queue_.backoff(key, Clock::now());
    }
    cv_.notify_all();
    return;
  }
  log_warning("binding " + key + " to " + node + " failed: " + why);
  metrics_.attempt(profile, Metrics::Result::Error, seconds_since(started));
  if (const PodRecord* rec = cache_.pod(key); rec && rec->pending()) {
    queue_.backoff(key, Clock::now());
    event(ns, name, uid, profile, "Warning", "FailedScheduling", "Scheduling",
          "Binding rejected: " + why);
  }
  cv_.notify_all();
}

void Scheduler::patch_status(kube::ApiClient& api, const std::string& ns, const std::string& name,
                             const json::object& status) {
  const std::string body = json::serialize(json::object{{"status", status}});
  const auto budget = write_budget();
  if (!budget) {
    log_warning("status of " + ns + "/" + name + " not written: the lease is not confirmed");
    auto lock = lock_for_update();
    condition_written_.erase(ns + "/" + name);
    return;
  }
  auto r = api.request("PATCH", "/api/v1/namespaces/" + ns + "/pods/" + name + "/status", body,
                       "application/strategic-merge-patch+json", *budget);
  if (r && (r->ok() || r->status == 404)) return;
  metrics_.api_error();
  log_warning("status of " + ns + "/" + name + ": " +
              (r ? kube::api_error_text(*r) : r.error().what()));
  // Let the next attempt write it again.
  auto lock = lock_for_update();
  condition_written_.erase(ns + "/" + name);
}

void Scheduler::delete_victim(kube::ApiClient& api, const std::string& ns, const std::string& name,
                              const std::string& uid) {
  // The uid precondition: never delete a new pod that took the victim's name.
  json::object options{{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (!uid.empty()) options["preconditions"] = json::object{{"uid", uid}};
  const auto budget = write_budget();
  if (!budget) {
    log_warning("preemption: " + ns + "/" + name + " not deleted: the lease is not confirmed");
    return;
  }
  auto r = api.request("DELETE", "/api/v1/namespaces/" + ns + "/pods/" + name,
                       json::serialize(options), "application/json", *budget);
  if (r && (r->ok() || r->status == 404 || r->status == 409)) return;
  metrics_.api_error();
  log_warning("preemption: deleting " + ns + "/" + name + ": " +
              (r ? kube::api_error_text(*r) : r.error().what()));
}

void Scheduler::event(const std::string& ns, const std::string& name, const std::string& uid,
                      const std::string& profile, const std::string& type,
                      const std::string& reason, const std::string& action,
                      const std::string& note) {
  static std::atomic<uint64_t> sequence{0};
  const std::string now = utc_timestamp(6);
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".%llx",
                static_cast<unsigned long long>(
                    std::chrono::system_clock::now().time_since_epoch().count() + sequence++));
  // events.k8s.io/v1, as kube-scheduler records them: the reporting controller
  // is the profile's schedulerName.
  json::object e{
      {"apiVersion", "events.k8s.io/v1"},
      {"kind", "Event"},
      {"metadata", {{"name", name + suffix}, {"namespace", ns}}},
      {"eventTime", now},
      {"reportingController", profile},
      {"reportingInstance", profile + "-" + options_.hostname},
      {"action", action},
      {"reason", reason},
      {"regarding",
       {{"apiVersion", "v1"}, {"kind", "Pod"}, {"namespace", ns}, {"name", name}, {"uid", uid}}},
      {"note", note.size() > 1024 ? note.substr(0, 1021) + "..." : note},
      {"type", type}};
  std::string body = json::serialize(e);
  const bool queued =
      event_workers_->submit([this, ns, body = std::move(body)](kube::ApiClient& api) {
        auto r = api.request("POST", "/apis/events.k8s.io/v1/namespaces/" + ns + "/events", body);
        if (!r || !r->ok()) {
          metrics_.api_error();
          log_warning("event in " + ns + ": " + (r ? kube::api_error_text(*r) : r.error().what()));
        }
      });
  if (!queued) metrics_.events_dropped(1);
}

// ------------------------------------------------------------------ snapshot

std::string Scheduler::home(const std::string& user, const std::string& hub_namespace) {
  json::object answer;
  {
    auto lock = lock_for_update();
    answer = home_answer(cache_.objects(), user, hub_namespace);
  }
  return json::serialize(answer);
}

std::string Scheduler::dask_nodes(const std::string& ns, const std::string& name) {
  std::vector<pools::DaskNodeHint> hints;
  {
    auto lock = lock_for_update();
    std::vector<const autoscaler::CaNode*> nodes;
    for (const auto& [n, node] : cache_.nodes()) nodes.push_back(&node);
    std::vector<const autoscaler::CaPod*> pods;
    for (const auto& [key, rec] : cache_.pods()) pods.push_back(&rec.pod);
    // Pools matter only for their min sizes: without one above 0, no node is
    // copied and no pool resolved under the lock the scheduling loop shares.
    const auto& config = options_.pools_config;
    pools::ResolvedPools resolved;
    if (config && std::any_of(config->pools.begin(), config->pools.end(),
                              [](const pools::NodePool& p) { return p.min_size > 0; })) {
      std::vector<Node> plain;
      for (const autoscaler::CaNode* n : nodes) plain.push_back(n->node);
      resolved = pools::resolve_pools(*config, plain);
    }
    hints = pools::dask_node_hints(nodes, pods, resolved, pools::DaskCluster{ns, name});
  }
  json::array out;
  for (const pools::DaskNodeHint& h : hints) {
    out.push_back(json::object{{"name", h.node}, {"workers", h.workers}, {"kept", h.kept}});
  }
  return json::serialize(json::object{{"nodes", std::move(out)}});
}

std::shared_ptr<const Scheduler::PublishedSnapshot> Scheduler::snapshot(
    std::chrono::milliseconds interval) {
  std::lock_guard build(snapshot_m_);
  const auto now = Clock::now();
  uint64_t generation = 0;
  json::object redacted;
  {
    auto lock = lock_for_update();
    generation = cache_.generation();
    if (snapshot_ && (generation == snapshot_generation_ || now - snapshot_built_ < interval))
      return snapshot_;
    std::random_device entropy;
    const uint64_t seed = (uint64_t{entropy()} << 32) ^ entropy();
    redacted = redacted_snapshot(cache_, options_.scheduler_configuration, options_.pools,
                                 options_.published, seed);
  }
  auto published = std::make_shared<PublishedSnapshot>();
  published->body = json::serialize(redacted);
  // FNV-1a of the bytes: a new tag whenever they differ, and they differ on
  // every build (pseudonyms are drawn anew), so the tag also says "not rebuilt".
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : published->body) hash = (hash ^ c) * 1099511628211ull;
  char tag[24];
  std::snprintf(tag, sizeof tag, "\"%016llx\"", static_cast<unsigned long long>(hash));
  published->etag = tag;
  metrics_.snapshot_built(std::chrono::duration<double>(Clock::now() - now).count());
  snapshot_ = std::move(published);
  snapshot_generation_ = generation;
  snapshot_built_ = now;
  return snapshot_;
}

}  // namespace tightpack::daemon
