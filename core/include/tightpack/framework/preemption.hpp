// DefaultPreemption's choice of a node and victims (kube-scheduler's
// SelectVictimsOnNode and pickOneNodeForPreemption) for a pod that fits
// nowhere: which lower-priority pods it would evict, and where.
//
// evaluate_preemption (framework.hpp) answers only whether preemption helps,
// for the FailedScheduling message; this goes on to the nomination.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/framework/framework.hpp"

namespace tightpack {

// What the caller knows about bound pods that the Cluster does not keep.
struct PreemptionFacts {
  // PodDisruptionBudgets: how many more disruptions each allows (status.disruptionsAllowed).
  std::vector<int32_t> pdb_disruptions_allowed;
  // The indexes (into pdb_disruptions_allowed) of the budgets whose selector
  // matches a bound pod, same namespace. As filterPodsWithPDBViolation has it,
  // a budget with an empty selector matches nothing, nothing matches a pod
  // without labels, and a budget listing the pod in status.disruptedPods does
  // not count. An index past the end matches nothing, as upstream skips a
  // budget whose selector does not parse; an index listed twice counts once.
  std::function<std::vector<size_t>(const BoundPod&)> pdbs_of;  // may be empty: no budgets
  // The pod's start time (status.startTime, seconds since epoch); 0 unknown,
  // which counts as later than any known time, as upstream takes time.Now()
  // for a pod without a start time. Empty: the BoundPod's own `start`.
  std::function<int64_t(const BoundPod&)> start_time;
};

struct PreemptionChoice {
  NodeIndex node;
  std::vector<size_t> victims;  // positions in cluster.pods_on(node), highest priority first
  int64_t pdb_violations = 0;   // victims whose eviction exceeds a budget
};

// DefaultPreemption's PostFilter for a decision where nothing fits:
// std::nullopt when the pod may not preempt (preemptionPolicy Never) or no
// node can be made to fit by evicting lower-priority pods. Like
// evaluate_preemption it does not look at profile().preemption: the caller
// runs it only when the profile has DefaultPreemption.
//
// Every node rejected Unschedulable is a candidate, as in evaluate_preemption
// (not the nodes rejected UnschedulableAndUnresolvable nor those the PreFilter
// left out). Candidates that tie on pickOneNodeForPreemption's criteria go
// to the smallest node name; kube-scheduler takes one at random (Go map order). kube-scheduler
// dry-runs only a sample of them (minCandidateNodesPercentage 10%, at least
// minCandidateNodesAbsolute 100, from a random offset, stopping once it has that many candidates);
// that sampling is not modelled, so on clusters of more than 100 nodes kube-scheduler may settle
// for a candidate this ranks lower.
std::optional<PreemptionChoice> select_preemption(const PodPlan& plan, const Cluster& cluster,
                                                  PlanScratch& scratch, const Decision& d,
                                                  const PreemptionFacts& facts);

// DefaultPreemption's message when it nominates a node (without "preemption: "):
// "found a potential placement for pod on node N, preempting K victims".
std::string preemption_success_message(const Cluster& cluster, const PreemptionChoice& choice);

}  // namespace tightpack
