#include "daemon/cache.hpp"

#include <algorithm>
#include <iterator>

#include "daemon/pod_budget.hpp"
#include "daemon/published_pod.hpp"
#include "daemon/unreadable.hpp"
#include "tightpack/plugins/cohort.hpp"
#include "tightpack/timestamp.hpp"

namespace tightpack::daemon {
namespace {

// Kubelets rewrite node status every few seconds (conditions, heartbeats);
// the decoder reads none of that, only what scheduling and cluster-autoscaler
// read of a node, so two decoded nodes that are equal decide alike.
bool same_for_scheduling(const Node& a, const Node& b) {
  return a == b;
}

}  // namespace

void slim(autoscaler::CaPod& p, bool placed_here) {
  auto& a = p.pod.annotations;
  a.erase(std::remove_if(a.begin(), a.end(),
                         [](const auto& kv) {
                           return kv.first.rfind("cluster-autoscaler.kubernetes.io/", 0) != 0 &&
                                  kv.first != "kubernetes.io/config.mirror" &&
                                  kv.first != kUnreadableAnnotation &&
                                  kv.first != kReducedAnnotation;
                         }),
          a.end());
  // Beyond the budget, a pod the daemon does not place keeps no tolerations
  // and no controller: in a drain it can go nowhere tainted and blocks its
  // node, which only makes the scale-down forecast more cautious; its
  // requests, labels and terms, which other pods' decisions read, stay.
  if (!placed_here && p.pod.tolerations.size() > kMaxKeptTolerations) {
    a.emplace_back(kReducedAnnotation, std::to_string(p.pod.tolerations.size()) +
                                           " tolerations, beyond the " +
                                           std::to_string(kMaxKeptTolerations) +
                                           " kept: its requests count, no drain may move it");
    p.pod.tolerations.clear();
    p.controller_kind.clear();
    p.controller_name.clear();
  }
  a.shrink_to_fit();
  if (!placed_here && keep_within_budget(p, kReducedAnnotation)) return;
  if (p.pod.node_name.empty()) return;
  // A bound pod's images and container names decide nothing: ImageLocality
  // reads the incoming pod's images and the nodes' image lists.
  for (auto* list : {&p.pod.containers, &p.pod.init_containers}) {
    const bool named = std::any_of(list->begin(), list->end(), [](const Container& c) {
      return !c.name.empty() || !c.image.empty();
    });
    if (!named) continue;
    for (auto& c : list->mut()) {
      c.name.clear();
      c.name.shrink_to_fit();
      c.image.clear();
      c.image.shrink_to_fit();
    }
  }
}

namespace {

void mix(size_t& h, size_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
}
void mix(size_t& h, const std::string& s) {
  mix(h, std::hash<std::string>{}(s));
}

}  // namespace

size_t ContentHash::operator()(const Labels& labels) const {
  size_t h = labels.size();
  for (const auto& [k, v] : labels) {
    mix(h, k);
    mix(h, v);
  }
  return h;
}

size_t ContentHash::operator()(const std::vector<Toleration>& tolerations) const {
  size_t h = tolerations.size();
  for (const Toleration& t : tolerations) {
    for (const std::string* s : {&t.key, &t.op, &t.value, &t.effect}) mix(h, *s);
    mix(h, t.seconds ? static_cast<size_t>(*t.seconds) : SIZE_MAX);
  }
  return h;
}

size_t ContentHash::operator()(const std::vector<Container>& containers) const {
  size_t h = containers.size();
  for (const Container& c : containers) {
    mix(h, c.name);
    mix(h, c.image);
    for (const ResourceList* list : {&c.requests, &c.limits}) {
      mix(h, list->size());
      for (const auto& [name, amount] : *list) {
        mix(h, name);
        mix(h, static_cast<size_t>(amount));
      }
    }
    mix(h, c.ports.size());
    mix(h, c.restart_always ? 1 : 0);
  }
  return h;
}

void PodInterner::intern(Pod& pod) {
  labels_.intern(pod.labels);
  labels_.intern(pod.node_selector);
  tolerations_.intern(pod.tolerations);
  containers_.intern(pod.containers);
  containers_.intern(pod.init_containers);
}

Shared<std::string> ClusterCache::keep(autoscaler::CaPod& pod) {
  slim(pod, placed_here(pod.pod));
  interner_.intern(pod.pod);
  Shared<std::string> published = published_template(pod);
  published_.intern(published);
  return published;
}

const std::string& PodRecord::holds() const {
  static const std::string none;
  if (pod.pod.terminated()) return none;
  return pod.pod.node_name.empty() ? assumed_node : pod.pod.node_name;
}

void ClusterCache::replace_nodes(std::vector<autoscaler::CaNode> nodes) {
  ++generation_;
  nodes_.clear();
  for (auto& n : nodes) {
    std::string name = n.node.name;
    nodes_.insert_or_assign(std::move(name), std::move(n));
  }
  dirty_ = true;
}

bool ClusterCache::upsert_node(autoscaler::CaNode node) {
  ++generation_;
  auto it = nodes_.find(node.node.name);
  if (it == nodes_.end()) {
    std::string name = node.node.name;
    it = nodes_.emplace(std::move(name), std::move(node)).first;
    if (!dirty_ && cluster_ && cluster_->add_node(as_scheduled(it->second))) {
      ++node_adds_;
      place_waiting(it->first);
    } else {
      dirty_ = true;
    }
    return true;
  }
  const bool changed = !same_for_scheduling(it->second.node, node.node);
  it->second = std::move(node);
  if (changed && !dirty_ && cluster_) {
    // Relabelled, tainted, cordoned, resized: in place, not a rebuild.
    const NodeIndex n = cluster_->find(it->first);
    if (n < cluster_->size() && cluster_->update_node(n, as_scheduled(it->second))) {
      ++node_updates_;
      return true;
    }
  }
  if (changed) dirty_ = true;
  return changed;
}

Node ClusterCache::as_scheduled(const autoscaler::CaNode& node) const {
  Node n = node.node;
  if (closed_.contains(n.name)) n.unschedulable = true;
  return n;
}

bool ClusterCache::set_closed(std::set<std::string> nodes) {
  if (nodes == closed_) return false;
  std::set<std::string> changed;
  std::set_symmetric_difference(nodes.begin(), nodes.end(), closed_.begin(), closed_.end(),
                                std::inserter(changed, changed.end()));
  closed_ = std::move(nodes);
  if (dirty_ || !cluster_) return true;
  for (const std::string& name : changed) {
    auto it = nodes_.find(name);
    if (it == nodes_.end()) continue;
    const NodeIndex n = cluster_->find(name);
    if (n >= cluster_->size() || !cluster_->update_node(n, as_scheduled(it->second))) {
      dirty_ = true;
      return true;
    }
    ++node_updates_;
  }
  return true;
}

bool ClusterCache::remove_node(const std::string& name) {
  ++generation_;
  if (nodes_.erase(name) == 0) return false;
  if (dirty_ || !cluster_) return true;
  const NodeIndex n = cluster_->find(name);
  if (n >= cluster_->size()) return true;
  std::vector<std::string> keys;  // its pods still hold it, until they are deleted
  for (const BoundPod& pod : cluster_->pods_on(n)) keys.push_back(pod.key);
  if (!cluster_->remove_node(n)) {
    dirty_ = true;
    return true;
  }
  ++node_removes_;
  for (const auto& key : keys) {
    placed_.erase(key);
    wait(key, name);
  }
  return true;
}

void ClusterCache::place_waiting(const std::string& node) {
  auto it = waiting_.find(node);
  if (it == waiting_.end()) return;
  const std::set<std::string> keys = std::move(it->second);
  waiting_.erase(it);
  for (const auto& key : keys) {
    waits_for_.erase(key);
    sync(key);
  }
}

void ClusterCache::wait(const std::string& key, const std::string& node) {
  waits_for_[key] = node;
  waiting_[node].insert(key);
}

void ClusterCache::unwait(const std::string& key) {
  auto it = waits_for_.find(key);
  if (it == waits_for_.end()) return;
  auto w = waiting_.find(it->second);
  if (w != waiting_.end() && w->second.erase(key) && w->second.empty()) waiting_.erase(w);
  waits_for_.erase(it);
}

void ClusterCache::replace_pods(std::vector<autoscaler::CaPod> pods) {
  ++generation_;
  // Assumptions survive a relist: the binding may still be in flight.
  std::unordered_map<std::string, std::string> assumed;
  for (const auto& [key, rec] : pods_) {
    if (!rec.assumed_node.empty()) assumed[key] = rec.assumed_node;
  }
  pods_.clear();
  reduced_ = 0;
  for (auto& p : pods) {
    Shared<std::string> published = keep(p);
    reduced_ += reduced(p) ? 1 : 0;
    std::string key = p.pod.key();
    PodRecord rec{std::move(p), {}, std::move(published)};
    if (auto a = assumed.find(key); a != assumed.end() && rec.pod.pod.node_name.empty())
      rec.assumed_node = a->second;
    pods_.insert_or_assign(std::move(key), std::move(rec));
  }
  dirty_ = true;
}

std::optional<PodRecord> ClusterCache::upsert_pod(autoscaler::CaPod pod) {
  ++generation_;
  Shared<std::string> published = keep(pod);
  reduced_ += reduced(pod) ? 1 : 0;
  std::string key = pod.pod.key();
  auto it = pods_.find(key);
  std::optional<PodRecord> before;
  if (it == pods_.end()) {
    it = pods_.emplace(key, PodRecord{std::move(pod), {}, std::move(published)}).first;
  } else {
    it->second.published = std::move(published);
    before = it->second;
    reduced_ -= reduced(before->pod) ? 1 : 0;
    // A new pod under an old name (a StatefulSet's) keeps no assumption.
    if (before->pod.pod.uid != pod.pod.uid) it->second.assumed_node.clear();
    it->second.pod = std::move(pod);
    if (!it->second.pod.pod.node_name.empty()) it->second.assumed_node.clear();
    // A pod whose labels, requests or terms change while it holds a node (an
    // in-place resize, a relabelled pod, the spec a watch shows after an
    // assumption) is placed again, not left as it was first placed.
    if (!same_bound_pod(before->pod.pod, it->second.pod.pod)) unplace(key);
  }
  sync(key);
  return before;
}

std::optional<PodRecord> ClusterCache::remove_pod(const std::string& key) {
  ++generation_;
  auto it = pods_.find(key);
  if (it == pods_.end()) return std::nullopt;
  PodRecord before = std::move(it->second);
  reduced_ -= reduced(before.pod) ? 1 : 0;
  pods_.erase(it);
  sync(key);
  return before;
}

bool reduced(const autoscaler::CaPod& pod) {
  return pod.annotation(kReducedAnnotation) != nullptr;
}

bool ClusterCache::placed_here(const Pod& pod) const {
  return pod.node_name.empty() && (!places_ || places_(pod));
}

const PodRecord* ClusterCache::pod(const std::string& key) const {
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : &it->second;
}

void ClusterCache::assume(const std::string& key, const std::string& node, BoundPod bound) {
  ++generation_;
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  it->second.assumed_node = node;
  if (dirty_ || !cluster_) return;
  unplace(key);
  unwait(key);
  const NodeIndex n = cluster_->find(node);
  if (n < cluster_->size()) {
    place(key, it->second, n, std::move(bound));
  } else {
    wait(key, node);
  }
}

void ClusterCache::forget(const std::string& key) {
  ++generation_;
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  it->second.assumed_node.clear();
  sync(key);
}

void ClusterCache::place(const std::string& key, const PodRecord& rec, NodeIndex n,
                         std::optional<BoundPod> bound) {
  if (!bound) {
    const Pod& p = rec.pod.pod;
    // As Cluster::build makes it: the volumes resolved through the claims
    // and volumes the cache holds now.
    bound = BoundPod{
        key,
        p.priority,
        cluster_->usage_of(p),
        plugins::cohort_of(p),
        rfc3339_seconds(p.start_time).value_or(0),
        std::make_shared<const PodMeta>(PodMeta{p.ns, p.labels, !p.deletion_timestamp.empty()}),
        p.volumes.empty() ? nullptr : cluster_->storage().storage_of(p),
        affinity_terms(p)};
  }
  cluster_->place(n, std::move(*bound));
  placed_[key] = cluster_->name(n);
}

void ClusterCache::unplace(const std::string& key) {
  auto it = placed_.find(key);
  if (it == placed_.end()) return;
  const NodeIndex n = cluster_->find(it->second);
  placed_.erase(it);
  if (n >= cluster_->size()) return;
  const auto& on = cluster_->pods_on(n);
  for (size_t i = 0; i < on.size(); ++i) {
    if (on[i].key == key) {
      cluster_->remove(n, {i});
      return;
    }
  }
}

void ClusterCache::sync(const std::string& key) {
  if (dirty_ || !cluster_) return;
  const PodRecord* rec = pod(key);
  const std::string want = rec ? rec->holds() : "";
  auto it = placed_.find(key);
  const std::string have = it == placed_.end() ? "" : it->second;
  if (!want.empty() && want == have) return;
  unplace(key);
  unwait(key);
  if (want.empty()) return;
  const NodeIndex n = cluster_->find(want);
  if (n < cluster_->size()) {
    place(key, *rec, n);
  } else {
    wait(key, want);
  }
}

void ClusterCache::objects_changed(const WatchedKind& kind) {
  ++generation_;
  if (kind.storage) {
    dirty_ = true;
  } else {
    workload_objects_changed_ = true;
  }
}

void ClusterCache::replace_objects(const WatchedKind& kind, std::vector<DecodedObject> items) {
  objects_.replace(kind.kind, std::move(items));
  objects_changed(kind);
}

bool ClusterCache::upsert_object(const WatchedKind& kind, DecodedObject item) {
  // A ReplicaSet's status moves with every replica, a claim's with its phase:
  // only a change of what scheduling reads costs a new cluster.
  if (!objects_.upsert(kind.kind, std::move(item))) return false;
  objects_changed(kind);
  return true;
}

bool ClusterCache::remove_object(const WatchedKind& kind, const std::string& key) {
  if (!objects_.remove(kind.kind, key)) return false;
  objects_changed(kind);
  return true;
}

Cluster& ClusterCache::cluster() {
  if (!dirty_ && cluster_) {
    if (workload_objects_changed_) cluster_->replace_workload_objects(objects_.workload_objects());
    workload_objects_changed_ = false;
    return *cluster_;
  }
  std::vector<Node> nodes;
  nodes.reserve(nodes_.size());
  for (const auto& [name, n] : nodes_) nodes.push_back(as_scheduled(n));
  std::vector<const Pod*> pods;
  std::vector<Pod> assumed;  // copies with the assumed node as nodeName
  assumed.reserve(pods_.size());
  pods.reserve(pods_.size());
  for (const auto& [key, rec] : pods_) {
    if (rec.holds().empty()) continue;
    if (rec.pod.pod.node_name.empty()) {
      assumed.push_back(rec.pod.pod);
      assumed.back().node_name = rec.assumed_node;
      pods.push_back(&assumed.back());
    } else {
      pods.push_back(&rec.pod.pod);
    }
  }
  auto built = Cluster::build_from(std::move(nodes), pods, objects_.objects());
  workload_objects_changed_ = false;
  // build_from fails only on inputs the decoder cannot produce.
  cluster_.emplace(std::move(built).value());
  placed_.clear();
  for (NodeIndex n = 0; n < cluster_->size(); ++n) {
    for (const auto& bp : cluster_->pods_on(n)) placed_[bp.key] = cluster_->name(n);
  }
  waits_for_.clear();
  waiting_.clear();
  for (const auto& [key, rec] : pods_) {
    if (!rec.holds().empty() && !nodes_.count(rec.holds())) wait(key, rec.holds());
  }
  dirty_ = false;
  ++rebuilds_;
  return *cluster_;
}

}  // namespace tightpack::daemon
