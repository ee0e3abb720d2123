// Scale-down's unneeded-node search (core/scaledown/planner): the candidates
// in CA's order, eligibility first (scale-down disabled, utilization), then
// each through simulator.RemovalSimulator, one after another: its pods through
// the drainability rules, then onto the other nodes, first fit. A node found
// removable stays removed for the candidates after it: it is no destination,
// the pods it moved stay where they went, and they used up budget
// disruptions (kubernetes/autoscaler#5976, #7219; CA 1.26 simulated each
// candidate on its own).
#include <algorithm>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "run.hpp"
#include "tightpack/cluster.hpp"
#include "tightpack/framework.hpp"
#include "tightpack/go_sort.hpp"

namespace tightpack::autoscaler {
namespace {

// Each node's group, the first that lists it, looked up once rather than by
// a search of every group per node.
std::unordered_map<std::string_view, size_t> group_index(const AutoscaleScenario& s) {
  std::unordered_map<std::string_view, size_t> out;
  for (size_t g = 0; g < s.groups.size(); ++g) {
    for (const std::string& n : s.groups[g].nodes) out.emplace(n, g);
  }
  return out;
}

// One candidate's moved pods, placed on the shared cluster and taken off
// again when the simulation ends, as CA forks its snapshot and reverts it:
// copying a 1,000-node cluster per candidate cost more than the simulation.
// Removing in reverse order takes each pod off the end of its node's list, so
// the cluster returns to exactly its former columns and pods.
class TrialPlacements {
 public:
  explicit TrialPlacements(Cluster& c) : c_(c) {}
  TrialPlacements(const TrialPlacements&) = delete;
  TrialPlacements& operator=(const TrialPlacements&) = delete;
  ~TrialPlacements() {
    for (auto it = placed_.rbegin(); it != placed_.rend(); ++it) c_.remove(it->first, {it->second});
  }
  void place(NodeIndex n, BoundPod pod) {
    c_.place(n, std::move(pod));
    placed_.emplace_back(n, c_.pods_on(n).size() - 1);
  }
  // The simulation persists (RemovalSimulator with canPersist): the
  // placements stay when this goes.
  void commit() { placed_.clear(); }

 private:
  Cluster& c_;
  std::vector<std::pair<NodeIndex, size_t>> placed_;
};

// findPlaceFor: every pod to move onto some other real node still there,
// first fit. The index of the first pod that finds none, nullopt when all do;
// then, with `keep`, the placements stay and `where` gets each pod's node,
// else the cluster is as before.
Result<std::optional<size_t>> find_place(Cluster& c, NodeIndex removed,
                                         const std::vector<uint8_t>& gone,
                                         const std::vector<const Pod*>& pods,
                                         const Profile& profile, bool keep,
                                         std::vector<NodeIndex>& where) {
  TrialPlacements trial(c);
  where.clear();
  Pod moved;  // assigned, not constructed, per pod: its strings and vectors keep their storage
  for (size_t i = 0; i < pods.size(); ++i) {
    moved = *pods[i];
    moved.node_name.clear();
    auto plan = PodPlan::make(c, profile, moved, PodPlan::Use::kFirstFit);
    if (!plan) return plan.error();
    std::optional<NodeIndex> at;
    if (!plan->prefilter_conflict()) {
      for (NodeIndex n = 0; n < c.size() && !at; ++n) {
        if (n == removed || gone[n] || c.node(n).unschedulable) continue;
        if (plan->in_prefilter_set(n) && plan->filter(c, n).ok()) at = n;
      }
    }
    if (!at) return std::optional<size_t>(i);
    trial.place(*at, plan->bound(moved.key()));
    where.push_back(*at);
  }
  if (keep) trial.commit();
  return std::optional<size_t>();
}

// planner.unneededNodesLimit in the first loop: --max-scale-down-parallelism
// (10) nodes plus as many again; later loops allow more, and the engine
// judges scale-down once, after the last loop.
constexpr size_t kFirstLoopUnneededLimit = 20;

}  // namespace

Result<ScaleDownRecord> run_scale_down(const AutoscaleScenario& s, const Profile& profile,
                                       const RunRecord& run) {
  std::vector<const CaPod*> pods;
  pods.reserve(s.pods.size());
  for (const CaPod& p : s.pods) pods.push_back(&p);
  return run_scale_down(s, pods, profile, run);
}

Result<ScaleDownRecord> run_scale_down(const AutoscaleScenario& s,
                                       const std::vector<const CaPod*>& bound,
                                       const Profile& profile, const RunRecord& run) {
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
  std::vector<const Pod*> pods;
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
    pods.push_back(&p.pod);
  };
  for (const CaPod* p : bound) add(*p);
  for (const CaPod& p : placed) add(p);
  auto cluster = Cluster::build_from(std::move(nodes), pods);
  if (!cluster) return cluster.error();
  const auto group_of = group_index(s);

  // PreFilteringScaleDownNodeProcessor: nodes of no group, or of a group at
  // its min size, are no candidates.
  std::vector<size_t> candidates;
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const std::string& name = s.nodes[i].node.name;
    auto in_group = group_of.find(name);
    if (in_group == group_of.end()) {
      r.blocked[name] = "NotAutoscaled";
    } else if (run.target_sizes[in_group->second] <= s.groups[in_group->second].min_size) {
      r.blocked[name] = "NodeGroupMinSizeReached";
    } else {
      candidates.push_back(i);
    }
  }
  // ScaleDownCandidatesSortingProcessor: empty nodes first (nothing to move
  // under the drainability rules without listers or budgets), by Go's
  // sort.Sort, which is not stable.
  std::vector<uint8_t> empty(s.nodes.size(), 0);
  for (size_t i : candidates) {
    DrainResult d = pods_to_move(on[i], s, nullptr, false);
    empty[i] = d.block == DrainBlock::kNone && d.to_move.empty();
  }
  go_sort(candidates, [&](size_t a, size_t b) { return empty[a] && !empty[b]; });

  // Eligibility for every candidate first, on the cluster as it is.
  std::vector<size_t> eligible;
  for (size_t i : candidates) {
    const CaNode& node = s.nodes[i];
    const std::string& name = node.node.name;
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
    // Strictly above: kubernetes/autoscaler#8975 made a node exactly at the
    // threshold underutilized (CA 1.26 compared with >=).
    if (u.value > threshold) {
      r.blocked[name] = "NotUnderutilized";
      continue;
    }
    eligible.push_back(i);
  }

  RemainingPdbs remaining = initial_pdbs(s);
  std::vector<uint8_t> gone(s.nodes.size(), 0);
  std::vector<NodeIndex> where;
  for (size_t i : eligible) {
    if (run.loops == 1 && r.unneeded.size() >= kFirstLoopUnneededLimit) break;
    const std::string& name = s.nodes[i].node.name;
    // Copied: a pod this node took from an earlier removed node joins on[i].
    const std::vector<const CaPod*> node_pods = on[i];
    DrainResult d = pods_to_move(node_pods, s, &remaining);
    if (d.block != DrainBlock::kNone) {
      r.blocked[name] = std::string("BlockedByPod/") + drain_block_name(d.block);
      r.blocking_pods[name] = node_pods[d.blocking_pod]->pod.key();
      continue;
    }
    std::vector<const Pod*> moving;
    for (size_t k : d.to_move) moving.push_back(&node_pods[k]->pod);
    auto unplaced = find_place(*cluster, static_cast<NodeIndex>(i), gone, moving, profile,
                               true, where);
    if (!unplaced) return unplaced.error();
    if (*unplaced) {
      r.blocked[name] = "NoPlaceToMovePods";
      r.unplaceable_pods[name] = moving[**unplaced]->key();
      continue;
    }
    gone[i] = 1;
    for (size_t k = 0; k < d.to_move.size(); ++k) on[where[k]].push_back(node_pods[d.to_move[k]]);
    remove_pods(s, moving, remaining);
    r.unneeded.push_back(name);
    r.pods_to_move[name] = moving.size();
    if (moving.empty()) r.empty.push_back(name);
  }
  std::sort(r.unneeded.begin(), r.unneeded.end());
  std::sort(r.empty.begin(), r.empty.end());
  return r;
}

}  // namespace tightpack::autoscaler
