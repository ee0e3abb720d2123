// What each watch event does to the cache and the queue (kube-scheduler's
// eventhandlers.go).
#include <boost/json.hpp>

#include "daemon/scheduler.hpp"
#include "log.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/labels.hpp"
#include "tightpack/plugins/inter_pod_affinity.hpp"
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

}  // namespace

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

}  // namespace tightpack::daemon
