#include "tightpack/advice/intent.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "tightpack/node_affinity_terms.hpp"

namespace tightpack::advice {
namespace {

bool asks_for_gpu(const Pod& pod) {
  auto any = [](const ResourceList& list) {
    return std::any_of(list.begin(), list.end(),
                       [](const auto& r) { return r.second > 0 && is_gpu_resource(r.first); });
  };
  if (any(pod.pod_requests)) return true;
  for (const auto* containers : {&pod.containers, &pod.init_containers}) {
    for (const Container& c : *containers) {
      if (any(c.requests) || any(c.limits)) return true;
    }
  }
  return false;
}

bool offers_gpu(const Node& node) {
  return std::any_of(node.allocatable.begin(), node.allocatable.end(),
                     [](const auto& r) { return r.second > 0 && is_gpu_resource(r.first); });
}

bool labelled_core(const Node& node) {
  const std::string* purpose = find_label(node.labels, "hub.jupyter.org/node-purpose");
  return purpose && *purpose == "core";
}

// The pools whose nodes run the hub's own pods today.
std::set<std::string> pools_with_hub_pods(const pools::ClusterSnapshot& snapshot,
                                          const pools::ResolvedPools& pools) {
  std::set<std::string> nodes;
  for (const auto& p : snapshot.pods) {
    if (is_hub_core_pod(p.pod)) nodes.insert(p.pod.node_name);
  }
  std::set<std::string> out;
  if (nodes.empty()) return out;
  for (const pools::NodePool& pool : pools.pools) {
    for (const std::string& n : pool.nodes) {
      if (nodes.contains(n)) out.insert(pool.name);
    }
  }
  return out;
}

// A taint the pod does not tolerate reserves the node for another kind.
bool reserved_for_another_kind(const Pod& pod, PodKind kind, const Node& node) {
  if (kind == PodKind::kOther) return false;
  for (const Taint& t : node.taints) {
    if (t.effect != "NoSchedule" && t.effect != "NoExecute") continue;
    if (tolerations_tolerate(pod.tolerations, t)) continue;
    const PodKind other = reserved_for(t);
    if (other != PodKind::kOther && other != kind) return true;
  }
  return false;
}

}  // namespace

PodKind pod_kind(const Pod& pod) {
  auto label_is = [&](const char* key, const char* value) {
    const std::string* v = find_label(pod.labels, key);
    return v && *v == value;
  };
  if (label_is("dask.org/component", "worker") ||
      label_is("app.kubernetes.io/component", "dask-worker"))
    return PodKind::kDaskWorker;
  if (label_is("component", "singleuser-server")) return PodKind::kNotebook;
  return PodKind::kOther;
}

PodKind reserved_for(const Taint& t) {
  if ((t.key == "dask" || t.key == "k8s.dask.org/dedicated" || t.key == "k8s.dask.org_dedicated") &&
      t.value == "worker")
    return PodKind::kDaskWorker;
  if ((t.key == "hub.jupyter.org/dedicated" || t.key == "hub.jupyter.org_dedicated") &&
      t.value == "user")
    return PodKind::kNotebook;
  return PodKind::kOther;
}

bool is_gpu_resource(std::string_view name) {
  if (name.starts_with("nvidia.com/") || name.starts_with("gpu.intel.com/")) return true;
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("gpu") != std::string::npos;
}

bool is_hub_core_pod(const Pod& pod) {
  const std::string* app = find_label(pod.labels, "app");
  const std::string* name = find_label(pod.labels, "app.kubernetes.io/name");
  if (!((app && *app == "jupyterhub") || (name && *name == "jupyterhub"))) return false;
  for (const char* key : {"component", "app.kubernetes.io/component"}) {
    const std::string* c = find_label(pod.labels, key);
    if (c && (*c == "hub" || *c == "proxy" || *c == "autohttps" || *c == "user-scheduler"))
      return true;
  }
  return false;
}

std::vector<PoolIntent> pool_intent(const Pod& pod,
                                    const std::vector<pools::PoolTemplate>& templates,
                                    const pools::ClusterSnapshot& snapshot,
                                    const pools::ResolvedPools& pools) {
  const bool gpu = asks_for_gpu(pod);
  const bool hub = is_hub_core_pod(pod);
  const PodKind kind = pod_kind(pod);
  const std::set<std::string> hub_pools =
      hub ? std::set<std::string>{} : pools_with_hub_pods(snapshot, pools);
  const RequiredNodeAffinity required(pod);
  // A selector that picks some pools over others is the owner's own choice:
  // the pools it admits are meant, whatever they offer.
  const bool chosen = std::any_of(templates.begin(), templates.end(),
                                  [&](const auto& t) { return !required.matches(t.node.node); });
  std::vector<PoolIntent> out;
  for (const pools::PoolTemplate& t : templates) {
    const Node& node = t.node.node;
    PoolIntent i{t.pool, NotMeant::kMeant};
    if (!required.matches(node)) {
      i.why = NotMeant::kSelector;
    } else if (chosen) {
      // meant
    } else if (!gpu && offers_gpu(node)) {
      i.why = NotMeant::kGpu;
    } else if (reserved_for_another_kind(pod, kind, node)) {
      i.why = NotMeant::kReserved;
    } else if (!hub && kind != PodKind::kNotebook &&
               (labelled_core(node) || hub_pools.contains(t.pool))) {
      // zero-to-jupyterhub itself runs notebooks on the core nodes when no
      // user node has room (matchNodePurpose: prefer).
      i.why = NotMeant::kHubCore;
    }
    out.push_back(std::move(i));
  }
  return out;
}

bool meant(const std::vector<PoolIntent>& intent, std::string_view pool) {
  auto it = std::find_if(intent.begin(), intent.end(),
                         [&](const PoolIntent& i) { return i.pool == pool; });
  return it == intent.end() || it->meant();
}

}  // namespace tightpack::advice
