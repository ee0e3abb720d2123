#include "daemon/pod_budget.hpp"

#include <string>
#include <vector>

#include "daemon/unreadable.hpp"

namespace tightpack::daemon {
namespace {

// A vector's own bytes (its pointers), whatever it holds.
constexpr size_t kVector = sizeof(std::vector<char>);

size_t bytes(const std::string& s) {
  return sizeof(std::string) + (s.size() > 15 ? s.size() : 0);
}
size_t bytes(const std::vector<std::string>& list) {
  size_t n = kVector;
  for (const std::string& s : list) n += bytes(s);
  return n;
}
size_t bytes(const std::vector<std::pair<std::string, std::string>>& pairs) {
  size_t n = kVector;
  for (const auto& [k, v] : pairs) n += bytes(k) + bytes(v);
  return n;
}
size_t bytes(const ResourceList& list) {
  size_t n = kVector;
  for (const auto& entry : list) n += bytes(entry.first) + sizeof(entry.second);
  return n;
}
size_t bytes(const std::vector<NodeSelectorRequirement>& requirements) {
  size_t n = kVector;
  for (const auto& r : requirements) n += bytes(r.key) + bytes(r.op) + bytes(r.values);
  return n;
}
size_t bytes(const NodeSelectorTerm& t) {
  return bytes(t.match_expressions) + bytes(t.match_fields);
}
size_t bytes(const std::optional<LabelSelector>& s) {
  if (!s) return sizeof(s);
  size_t n = sizeof(s) + bytes(s->match_labels);
  for (const auto& r : s->match_expressions) n += bytes(r.key) + bytes(r.op) + bytes(r.values);
  return n;
}
size_t bytes(const std::vector<Container>& containers) {
  size_t n = kVector;
  for (const Container& c : containers) {
    n += bytes(c.name) + bytes(c.image) + bytes(c.requests) + bytes(c.limits) + kVector +
         c.ports.size() * sizeof(ContainerPort) + sizeof(bool);
  }
  return n;
}

}  // namespace

size_t kept_bytes(const Pod& p) {
  size_t n = bytes(p.labels.get()) + bytes(p.node_selector.get()) + bytes(p.annotations) +
             bytes(p.containers.get()) + bytes(p.init_containers.get()) + bytes(p.overhead) +
             bytes(p.pod_requests) + bytes(p.image_volumes);
  for (const Toleration& t : p.tolerations)
    n += bytes(t.key) + bytes(t.op) + bytes(t.value) + bytes(t.effect) + sizeof(t.seconds);
  if (p.node_affinity.required) {
    for (const auto& t : *p.node_affinity.required) n += bytes(t);
  }
  for (const auto& t : p.node_affinity.preferred) n += sizeof(t.weight) + bytes(t.preference);
  for (const auto& t : p.pod_affinity_terms) {
    n += sizeof(t) + bytes(t.label_selector) + bytes(t.namespaces) + bytes(t.namespace_selector) +
         bytes(t.topology_key);
  }
  for (const auto& v : p.volumes)
    n += sizeof(v) + bytes(v.name) + bytes(v.claim) + bytes(v.disk) + bytes(v.pool) +
         bytes(v.monitors);
  for (const auto& c : p.topology_spread) {
    n += sizeof(c) + bytes(c.topology_key) + bytes(c.label_selector) + bytes(c.match_label_keys);
  }
  return n;
}

bool keep_within_budget(autoscaler::CaPod& pod, const char* reduced_annotation) {
  const size_t weight = kept_bytes(pod.pod);
  if (weight <= kMaxKeptPodBytes) return false;
  const Pod& p = pod.pod;
  autoscaler::CaPod stand_in =
      filling_pod(UnreadablePod{p.ns, p.name, p.uid, p.node_name, p.scheduler_name, p.phase,
                                !p.deletion_timestamp.empty(), /*path=*/"", /*error=*/""});
  stand_in.pod.start_time = p.start_time;
  stand_in.pod.deletion_timestamp = p.deletion_timestamp;
  stand_in.pod.creation_timestamp = p.creation_timestamp;
  stand_in.pod.annotations = {{reduced_annotation, std::to_string(weight) +
                                                       " bytes of labels, terms, containers and "
                                                       "volumes, beyond the " +
                                                       std::to_string(kMaxKeptPodBytes) +
                                                       " kept: a stand-in that fills its node"}};
  pod = std::move(stand_in);
  return true;
}

}  // namespace tightpack::daemon
