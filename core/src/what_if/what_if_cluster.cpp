#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>
#include <tuple>

#include "tightpack/admission.hpp"
#include "tightpack/built_in_profiles.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/kube_release.hpp"
#include "tightpack/node_affinity_terms.hpp"
#include "tightpack/replay.hpp"
#include "tightpack/what_if/what_if.hpp"

namespace tightpack {
namespace json = boost::json;

WhatIfCluster::WhatIfCluster(pools::ClusterSnapshot snapshot, Cluster cluster)
    : snapshot_(std::move(snapshot)), cluster_(std::move(cluster)) {}

Result<WhatIfCluster> WhatIfCluster::load(const json::value& doc, const JsonPath& path) {
  // One decode serves both views: the scheduler's cluster is built from the
  // autoscaler snapshot's nodes and bound pods.
  auto snapshot = pools::decode_cluster_snapshot(doc, path);
  if (!snapshot) return snapshot.error();
  return from_snapshot(std::move(*snapshot), path);
}

Result<WhatIfCluster> WhatIfCluster::from_snapshot(pools::ClusterSnapshot snapshot,
                                                   const JsonPath& path) {
  if (snapshot.nodes.empty()) {
    return Error{path.str(),
                 "has no nodes: a what-if question needs the cluster's nodes, as "
                 "`kubectl get nodes,pods -A -o json` lists them"};
  }
  std::vector<Node> nodes;
  nodes.reserve(snapshot.nodes.size());
  for (const auto& n : snapshot.nodes) nodes.push_back(n.node);
  std::vector<const Pod*> pods;
  pods.reserve(snapshot.pods.size());
  for (const auto& p : snapshot.pods) pods.push_back(&p.pod);
  // A claim about to be created (a notebook's home, before its first spawn)
  // gets the default class as the API server will give it.
  assign_default_storage_class(snapshot.objects);
  auto cluster = Cluster::build_from(std::move(nodes), pods, snapshot.objects);
  if (!cluster) return cluster.error();
  return WhatIfCluster(std::move(snapshot), std::move(*cluster));
}

bool WhatIfCluster::runs_extended_resource_toleration() const {
  return std::any_of(snapshot_.nodes.begin(), snapshot_.nodes.end(), [](const auto& n) {
    return find_label(n.node.labels, pools::kGkeNodePoolLabel) != nullptr;
  });
}

AdmissionOptions WhatIfCluster::admission() const {
  AdmissionOptions a;
  a.extended_resource_toleration = runs_extended_resource_toleration();
  return a;
}

void WhatIfCluster::use_pools(pools::PoolsConfig config) {
  std::vector<Node> nodes;
  nodes.reserve(snapshot_.nodes.size());
  for (const auto& n : snapshot_.nodes) nodes.push_back(n.node);
  Pools p{std::move(config), {}, {}};
  p.resolved = pools::resolve_pools(p.config, nodes);
  p.pool_of.resize(cluster_.size());
  for (const pools::NodePool& pool : p.resolved.pools) {
    for (const std::string& name : pool.nodes) {
      NodeIndex n = cluster_.find(name);
      if (n < cluster_.size()) p.pool_of[n] = pool.name;
    }
  }
  pools_ = std::move(p);
}

void WhatIfCluster::use_scheduler_configuration(SchedulerConfiguration config) {
  config_ = std::move(config);
}

const std::string* WhatIfCluster::pool_of(NodeIndex n) const {
  if (!pools_ || !pools_->pool_of[n]) return nullptr;
  return &*pools_->pool_of[n];
}

Result<Profile> WhatIfCluster::profile(std::string_view name, const Pod& pod,
                                       std::string_view release) const {
  auto chosen = profile(name, pod);
  if (!chosen || release.empty()) return chosen;
  if (auto e = kube_release::apply(*chosen, release, "release")) return *e;
  return chosen;
}

Result<Profile> WhatIfCluster::profile(std::string_view name, const Pod& pod) const {
  if (name.empty()) {
    if (const Profile* own = config_.find(pod.scheduler_name)) return *own;
    if (!config_.profiles.empty()) return config_.profiles.front();
    return default_profile();
  }
  if (const Profile* configured = config_.find(std::string(name))) return *configured;
  const JsonPath root;
  auto builtin = built_in_profile(name, root.field("profile"));
  if (!builtin) {
    std::string configured;
    for (const Profile& p : config_.profiles) configured += ", " + p.scheduler_name;
    return Error{"profile", "no profile " + quote_value(name) +
                                " (built in: " + built_in_profile_names() + configured + ")"};
  }
  return std::move(*builtin);
}

Result<Placement> WhatIfCluster::place(const Pod& pod, int64_t replicas, const Profile& profile) {
  return place(pod, replicas, profile, {});
}

Result<Placement> WhatIfCluster::place(const Pod& pod, int64_t replicas, const Profile& profile,
                                       const MaxSizes& max_sizes) {
  if (replicas < 1 || replicas > kMaxWhatIfReplicas) {
    return Error{"replicas", std::to_string(replicas) + " is not a whole number from 1 to " +
                                 std::to_string(kMaxWhatIfReplicas)};
  }
  const std::vector<int64_t> cpu_before = cluster_.req_cpu();
  const std::vector<int64_t> memory_before = cluster_.req_memory();
  auto result = simulate_replicas(cluster_, profile, pod, replicas);
  if (!result) return result.error();

  Placement p;
  p.scheduler_name = profile.scheduler_name;
  p.replicas = replicas;
  std::map<std::string_view, NodeIndex> landed;  // by name, as the answer lists them
  std::vector<int64_t> count(cluster_.size(), 0);
  for (const ReplicaPlacement& r : result->replicas) {
    Placement::Copy copy{r.pod, std::nullopt, r.tied};
    if (r.node) {
      copy.node = cluster_.name(*r.node);
      landed.emplace(cluster_.name(*r.node), *r.node);
      ++count[*r.node];
      ++p.placed;
    }
    p.copies.push_back(std::move(copy));
  }
  for (const auto& [name, n] : landed) {
    LandedNode l;
    l.node = std::string(name);
    if (const std::string* pool = pool_of(n)) l.pool = *pool;
    l.replicas = count[n];
    l.cpu_allocatable = cluster_.alloc_cpu()[n];
    l.cpu_before = cpu_before[n];
    l.cpu_after = cluster_.req_cpu()[n];
    l.memory_allocatable = cluster_.alloc_memory()[n];
    l.memory_before = memory_before[n];
    l.memory_after = cluster_.req_memory()[n];
    p.nodes.push_back(std::move(l));
  }
  p.unschedulable_message = result->unschedulable_message;
  if (p.placed < replicas) {
    // The copies that fit nowhere failed on the state the placed ones left:
    // the same decision again gives its verdicts as data.
    auto plan = PodPlan::make(cluster_, profile, pod);
    if (plan) {
      PlanScratch scratch;
      p.unschedulable_facts = unschedulable_facts(*plan, cluster_, decide(*plan, cluster_, scratch),
                                                  pod, [&](NodeIndex n) { return pool_of(n); });
    }
  }

  if (pools_) p.tolerated_pool_taints = tolerated_pool_taints(pod);

  std::optional<Error> scale_up_error;
  if (pools_) {
    std::optional<pools::ResolvedPools> changed;
    if (!max_sizes.empty()) {
      changed = pools_->resolved;
      for (pools::NodePool& pool : changed->pools) {
        for (const auto& [name, max_size] : max_sizes) {
          if (pool.name == name) pool.max_size = max_size;
        }
      }
    }
    const pools::ResolvedPools& resolved = changed ? *changed : pools_->resolved;
    // cluster-autoscaler checks pods with kube-scheduler's default filters,
    // whichever profile schedules them.
    auto prediction =
        pools::predict_scale_up(snapshot_, resolved, pools_->config, default_profile(),
                                pools::replicas_of(pod, *result, cluster_));
    if (prediction) {
      p.scale_up = ScaleUpAnswer{resolved, std::move(*prediction)};
    } else {
      scale_up_error = prediction.error();
    }
  }

  // Put the cluster back: the copies were appended to their nodes' pods.
  for (const auto& [name, n] : landed) {
    const size_t size = cluster_.pods_on(n).size();
    std::vector<size_t> ours;
    for (size_t i = size - static_cast<size_t>(count[n]); i < size; ++i) ours.push_back(i);
    cluster_.remove(n, ours);
  }
  if (scale_up_error) return *scale_up_error;
  return p;
}

std::vector<Placement::ToleratedPoolTaint> WhatIfCluster::tolerated_pool_taints(
    const Pod& pod) const {
  RequiredNodeAffinity required(pod);
  required.bind(cluster_);
  // The pools the pod's required affinity admits a node of.
  std::set<std::string> admitted;
  bool unpooled = false;
  for (NodeIndex n = 0; n < cluster_.size(); ++n) {
    if (!required.matches(cluster_, n)) continue;
    if (const std::string* pool = pool_of(n)) {
      admitted.insert(*pool);
    } else {
      unpooled = true;
    }
  }
  std::vector<Placement::ToleratedPoolTaint> out;
  for (NodeIndex n = 0; n < cluster_.size(); ++n) {
    const std::string* pool = pool_of(n);
    if (!pool) continue;
    for (const Taint& t : cluster_.taints_of_set(cluster_.taint_set(n))) {
      if ((t.effect != "NoSchedule" && t.effect != "NoExecute") ||
          !tolerations_tolerate(pod.tolerations, t))
        continue;
      const std::string text = pools::taint_text(t);
      if (std::any_of(out.begin(), out.end(),
                      [&](const auto& e) { return e.pool == *pool && e.taint == text; })) {
        continue;
      }
      out.push_back(Placement::ToleratedPoolTaint{
          *pool, text, !unpooled && admitted.size() == 1 && admitted.count(*pool),
          pools::selecting_label(pools_->resolved, *pool, cluster_.node(n))});
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.pool, a.taint) < std::tie(b.pool, b.taint);
  });
  return out;
}

Result<pools::ScaleDownForecast> WhatIfCluster::forecast(const pools::PodRemoval& remove,
                                                         std::optional<int64_t> now) const {
  if (!pools_) return Error{"pools", "a scale-down forecast needs node pools"};
  return pools::forecast_scale_down(snapshot_, pools_->resolved, pools_->config, remove, now);
}

Result<json::object> WhatIfCluster::explain(const Pod& pod, const Profile& profile) const {
  auto plan = PodPlan::make(cluster_, profile, pod);
  if (!plan) return plan.error();
  PlanScratch scratch;
  return encode_decision(*plan, cluster_, decide(*plan, cluster_, scratch));
}

}  // namespace tightpack
