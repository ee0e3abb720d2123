// Which pool each node belongs to: configured pools first, then the pool
// labels clouds and Karpenter put on their nodes.
#include <algorithm>
#include <map>

#include "tightpack/pools/pools.hpp"

namespace tightpack::pools {
namespace {

bool has_labels(const Node& n, const Labels& wanted) {
  return std::all_of(wanted.begin(), wanted.end(), [&](const auto& kv) {
    const std::string* v = find_label(n.labels, kv.first);
    return v && *v == kv.second;
  });
}

bool claims(const NodePool& p, const Node& n) {
  if (!p.node_labels.empty()) return has_labels(n, p.node_labels);
  for (std::string_view key : kPoolLabels) {
    const std::string* v = find_label(n.labels, key);
    if (v && *v == p.name) return true;
  }
  return false;
}

bool offers_gpu(const Node& n) {
  return std::any_of(n.allocatable.begin(), n.allocatable.end(), [](const auto& r) {
    return r.first.find("gpu") != std::string::npos && r.second > 0;
  });
}

// Spot or preemptible capacity, as each cloud labels its nodes.
bool spot(const Node& n) {
  static const std::pair<const char*, const char*> kSpotLabels[] = {
      {"cloud.google.com/gke-preemptible", "true"},
      {"cloud.google.com/gke-spot", "true"},
      {"eks.amazonaws.com/capacityType", "SPOT"},
      {"kubernetes.azure.com/scalesetpriority", "spot"},
      {"karpenter.sh/capacity-type", "spot"},
  };
  for (const auto& [key, value] : kSpotLabels) {
    const std::string* v = find_label(n.labels, key);
    if (v && *v == value) return true;
  }
  return false;
}

bool karpenters(const Node& n) {
  return find_label(n.labels, kKarpenterNodePoolLabel) != nullptr;
}

// A pool is Karpenter's when its nodeLabels select Karpenter's label or one
// of its nodes carries it.
PoolAutoscaler autoscaler_of(const NodePool& p, const std::vector<Node>& nodes,
                             const std::vector<size_t>& members) {
  const bool by_labels =
      std::any_of(p.node_labels.begin(), p.node_labels.end(),
                  [](const auto& kv) { return kv.first == kKarpenterNodePoolLabel; });
  const bool by_nodes =
      std::any_of(members.begin(), members.end(), [&](size_t i) { return karpenters(nodes[i]); });
  return by_labels || by_nodes ? PoolAutoscaler::kKarpenter : PoolAutoscaler::kClusterAutoscaler;
}

}  // namespace

std::string_view autoscaler_name(PoolAutoscaler a) {
  return a == PoolAutoscaler::kKarpenter ? "karpenter" : "cluster-autoscaler";
}

std::optional<std::pair<std::string, std::string>> pool_label(const Node& node) {
  for (std::string_view key : kPoolLabels) {
    if (const std::string* v = find_label(node.labels, key); v && !v->empty()) {
      return std::pair{std::string(key), *v};
    }
  }
  return std::nullopt;
}

std::optional<std::pair<std::string, std::string>> selecting_label(const ResolvedPools& pools,
                                                                   std::string_view pool,
                                                                   const Node& node) {
  for (const NodePool& p : pools.pools) {
    if (p.name == pool && !p.node_labels.empty()) return p.node_labels.front();
  }
  auto label = pool_label(node);
  if (label && label->second == pool) return label;
  return std::nullopt;
}

ResolvedPools resolve_pools(const PoolsConfig& config, const std::vector<Node>& nodes) {
  ResolvedPools out;
  out.pools = config.pools;
  std::vector<bool> taken(nodes.size(), false);
  for (NodePool& p : out.pools) {
    p.nodes.clear();
    std::vector<size_t> members;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (!taken[i] && claims(p, nodes[i])) {
        taken[i] = true;
        p.nodes.push_back(nodes[i].name);
        members.push_back(i);
        if (!p.provisioning_time_given && !p.template_node && offers_gpu(nodes[i])) {
          p.provisioning_seconds = kDefaultGpuProvisioningSeconds;
        }
      }
    }
    p.autoscaler = autoscaler_of(p, nodes, members);
    if (p.nodes.empty() && !p.template_node) {
      out.notes.push_back("pool " + p.name +
                          " has no nodes and no template in the configuration: it cannot grow");
    }
  }
  if (config.infer) {
    std::map<std::string, NodePool> inferred;  // by name, so the order is stable
    std::vector<std::string> unlabelled;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (taken[i]) continue;
      auto label = pool_label(nodes[i]);
      if (!label) {
        unlabelled.push_back(nodes[i].name);
        continue;
      }
      std::string name = label->second;
      if (std::any_of(out.pools.begin(), out.pools.end(),
                      [&](const NodePool& p) { return p.name == name; })) {
        name =
            label->first + "=" + label->second;  // a configured pool with nodeLabels has the name
      }
      NodePool& p = inferred[name];
      if (p.name.empty()) {
        p.name = name;
        p.source = PoolSource::kInferred;
        p.node_labels = {{label->first, label->second}};
        p.provisioning_seconds =
            offers_gpu(nodes[i]) ? kDefaultGpuProvisioningSeconds : kDefaultProvisioningSeconds;
        p.preemptible = spot(nodes[i]);
      }
      if (karpenters(nodes[i])) p.autoscaler = PoolAutoscaler::kKarpenter;
      p.nodes.push_back(nodes[i].name);
    }
    if (!inferred.empty()) {
      std::string names;
      for (auto& [name, p] : inferred) {
        names += (names.empty() ? "" : ", ") + name + " (" + std::to_string(p.nodes.size()) +
                 (p.nodes.size() == 1 ? " node)" : " nodes)");
        out.pools.push_back(std::move(p));
      }
      out.notes.push_back("pools inferred from node labels: " + names +
                          "; their min and max sizes are unknown (min 0, no max assumed): "
                          "name them in a NodePools document to say");
    }
    if (!unlabelled.empty()) {
      out.notes.push_back(std::to_string(unlabelled.size()) +
                          " node(s) carry no pool label and belong to no pool (not autoscaled), "
                          "e.g. " +
                          unlabelled.front());
    }
  }
  std::sort(out.pools.begin(), out.pools.end(),
            [](const NodePool& a, const NodePool& b) { return a.name < b.name; });
  std::string karpenter;
  for (const NodePool& p : out.pools) {
    if (p.autoscaler == PoolAutoscaler::kKarpenter)
      karpenter += (karpenter.empty() ? "" : ", ") + p.name;
  }
  if (!karpenter.empty()) {
    out.notes.push_back("Karpenter manages " + karpenter +
                        " (karpenter.sh/nodepool): tightpack does not model Karpenter yet, so "
                        "the nodes added and removed here are cluster-autoscaler's answer, and "
                        "Karpenter's may differ (it picks instance types per batch of pods and "
                        "consolidates nodes)");
  }
  return out;
}

}  // namespace tightpack::pools
