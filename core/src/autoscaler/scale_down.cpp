// Scale-down's unneeded-node search (core/scaledown: eligibility, then
// simulator.RemovalSimulator): each candidate on its own, its pods through
// the drain rules and then onto the other nodes, first fit.
#include <algorithm>
#include <unordered_map>

#include "run.hpp"
#include "tightpack/cluster.hpp"
#include "tightpack/framework.hpp"

namespace tightpack::autoscaler {
namespace {

const NodeGroupSpec* group_of(const AutoscaleScenario& s, const std::string& node, size_t& index) {
  for (size_t g = 0; g < s.groups.size(); ++g) {
    const auto& names = s.groups[g].nodes;
    if (std::find(names.begin(), names.end(), node) != names.end()) {
      index = g;
      return &s.groups[g];
    }
  }
  return nullptr;
}

// findPlaceFor: every pod to move onto some other real node, first fit.
Result<bool> find_place(const Cluster& base, NodeIndex removed, const std::vector<const Pod*>& pods,
                        const Profile& profile) {
  Cluster c = base;
  for (const Pod* p : pods) {
    Pod moved = *p;
    moved.node_name.clear();
    auto plan = PodPlan::make(c, profile, moved);
    if (!plan) return plan.error();
    std::optional<NodeIndex> at;
    if (!plan->prefilter_conflict()) {
      for (NodeIndex n = 0; n < c.size() && !at; ++n) {
        if (n == removed || c.node(n).unschedulable) continue;
        if (plan->in_prefilter_set(n) && plan->filter(c, n).ok()) at = n;
      }
    }
    if (!at) return false;
    c.place(*at, plan->bound(moved.key()));
  }
  return true;
}

}  // namespace

Result<ScaleDownRecord> run_scale_down(const AutoscaleScenario& s, const Profile& profile,
                                       const RunRecord& run) {
  ScaleDownRecord r;
  r.loop = run.loops;
  // The pending pods filter-out-schedulable packed onto real nodes stay in
  // the snapshot scale-down reads: CA 1.26 does not revert that packing.
  std::unordered_map<const Pod*, const CaPod*> pending_of;
  for (const CaPod& p : s.pending) pending_of[&p.pod] = &p;
  std::vector<CaPod> placed;
  for (const PlacedPod& pp : run.placed_pending) {
    auto it = pending_of.find(pp.pod);
    if (it == pending_of.end()) continue;
    placed.push_back(*it->second);
    placed.back().pod.node_name = pp.node;
  }
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  for (const CaNode& n : s.nodes) nodes.push_back(n.node);
  // Per node, in the order Cluster::build places them.
  std::vector<std::vector<const CaPod*>> on(s.nodes.size());
  std::unordered_map<std::string_view, size_t> index_of;
  for (size_t i = 0; i < s.nodes.size(); ++i) index_of.emplace(s.nodes[i].node.name, i);
  auto add = [&](const CaPod& p) {
    if (p.pod.terminated() || p.pod.node_name.empty()) return;
    auto it = index_of.find(p.pod.node_name);
    if (it == index_of.end()) return;
    on[it->second].push_back(&p);
    pods.push_back(p.pod);
  };
  for (const CaPod& p : s.pods) add(p);
  for (const CaPod& p : placed) add(p);
  auto cluster = Cluster::build(std::move(nodes), pods);
  if (!cluster) return cluster.error();

  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const CaNode& node = s.nodes[i];
    const std::string& name = node.node.name;
    size_t g = 0;
    const NodeGroupSpec* group = group_of(s, name, g);
    if (!group) {
      r.blocked[name] = "NotAutoscaled";
      continue;
    }
    if (run.target_sizes[g] <= group->min_size) {
      r.blocked[name] = "NodeGroupMinSizeReached";
      continue;
    }
    if (node.scale_down_disabled) {
      r.blocked[name] = "ScaleDownDisabledAnnotation";
      continue;
    }
    std::vector<const Pod*> node_pods;
    for (const CaPod* p : on[i]) node_pods.push_back(&p->pod);
    Utilization u = node_utilization(node.node, node_pods, s.options.gpu_label);
    r.utilization[name] = u;
    const double threshold = u.gpu_node ? s.options.scale_down_gpu_utilization_threshold
                                        : s.options.scale_down_utilization_threshold;
    if (u.value >= threshold) {
      r.blocked[name] = "NotUnderutilized";
      continue;
    }
    DrainResult d = pods_to_move(on[i], s);
    if (d.block != DrainBlock::kNone) {
      r.blocked[name] = std::string("BlockedByPod/") + drain_block_name(d.block);
      r.blocking_pods[name] = on[i][d.blocking_pod]->pod.key();
      continue;
    }
    std::vector<const Pod*> moving;
    for (size_t k : d.to_move) moving.push_back(&on[i][k]->pod);
    auto fits = find_place(*cluster, static_cast<NodeIndex>(i), moving, profile);
    if (!fits) return fits.error();
    if (!*fits) {
      r.blocked[name] = "NoPlaceToMovePods";
      continue;
    }
    r.unneeded.push_back(name);
    if (moving.empty()) r.empty.push_back(name);
  }
  std::sort(r.unneeded.begin(), r.unneeded.end());
  std::sort(r.empty.begin(), r.empty.end());
  return r;
}

}  // namespace tightpack::autoscaler
