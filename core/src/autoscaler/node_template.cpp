// What a new node of a group looks like to CA: a sanitized copy of one of
// its ready nodes with that node's DaemonSet and mirror pods, or, for a group
// without one, the cloud provider's template plus the DaemonSets that would
// run there.
#include "tightpack/autoscaler/node_template.hpp"

#include <algorithm>

#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/node_affinity_terms.hpp"

namespace tightpack::autoscaler {
namespace {

// Taints a new node will not have: CA's own markers, the node-condition
// taints, and the startup and status taints of its default TaintConfig
// (utils/taints.SanitizeTaints at master). CriticalAddonsOnly, the old
// rescheduler's taint, is kept: master no longer drops it (a GKE system pool
// tainted so grows for nothing else; the live cluster found it).
bool sanitized_away(const Taint& t) {
  static const char* const kDropped[] = {
      "ToBeDeletedByClusterAutoscaler",
      "DeletionCandidateOfClusterAutoscaler",
      "node.kubernetes.io/not-ready",
      "node.kubernetes.io/unreachable",
      "node.kubernetes.io/unschedulable",
      "node.kubernetes.io/memory-pressure",
      "node.kubernetes.io/disk-pressure",
      "node.kubernetes.io/network-unavailable",
      "node.kubernetes.io/pid-pressure",
      "node.cloudprovider.kubernetes.io/uninitialized",
      "node.cloudprovider.kubernetes.io/shutdown",
      "cloud.google.com/impending-node-termination",
      "NodeWithImpairedVolumes",
  };
  for (const char* k : kDropped) {
    if (t.key == k) return true;
  }
  for (const char* prefix : {"ignore-taint.cluster-autoscaler.kubernetes.io/",
                             "startup-taint.cluster-autoscaler.kubernetes.io/",
                             "status-taint.cluster-autoscaler.kubernetes.io/"}) {
    if (t.key.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// Labels are kept sorted by key.
void set_label(Labels& labels, std::string_view key, const std::string& value) {
  auto it = std::lower_bound(labels.begin(), labels.end(), key,
                             [](const auto& label, std::string_view k) { return label.first < k; });
  if (it != labels.end() && it->first == key) {
    it->second = value;
  } else {
    labels.insert(it, {std::string(key), value});
  }
}

// labels.UpdateDeprecatedLabels, which SanitizedTemplateNodeInfoFromNodeGroup
// applies to a cloud provider's template (not to a copy of a real node):
// the beta instance-type, region and zone labels follow the stable ones.
void update_deprecated_labels(Labels& labels) {
  static const std::pair<const char*, const char*> kPairs[] = {
      {"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"},
      {"topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"},
      {"topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"},
  };
  for (const auto& [stable, beta] : kPairs) {
    if (const std::string* v = find_label(labels, stable)) {
      const std::string value = *v;
      set_label(labels, beta, value);
    }
  }
}

Node sanitized(const Node& from, const std::string& group) {
  Node n = renamed_copy(from, "template-node-for-" + group);
  n.unschedulable = false;
  std::erase_if(n.taints, sanitized_away);
  return n;
}

// daemon.NewPod adds these tolerations to every DaemonSet pod.
std::vector<Toleration> daemon_tolerations(std::vector<Toleration> t) {
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    t.push_back(Toleration{key, "Exists", "", "NoExecute", std::nullopt});
  }
  for (const char* key : {"node.kubernetes.io/disk-pressure", "node.kubernetes.io/memory-pressure",
                          "node.kubernetes.io/pid-pressure", "node.kubernetes.io/unschedulable"}) {
    t.push_back(Toleration{key, "Exists", "", "NoSchedule", std::nullopt});
  }
  return t;
}

}  // namespace

Node renamed_copy(const Node& from, std::string name) {
  Node n = from;
  // createSanitizedNode sets the hostname label whether or not the node had
  // one: hostname topology (anti-affinity, spread) tells the copies apart.
  set_label(n.labels, "kubernetes.io/hostname", name);
  n.name = std::move(name);
  return n;
}

bool daemon_set_runs_on(const Pod& pod, const Node& node) {
  if (!RequiredNodeAffinity(pod).matches(node)) return false;
  const std::vector<Toleration> tolerations = daemon_tolerations(pod.tolerations);
  for (const Taint& t : node.taints) {
    if (t.effect != "NoSchedule" && t.effect != "NoExecute") continue;
    if (!tolerations_tolerate(tolerations, t)) return false;
  }
  return true;
}

NodeTemplate group_template(const AutoscaleScenario& s, const NodeGroupSpec& g) {
  NodeTemplate t;
  for (const CaNode& n : s.nodes) {
    if (!n.ready || n.node.unschedulable) continue;
    if (std::find(g.nodes.begin(), g.nodes.end(), n.node.name) == g.nodes.end()) continue;
    t.node = sanitized(n.node, g.name);
    for (const CaPod& p : s.pods) {
      if (p.pod.node_name != n.node.name || p.pod.terminated() || expendable(p.pod, s.options))
        continue;
      if (!p.daemon_set && !p.mirror) continue;
      Pod copy = p.pod;
      copy.node_name = t.node.name;
      t.pods.push_back(std::move(copy));
    }
    return t;
  }
  t.node = sanitized(g.template_node, g.name);
  for (const CaPod& p : g.template_pods) {
    Pod copy = p.pod;
    copy.node_name = t.node.name;
    t.pods.push_back(std::move(copy));
  }
  for (const DaemonSetSpec& ds : s.daemon_sets) {
    if (!daemon_set_runs_on(ds.pod_template, t.node)) continue;
    Pod pod = ds.pod_template;
    pod.name = ds.name + "-pod";
    pod.node_name = t.node.name;
    t.pods.push_back(std::move(pod));
  }
  // After the DaemonSets were matched, as CA does.
  update_deprecated_labels(t.node.labels);
  return t;
}

}  // namespace tightpack::autoscaler
