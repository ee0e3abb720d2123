// DefaultPreemption's victims and node: SelectVictimsOnNode and
// filterPodsWithPDBViolation (pkg/scheduler/framework/plugins/defaultpreemption),
// pickOneNodeForPreemption (pkg/scheduler/framework/preemption), MoreImportantPod
// and GetEarliestPodStartTime (pkg/scheduler/util).
#include "tightpack/framework/preemption.hpp"

#include <algorithm>
#include <limits>

namespace tightpack {
namespace {

// GetPodStartTime answers time.Now() for a pod that has not started: later
// than every start time the caller knows.
constexpr int64_t kNotStarted = std::numeric_limits<int64_t>::max();

// A pod of lower priority than the preemptor on the node being tried.
struct Victim {
  size_t position;  // in pods_on(node)
  int32_t priority;
  int64_t start;
};

int64_t start_of(const PreemptionFacts& facts, const BoundPod& pod) {
  const int64_t t = facts.start_time ? facts.start_time(pod) : pod.start;
  return t == 0 ? kNotStarted : t;
}

// MoreImportantPod: higher priority, then the one running longer.
bool more_important(const Victim& a, const Victim& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  return a.start < b.start;
}

// The pods the preemptor may evict, most important first. Equals keep their
// order on the node, where upstream's sort.Slice leaves them in any order.
std::vector<Victim> potential_victims(const std::vector<BoundPod>& pods, int32_t priority,
                                      const PreemptionFacts& facts) {
  std::vector<Victim> out;
  for (size_t k = 0; k < pods.size(); ++k) {
    if (pods[k].priority < priority) {
      out.push_back(Victim{k, pods[k].priority, start_of(facts, pods[k])});
    }
  }
  std::stable_sort(out.begin(), out.end(), more_important);
  return out;
}

std::vector<size_t> budgets_of(const PreemptionFacts& facts, const BoundPod& pod) {
  std::vector<size_t> budgets = facts.pdbs_of(pod);
  std::sort(budgets.begin(), budgets.end());
  budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());
  return budgets;
}

// filterPodsWithPDBViolation: whether evicting each victim would exceed one of
// its budgets. Every victim in turn, most important first, uses up a
// disruption of each budget it matches, so of two pods under a budget that
// allows one disruption only the less important violates it. The counters
// start afresh on every node, as upstream's do.
std::vector<uint8_t> budget_violations(const std::vector<Victim>& victims,
                                       const std::vector<BoundPod>& pods,
                                       const PreemptionFacts& facts) {
  std::vector<uint8_t> violates(victims.size(), 0);
  if (!facts.pdbs_of || facts.pdb_disruptions_allowed.empty()) return violates;
  // int64: a budget matching more pods than int32 can count down must not wrap.
  std::vector<int64_t> allowed(facts.pdb_disruptions_allowed.begin(),
                               facts.pdb_disruptions_allowed.end());
  for (size_t i = 0; i < victims.size(); ++i) {
    for (size_t b : budgets_of(facts, pods[victims[i].position])) {
      if (b < allowed.size() && --allowed[b] < 0) violates[i] = 1;
    }
  }
  return violates;
}

// Whether the preemptor passes the filters once the victims flagged in
// `evicted` are off node n.
bool fits_without(const PodPlan& plan, const Cluster& c, PlanScratch& scratch, NodeIndex n,
                  const std::vector<Victim>& victims, const std::vector<uint8_t>& evicted) {
  std::vector<size_t> positions;
  for (size_t i = 0; i < victims.size(); ++i) {
    if (evicted[i]) positions.push_back(victims[i].position);
  }
  const Relief relief = c.relief_of(n, positions);
  return plan.filter(scratch, c, n, &relief).ok();
}

struct NodeVictims {
  std::vector<Victim> victims;  // most important first
  int64_t pdb_violations = 0;
};

// SelectVictimsOnNode: evict every lower-priority pod and, if the preemptor
// then fits, put back each pod that still leaves it fitting: first those whose
// eviction would exceed a budget, then the others, most important first in
// both. std::nullopt when the node has no lower-priority pod or the preemptor
// does not fit even without them all.
std::optional<NodeVictims> select_victims_on_node(const PodPlan& plan, const Cluster& c,
                                                  PlanScratch& scratch, NodeIndex n,
                                                  const PreemptionFacts& facts) {
  const std::vector<BoundPod>& pods = c.pods_on(n);
  const std::vector<Victim> potential = potential_victims(pods, plan.priority(), facts);
  if (potential.empty()) return std::nullopt;
  std::vector<uint8_t> evicted(potential.size(), 1);
  if (!fits_without(plan, c, scratch, n, potential, evicted)) return std::nullopt;

  const std::vector<uint8_t> violates = budget_violations(potential, pods, facts);
  NodeVictims out;
  for (const uint8_t violating : {uint8_t{1}, uint8_t{0}}) {
    for (size_t i = 0; i < potential.size(); ++i) {
      if (violates[i] != violating) continue;
      evicted[i] = 0;
      if (fits_without(plan, c, scratch, n, potential, evicted)) continue;
      evicted[i] = 1;
      out.pdb_violations += violating;
    }
  }
  // Upstream sorts the victims again after reprieving both groups; keeping
  // them in `potential`'s order gives that order directly.
  for (size_t i = 0; i < potential.size(); ++i) {
    if (evicted[i]) out.victims.push_back(potential[i]);
  }
  return out;
}

// pickOneNodeForPreemption's criteria, in the order it applies them.
struct Rank {
  int64_t pdb_violations = 0;
  int32_t highest_priority = 0;
  // Each victim adds priority + 2^31 (MaxInt32 + 1), never negative, so that
  // more victims of a negative priority do not sum lower than fewer of it.
  int64_t priority_sum = 0;
  size_t victims = 0;
  // GetEarliestPodStartTime: the earliest start among the victims of the
  // highest priority.
  int64_t earliest_start = kNotStarted;
};

Rank rank_of(const NodeVictims& v) {
  Rank r;
  r.pdb_violations = v.pdb_violations;
  r.highest_priority = v.victims.front().priority;
  r.victims = v.victims.size();
  for (const Victim& victim : v.victims) {
    r.priority_sum += int64_t{victim.priority} + (int64_t{1} << 31);
    if (victim.priority == r.highest_priority) {
      r.earliest_start = std::min(r.earliest_start, victim.start);
    }
  }
  return r;
}

// Fewest budget violations, then the lowest highest priority, the lowest
// priority sum, the fewest victims, and the latest earliest start.
bool preferred(const Rank& a, const Rank& b) {
  if (a.pdb_violations != b.pdb_violations) return a.pdb_violations < b.pdb_violations;
  if (a.highest_priority != b.highest_priority) return a.highest_priority < b.highest_priority;
  if (a.priority_sum != b.priority_sum) return a.priority_sum < b.priority_sum;
  if (a.victims != b.victims) return a.victims < b.victims;
  return a.earliest_start > b.earliest_start;
}

// The nodes NodesForStatusCode(Unschedulable) returns: those a filter
// rejected as Unschedulable. Not those rejected UnschedulableAndUnresolvable,
// where no eviction helps, nor those the PreFilter left out.
std::vector<uint8_t> candidate_nodes(const Cluster& c, const Decision& d) {
  std::vector<uint8_t> out(c.size(), 0);
  for (size_t j = 0; j < d.filtered.size() && j < d.statuses.size(); ++j) {
    if (d.filtered[j] < out.size() && d.statuses[j].code != Code::UnschedulableAndUnresolvable) {
      out[d.filtered[j]] = 1;
    }
  }
  return out;
}

PreemptionChoice choice_of(NodeIndex n, const NodeVictims& v) {
  PreemptionChoice choice{n, {}, v.pdb_violations};
  for (const Victim& victim : v.victims) choice.victims.push_back(victim.position);
  return choice;
}

}  // namespace

std::optional<PreemptionChoice> select_preemption(const PodPlan& plan, const Cluster& c,
                                                  PlanScratch& scratch, const Decision& d,
                                                  const PreemptionFacts& facts) {
  if (plan.preempt_never()) return std::nullopt;
  const std::vector<uint8_t> candidate = candidate_nodes(c, d);
  std::optional<PreemptionChoice> best;
  Rank best_rank;
  for (NodeIndex n = 0; n < c.size(); ++n) {
    if (!candidate[n]) continue;
    const std::optional<NodeVictims> v = select_victims_on_node(plan, c, scratch, n, facts);
    if (!v) continue;
    // The preemptor fits as the node is (the PreFilter left the node out, or
    // pods left after the decision). Older pickOneNodeForPreemption took such
    // a node at once; current DryRunPreemption drops it instead ("expected at
    // least one victim pod on node").
    if (v->victims.empty()) return choice_of(n, *v);
    const Rank r = rank_of(*v);
    // Ties go to the smallest name; upstream takes the first in Go's map
    // iteration order, which is random.
    if (best && !preferred(r, best_rank) &&
        (preferred(best_rank, r) || c.name(best->node) < c.name(n))) {
      continue;
    }
    best = choice_of(n, *v);
    best_rank = r;
  }
  return best;
}

}  // namespace tightpack
