package main

// --compat: cluster-autoscaler 1.26 behaviours that the shared corpus was
// recorded with and that the reference can put back from outside, by wiring
// CA's own pieces differently (never by patching CA). One switch per upstream
// change. Changes inside CA's loop that no wiring reaches (scale-down's
// cumulative simulation) have no switch; README.md lists them.

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	apiv1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	"k8s.io/autoscaler/cluster-autoscaler/config"
	ca_context "k8s.io/autoscaler/cluster-autoscaler/context"
	"k8s.io/autoscaler/cluster-autoscaler/core/scaledown/pdb"
	"k8s.io/autoscaler/cluster-autoscaler/estimator"
	ca_processors "k8s.io/autoscaler/cluster-autoscaler/processors"
	"k8s.io/autoscaler/cluster-autoscaler/processors/nodegroupconfig"
	"k8s.io/autoscaler/cluster-autoscaler/simulator"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/drainability/rules"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/options"
	"k8s.io/autoscaler/cluster-autoscaler/utils/drain"
)

type compatSwitch struct {
	what   string
	not126 bool // not one of 1.26's behaviours: left out of "all"
}

var compatSwitches = map[string]compatSwitch{
	// kubernetes/autoscaler#5917 (CA 1.28) made the estimator's limiter a list
	// of thresholds and added the similar-node-groups capacity threshold
	// (estimator/sng_capacity_threshold.go): the binpacking stops at the node
	// group's max size minus its target size, so `estimated` is capped too.
	// CA 1.26 limited the estimate only by --max-nodes-per-scaleup and
	// --max-nodegroup-binpacking-duration, and capped after the expander.
	"estimate-beyond-max": {what: "the estimator ignores the node group's max size (CA 1.26; #5917 added the capacity thresholds)"},
}

type compatSet map[string]bool

func parseCompat(s string) (compatSet, error) {
	out := compatSet{}
	if s == "" {
		return out, nil
	}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "all" {
			for k, sw := range compatSwitches {
				if !sw.not126 {
					out[k] = true
				}
			}
			continue
		}
		if _, ok := compatSwitches[name]; !ok {
			names := make([]string, 0, len(compatSwitches))
			for k := range compatSwitches {
				names = append(names, k)
			}
			sort.Strings(names)
			return nil, fmt.Errorf("unknown --compat switch %q (all, %s)", name, strings.Join(names, ", "))
		}
		out[name] = true
	}
	return out, nil
}

// estimatorBuilder is nil (CA's default, core/autoscaler.go) unless a switch
// asks for 1.26's limiter.
func (c compatSet) estimatorBuilder(o config.AutoscalingOptions) (estimator.EstimatorBuilder, error) {
	if !c["estimate-beyond-max"] {
		return nil, nil
	}
	return estimator.NewEstimatorBuilder(
		o.EstimatorName,
		estimator.NewThresholdBasedEstimationLimiter([]estimator.Threshold{
			estimator.NewStaticThreshold(o.MaxNodesPerScaleUp, o.MaxNodeGroupBinpackingDuration),
		}),
		estimator.NewDecreasingPodOrderer(),
		nil,
		o.FastpathBinpackingEnabled,
	)
}

// kubernetes/autoscaler#5976 (CA 1.28) made the parallel-drain planner
// (core/scaledown/planner) the default and #7219 (CA 1.32) removed CA 1.26's
// legacy scale-down. The planner simulates candidates cumulatively
// (categorizeNodes): a removable node stops being a destination, the pods it
// moves stay where they went, and its pods use up PDB disruptions
// (RemainingPdbTracker.RemovePods); and since #6135 (CA 1.29) budgets are one
// drainability rule checked per pod in rule order, after safe-to-evict=true
// has already let the pod go. 1.26 simulated each candidate on its own,
// checked every budget against every pod to move after the drain rules, and
// the corpus was recorded so. With this switch the reference re-simulates,
// after CA's planner, every node the planner blocked by a pod or by lack of
// room (or skips as recently unremovable), the 1.26 way, with CA's own RemovalSimulator (persisting nothing) and
// GetPodsToMove, and a fresh PDB tracker.
func init() {
	compatSwitches["independent-scale-down"] = compatSwitch{what: "scale-down candidates simulated each on its own, budgets checked after the drain rules (CA 1.26 legacy scale-down; #5976, #6135, #7219)"}
}

// pdbsAllowAll answers the drainability rules' PDB questions as if every
// budget had a disruption left (the per-pod PDB rule then never blocks;
// kube-system pods still see that they have a budget).
type pdbsAllowAll struct{ pdb.RemainingPdbTracker }

func (t pdbsAllowAll) MatchingPdbs(pod *apiv1.Pod) []*policyv1.PodDisruptionBudget {
	var out []*policyv1.PodDisruptionBudget
	for _, p := range t.RemainingPdbTracker.MatchingPdbs(pod) {
		c := p.DeepCopy()
		if c.Status.DisruptionsAllowed < 1 {
			c.Status.DisruptionsAllowed = 1
		}
		out = append(out, c)
	}
	return out
}

func (t pdbsAllowAll) CanRemovePods(pods []*apiv1.Pod) (bool, bool, *drain.BlockingPod) {
	return true, true, nil
}

// resimulate1_26 replaces the planner's verdicts on blocked nodes by 1.26's.
func resimulate1_26(ctx *ca_context.AutoscalingContext, l *loopRecord, deleteOptions options.NodeDeleteOptions, drainRules rules.Rules, now time.Time) {
	pdbs, err := ctx.PodDisruptionBudgetLister().List()
	if err != nil {
		return
	}
	nodes, err := ctx.AllNodeLister().List()
	if err != nil {
		return
	}
	destinations := map[string]bool{}
	for _, n := range nodes {
		destinations[n.Name] = true
	}
	rs := simulator.NewRemovalSimulator(ctx.ListerRegistry, ctx.ClusterSnapshot, deleteOptions, drainRules, false)
	kept := l.unremovable[:0]
	for _, u := range l.unremovable {
		// RecentlyUnremovable: blocked by the planner in an earlier loop, where
		// 1.26 may have found it removable.
		if u.Reason != simulator.NoPlaceToMovePods && u.Reason != simulator.BlockedByPod && u.Reason != simulator.RecentlyUnremovable {
			kept = append(kept, u)
			continue
		}
		tracker := pdb.NewBasicRemainingPdbTracker()
		if tracker.SetPdbs(pdbs) != nil {
			kept = append(kept, u)
			continue
		}
		nodeInfo, err := ctx.ClusterSnapshot.GetNodeInfo(u.Node.Name)
		if err != nil {
			kept = append(kept, u)
			continue
		}
		lenient := pdbsAllowAll{tracker}
		move, err := simulator.GetPodsToMove(nodeInfo, deleteOptions, drainRules, ctx.ListerRegistry, lenient, now)
		if err != nil {
			c := *u
			c.Reason, c.BlockingPod = simulator.UnexpectedError, nil
			if move.BlockingPod != nil {
				c.Reason, c.BlockingPod = simulator.BlockedByPod, move.BlockingPod
			}
			kept = append(kept, &c)
			continue
		}
		if ok, _, blocking := tracker.CanRemovePods(move.Pods); !ok {
			c := *u
			c.Reason, c.BlockingPod = simulator.BlockedByPod, blocking
			kept = append(kept, &c)
			continue
		}
		removable, unremovable := rs.SimulateNodeRemoval(u.Node.Name, destinations, now, lenient)
		if removable != nil {
			l.unneeded = append(l.unneeded, u.Node.Name)
			continue
		}
		c := *u
		c.Reason, c.BlockingPod = unremovable.Reason, unremovable.BlockingPod
		kept = append(kept, &c)
	}
	l.unremovable = kept
}

// kubernetes/autoscaler#7914 added a time limit to the drainability rule for
// kube-system pods without a disruption budget
// (simulator/drainability/rules/system): once such a pod is older than
// --blocking-system-pod-distruption-timeout (default 1 h) it no longer
// blocks scale-down. In CA 1.26 it always blocked (UnmovableKubeSystemPod).
// Pods without a creationTimestamp are a minute old in the reference, so
// this matters only to scenarios that date their pods.
func init() {
	compatSwitches["system-pods-always-block"] = compatSwitch{what: "kube-system pods without a PDB block scale-down whatever their age (CA 1.26; #7914 added the 1 h timeout)"}
}

// adjustOptions applies the switches that are options.
func (c compatSet) adjustOptions(o *config.AutoscalingOptions) {
	if c["system-pods-always-block"] {
		o.BspDisruptionTimeout = 1 << 62 // ~146 years
	}
}

// kubernetes/autoscaler#8975 (merged 2025-12, fixing #8707; cherry-picked to
// 1.32-1.34) made a node whose utilization equals the threshold
// underutilized (core/scaledown/eligibility: utilization > threshold is
// NotUnderutilized; it was >=). The switch hands the eligibility check the
// largest float64 below each threshold, so that > acts as 1.26's >=.
func init() {
	compatSwitches["threshold-inclusive"] = compatSwitch{what: "a node exactly at the utilization threshold is NotUnderutilized (CA 1.26; #8975)"}
}

type thresholdBelow struct {
	nodegroupconfig.NodeGroupConfigProcessor
}

func (t thresholdBelow) GetScaleDownUtilizationThreshold(ng cloudprovider.NodeGroup) (float64, error) {
	v, err := t.NodeGroupConfigProcessor.GetScaleDownUtilizationThreshold(ng)
	return math.Nextafter(v, math.Inf(-1)), err
}

func (t thresholdBelow) GetScaleDownGpuUtilizationThreshold(ng cloudprovider.NodeGroup) (float64, error) {
	v, err := t.NodeGroupConfigProcessor.GetScaleDownGpuUtilizationThreshold(ng)
	return math.Nextafter(v, math.Inf(-1)), err
}

func (c compatSet) adjustProcessors(p *ca_processors.AutoscalingProcessors) {
	if c["threshold-inclusive"] {
		p.NodeGroupConfigProcessor = thresholdBelow{p.NodeGroupConfigProcessor}
	}
}
