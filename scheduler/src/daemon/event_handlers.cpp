// What each watch event does to the cache and the queue (kube-scheduler's
// eventhandlers.go).
#include <boost/json.hpp>

#include "daemon/scheduler.hpp"
#include "daemon/unreadable.hpp"
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
  struct Listed {
    std::vector<autoscaler::CaNode> nodes;
    std::map<std::string, std::string> unreadable;  // name -> the decoder's message
  };
  auto listed = std::make_shared<Listed>();
  kube::ReflectorHandler h;
  h.list_begin = [listed] { *listed = {}; };
  h.list_item = [listed](const json::value& v) {
    auto n = autoscaler::decode_ca_node(v, JsonPath("node"));
    if (n) {
      listed->nodes.push_back(std::move(*n));
    } else if (auto name = watched_key("Node", v)) {
      listed->unreadable[*name] = n.error().what();
    } else {
      log_error("node without a name left out: " + n.error().what());
    }
  };
  h.list_end = [this, listed] {
    auto lock = lock_for_update();
    cache_.replace_nodes(std::move(listed->nodes));
    unreadable_nodes_.clear();
    for (auto& [name, error] : listed->unreadable) node_unreadable(name, std::move(error));
    *listed = {};
    update_unreadable_metric();
    queue_.move_all(Clock::now());
    cv_.notify_all();
  };
  h.event = [this](kube::EventType type, const json::value& v) {
    // A deletion is applied by name, whatever else the object holds.
    if (type == kube::EventType::Deleted) {
      auto name = watched_key("Node", v);
      if (!name) return;
      auto lock = lock_for_update();
      cache_.remove_node(*name);
      if (unreadable_nodes_.erase(*name)) update_unreadable_metric();
      return;
    }
    auto n = autoscaler::decode_ca_node(v, JsonPath("node"));
    if (!n) {
      auto name = watched_key("Node", v);
      if (!name) {
        log_error("node event without a name left out: " + n.error().what());
        return;
      }
      auto lock = lock_for_update();
      node_unreadable(*name, n.error().what());
      update_unreadable_metric();
      return;
    }
    auto lock = lock_for_update();
    if (unreadable_nodes_.erase(n->node.name)) {
      log_info("node " + n->node.name + " can be read again: schedulable as it says");
      update_unreadable_metric();
    }
    if (cache_.upsert_node(std::move(*n))) {
      queue_.move_all(Clock::now());
      cv_.notify_all();
    }
  };
  return h;
}

void Scheduler::node_unreadable(const std::string& name, std::string error) {
  // Not schedulable until it can be read: out of the cluster; its pods wait for it.
  cache_.remove_node(name);
  auto [it, added] = unreadable_nodes_.try_emplace(name, error);
  if (added || it->second != error) {
    log_error("node " + name + " cannot be read, so no pod is placed on it until it can: " + error);
    it->second = std::move(error);
  }
}

kube::ReflectorHandler Scheduler::pod_handler() {
  struct Listed {
    std::vector<autoscaler::CaPod> pods;
    std::vector<UnreadablePod> unreadable;
    PodInterner interner;
  };
  auto listed = std::make_shared<Listed>();
  kube::ReflectorHandler h;
  h.list_begin = [this, listed] {
    *listed = {};
    auto lock = lock_for_update();
    listed->interner = cache_.interner();
  };
  // Each pod kept as the cache will keep it as soon as it is read, its parts
  // shared with the old cache's where equal: a relist holds the new list
  // beside the old cache until list_end (bench/RESULTS.md: 150,000 pods as
  // decoded take 580 MiB, slimmed and interned 313, sharing the cache's less).
  h.list_item = [this, listed](const json::value& v) {
    autoscaler::CaPod& p = listed->pods.emplace_back();
    auto s = autoscaler::decode_ca_pod_into(v, JsonPath("pod"), p);
    if (s) {
      slim(p, cache_.placed_here(p.pod));
      listed->interner.intern(p.pod);
      return;
    }
    listed->pods.pop_back();
    if (auto u = read_unreadable_pod(v, s.error())) {
      if (u->holds_node()) listed->pods.push_back(filling_pod(*u));
      listed->unreadable.push_back(std::move(*u));
    } else {
      log_error("pod without a name left out: " + s.error().what());
    }
  };
  h.list_end = [this, listed] {
    auto lock = lock_for_update();
    cache_.replace_pods(std::move(listed->pods));
    // Queued pods the list no longer has are gone.
    for (const std::string& key : queue_.keys()) {
      if (!cache_.pod(key)) queue_.remove(key);
    }
    for (const auto& [key, rec] : cache_.pods()) requeue_if_pending(rec);
    unreadable_pods_.clear();
    for (UnreadablePod& u : listed->unreadable) pod_unreadable(std::move(u), /*listed=*/true);
    *listed = {};
    update_unreadable_metric();
    queue_.move_all(Clock::now());
    update_pending_metric();
    cv_.notify_all();
  };
  h.event = [this](kube::EventType type, const json::value& v) {
    // A deletion is applied by key, whatever else the object holds.
    if (type == kube::EventType::Deleted) {
      auto key = watched_key("Pod", v);
      if (!key) return;
      auto lock = lock_for_update();
      on_pod_gone(*key);
      if (unreadable_pods_.erase(*key)) update_unreadable_metric();
      cv_.notify_all();
      return;
    }
    autoscaler::CaPod p;
    if (auto s = autoscaler::decode_ca_pod_into(v, JsonPath("pod"), p); !s) {
      auto u = read_unreadable_pod(v, s.error());
      if (!u) {
        log_error("pod event without a name left out: " + s.error().what());
        return;
      }
      auto lock = lock_for_update();
      pod_unreadable(std::move(*u), /*listed=*/false);
      update_unreadable_metric();
      cv_.notify_all();
      return;
    }
    auto lock = lock_for_update();
    if (unreadable_pods_.erase(p.pod.key())) {
      log_info("pod " + p.pod.key() + " can be read again");
      update_unreadable_metric();
    }
    on_pod(std::move(p));
    cv_.notify_all();
  };
  return h;
}

void Scheduler::pod_unreadable(UnreadablePod u, bool listed) {
  const std::string key = u.key();
  const bool changed = [&] {
    auto it = unreadable_pods_.find(key);
    return it == unreadable_pods_.end() || it->second.error != u.error ||
           it->second.node_name != u.node_name;
  }();
  if (u.holds_node()) {
    if (!listed) on_pod(filling_pod(u));  // a listed stand-in is in the list already
    if (changed) {
      log_error("pod " + key + " cannot be read, so node " + u.node_name +
                " counts as full while it is there: " + u.error);
    }
  } else {
    if (!listed) on_pod_gone(key);
    const bool own = own_pending(u);
    if (changed) {
      log_error("pod " + key + " cannot be read" +
                (own ? std::string(", so it is not scheduled") : std::string()) + ": " + u.error);
    }
    if (own) report_unreadable(u);
  }
  unreadable_pods_[key] = std::move(u);
}

void Scheduler::update_unreadable_metric() {
  metrics_.unreadable(unreadable_pods_.size(), unreadable_nodes_.size(), cache_.reduced_pods());
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
  if (reduced(rec.pod) && !(before && reduced(before->pod))) {
    log_warning("pod " + key + " is kept reduced (" + *rec.pod.annotation(kReducedAnnotation) +
                ")");
    update_unreadable_metric();
  } else if (before && reduced(before->pod) && !reduced(rec.pod)) {
    update_unreadable_metric();
  }
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
  if (before && reduced(before->pod)) update_unreadable_metric();
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
