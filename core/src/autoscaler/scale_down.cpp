// Scale-down's unneeded-node search (core/scaledown/planner), one loop's
// UpdateClusterState: the candidates in CA's order (empty nodes first, then
// those the last loop found unneeded), eligibility first (scale-down
// disabled, utilization; nodes found unremovable in an earlier loop are not
// checked again), then each through simulator.RemovalSimulator, one after
// another: its pods through the drainability rules, then onto the other
// nodes, each first on the node its hint names, else round-robin from CA's
// last match. A node found removable stays removed for the candidates after
// it: it is no destination and leaves the node list, the pods it moved stay
// where they went, and they used up budget disruptions
// (kubernetes/autoscaler#5976, #7219; CA 1.26 simulated each candidate on its
// own).
#include <algorithm>
#include <deque>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ca_state.hpp"
#include "plans.hpp"
#include "run.hpp"
#include "tightpack/autoscaler/drain.hpp"
#include "tightpack/cluster.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/go_sort.hpp"

namespace tightpack::autoscaler {
namespace {

// What the planner reports for a node it does not remove, now or (CA's
// RecentlyUnremovable) as found in an earlier loop.
void report(ScaleDownRecord& r, const std::string& node, const UnremovableRecord& u) {
  r.blocked[node] = u.reason;
  if (u.blocking_pod) r.blocking_pods[node] = *u.blocking_pod;
  if (u.unplaceable_pod) r.unplaceable_pods[node] = *u.unplaceable_pod;
  if (u.utilization) r.utilization[node] = *u.utilization;
}

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

// replaceWithTaintedGhostNode (simulator/cluster.go): while its pods are
// placed elsewhere the candidate keeps its place, a topology domain of its
// own, but holds no pod, DaemonSet and mirror pods included, so that its
// pods count where they go and nowhere else (spread, inter-pod terms, a
// ReadWriteOncePod claim). When the removal holds, RemoveNodeInfo takes the
// node and its pods out; else the pods come back. The ghost's
// ToBeDeletedByClusterAutoscaler taint is not modelled: only a spread
// constraint with nodeTaintsPolicy Honor reads it.
class Ghost {
 public:
  Ghost(Cluster& c, NodeIndex n) : c_(c), n_(n), pods_(c.pods_on(n)) {
    std::vector<size_t> all(pods_.size());
    for (size_t k = 0; k < all.size(); ++k) all[k] = k;
    if (!all.empty()) c_.remove(n_, all);
  }
  Ghost(const Ghost&) = delete;
  Ghost& operator=(const Ghost&) = delete;
  ~Ghost() {
    if (removed_) return;
    for (const BoundPod& p : pods_) c_.place(n_, unreserved(p));
  }
  void commit() { removed_ = true; }

 private:
  Cluster& c_;
  NodeIndex n_;
  std::vector<BoundPod> pods_;
  bool removed_ = false;
};

// The snapshot's node list as the planner's fork has it: the real nodes not
// removed, in order (a candidate under simulation stays, as the tainted ghost
// CA puts in its place), then `upcoming` upcoming nodes, which take no pod.
class NodeList {
 public:
  NodeList(size_t real, size_t upcoming) : removed_(real, 0), upcoming_(upcoming) {
    alive_.reserve(real);
    for (size_t i = 0; i < real; ++i) alive_.push_back(static_cast<NodeIndex>(i));
  }
  size_t size() const { return alive_.size() + upcoming_; }
  // The real node at `position`, nullopt for an upcoming one.
  std::optional<NodeIndex> at(size_t position) const {
    if (position < alive_.size()) return alive_[position];
    return std::nullopt;
  }
  bool removed(NodeIndex n) const { return removed_[n] != 0; }
  void remove(NodeIndex n) {
    removed_[n] = 1;
    std::erase(alive_, n);
  }

 private:
  std::vector<NodeIndex> alive_;
  std::vector<uint8_t> removed_;
  size_t upcoming_;
};

// findPlaceFor: every pod to move onto some other real node still there,
// each first on its hinted node, else round-robin; stops at the first pod
// that finds none (breakOnFailure). Its index, nullopt when all fit; then,
// with `keep`, the placements stay and `where` gets each pod's node, else the
// cluster is as before. Hints and the round-robin move either way: they live
// outside the snapshot CA forks.
Result<std::optional<size_t>> find_place(Cluster& c, NodeIndex candidate, const NodeList& list,
                                         const std::vector<const Pod*>& pods,
                                         const std::vector<PodHints::Key>& hint_keys,
                                         const Profile& profile, bool keep, CaState& state,
                                         std::vector<NodeIndex>& where) {
  Ghost ghost(c, candidate);  // outlives the trial: its pods come back after the trial's go
  TrialPlacements trial(c);
  where.clear();
  Pod moved;  // assigned, not constructed, per pod: its strings and vectors keep their storage
  for (size_t i = 0; i < pods.size(); ++i) {
    moved = *pods[i];
    moved.node_name.clear();
    auto plan = PodPlan::make(c, profile, moved, PodPlan::Use::kFirstFit);
    if (!plan) return plan.error();
    auto acceptable = [&](NodeIndex n) { return n != candidate && !list.removed(n); };
    PlanScratch scratch;
    auto fits = [&](NodeIndex n) {
      return plan->in_prefilter_set(n) && plan->filter(scratch, c, n).ok();
    };
    std::optional<NodeIndex> at;
    if (!plan->prefilter_conflict()) {
      if (const std::optional<NodeIndex> hint = state.removal_hints.get(hint_keys[i])) {
        if (*hint < c.size() && acceptable(*hint) && fits(*hint)) at = *hint;
      }
      const size_t from = state.round_robin.start(list.size());
      for (size_t k = 0; k < list.size() && !at; ++k) {
        const size_t position = (from + k) % list.size();
        const std::optional<NodeIndex> n = list.at(position);
        if (!n || !acceptable(*n) || c.node(*n).unschedulable || !fits(*n)) continue;
        at = *n;
        state.round_robin.matched(position);
      }
    }
    if (!at) return std::optional<size_t>(i);
    state.removal_hints.set(hint_keys[i], *at);
    trial.place(*at, unreserved(plan->bound(moved.key())));
    where.push_back(*at);
  }
  if (keep) {
    trial.commit();
    ghost.commit();
  }
  return std::optional<size_t>();
}

// planner.unneededNodesLimit: --max-scale-down-parallelism (10) nodes plus
// as many again, over the nodes the last loop found unneeded, capped by the
// parallelism times --scale-down-unneeded-time (10 minutes) over the shortest
// loop interval (10 s here), plus the parallelism; in the first loop the
// interval is unknown and the cap is 20. Loop 0 is no loop of CA's but a
// question about the cluster as it is (the forecast): no limit.
size_t unneeded_limit(int64_t loop, size_t previous_unneeded) {
  constexpr size_t kParallelism = 10;
  if (loop <= 0) return SIZE_MAX;
  const size_t limit = previous_unneeded + 2 * kParallelism;
  const size_t cap = loop <= 1 ? 2 * kParallelism : kParallelism * (600 / 10) + kParallelism;
  return std::min(limit, cap);
}

// The planner's cluster after removals: `nodes` (removed ones unlabelled),
// each remaining node's pods as `on` lists them (moved pods where they went).
// The nodes after the real ones are upcoming, with `upcoming_pods`.
Result<Cluster> rebuild(const AutoscaleScenario& s, const std::vector<Node>& nodes,
                        const NodeList& list, const std::vector<std::vector<const CaPod*>>& on,
                        const std::vector<Pod>& upcoming_pods) {
  std::deque<Pod> moved;  // copies of pods that left their node, renamed to where they are
  std::vector<const Pod*> pods;
  for (size_t n = 0; n < on.size(); ++n) {
    if (list.removed(static_cast<NodeIndex>(n))) continue;
    for (const CaPod* p : on[n]) {
      if (p->pod.node_name == nodes[n].name) {
        pods.push_back(&p->pod);
        continue;
      }
      moved.push_back(p->pod);
      moved.back().node_name = nodes[n].name;
      pods.push_back(&moved.back());
    }
  }
  for (const Pod& p : upcoming_pods) pods.push_back(&p);
  return Cluster::build_from(nodes, pods, s.objects);
}

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
  CaState fresh;
  return plan_scale_down(s, bound, run.placed_pending, run.target_sizes, 0, run.loops, profile,
                         fresh);
}

// Longer than .clang-tidy allows: one loop of planner.go's UpdateClusterState, step for step.
// NOLINTNEXTLINE(readability-function-size)
Result<ScaleDownRecord> plan_scale_down(const AutoscaleScenario& s,
                                        const std::vector<const CaPod*>& bound,
                                        const std::vector<PlacedPod>& placed_pending,
                                        const std::vector<int64_t>& targets, size_t upcoming,
                                        int64_t loop, const Profile& profile, CaState& state) {
  ScaleDownRecord r;
  r.loop = loop;
  // The pending pods filter-out-schedulable packed onto real nodes stay in
  // the snapshot the planner reads.
  std::unordered_map<const Pod*, const CaPod*> pending_of;
  for (const CaPod& p : s.pending) pending_of[&p.pod] = &p;
  std::vector<CaPod> placed;
  std::vector<PodHints::Key> placed_keys;  // the scenario's pod of each copy
  placed.reserve(placed_pending.size());
  for (const PlacedPod& pp : placed_pending) {
    auto it = pending_of.find(pp.pod);
    if (it == pending_of.end()) continue;
    placed.push_back(*it->second);
    placed.back().pod.node_name = pp.node;
    placed_keys.push_back(pp.pod);
  }
  // A pod's hints follow the scenario's pod, not the copy placed here.
  auto hint_key = [&](const CaPod* p) -> PodHints::Key {
    if (!placed.empty() && p >= placed.data() && p < placed.data() + placed.size())
      return placed_keys[static_cast<size_t>(p - placed.data())];
    return &p->pod;
  };
  std::vector<Node> nodes;
  std::vector<const Pod*> pods;
  for (const CaNode& n : s.nodes) nodes.push_back(n.node);
  // Per node, in the order Cluster::build places them.
  std::vector<std::vector<const CaPod*>> on(s.nodes.size());
  std::unordered_map<std::string_view, size_t> index_of;
  for (size_t i = 0; i < s.nodes.size(); ++i) index_of.emplace(s.nodes[i].node.name, i);
  auto add = [&](const CaPod& p) {
    if (p.pod.terminated() || p.pod.node_name.empty() || expendable(p.pod, s.options)) return;
    auto it = index_of.find(p.pod.node_name);
    if (it == index_of.end()) return;
    on[it->second].push_back(&p);
    pods.push_back(&p.pod);
  };
  for (const CaPod* p : bound) add(*p);
  for (const CaPod& p : placed) add(p);
  // Whether some pod counts spread domains: then a removed node must stop
  // being one (below).
  const bool spread_domains = std::any_of(pods.begin(), pods.end(),
                                          [](const Pod* p) { return !p->topology_spread.empty(); });
  // The upcoming nodes are in CA's snapshot too, no destination but a
  // domain each: with their template's pods, after the real nodes.
  std::vector<Pod> upcoming_pods;
  if (spread_domains && upcoming > 0) {
    for (size_t g = 0; g < s.groups.size(); ++g) {
      const int64_t n = targets[g] - static_cast<int64_t>(s.groups[g].nodes.size());
      if (n <= 0) continue;
      const NodeTemplate t = group_template(s, s.groups[g]);
      for (int64_t k = 0; k < n; ++k) {
        nodes.push_back(
            renamed_copy(t.node, "upcoming-" + s.groups[g].name + "-" + std::to_string(k)));
        for (const Pod& p : t.pods) {
          upcoming_pods.push_back(p);
          upcoming_pods.back().node_name = nodes.back().name;
        }
      }
    }
    for (const Pod& p : upcoming_pods) pods.push_back(&p);
  }
  std::vector<Node> nodes_now;
  if (spread_domains) nodes_now = nodes;
  auto cluster = Cluster::build_from(std::move(nodes), pods, s.objects);
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
    } else if (targets[in_group->second] <= s.groups[in_group->second].min_size) {
      r.blocked[name] = "NodeGroupMinSizeReached";
    } else {
      candidates.push_back(i);
    }
  }
  // ScaleDownCandidatesSortingProcessor: empty nodes first (nothing to move
  // under the drainability rules without listers or budgets), then the nodes
  // the last loop found unneeded, by Go's sort.Sort, which is not stable.
  std::vector<uint8_t> empty(s.nodes.size(), 0);
  std::vector<uint8_t> previous(s.nodes.size(), 0);
  for (size_t i : candidates) {
    DrainResult d = pods_to_move(on[i], s, nullptr, false);
    empty[i] = d.block == DrainBlock::kNone && d.to_move.empty();
    previous[i] = state.previous_unneeded.contains(s.nodes[i].node.name);
  }
  go_sort(candidates, [&](size_t a, size_t b) {
    if (empty[a] != empty[b]) return empty[a] != 0;
    return previous[a] && !previous[b];
  });

  // Eligibility for every candidate first, on the cluster as it is.
  std::vector<size_t> eligible;
  for (size_t i : candidates) {
    const CaNode& node = s.nodes[i];
    const std::string& name = node.node.name;
    if (auto earlier = state.unremovable.find(name); earlier != state.unremovable.end()) {
      report(r, name, earlier->second);  // RecentlyUnremovable: as found then
      continue;
    }
    if (node.scale_down_disabled) {
      r.blocked[name] = "ScaleDownDisabledAnnotation";
      continue;
    }
    // utilization/info.go: long-terminating pods are not counted.
    std::vector<const Pod*> node_pods;
    for (const CaPod* p : on[i]) {
      if (!long_terminating(*p, s.options.now)) node_pods.push_back(&p->pod);
    }
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
  NodeList list(s.nodes.size(), upcoming);
  std::vector<NodeIndex> where;
  const size_t limit = unneeded_limit(loop, state.previous_unneeded.size());
  // Found unremovable by the simulation: not checked again in later loops.
  auto unremovable = [&](const std::string& name, UnremovableRecord u) {
    if (auto it = r.utilization.find(name); it != r.utilization.end()) u.utilization = it->second;
    report(r, name, u);
    state.unremovable.emplace(name, std::move(u));
  };
  for (size_t i : eligible) {
    const std::string& name = s.nodes[i].node.name;
    if (r.unneeded.size() >= limit) {
      r.blocked[name] = "NotUnneededOtherReason";  // not simulated this loop
      continue;
    }
    // Copied: a pod this node took from an earlier removed node joins on[i].
    const std::vector<const CaPod*> node_pods = on[i];
    DrainResult d = pods_to_move(node_pods, s, &remaining);
    if (d.block != DrainBlock::kNone) {
      unremovable(name, {std::string("BlockedByPod/") + drain_block_name(d.block),
                         node_pods[d.blocking_pod]->pod.key(), std::nullopt, std::nullopt});
      continue;
    }
    std::vector<const Pod*> moving;
    std::vector<PodHints::Key> keys;
    for (size_t k : d.to_move) {
      moving.push_back(&node_pods[k]->pod);
      keys.push_back(hint_key(node_pods[k]));
    }
    auto unplaced = find_place(*cluster, static_cast<NodeIndex>(i), list, moving, keys, profile,
                               true, state, where);
    if (!unplaced) return unplaced.error();
    if (*unplaced) {
      unremovable(name,
                  {"NoPlaceToMovePods", std::nullopt, moving[**unplaced]->key(), std::nullopt});
      continue;
    }
    list.remove(static_cast<NodeIndex>(i));
    for (size_t k = 0; k < d.to_move.size(); ++k) on[where[k]].push_back(node_pods[d.to_move[k]]);
    if (spread_domains) {
      // RemoveNodeInfo: the node leaves CA's snapshot, and with it a topology
      // domain the next candidates' pods would count. The cluster keeps every
      // node (indices are the scenario's), so it is built again with this
      // one unlabelled: no spread constraint counts a node without its key,
      // and it holds no pod that a term could match.
      nodes_now[i].labels.clear();
      auto rebuilt = rebuild(s, nodes_now, list, on, upcoming_pods);
      if (!rebuilt) return rebuilt.error();
      *cluster = std::move(*rebuilt);
    }
    remove_pods(s, moving, remaining);
    r.unneeded.push_back(name);
    r.pods_to_move[name] = moving.size();
    if (moving.empty()) r.empty.push_back(name);
  }
  state.previous_unneeded = std::set<std::string>(r.unneeded.begin(), r.unneeded.end());
  state.removal_hints.drop_old();
  std::sort(r.unneeded.begin(), r.unneeded.end());
  std::sort(r.empty.begin(), r.empty.end());
  return r;
}

}  // namespace tightpack::autoscaler
