#include "tightpack/cluster.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "tightpack/go_int.hpp"
#include "tightpack/plugins/cohort.hpp"
#include "tightpack/plugins/volume_binding.hpp"
#include "tightpack/pod_resources.hpp"
#include "tightpack/timestamp.hpp"

namespace tightpack {
namespace {

int64_t amount(const ResourceList& list, std::string_view name) {
  const int64_t* v = find_resource(list, name);
  return v ? *v : 0;
}

struct PodMetaLess {
  bool operator()(const PodMeta& a, const PodMeta& b) const {
    return std::tie(a.ns, a.labels.get(), a.terminating) <
           std::tie(b.ns, b.labels.get(), b.terminating);
  }
};

// The pods of one workload share their terms: one compiled copy each, so
// that what InterPodAffinity remembers per copy is remembered once.
class AffinityTermsCache {
 public:
  std::shared_ptr<const AffinityTerms> of(const Pod& pod) {
    if (pod.pod_affinity_terms.empty()) return nullptr;
    size_t h = std::hash<std::string>{}(pod.ns);
    for (const auto& t : pod.pod_affinity_terms) {
      h = h * 31 + std::hash<std::string>{}(t.topology_key) + static_cast<size_t>(t.weight) * 4 +
          (t.anti ? 2 : 0) + (t.required ? 1 : 0);
    }
    auto [begin, end] = seen_.equal_range(h);
    for (auto it = begin; it != end; ++it) {
      const Pod& other = *it->second.first;
      if (other.ns == pod.ns && other.pod_affinity_terms == pod.pod_affinity_terms)
        return it->second.second;
    }
    auto terms = affinity_terms(pod);
    seen_.emplace(h, std::make_pair(&pod, terms));
    return terms;
  }

 private:
  std::unordered_multimap<size_t, std::pair<const Pod*, std::shared_ptr<const AffinityTerms>>>
      seen_;
};

const Pod& deref(const Pod& p) {
  return p;
}
const Pod& deref(const Pod* p) {
  return *p;
}

}  // namespace

uint64_t InstanceId::next() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

Result<Cluster> Cluster::build(std::vector<Node> nodes, const std::vector<Pod>& pods,
                               ApiObjects objects) {
  return build_impl(std::move(nodes), pods, std::move(objects));
}

Result<Cluster> Cluster::build_from(std::vector<Node> nodes, const std::vector<const Pod*>& pods,
                                    ApiObjects objects) {
  return build_impl(std::move(nodes), pods, std::move(objects));
}

template <class PodList>
Result<Cluster> Cluster::build_impl(std::vector<Node> nodes, const PodList& pods,
                                    ApiObjects objects) {
  Cluster c;
  c.objects_ = std::move(objects);
  c.owners_ = OwnerIndex(c.objects_);
  c.storage_ = StorageState(c.objects_);
  const size_t n = nodes.size();
  c.nodes_ = std::move(nodes);
  c.node_slot_.resize(n);
  c.slot_node_.resize(n);
  for (NodeIndex i = 0; i < n; ++i) c.node_slot_[i] = c.slot_node_[i] = i;
  for (NodeIndex i = 0; i < n; ++i) {
    if (!c.by_name_.emplace(c.nodes_[i].name, i).second) {
      return Error{"", "duplicate node " + quote_value(c.nodes_[i].name)};
    }
  }
  // Scalar resources: every name a node offers or a bound pod asks for.
  std::set<std::string> scalars;
  auto note_scalars = [&](const ResourceList& list) {
    for (const auto& [name, v] : list) {
      if (is_scalar_resource(name)) scalars.insert(name);
    }
  };
  for (const auto& node : c.nodes_) note_scalars(node.allocatable);
  for (const auto& entry : pods) {
    const Pod& pod = deref(entry);
    for (const auto& ctr : pod.containers) note_scalars(ctr.requests);
    for (const auto& ctr : pod.init_containers) note_scalars(ctr.requests);
    note_scalars(pod.overhead);
    note_scalars(pod.pod_requests);
  }
  c.scalar_names_.assign(scalars.begin(), scalars.end());  // sorted: update_node searches it
  auto column = [n] { return std::vector<int64_t>(n, 0); };
  c.alloc_cpu_ = column(), c.alloc_mem_ = column(), c.alloc_eph_ = column(),
  c.allowed_pods_ = column();
  c.req_cpu_ = column(), c.req_mem_ = column(), c.req_eph_ = column();
  c.nz_cpu_ = column(), c.nz_mem_ = column(), c.pod_count_ = column();
  c.nz_cpu_v130_ = column(), c.nz_mem_v130_ = column();
  c.alloc_scalar_.assign(scalars.size(), column());
  c.req_scalar_.assign(scalars.size(), column());
  c.has_scalar_.assign(scalars.size(), std::vector<uint8_t>(n, 0));
  c.taint_set_.resize(n);
  c.image_set_.resize(n);
  c.generation_.assign(n, 0);
  c.affinity_generation_.assign(n, 0);
  c.affinity_positions_.resize(n);
  c.pods_.resize(n);
  c.ports_.resize(n);
  c.attached_.resize(n);
  c.csi_node_index_.resize(n);
  for (NodeIndex i = 0; i < n; ++i)
    c.csi_node_index_[i] = c.storage_.csi_node_index(c.nodes_[i].name);
  std::map<std::vector<std::string>, uint32_t> taint_set_ids;
  std::map<std::vector<StrId>, uint32_t> image_set_ids;
  for (NodeIndex i = 0; i < n; ++i) {
    const Node& node = c.nodes_[i];
    std::vector<StrId> images = c.set_node_columns(i, node);
    std::vector<std::string> taint_key;
    for (const auto& t : node.taints) {
      taint_key.push_back(t.key);
      taint_key.push_back(t.value);
      taint_key.push_back(t.effect);
    }
    auto [it, inserted] =
        taint_set_ids.emplace(taint_key, static_cast<uint32_t>(c.taint_sets_.size()));
    if (inserted) c.taint_sets_.push_back(node.taints);
    c.taint_set_[i] = it->second;
    auto [set, fresh] = image_set_ids.emplace(images, static_cast<uint32_t>(c.image_sets_.size()));
    if (fresh) c.image_sets_.push_back(std::move(images));
    c.image_set_[i] = set->second;
  }
  // Pods of one workload share their namespace and labels: one PodMeta each.
  std::map<PodMeta, std::shared_ptr<const PodMeta>, PodMetaLess> metas;
  AffinityTermsCache terms;
  for (const auto& entry : pods) {
    const Pod& pod = deref(entry);
    if (pod.terminated() || pod.node_name.empty()) continue;
    NodeIndex at = c.find(pod.node_name);
    if (at == c.size()) continue;
    PodMeta meta{pod.ns, pod.labels, !pod.deletion_timestamp.empty()};
    auto it = metas.find(meta);
    if (it == metas.end()) {
      auto shared = std::make_shared<const PodMeta>(meta);
      it = metas.emplace(std::move(meta), std::move(shared)).first;
    }
    // A bound pod's claims are bound already, or assumed for its node.
    BoundPod bound{pod.key(),
                   pod.priority,
                   c.usage_of(pod),
                   plugins::cohort_of(pod),
                   rfc3339_seconds(pod.start_time).value_or(0),
                   it->second,
                   pod.volumes.empty() ? nullptr : c.storage_.storage_of(pod),
                   terms.of(pod)};
    if (bound.storage && !bound.storage->delayed_claims.empty()) {
      auto copy = std::make_shared<PodStorage>(*bound.storage);
      copy->delayed_claims.clear();
      bound.storage = std::move(copy);
    }
    c.place(at, std::move(bound));
  }
  return c;
}

// Each line reads what one part of the BoundPod above is made of; a part
// build() comes to read belongs here too (the property test in
// cluster_bound_pod_test.cpp changes every field of a pod and compares).
bool same_bound_pod(const Pod& a, const Pod& b) {
  auto same_usage = [](const std::vector<Container>& x, const std::vector<Container>& y) {
    return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](const auto& c, const auto& d) {
      return c.requests == d.requests && c.ports == d.ports && c.restart_always == d.restart_always;
    });
  };
  return a.ns == b.ns && a.name == b.name &&        // key
         a.priority == b.priority &&                // priority
         same_usage(a.containers, b.containers) &&  // usage
         same_usage(a.init_containers, b.init_containers) && a.overhead == b.overhead &&
         a.pod_requests == b.pod_requests && a.go_requests == b.go_requests &&
         a.labels == b.labels &&                                          // cohort, meta
         a.start_time == b.start_time &&                                  // start
         a.deletion_timestamp.empty() == b.deletion_timestamp.empty() &&  // meta
         a.volumes == b.volumes &&                                        // storage
         a.pod_affinity_terms == b.pod_affinity_terms;                    // affinity
}

std::vector<StrId> Cluster::set_node_columns(NodeIndex n, const Node& node) {
  alloc_cpu_[n] = amount(node.allocatable, "cpu");
  alloc_mem_[n] = amount(node.allocatable, "memory");
  alloc_eph_[n] = amount(node.allocatable, "ephemeral-storage");
  allowed_pods_[n] = amount(node.allocatable, "pods");
  for (size_t s = 0; s < scalar_names_.size(); ++s) {
    const int64_t* v = find_resource(node.allocatable, scalar_names_[s]);
    alloc_scalar_[s][n] = v ? *v : 0;
    has_scalar_[s][n] = v ? 1 : 0;
  }
  for (const auto& [key, value] : node.labels) {
    auto [col, fresh] = label_columns_.try_emplace(key);
    if (fresh) col->second.assign(nodes_.size(), kNoStr);
    col->second[n] = strings_.intern(value);
  }
  // An image's size stays the one first seen, as in kube-scheduler's cache,
  // which keeps an image's summary while any node has the image.
  std::vector<StrId> images;
  for (const auto& image : node.images) {
    for (const auto& name : image.names) {
      const StrId id = strings_.intern(name);
      if (std::find(images.begin(), images.end(), id) != images.end()) continue;
      images.push_back(id);
      auto [st, first] = image_states_.try_emplace(id);
      if (first) st->second.size = image.size_bytes;
      ++st->second.num_nodes;
    }
  }
  std::sort(images.begin(), images.end());
  return images;
}

namespace {

// A build has a label column only for keys some node carries.
bool unused(const std::vector<StrId>& label_column) {
  return std::all_of(label_column.begin(), label_column.end(), [](StrId v) { return v == kNoStr; });
}

}  // namespace

std::array<std::vector<int64_t>*, 12> Cluster::int64_columns() {
  return {&alloc_cpu_, &alloc_mem_, &alloc_eph_, &allowed_pods_, &req_cpu_,     &req_mem_,
          &req_eph_,   &nz_cpu_,    &nz_mem_,    &nz_cpu_v130_,  &nz_mem_v130_, &pod_count_};
}

void Cluster::forget_counts_of(const BoundPod& pod) {
  if (pod.affinity) {
    --affinity_pods_;
    if (reads_namespace_labels(*pod.affinity)) --namespace_label_readers_;
  }
  if (pod.storage) {
    for (const auto& key : pod.storage->claim_keys) --claim_users_[key];
    if (pod.storage->in_tree) --in_tree_volume_pods_;
  }
}

bool Cluster::has_scalar_columns_of(const Node& node) const {
  for (const auto& [name, v] : node.allocatable) {
    if (is_scalar_resource(name) &&
        !std::binary_search(scalar_names_.begin(), scalar_names_.end(), name)) {
      return false;
    }
  }
  return true;
}

void Cluster::forget_images_of(NodeIndex n) {
  for (StrId id : image_sets_[image_set_[n]]) {
    auto st = image_states_.find(id);
    if (st != image_states_.end() && --st->second.num_nodes == 0) image_states_.erase(st);
  }
}

void Cluster::set_node_sets(NodeIndex n, const std::vector<Taint>& taints,
                            std::vector<StrId> images) {
  // Sets are shared by value; one no node uses any more is left, unused.
  auto t = std::find(taint_sets_.begin(), taint_sets_.end(), taints);
  if (t == taint_sets_.end()) t = taint_sets_.insert(taint_sets_.end(), taints);
  taint_set_[n] = static_cast<uint32_t>(t - taint_sets_.begin());
  auto set = std::find(image_sets_.begin(), image_sets_.end(), images);
  if (set == image_sets_.end()) set = image_sets_.insert(image_sets_.end(), std::move(images));
  image_set_[n] = static_cast<uint32_t>(set - image_sets_.begin());
}

void Cluster::nodes_changed() {
  domains_.clear();  // built again from the columns when next asked
  ++epoch_;
  ++affinity_epoch_;
  instance_ = InstanceId();
}

bool Cluster::update_node(NodeIndex n, Node node) {
  if (!has_scalar_columns_of(node) || !keeps_scalar_columns(n, &node)) return false;
  for (auto& [key, column] : label_columns_) column[n] = kNoStr;
  forget_images_of(n);
  std::vector<StrId> images = set_node_columns(n, node);
  set_node_sets(n, node.taints, std::move(images));
  for (const auto& [key, value] : nodes_[n].labels) {
    auto column = label_columns_.find(key);
    if (column != label_columns_.end() && unused(column->second)) label_columns_.erase(column);
  }
  nodes_[n] = std::move(node);
  ++generation_[n];
  ++affinity_generation_[n];
  nodes_changed();
  return true;
}

void Cluster::replace_workload_objects(ApiObjects objects) {
  objects_.namespaces = std::move(objects.namespaces);
  objects_.namespaces_listed = objects.namespaces_listed;
  objects_.services = std::move(objects.services);
  objects_.replica_sets = std::move(objects.replica_sets);
  objects_.stateful_sets = std::move(objects.stateful_sets);
  objects_.replication_controllers = std::move(objects.replication_controllers);
  owners_ = OwnerIndex(objects_);
  instance_ = InstanceId();
}

bool Cluster::add_node(Node node) {
  if (!has_scalar_columns_of(node) || by_name_.count(node.name)) return false;
  const auto n = static_cast<NodeIndex>(nodes_.size());
  by_name_.emplace(node.name, n);
  nodes_.push_back(std::move(node));
  node_slot_.push_back(take_slot(n));
  for (auto* column : int64_columns()) column->push_back(0);
  for (auto& column : alloc_scalar_) column.push_back(0);
  for (auto& column : req_scalar_) column.push_back(0);
  for (auto& column : has_scalar_) column.push_back(0);
  for (auto& [key, column] : label_columns_) column.push_back(kNoStr);
  taint_set_.push_back(0);
  image_set_.push_back(0);
  generation_.push_back(0);
  affinity_generation_.push_back(0);
  affinity_positions_.emplace_back();
  pods_.emplace_back();
  ports_.emplace_back();
  attached_.emplace_back();
  csi_node_index_.push_back(storage_.csi_node_index(nodes_[n].name));
  std::vector<StrId> images = set_node_columns(n, nodes_[n]);
  set_node_sets(n, nodes_[n].taints, std::move(images));
  nodes_changed();
  return true;
}

bool Cluster::keeps_scalar_columns(NodeIndex n, const Node* replacement) const {
  // A build has a scalar column only while a node offers it or a bound pod
  // asks for it; the node's own pods still ask (they hold the node until
  // they are deleted).
  for (uint32_t s = 0; s < scalar_names_.size(); ++s) {
    if (!has_scalar_[s][n] ||
        (replacement && find_resource(replacement->allocatable, scalar_names_[s])))
      continue;
    bool kept = false;
    for (NodeIndex m = 0; m < size() && !kept; ++m) kept = m != n && has_scalar_[s][m];
    for (NodeIndex m = 0; m < size() && !kept; ++m) {
      for (const BoundPod& pod : pods_[m]) {
        auto asks = [s](const auto& e) { return e.first == s; };
        if (std::any_of(pod.usage.scalars.begin(), pod.usage.scalars.end(), asks)) {
          kept = true;
          break;
        }
      }
    }
    if (!kept) return false;
  }
  return true;
}

bool Cluster::remove_node(NodeIndex n) {
  if (!keeps_scalar_columns(n, nullptr)) return false;
  for (const BoundPod& pod : pods_[n]) forget_counts_of(pod);
  // The node's entries go from the lists its pods' labels are in, one pass
  // over each such list; the other nodes keep their slots.
  const uint32_t slot = node_slot_[n];
  std::vector<std::string> keys;
  for (const BoundPod& pod : pods_[n]) {
    if (!pod.meta) continue;
    for (const auto& [key, value] : pod.meta->labels) keys.push_back(key + "=" + value);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  for (const std::string& k : keys) {
    auto it = label_pods_.find(std::string_view(k));
    if (it == label_pods_.end()) continue;
    auto& list = it->second;
    list.erase(std::remove_if(list.begin(), list.end(),
                              [slot](const LabelledPod& p) { return p.slot == slot; }),
               list.end());
    if (list.empty()) label_pods_.erase(it);
  }
  slot_node_[slot] = kFreeSlot;
  free_slots_.push_back(slot);
  for (NodeIndex& m : slot_node_) m -= m != kFreeSlot && m > n ? 1 : 0;
  forget_images_of(n);
  by_name_.erase(nodes_[n].name);
  for (auto& [name, index] : by_name_) index -= index > n ? 1 : 0;
  auto erase = [n](auto& v) { v.erase(v.begin() + static_cast<std::ptrdiff_t>(n)); };
  erase(nodes_);
  erase(node_slot_);
  for (auto* column : int64_columns()) erase(*column);
  for (auto& column : alloc_scalar_) erase(column);
  for (auto& column : req_scalar_) erase(column);
  for (auto& column : has_scalar_) erase(column);
  for (auto it = label_columns_.begin(); it != label_columns_.end();) {
    erase(it->second);
    it = unused(it->second) ? label_columns_.erase(it) : std::next(it);
  }
  erase(taint_set_);
  erase(image_set_);
  erase(generation_);
  erase(affinity_generation_);
  erase(affinity_positions_);
  erase(pods_);
  erase(ports_);
  erase(attached_);
  erase(csi_node_index_);
  nodes_changed();
  return true;
}

NodeIndex Cluster::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? static_cast<NodeIndex>(size()) : it->second;
}

uint32_t Cluster::scalar_index(std::string_view name) const {
  auto it = std::lower_bound(scalar_names_.begin(), scalar_names_.end(), name);
  if (it == scalar_names_.end() || *it != name) return UINT32_MAX;
  return static_cast<uint32_t>(it - scalar_names_.begin());
}

PodUsage Cluster::usage_of(const Pod& pod) const {
  PodUsage u;
  if (pod.init_containers.empty() && pod.overhead.empty() && pod.pod_requests.empty() &&
      !pod.go_requests) {
    // Most pods: the requests are the containers' sum; no ResourceList to build.
    for (const auto& c : pod.containers) {
      const int64_t* cpu = find_resource(c.requests, "cpu");
      const int64_t* memory = find_resource(c.requests, "memory");
      u.cpu = go_add(u.cpu, cpu ? *cpu : 0);
      u.memory = go_add(u.memory, memory ? *memory : 0);
      u.nz_cpu = go_add(u.nz_cpu, cpu ? *cpu : kDefaultMilliCpuRequest);
      u.nz_memory = go_add(u.nz_memory, memory ? *memory : kDefaultMemoryRequest);
      for (const auto& [name, v] : c.requests) {
        if (name == "ephemeral-storage") {
          u.ephemeral = go_add(u.ephemeral, v);
        } else if (is_scalar_resource(name)) {
          add_scalar(u, name, v);
        }
      }
      add_host_ports(u, c);
    }
    u.nz_cpu_v130 = u.nz_cpu;
    u.nz_memory_v130 = u.nz_memory;
    return u;
  }
  ResourceList real = pod_requests(pod, false);
  ResourceList non_zero =
      has_pod_level_requests(pod)
          ? pod_requests(pod, !find_resource(real, "cpu"), !find_resource(real, "memory"))
          : pod_requests(pod, true);
  u.cpu = amount(real, "cpu");
  u.memory = amount(real, "memory");
  u.ephemeral = amount(real, "ephemeral-storage");
  u.nz_cpu = amount(non_zero, "cpu");
  u.nz_memory = amount(non_zero, "memory");
  std::tie(u.nz_cpu_v130, u.nz_memory_v130) = nonzero_requests_v130(pod);
  for (const auto& [name, v] : real) {
    if (is_scalar_resource(name)) add_scalar(u, name, v);
  }
  for (const auto& c : pod.containers) add_host_ports(u, c);
  for (const auto& c : pod.init_containers) {
    if (c.restart_always) add_host_ports(u, c);
  }
  return u;
}

void Cluster::add_scalar(PodUsage& u, const std::string& name, int64_t amount) const {
  uint32_t s = scalar_index(name);
  auto& list = u.unknown_scalars;
  if (s == UINT32_MAX) {
    auto it =
        std::find_if(list.begin(), list.end(), [&](const auto& e) { return e.first == name; });
    if (it == list.end()) {
      list.emplace_back(name, amount);
    } else {
      it->second = go_add(it->second, amount);
    }
    return;
  }
  auto it =
      std::find_if(u.scalars.begin(), u.scalars.end(), [&](const auto& e) { return e.first == s; });
  if (it == u.scalars.end()) {
    u.scalars.emplace_back(s, amount);
  } else {
    it->second = go_add(it->second, amount);
  }
}

// schedutil.GetHostPorts: app containers and sidecars hold their host ports.
void Cluster::add_host_ports(PodUsage& u, const Container& c) {
  for (const auto& p : c.ports) {
    if (p.host_port <= 0) continue;
    u.host_ports.push_back(HostPort{p.host_ip.empty() ? "0.0.0.0" : p.host_ip,
                                    p.protocol.empty() ? "TCP" : p.protocol, p.host_port});
  }
}

// NodeInfo.update sums in Go int64, which wraps; so do these sums.
void Cluster::add_usage(NodeIndex n, const PodUsage& u, int sign) {
  auto add = [sign](int64_t& total, int64_t amount) {
    total = go_add(total, go_mul(sign, amount));
  };
  add(req_cpu_[n], u.cpu);
  add(req_mem_[n], u.memory);
  add(req_eph_[n], u.ephemeral);
  add(nz_cpu_[n], u.nz_cpu);
  add(nz_mem_[n], u.nz_memory);
  add(nz_cpu_v130_[n], u.nz_cpu_v130);
  add(nz_mem_v130_[n], u.nz_memory_v130);
  pod_count_[n] += sign;
  ++generation_[n];
  ++epoch_;
  for (const auto& [s, v] : u.scalars) add(req_scalar_[s][n], v);
}

uint32_t Cluster::take_slot(NodeIndex n) {
  if (free_slots_.empty()) {
    slot_node_.push_back(n);
    return static_cast<uint32_t>(slot_node_.size() - 1);
  }
  const uint32_t slot = free_slots_.back();
  free_slots_.pop_back();
  slot_node_[slot] = n;
  return slot;
}

void Cluster::index_labels(NodeIndex n, const BoundPod& pod, int sign) {
  if (!pod.meta) return;
  const uint32_t slot = node_slot_[n];
  // One buffer for the keys: most label pairs are longer than a short
  // string holds, and a cluster build looks up hundreds of thousands.
  std::string& k = label_key_buffer_;
  for (const auto& [key, value] : pod.meta->labels) {
    k.assign(key).append("=").append(value);  // neither a label key nor a value holds '='
    auto it = label_pods_.find(std::string_view(k));
    if (sign > 0) {
      if (it == label_pods_.end()) it = label_pods_.emplace(k, std::vector<LabelledPod>{}).first;
      it->second.push_back(LabelledPod{slot, pod.meta.get()});
      continue;
    }
    if (it == label_pods_.end()) continue;
    auto at = std::find_if(it->second.begin(), it->second.end(), [&](const LabelledPod& p) {
      return p.slot == slot && p.meta == pod.meta.get();
    });
    if (at != it->second.end()) {
      *at = it->second.back();
      it->second.pop_back();
    }
    if (it->second.empty()) label_pods_.erase(it);
  }
}

const std::vector<Cluster::LabelledPod>& Cluster::pods_with_label(std::string_view key,
                                                                  std::string_view value) const {
  static const std::vector<LabelledPod> none;
  std::string k;
  k.reserve(key.size() + 1 + value.size());
  k.append(key).append("=").append(value);
  auto it = label_pods_.find(std::string_view(k));
  return it == label_pods_.end() ? none : it->second;
}

bool Cluster::mark_selector_candidates(const Selector& selector, std::vector<uint8_t>& into) const {
  if (selector.is_nothing()) return true;
  const Selector::Requirement* best = nullptr;
  size_t best_size = 0;
  for (const auto& r : selector.requirements()) {
    if (r.op != Selector::Op::kIn) continue;
    size_t size = 0;
    for (const auto& v : r.values) size += pods_with_label(r.key, v).size();
    if (!best || size < best_size) {
      best = &r;
      best_size = size;
    }
  }
  if (!best) return false;
  for (const auto& v : best->values) {
    for (const LabelledPod& p : pods_with_label(best->key, v)) into[node_of(p)] = 1;
  }
  return true;
}

void Cluster::place(NodeIndex n, BoundPod pod) {
  add_usage(n, pod.usage, +1);
  index_labels(n, pod, +1);
  if (pod.affinity) {
    ++affinity_pods_;
    affinity_positions_[n].push_back(static_cast<uint32_t>(pods_[n].size()));
    if (reads_namespace_labels(*pod.affinity)) ++namespace_label_readers_;
    ++affinity_epoch_;
    ++affinity_generation_[n];
  }
  for (const auto& p : pod.usage.host_ports) ports_[n].push_back(p);
  if (pod.storage) {
    for (const auto& key : pod.storage->claim_keys) ++claim_users_[key];
    if (pod.storage->in_tree) ++in_tree_volume_pods_;
    if (!pod.storage->delayed_claims.empty())
      plugins::assume_pod_volumes(storage_, *pod.storage, nodes_[n]);
    add_attached_volumes(attached_[n], *pod.storage);
  }
  pods_[n].push_back(std::move(pod));
}

int64_t Cluster::claim_users(const std::string& key) const {
  auto it = claim_users_.find(key);
  return it == claim_users_.end() ? 0 : it->second;
}

void Cluster::remove(NodeIndex n, const std::vector<size_t>& positions) {
  std::vector<size_t> sorted = positions;
  std::sort(sorted.rbegin(), sorted.rend());
  for (size_t pos : sorted) {
    BoundPod& pod = pods_[n][pos];
    add_usage(n, pod.usage, -1);
    index_labels(n, pod, -1);
    forget_counts_of(pod);
    if (pod.affinity) {
      ++affinity_epoch_;
      ++affinity_generation_[n];
    }
    for (const auto& p : pod.usage.host_ports) {
      auto it = std::find(ports_[n].begin(), ports_[n].end(), p);
      if (it != ports_[n].end()) ports_[n].erase(it);
    }
    pods_[n].erase(pods_[n].begin() + static_cast<std::ptrdiff_t>(pos));
  }
  if (!affinity_positions_[n].empty()) {  // positions after the removed ones moved
    affinity_positions_[n].clear();
    for (uint32_t pos = 0; pos < pods_[n].size(); ++pos) {
      if (pods_[n][pos].affinity) affinity_positions_[n].push_back(pos);
    }
  }
  // Which pod attached a volume first decides its driver: count again.
  if (!attached_[n].empty()) {
    attached_[n].clear();
    for (const BoundPod& pod : pods_[n]) {
      if (pod.storage) add_attached_volumes(attached_[n], *pod.storage);
    }
  }
}

Relief Cluster::relief_of(NodeIndex n, const std::vector<size_t>& positions) const {
  Relief r;
  r.positions = positions;
  for (size_t pos : positions) {
    const PodUsage& u = pods_[n][pos].usage;
    r.cpu = go_add(r.cpu, u.cpu);
    r.memory = go_add(r.memory, u.memory);
    r.ephemeral = go_add(r.ephemeral, u.ephemeral);
    r.pods += 1;
    for (const auto& s : u.scalars) r.scalars.push_back(s);
    for (const auto& p : u.host_ports) r.ports.push_back(p);
  }
  return r;
}

const std::vector<StrId>* Cluster::label_column(std::string_view key) const {
  auto it = label_columns_.find(std::string(key));
  return it == label_columns_.end() ? nullptr : &it->second;
}

const Cluster::Domains& Cluster::domains(std::string_view key) const {
  auto it = domains_.find(key);
  if (it != domains_.end()) return it->second;
  Domains d;
  d.of_node.assign(size(), -1);
  if (const std::vector<StrId>* column = label_column(key)) {
    std::unordered_map<StrId, int32_t> ids;
    for (NodeIndex i = 0; i < size(); ++i) {
      if ((*column)[i] == kNoStr) continue;
      d.of_node[i] = ids.try_emplace((*column)[i], static_cast<int32_t>(ids.size())).first->second;
    }
    d.count = ids.size();
  }
  return domains_.emplace(std::string(key), std::move(d)).first->second;
}

const ImageState* Cluster::image_state(StrId image) const {
  auto it = image_states_.find(image);
  return it == image_states_.end() ? nullptr : &it->second;
}

}  // namespace tightpack
